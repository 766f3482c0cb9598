package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"syscall"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// A tool that writes asks the user first, and the approval is part of the
// conversation's record: killed with SIGKILL while the approval waits, the
// server restarts with it still waiting; approved over JSON, the call runs
// exactly once, and the model is not asked again for what it had said.
func TestAnApprovalSurvivesSIGKILLAndTheCallRunsOnce(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t,
		llmtest.Reply{Chunks: []string{"I'll keep that for you."},
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "remember_note", Arguments: `{"text":"buy milk"}`}}},
		llmtest.Text("Noted: buy milk."))
	env := []string{"SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + model.URL}
	a := startApp(t, env...)
	cl := newEventsClient(t, a)
	conv := cl.start("assistant", "Remember to buy milk")
	asked := approvalAsked(cl.open(conv, ""))
	if asked["tool"] != "remember_note" || asked["agent"] != "notes" || asked["reason"] != "I'll keep that for you." {
		t.Errorf("the approval shows %v, want the notes agent's remember_note with the model's reason", asked)
	}

	a.stop(syscall.SIGKILL)
	a.start(env...)
	events := cl.open(conv, "")
	again := approvalAsked(events)
	if again["elicit"] != asked["elicit"] {
		t.Fatalf("after the restart %v waits, want the approval %v", again["elicit"], asked["elicit"])
	}
	answer, _ := json.Marshal(map[string]any{"action": "accept", "content": map[string]string{"choice": "once"}})
	res, err := cl.http.Post(a.URL+"/c/"+conv+"/elicits/"+asked["elicit"].(string), "application/json", bytes.NewReader(answer))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("the approval: %s %s, want 204", res.Status, body)
	}
	done := events.until("the reply", endsRun)
	if end := done[len(done)-1]; end.Data["status"] != "replied" || end.Data["text"] != "Noted: buy milk." {
		t.Errorf("the turn ended %s, want the reply", end.Raw)
	}

	// Read from the start, the record holds one run of the tool.
	whole := cl.open(conv, "")
	all := whole.until("the run's end", endsRun)
	var results []streamEvent
	for _, e := range all {
		if e.Type == "tool.result" {
			results = append(results, e)
		}
	}
	if len(results) != 1 || results[0].Data["output"] != "Noted: buy milk" {
		t.Errorf("tool results %s, want one, the note's", describeEvents(results))
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("the model was called %d times, want twice: the restart took its first answer from the record", n)
	}
}

// approvalAsked waits for the approval the stream shows asked and returns
// its id ("elicit") with what it shows (agent, tool, reason).
func approvalAsked(s *openStream) map[string]any {
	s.t.Helper()
	evs := s.until("an approval", func(evs []streamEvent) bool {
		e := evs[len(evs)-1]
		req, _ := e.Data["request"].(map[string]any)
		return e.Type == "elicit.asked" && req["kind"] == "approval"
	})
	e := evs[len(evs)-1]
	req := e.Data["request"].(map[string]any)
	out, _ := req["input"].(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	out["elicit"] = e.Data["elicit"]
	return out
}

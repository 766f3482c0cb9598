package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// A side question's reply over the event stream of the real binary: its
// deltas come as they stream, marked aside and of the side question's run,
// and resume after a dropped connection from the bytes the client holds; a
// side reply stopped mid-stream ends with what had streamed.
func TestTheEventStreamSendsASideRepliesDeltas(t *testing.T) {
	t.Parallel()
	side := []string{"Lisbon ", "is ", "sunny ", "and ", "warm."}
	model := llmtest.NewServer(t, llmtest.Text("Hello."), llmtest.Text(side...), llmtest.Reply{Chunks: []string{"Let me think "}, Hold: true})
	gate := newModelGate(t, model)
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+gate.URL)
	cl := newEventsClient(t, a)

	gate.allow(1)
	conv := cl.start("assistant", "hi")
	first := cl.open(conv, "")
	hello := first.until("the reply", endsRun)
	anchor := fmt.Sprint(hello[len(hello)-1].Data["node"])

	gate.allow(2)
	cl.post("/c/"+conv+"/nodes/"+anchor+"/aside", url.Values{"message": {"And the weather in Lisbon?"}}, http.StatusOK)
	got := first.until("two words of the side reply", func(evs []streamEvent) bool { return deltasJoined(evs) == strings.Join(side[:2], "") })
	started := got[0]
	if started.Type != "run.started" || started.Data["aside"] != true {
		t.Fatalf("the side question started with %s %s, want run.started aside", started.Type, started.Raw)
	}
	run := started.Data["run"]
	for _, e := range got[1:] {
		if e.Type == "token.delta" && (e.Data["aside"] != true || e.Data["run"] != run) {
			t.Errorf("a side delta %s, want it aside, of run %v", e.Raw, run)
		}
	}
	first.close()

	// Away while a word more comes; back, it is sent the rest of the draft.
	gate.allow(1)
	gate.waitPassed(t, 4)
	second := cl.open(conv, got[len(got)-1].ID)
	resumed := second.take(1)[0]
	if resumed.Type != "token.delta" || resumed.Data["aside"] != true || int(resumed.Data["offset"].(float64)) != len(strings.Join(side[:2], "")) {
		t.Fatalf("first event after coming back: %s %s, want the side draft's rest from byte %d", resumed.Type, resumed.Raw, len(strings.Join(side[:2], "")))
	}
	got = append(got, resumed)
	gate.allow(len(side) - 3)
	got = append(got, second.until("the side run's end", endsRun)...)
	end := got[len(got)-1]
	if end.Data["aside"] != true || end.Data["run"] != run || end.Data["text"] != strings.Join(side, "") || deltasJoined(got) != strings.Join(side, "") {
		t.Errorf("the side run ended %s, deltas joined %q:%s", end.Raw, deltasJoined(got), describeEvents(got))
	}
	seen := map[string]bool{}
	for _, e := range got {
		if seen[e.ID] {
			t.Errorf("event %s came twice:%s", e.ID, describeEvents(got))
		}
		seen[e.ID] = true
	}

	// A follow-up, stopped while its reply streams, keeps what streamed.
	gate.allow(1)
	cl.post("/c/"+conv+"/nodes/"+anchor+"/aside", url.Values{"message": {"And tomorrow?"}}, http.StatusOK)
	second.until("the follow-up's words", func(evs []streamEvent) bool { return deltasJoined(evs) == "Let me think " })
	cl.post("/c/"+conv+"/stop", nil, http.StatusNoContent)
	stopped := second.until("the follow-up's end", endsRun)
	if e := stopped[len(stopped)-1]; e.Data["status"] != "stopped" || e.Data["aside"] != true || e.Data["partial"] != "Let me think " {
		t.Errorf("the stopped follow-up ended %s, want stopped, aside, with its partial text", e.Raw)
	}
}

// post posts a form and checks the status.
func (cl *eventsClient) post(path string, form url.Values, want int) {
	cl.t.Helper()
	res, err := cl.http.PostForm(cl.base+path, form)
	if err != nil {
		cl.t.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		cl.t.Fatalf("POST %s = %d %s, want %d", path, res.StatusCode, out, want)
	}
}

package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// A turn that summarized the conversation for its model call and then
// waits on a question resumes after a restart: the replay takes the
// summary from the record, and its summary's own model call, which the
// replay does not make again, shifts none of the turn's calls.
func TestACompactedTurnResumesAfterARestart(t *testing.T) {
	ask := agents.Assistant{Name: "summing", Turn: func(ctx context.Context, message string) (string, error) {
		history, err := turn.History(ctx)
		if err != nil {
			return "", err
		}
		if _, err := turn.Sample(ctx, llm.Request{Messages: history}); err != nil {
			return "", err
		}
		if _, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{}); err != nil {
			return "", err
		}
		return "went on", nil
	}}
	s := startServer(t, registry.New(ask), offline.New())
	start := func() { // the service with a limit the second message passes
		db := storetest.OpenAt(t, s.path)
		s.db, s.svc = db, chat.New(chat.Config{Store: db, Assistants: s.reg, Model: s.llm, CompactTokens: 60})
	}
	s.stop()
	start()
	conv, _ := s.svc.Create(t.Context(), "me", "")
	var eid string
	for i := range 2 {
		if err := s.svc.Send(t.Context(), "me", conv.ID, strings.Repeat("word ", 40)); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
		if eid = pendingElicit(v).Request.ID; i == 0 {
			answerAndReply(t, s.svc, conv.ID, eid)
		}
	}
	turnOf := strings.Split(eid, "-")[0]
	if sums := s.nodes(conv.ID, tree.Summary); len(sums) != 1 || !strings.HasPrefix(sums[0].Ref, turnOf+"-") {
		t.Fatalf("summaries %+v, want one made by the waiting turn %s", sums, turnOf)
	}

	s.stop()
	start()
	if it := answerAndReply(t, s.svc, conv.ID, eid); it.Kind != tree.AssistantMessage || it.Text != "went on" {
		t.Fatalf("the resumed turn ended with %+v, want it to go on", it)
	}
}

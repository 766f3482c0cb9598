package chat_test

import (
	"context"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/policy"
)

// A turn whose code turns a tool's error into a friendly reply still
// survives a graceful restart while the tool's approval waits: the
// shutdown cuts the approval, and the reply the code makes of that is not
// the turn's end. After the restart the same approval waits again, and
// once allowed the tool runs once and the turn replies as it would have.
func TestAShutdownIsNotTakenForTheToolsFailure(t *testing.T) {
	ctx := t.Context()
	book := &notebook{effects: policy.Writes}
	notes := book.agent()
	friendly := func(ctx context.Context, message string) (string, error) {
		out, err := notes.Invoke(ctx, "remember_note", []byte(noteInput(message)))
		if err != nil {
			return "I could not add it: " + err.Error(), nil
		}
		return "Done: " + string(out), nil
	}
	s := &server{t: t, path: t.TempDir() + "/shutdown.db", llm: &noteModel{},
		reg: registry.New(agents.Assistant{Name: "friendly", Turn: friendly})}
	s.start()
	t.Cleanup(s.stop)

	conv, _ := s.svc.Create(ctx, "me", "friendly")
	s.send("me", conv.ID, "milk")
	asked := s.approval("me", conv.ID)

	s.restart()
	if got := s.approval("me", conv.ID); got.ID != asked.ID {
		t.Fatalf("after the restart %s waits, want the approval %s", got.ID, asked.ID)
	}
	if got := s.nodes(conv.ID, tree.AssistantMessage); len(got) != 0 {
		m, _ := tree.Decode[tree.Message](got[0])
		t.Fatalf("the shutdown ended the turn with the reply %q; want it suspended", m.Text)
	}
	s.approve("me", conv.ID, asked.ID, elicit.Approval{Choice: elicit.AllowOnce})
	if got, want := s.reply("me", conv.ID), `Done: "noted: milk"`; got != want {
		t.Errorf("reply %q, want %q", got, want)
	}
	if got, want := book.notes(), []string{"milk"}; !slices.Equal(got, want) {
		t.Errorf("the tool ran with %q, want %q", got, want)
	}
}

// blockingModel blocks its first call until the call's context ends, and
// answers the next ones.
type blockingModel struct {
	started chan struct{}
	calls   atomic.Int32
}

func (*blockingModel) Name() string { return "blocking" }

func (m *blockingModel) Complete(ctx context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	if m.calls.Add(1) == 1 {
		close(m.started)
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	return llm.Response{Content: "It is sunny.", FinishReason: "stop"}, nil
}

// A model call the shutdown cuts is not recorded as failed: after the
// restart the turn calls the model again and replies, whatever its code
// made of the error.
func TestAModelCallCutByAShutdownIsMadeAgainAfterTheRestart(t *testing.T) {
	ctx := t.Context()
	model := &blockingModel{started: make(chan struct{})}
	friendly := func(ctx context.Context, message string) (string, error) {
		out, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: message}}})
		if err != nil {
			return "The model failed: " + err.Error(), nil
		}
		return out.Content, nil
	}
	s := &server{t: t, path: t.TempDir() + "/shutdown.db", llm: model,
		reg: registry.New(agents.Assistant{Name: "friendly", Turn: friendly})}
	s.start()
	t.Cleanup(s.stop)
	conv, _ := s.svc.Create(ctx, "me", "friendly")
	s.send("me", conv.ID, "Weather?")
	<-model.started

	s.restart()
	if _, err := s.svc.View(ctx, "me", conv.ID); err != nil { // loads it: the turn resumes
		t.Fatal(err)
	}
	if got, want := s.reply("me", conv.ID), "It is sunny."; got != want {
		t.Errorf("reply %q, want %q", got, want)
	}
}

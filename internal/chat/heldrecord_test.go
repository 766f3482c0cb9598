package chat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

// A turn that runs a program's tool call (Message.Call, as MCP sends) holds
// its tool's record to be written with its reply, which is the tool's
// outcome. These tests hold the service to what that must not change: the
// record has the tool's call, after the answer it followed and before the
// reply that reports it, whatever fails, and an answer is on disk when
// its sender is told it was accepted.

// newCaller returns the assistant whose turn runs the call its message is,
// as MCP's does: it calls the greet tool, which asks the name first when
// ask is set, and returns the tool's outcome typed, its reply saying the
// same.
func newCaller(ask bool) agents.Assistant {
	a := agents.New("greeter", "Greets.")
	greet := agents.NewTool(a, "greet", "Greets the user", func(ctx context.Context, _ struct{}) (string, error) {
		if !ask {
			return "Hello", nil
		}
		res, err := turn.Ask(ctx, benchForm, "What is your name?", struct{}{})
		if err != nil {
			return "", err
		}
		return "Hello, " + res.Content.Answer, nil
	})
	return agents.Assistant{
		Name: "caller", Description: "Runs a program's calls.", Input: agents.Queue,
		Turn: func(ctx context.Context, message string) (string, error) {
			if _, typed := chat.CallOf(ctx); !typed {
				return "", context.Canceled
			}
			out, err := greet.Call(ctx, struct{}{})
			if err != nil {
				return "", err
			}
			raw, _ := json.Marshal(out)
			chat.ReturnCall(ctx, tree.CallOutcome{Output: raw})
			return out, nil
		},
	}
}

// sendCall starts a conversation with the caller and sends it a call of
// the greet tool.
func sendCall(t *testing.T, svc *chat.Service) string {
	t.Helper()
	c, err := svc.Create(t.Context(), "me", "caller")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMessage(t.Context(), "me", c.ID, inbound.Message{Text: "greeter.greet", Call: &tree.Call{Tool: "greeter.greet"}}); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// lastKinds returns the kinds of the conversation's newest n nodes on
// disk, oldest first.
func lastKinds(t *testing.T, w *writeCounter, conv string, n int) []tree.Kind {
	t.Helper()
	nodes, err := w.DB.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []tree.Kind
	for _, nd := range nodes[max(len(nodes)-n, 0):] {
		kinds = append(kinds, nd.Kind)
	}
	return kinds
}

func TestACallsToolRecordIsWrittenWithItsReply(t *testing.T) {
	t.Run("after an answer", func(t *testing.T) {
		svc, w := newCountedService(t, chat.Config{Assistants: registry.New(newCaller(true)), Model: offline.New(), AnswerHold: patientHold})
		conv := sendCall(t, svc)
		eid := pendingElicit(waitView(t, svc, "me", conv, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })).Request.ID
		w.reset()

		if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"answer":"Bea"}`)); err != nil {
			t.Fatal(err)
		}
		if got := answered(t, w.DB, conv, eid); len(got) != 1 {
			t.Fatalf("Answer returned with %d answers on disk, want 1", len(got))
		}
		waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "Hello, Bea" })
		if n := w.reset(); n != 1 {
			t.Errorf("the answer, the tool's record and the reply took %d commits, want 1", n)
		}
		got, want := lastKinds(t, w, conv, 3), []tree.Kind{tree.ElicitResponse, tree.ToolCall, tree.AssistantMessage}
		if !equalKinds(got, want) {
			t.Errorf("the record ends with %v, want %v", got, want)
		}
	})
	t.Run("asking nothing", func(t *testing.T) {
		svc, w := newCountedService(t, chat.Config{Assistants: registry.New(newCaller(false)), Model: offline.New()})
		conv := sendCall(t, svc)
		waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "Hello" })
		// The conversation's start, the message, then the record and the reply.
		if n := w.reset(); n != 2 {
			t.Errorf("the message, the tool's record and the reply took %d commits, want 2", n)
		}
		got, want := lastKinds(t, w, conv, 3), []tree.Kind{tree.UserMessage, tree.ToolCall, tree.AssistantMessage}
		if !equalKinds(got, want) {
			t.Errorf("the record ends with %v, want %v", got, want)
		}
	})
}

func TestACallsToolRecordWhoseSharedCommitFailsIsWrittenApart(t *testing.T) {
	svc, w := newCountedService(t, chat.Config{Assistants: registry.New(newCaller(true)), Model: offline.New()})
	w.fail = func(nodes []tree.Node) bool { return len(nodes) > 1 } // every shared commit
	conv := sendCall(t, svc)
	eid := pendingElicit(waitView(t, svc, "me", conv, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })).Request.ID

	if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"answer":"Bea"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "Hello, Bea" })
	got, want := lastKinds(t, w, conv, 3), []tree.Kind{tree.ElicitResponse, tree.ToolCall, tree.AssistantMessage}
	if !equalKinds(got, want) {
		t.Errorf("the record ends with %v, want %v", got, want)
	}
}

func equalKinds(a, b []tree.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAToolCalledInsideACallsToolIsOnDiskBeforeTheOuterGoesOn(t *testing.T) {
	// The outer tool may act on the world once the inner one returned, as
	// a tool that books what another looked up: what the inner returned
	// must not be lost to a crash after that, or it would run again.
	var w *writeCounter
	var conv string
	onDisk := make(chan bool, 1)
	a := agents.New("booker", "Books what it looked up.")
	lookUp := agents.NewTool(a, "look_up", "Looks a flight up", func(ctx context.Context, _ struct{}) (string, error) {
		return "BA 123", nil
	})
	book := agents.NewTool(a, "book", "Books a flight", func(ctx context.Context, _ struct{}) (string, error) {
		flight, err := lookUp.Call(ctx, struct{}{})
		if err != nil {
			return "", err
		}
		kinds := lastKinds(t, w, conv, 1)
		onDisk <- len(kinds) == 1 && kinds[0] == tree.ToolCall
		return "booked " + flight, nil
	})
	caller := agents.Assistant{
		Name: "caller", Description: "Runs a program's calls.", Input: agents.Queue,
		Turn: func(ctx context.Context, message string) (string, error) {
			out, err := book.Call(ctx, struct{}{})
			if err != nil {
				return "", err
			}
			raw, _ := json.Marshal(out)
			chat.ReturnCall(ctx, tree.CallOutcome{Output: raw})
			return out, nil
		},
	}
	svc, counted := newCountedService(t, chat.Config{Assistants: registry.New(caller), Model: offline.New()})
	w = counted
	c, err := svc.Create(t.Context(), "me", "caller")
	if err != nil {
		t.Fatal(err)
	}
	conv = c.ID
	if _, err := svc.SendMessage(t.Context(), "me", conv, inbound.Message{Text: "booker.book", Call: &tree.Call{Tool: "booker.book"}}); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "booked BA 123" })
	if !<-onDisk {
		t.Error("the inner tool's record was not on disk when the outer tool went on")
	}
	got, want := lastKinds(t, w, conv, 4), []tree.Kind{tree.UserMessage, tree.ToolCall, tree.ToolCall, tree.AssistantMessage}
	if !equalKinds(got, want) {
		t.Errorf("the record ends with %v, want %v", got, want)
	}
}

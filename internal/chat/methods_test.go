package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/protocol"
)

type signArgs struct {
	Document string `json:"document"`
}

type signProgress struct {
	Status string `json:"status" enum:"opening,signing"`
}

type signature struct {
	Name string `json:"name" min:"1"`
}

var signHere = protocol.Declare[signArgs, signProgress, signature]("sign-here", "Sign the document")

// signer asks before it calls: a page that said it does not implement the
// method is not asked at all; otherwise the call's outcome and the progress
// it heard make the reply.
var signer = agents.Assistant{Name: "signer", Turn: func(ctx context.Context, msg string) (string, error) {
	if !protocol.Supported(ctx, signHere) {
		return "this page cannot sign", nil
	}
	var heard []string
	out, err := protocol.Invoke(ctx, signHere, "Sign here, please.", signArgs{Document: "lease"},
		func(p signProgress) { heard = append(heard, p.Status) })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %v", out.Status, out.Result.Name, heard), nil
}}

func newSignerService(t *testing.T) *chat.Service {
	t.Helper()
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(signer), Kinds: kindset.New(protocol.Kinds(protocol.Protocol{Name: "signing", Methods: []elicit.Registered{signHere}})...), Model: offline.New()})
	return svc
}

// A method is a question of the conversation: its typed progress reaches
// the agent, data that breaks the progress schema and a result that breaks
// the result's are refused with the reason, and the outcome comes back.
func TestAMethodsProgressAndResultAreChecked(t *testing.T) {
	svc := newSignerService(t)
	conv, _ := svc.Create(t.Context(), "me", "signer")
	if err := svc.Send(t.Context(), "me", conv.ID, "sign it"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the call", func(v pageview.View) bool { return pendingElicit(v) != nil })
	req := pendingElicit(v).Request
	if req.Kind != "sign-here" || req.Progress == nil || string(req.Input) != `{"document":"lease"}` {
		t.Fatalf("request %+v: want the method, its args and its progress schema", req)
	}
	err := svc.Progress(t.Context(), "me", conv.ID, req.ID, elicit.Progress{Data: json.RawMessage(`{"status":"dancing"}`)})
	if apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("progress off its schema: %v, want Invalid", err)
	}
	big := elicit.Progress{Stage: "opening", Message: strings.Repeat("x", inbound.MaxProgressBytes)}
	if err := svc.Progress(t.Context(), "me", conv.ID, req.ID, big); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a report of %d bytes: %v, want Invalid", inbound.MaxProgressBytes+7, err)
	}
	for _, s := range []string{"opening", "signing"} {
		if err := svc.Progress(t.Context(), "me", conv.ID, req.ID, elicit.Progress{Stage: s, Data: json.RawMessage(`{"status":"` + s + `"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	err = svc.Answer(t.Context(), "me", conv.ID, req.ID, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"name":""}`)})
	if apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a result off its schema: %v, want Invalid", err)
	}
	if err := svc.Answer(t.Context(), "me", conv.ID, req.ID, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"name":"Ada"}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
	if got, want := lastItem(v).Text, "done Ada [opening signing]"; got != want {
		t.Fatalf("reply %q, want %q", got, want)
	}
}

// A page that said which methods it implements: an agent asking about
// another learns it is not supported, without a question asked; a name
// that no kind could have is refused.
func TestAPageSaysWhatItImplements(t *testing.T) {
	svc := newSignerService(t)
	conv, _ := svc.Create(t.Context(), "me", "signer")
	if err := svc.Implements(t.Context(), "me", conv.ID, []string{"location", "bad name"}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a name with a space: %v, want Invalid", err)
	}
	if err := svc.Implements(t.Context(), "other", conv.ID, []string{"location"}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("another session's conversation: %v, want NotFound", err)
	}
	f, _, err := svc.Subscribe(t.Context(), "me", conv.ID) // the page holds the conversation in memory
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := svc.Implements(t.Context(), "me", conv.ID, []string{"location", "clipboard-read"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", conv.ID, "sign it"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; got != "this page cannot sign" {
		t.Fatalf("reply %q, want the agent to learn the page cannot sign", got)
	}
	for _, it := range v.Items {
		if it.Kind == tree.ElicitRequest {
			t.Fatalf("a question was asked: %+v", it)
		}
	}
}

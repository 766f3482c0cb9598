package chat_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// A failure of an endpoint that is not OpenAI's is not said to come from
// "openai": the chat's details name the endpoint by the model it was
// configured to serve, and not by its host, which the chat page keeps to
// itself; the calls page names the host.
func TestAFailureNamesTheEndpointAsConfigured(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Fail(500, "The server had an error."))
	host := strings.TrimPrefix(strings.TrimSuffix(fake.URL, "/v1"), "http://")
	svc, db := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "llama3.2", MaxRetries: -1}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the failure", func(v pageview.View) bool { return !v.Status.Running })
	it := lastItem(v)
	if it.Kind != tree.TurnError {
		t.Fatalf("last item = %+v, want the failure", it)
	}
	if want := "(HTTP 500 from the endpoint serving llama3.2)"; !strings.Contains(it.Details, want) {
		t.Errorf("details = %q, want them to say %q", it.Details, want)
	}
	if strings.Contains(it.Details, "openai") || strings.Contains(it.Details, host) {
		t.Errorf("details = %q name openai or the endpoint's host %s", it.Details, host)
	}

	d, err := calls.New(db, svc).List(t.Context(), "s", calls.Filter{Conversation: conv.ID})
	if err != nil {
		t.Fatal(err)
	}
	var recorded string
	for _, e := range d.Conversations[0].Turns[0].Entries {
		if e.Call != nil {
			recorded = e.Call.Record.Error
		}
	}
	if want := "llama3.2 @ " + host; !strings.Contains(recorded, want) {
		t.Errorf("the calls page says %q, want it to name %q", recorded, want)
	}
}

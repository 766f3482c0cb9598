package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// A reply that streams in shows on the page draft after draft, each exactly
// the rendering of the model's text so far, though the page's stream
// renders only what changed (markdown.Drafts); and its message ends as the
// rendering of the whole text.
func TestTheStreamShowsEachDraftAsTheTextSoFar(t *testing.T) {
	script := newTokenScript(1)
	model := newPacedModel(script, 1, 3*time.Millisecond)
	model.srv = httptest.NewServer(model)
	defer model.srv.Close()
	a := newTestAppWith(t, chat.Config{
		Assistants: registry.New(demo.Agents(demo.Options{AssistantFirst: true})...),
		Kinds:      kindset.New(demo.Kinds()...),
		Model:      openai.New(openai.Config{APIKey: "test", BaseURL: model.srv.URL + "/v1", Model: "test"}),
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := openTokenPage(ctx, a.srv.URL, http.DefaultTransport, 0, script)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	// converse fails on a draft that is not the text so far rendered, or a
	// message that is not the whole text rendered (see tokenPage.read).
	if err := p.converse(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	tokens := len(script.replies[0].tokens)
	if got := p.shown(0); got != tokens {
		t.Errorf("the page showed %d of the reply's %d tokens", got, tokens)
	}
	if got := p.drafts.Load(); got < 10 {
		t.Errorf("the page showed %d drafts of a reply of %d tokens streamed over %v, want many", got, tokens,
			time.Duration(tokens)*3*time.Millisecond)
	}
}

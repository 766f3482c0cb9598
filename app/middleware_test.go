package app

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// parrot is a model that says back the last message it was sent.
type parrot struct{}

func (parrot) Name() string { return "parrot" }

func (parrot) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	return llm.Response{Content: "you said: " + req.Messages[len(req.Messages)-1].Content}, nil
}

// TestAnApplicationsMiddlewareWrapsItsModelCalls: middleware an application
// installs in Config.Scope with package middleware alone sees every model
// call its turns make, the request on its way in and the reply on its way
// out, inside the default middleware: the address the user typed is
// redacted before the application's middleware sees it.
func TestAnApplicationsMiddlewareWrapsItsModelCalls(t *testing.T) {
	var asked []string
	cfg := Config{Name: testName, Model: parrot{},
		Assistants: []agents.Assistant{{Name: "parrot",
			Turn: func(ctx context.Context, message string) (string, error) {
				resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: message}}})
				return resp.Content, err
			}}},
		Scope: func(ctx context.Context) context.Context {
			return middleware.Sample.Around(ctx, func(next middleware.Handler[llm.Request, llm.Response]) middleware.Handler[llm.Request, llm.Response] {
				return func(ctx context.Context, req llm.Request) (llm.Response, error) {
					asked = append(asked, req.Messages[len(req.Messages)-1].Content)
					resp, err := next(ctx, req)
					resp.Content = strings.ToUpper(resp.Content)
					return resp, err
				}
			}, middleware.Min)
		},
	}
	var out strings.Builder
	p := newProgram(cfg, func(string) string { return "" }, strings.NewReader("hi, I am ann@example.com\n"), &out, io.Discard)
	if err := p.run(t.Context(), []string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"hi, I am [email]"}; strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("the application's middleware saw the model asked %q, want %q", asked, want)
	}
	if want := "YOU SAID: HI, I AM [EMAIL]"; !strings.Contains(out.String(), want) {
		t.Errorf("the terminal lacks the reply as the middleware made it, %q:\n%s", want, &out)
	}
}

package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Session is the session the conversations of a Server belong to, for
// calls of its Service.
const Session = "agenttest"

// Wait is how long a Conversation waits for what it waits on (a question,
// a reply) before it fails the test.
const Wait = 10 * time.Second

// Server is the real chat service running an assistant, on a SQLite file
// of the test's own, with the scripted model and user of its options:
// every call of a turn is recorded and replayed as in production, so a
// test can restart the service in the middle of a turn. Made by Serve.
type Server struct {
	t         testing.TB
	assistant agents.Assistant
	cfg       config
	kinds     *kindset.Set
	path      string

	db  *store.DB
	svc *chat.Service

	mu       sync.Mutex
	tools    []ToolCall
	reported map[string]bool // problems the test was failed with already
}

// Serve starts the chat service with a as its assistant on a fresh SQLite
// file in t's temporary directory, and stops it when the test ends. The
// model is the scripted one of opts (Model), the user's answers come from
// the scripted user (User) or from the test (Conversation's Answer), and
// the server checks answers by the built-in kinds and those of Kinds.
// Serve is as strict as Run: each problem Play names fails the test,
// those found while the test runs at the Conversation call that meets
// them, unused script steps when the test ends.
//
// The service decides what a message sent while a question waits is by a
// plain rule, not by asking the model, so that every model call is the
// assistant's own.
func Serve(t testing.TB, a agents.Assistant, opts ...Option) *Server {
	t.Helper()
	cfg := configure(opts)
	cfg.model.watch()
	s := &Server{t: t, assistant: a, cfg: cfg, kinds: cfg.checker(), path: filepath.Join(t.TempDir(), "agenttest.db"),
		reported: map[string]bool{}}
	s.start()
	t.Cleanup(s.end)
	return s
}

// Restart stops the service, as a process that ends does — turns waiting
// on questions stay recorded — and starts a new one on the same file. A
// conversation resumes its turn when it is next used, by replay: each call
// the turn made before is answered from the record, and the model and the
// tools are not called again.
func (s *Server) Restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

// Tools returns the tool calls that ran, in the order they ended; a tool
// call a replay answered from the record is not among them.
func (s *Server) Tools() []ToolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

// Send starts a conversation with the assistant and sends it message.
func (s *Server) Send(message string) *Conversation {
	s.t.Helper()
	c := &Conversation{s: s, answered: map[string]bool{}}
	conv, err := s.svc.Create(s.t.Context(), Session, s.assistant.Name)
	if err != nil {
		s.t.Fatalf("agenttest: start a conversation: %v", err)
		return c
	}
	c.ID = conv.ID
	c.Send(message)
	return c
}

func (s *Server) start() {
	db, err := store.Open(context.Background(), s.path, store.Options{})
	if err != nil {
		s.t.Fatalf("agenttest: open the database: %v", err)
		return
	}
	s.db = db
	s.svc = chat.New(chat.Config{Store: s.db, Assistants: registry.New(s.assistant), Model: s.cfg.model,
		Kinds: s.kinds, DecideByRule: true, Scope: s.scope, Files: servedFiles{&s.cfg.user.files}})
}

func (s *Server) stop() {
	if s.svc != nil {
		s.svc.Close()
		s.db.Close()
		s.svc, s.db = nil, nil
	}
}

// end stops the service when the test ends and fails the test with the
// problems it was not failed with yet: unused steps, if nothing went wrong
// before (else what the scripts hold past it is no news).
func (s *Server) end() {
	s.stop()
	problems := s.found()
	if len(problems) == 0 && !s.t.Failed() {
		problems = append(s.cfg.model.check(), s.cfg.user.check()...)
	}
	if msg := s.fresh(problems); msg != "" {
		s.t.Errorf("%s", msg)
	}
}

// found lists the problems the scripts found so far.
func (s *Server) found() []string {
	return append(s.cfg.model.found(), s.cfg.user.found()...)
}

// fresh returns those of problems the test was not failed with yet, as
// the message to fail it with; "" when there are none.
func (s *Server) fresh(problems []string) string {
	var fresh []string
	for _, p := range problems {
		if !s.reported[p] {
			s.reported[p] = true
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		return ""
	}
	return fmt.Sprintf("agenttest: %s: %v", s.assistant.Name, &ScriptError{Problems: fresh})
}

// scope is the context of every turn: the application's own, then what
// the scripts must hear of the turn.
func (s *Server) scope(ctx context.Context) context.Context {
	if s.cfg.scope != nil {
		ctx = s.cfg.scope(ctx)
	}
	ctx = middleware.Elicit.Around(ctx, s.heard, middleware.Max)
	// Beneath the service's record: only calls that really run reach it.
	return agents.ToolAPI.Around(ctx, s.tool, middleware.Min)
}

// heard tells the model's script of each question asked.
func (s *Server) heard(next middleware.Handler[elicit.Request, elicit.Response]) middleware.Handler[elicit.Request, elicit.Response] {
	return func(ctx context.Context, req elicit.Request) (elicit.Response, error) {
		s.cfg.model.heard(req)
		return next(ctx, req)
	}
}

// tool records each tool call that runs.
func (s *Server) tool(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
		out, err := next(ctx, c)
		s.mu.Lock()
		s.tools = append(s.tools, ToolCall{Agent: c.Agent, Tool: c.Tool, Input: c.Input, Output: out, Err: err})
		s.mu.Unlock()
		return out, err
	}
}

package chat_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The kit of the consent tests: an assistant whose model keeps notes with
// a tool that writes, under the rules a test sets for the program.

// noteTool is the tool the tests decide on, as rules name it.
const noteTool = "notes/remember_note"

type noteIn struct {
	Text string `json:"text" desc:"What to remember"`
}

// notebook is the notes agent's store: what its tool ran with, in order.
// With confirm, the tool asks the user to confirm each note before it
// keeps it.
type notebook struct {
	mu      sync.Mutex
	kept    []string
	confirm bool
	effects policy.Effect // what its tool declares it does
}

func (n *notebook) notes() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.kept)
}

func (n *notebook) agent() *agents.Agent {
	a := agents.New("notes", "Keeps notes")
	agents.NewTool(a, "remember_note", "Keeps a note for later", func(ctx context.Context, in noteIn) (string, error) {
		if n.confirm {
			if _, err := turn.Ask(ctx, elicit.Confirm, "Keep "+in.Text+"?", elicit.ConfirmInput{}); err != nil {
				return "", err
			}
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		n.kept = append(n.kept, in.Text)
		return "noted: " + in.Text, nil
	}).Does(n.effects)
	return a
}

// noteModel calls remember_note with the turn's message, saying why, as
// long as it is offered and has been called fewer than tries times in the
// turn (once when tries is 0); with askAfter it then asks the user whether
// anything else is needed; then it answers with every tool result of the
// turn.
type noteModel struct {
	tries    int
	askAfter bool
	calls    atomic.Int32
}

func (*noteModel) Name() string { return "note-taker" }

func (m *noteModel) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	m.calls.Add(1)
	var message string
	var results []string
	for _, msg := range req.Messages {
		switch msg.Role {
		case llm.User:
			message, results = msg.Content, nil
		case llm.Tool:
			var text string
			if json.Unmarshal([]byte(msg.Content), &text) != nil {
				text = msg.Content // a denial, or an answer: not a string result
			}
			results = append(results, text)
		}
	}
	offered := slices.ContainsFunc(req.Tools, func(s llm.ToolSpec) bool { return s.Name == "remember_note" })
	if offered && len(results) < max(m.tries, 1) {
		args, _ := json.Marshal(noteIn{Text: message})
		return llm.Response{Content: "I'll note that.", FinishReason: "tool_calls",
			ToolCalls: []llm.ToolCall{{ID: "call_note", Name: "remember_note", Arguments: string(args)}}}, nil
	}
	if m.askAfter && !slices.ContainsFunc(results, func(r string) bool { return strings.Contains(r, `"action"`) }) {
		return llm.Response{FinishReason: "tool_calls",
			ToolCalls: []llm.ToolCall{{ID: "call_ask", Name: agents.AskUserTool, Arguments: `{"question":"Anything else?","kind":"confirm"}`}}}, nil
	}
	return llm.Response{Content: strings.Join(results, " / "), FinishReason: "stop"}, nil
}

// consentServer starts a service whose assistant "keeper" takes notes
// with model, under the program's rules; scope, if given, is the
// program's root scope around them.
func consentServer(t *testing.T, model *noteModel, rules ...policy.Rule) (*server, *notebook) {
	t.Helper()
	book := &notebook{}
	return keeperServer(t, model, book, nil, rules...), book
}

// keeperServer starts a service whose assistant "keeper", under its own
// policy assistant, takes notes in book with model, under the program's
// rules.
func keeperServer(t *testing.T, model *noteModel, book *notebook, assistant []policy.Rule, rules ...policy.Rule) *server {
	t.Helper()
	loop := agents.Loop{System: "You keep notes.", Agents: []*agents.Agent{book.agent()}, AskUser: true}
	s := &server{t: t, path: t.TempDir() + "/consent.db", llm: model,
		reg:   registry.New(agents.Assistant{Name: "keeper", Turn: loop.Turn, Policy: assistant}),
		scope: func(ctx context.Context) context.Context { return policy.Program(ctx, rules...) }}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// approval waits for the approval the conversation shows waiting.
func (s *server) approval(session, conv string) elicit.Request {
	s.t.Helper()
	v := waitView(s.t, s.svc, session, conv, "an approval", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Kind == elicit.Approve.Name
	})
	return pendingElicit(v).Request
}

// approve answers approval eid with a.
func (s *server) approve(session, conv, eid string, a elicit.Approval) {
	s.t.Helper()
	content, _ := json.Marshal(a)
	if err := s.svc.Answer(s.t.Context(), session, conv, eid, accept(string(content))); err != nil {
		s.t.Fatalf("answer approval %s with %+v: %v", eid, a, err)
	}
}

// reply waits for the turn to end in a reply and returns its text.
func (s *server) reply(session, conv string) string {
	s.t.Helper()
	v := waitView(s.t, s.svc, session, conv, "the reply", func(v pageview.View) bool {
		return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage
	})
	return lastItem(v).Text
}

// send sends text to the conversation.
func (s *server) send(session, conv, text string) {
	s.t.Helper()
	if err := s.svc.Send(s.t.Context(), session, conv, text); err != nil {
		s.t.Fatal(err)
	}
}

// audits returns the audit of every tool call recorded in the
// conversation, on any branch, in the order they were made.
func (s *server) audits(conv string) []tree.ToolRecord {
	s.t.Helper()
	var out []tree.ToolRecord
	for _, n := range s.nodes(conv, tree.ToolCall) {
		rec, err := tree.Decode[tree.ToolRecord](n)
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// audit is the part of a tool call's record a test compares.
type audit struct {
	Input, Decision, DecidedBy, Approval, Outcome string
	Ran                                           bool
}

func auditOf(rec tree.ToolRecord) audit {
	return audit{Input: string(rec.Input), Decision: rec.Decision, DecidedBy: rec.DecidedBy, Approval: rec.Approval, Outcome: rec.Outcome, Ran: rec.Started != 0}
}

func auditsOf(recs []tree.ToolRecord) []audit {
	out := make([]audit, len(recs))
	for i, r := range recs {
		out[i] = auditOf(r)
	}
	return out
}

// noteInput is the recorded input of a note of text.
func noteInput(text string) string {
	b, _ := json.Marshal(noteIn{Text: text})
	return string(b)
}

// message returns the newest user message of the conversation that says
// text, on any branch.
func (s *server) message(conv, text string) tree.Node {
	s.t.Helper()
	msgs := s.nodes(conv, tree.UserMessage)
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, _ := tree.Decode[tree.Message](msgs[i]); m.Text == text {
			return msgs[i]
		}
	}
	s.t.Fatalf("no message %q", text)
	return tree.Node{}
}

// reflogEntry returns the reflog entry that moved HEAD to node.
func (s *server) reflogEntry(conv string, node int64) int64 {
	s.t.Helper()
	entries, err := s.db.Reflog(s.t.Context(), conv)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, e := range entries {
		if e.Head == node {
			return e.ID
		}
	}
	s.t.Fatalf("no reflog entry moved HEAD to %d", node)
	return 0
}

package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// builder reads a path into messages (version 1).
type builder struct {
	idx    *tree.Index
	last   int64
	skip   map[int64]bool // side questions whose thread is not added as a side
	nested func(ref string) bool
	out    []Message
	open   *exchange
	asked  map[string]bool // approvals asked: their answers are left out too
	files  map[string]bool // files asked for: their answers carry the file
}

// exchange is a model's tool calls waiting for their results: the calls
// are given the model with the results that were recorded, together, once
// the calls are over.
type exchange struct {
	node    int64
	content string
	calls   []llm.ToolCall
	results map[string]string // call id → the result as the model read it
}

func (b *builder) add(node int64, role llm.Role, content string) {
	b.out = append(b.out, Message{Node: node, Message: llm.Message{Role: role, Content: content}})
}

// node adds what n says to the model.
func (b *builder) node(n tree.Node) {
	switch n.Kind {
	case tree.UserMessage, tree.SideQuestion:
		b.flush()
		m, _ := tree.Decode[tree.Message](n)
		b.add(n.ID, llm.User, m.Text)
		b.out[len(b.out)-1].Attachments = m.Attachments
	case tree.AssistantMessage, tree.SideReply:
		b.flush()
		m, _ := tree.Decode[tree.Message](n)
		b.add(n.ID, llm.Assistant, m.Text)
	case tree.Stopped, tree.TurnError:
		b.flush()
	case tree.Summary:
		b.flush()
		s, _ := tree.Decode[tree.SummaryRecord](n)
		b.out = ApplySummary(b.out, n.ID, s)
	case tree.Figure:
		// What the user was shown, so the model knows in later turns:
		// the figure as the terminal prints it.
		if f, err := tree.Decode[figure.Figure](n); err == nil {
			b.add(n.ID, llm.Assistant, "(Shown to the user:)\n"+figure.Text(f))
		}
	case tree.ElicitRequest:
		b.question(n)
	case tree.ElicitResponse:
		b.answer(n)
	case tree.Sample:
		b.sample(n)
	case tree.ToolCall:
		b.tool(n)
	}
}

// question words a question asked of the user. An approval of a tool call
// is left out: the call's result says what came of it.
func (b *builder) question(n tree.Node) {
	req, err := tree.Decode[elicit.Request](n)
	if err != nil {
		return
	}
	if req.Kind == elicit.Approve.Name {
		if b.asked == nil {
			b.asked = map[string]bool{}
		}
		b.asked[n.Ref] = true
		return
	}
	if req.Kind == elicit.AskFile.Name {
		if b.files == nil {
			b.files = map[string]bool{}
		}
		b.files[n.Ref] = true
	}
	text := "(Asked the user, as a " + req.Kind + ":) " + req.Message
	if in := compact(req.Input); in != "" && in != "{}" && in != "null" {
		text += "\nOffered: " + clip(in, maxOffered)
	}
	b.add(n.ID, llm.Assistant, text)
}

// answer words the user's answer to a question, with its values: the
// content as JSON and words answers whole, where words.Answer (for people
// comparing branches) flattens the fields and clips the words.
func (b *builder) answer(n tree.Node) {
	if b.asked[n.Ref] {
		return
	}
	resp, err := tree.Decode[elicit.Response](n)
	if err != nil {
		return
	}
	var text string
	switch resp.Action {
	case elicit.Accept:
		var f elicit.File
		if b.files[n.Ref] && json.Unmarshal(resp.Content, &f) == nil && f.ID != "" {
			// The file itself, as a message's files are (package attach).
			b.add(n.ID, llm.User, "(Answered with a file:) "+f.Name)
			b.out[len(b.out)-1].Attachments = []tree.Attachment{{ID: f.ID, Name: f.Name, Type: f.Type, Size: f.Size}}
			return
		}
		text = "(Answered:) " + compact(resp.Content)
	case elicit.Other:
		text = "(Answered in words:) " + resp.Text
	case elicit.Decline:
		text = "(Declined to answer.)"
	case elicit.Cancel:
		text = "(Dismissed the question.)"
	default:
		text = "(Answered: " + string(resp.Action) + ")"
	}
	b.add(n.ID, llm.User, text)
}

// sample opens the exchange of a model call that called tools. A call made
// within a tool is the tool's own working, which its result stands for.
func (b *builder) sample(n tree.Node) {
	if b.nested(n.Ref) {
		return
	}
	b.flush()
	// Only the reply is read: the request may be long, and is not needed.
	rec, err := tree.Decode[struct {
		Response *llm.Response `json:"response"`
	}](n)
	if err != nil || rec.Response == nil || len(rec.Response.ToolCalls) == 0 {
		return
	}
	b.open = &exchange{node: n.ID, content: rec.Response.Content, calls: rec.Response.ToolCalls, results: map[string]string{}}
}

// tool adds a finished tool call: to the model's exchange it answers, or,
// called by the turn's own code, as an exchange of its own, named by its
// call id.
func (b *builder) tool(n tree.Node) {
	if b.nested(n.Ref) {
		return
	}
	rec, err := tree.Decode[tree.ToolRecord](n)
	if err != nil {
		return
	}
	if e := b.open; e != nil && rec.CallID != "" {
		if _, ok := e.results[rec.CallID]; !ok && e.has(rec.CallID) {
			e.results[rec.CallID] = result(rec)
			if len(e.results) == len(e.calls) {
				b.flush()
			}
			return
		}
	}
	args := compact(rec.Input)
	if args == "" || args == "null" {
		args = "{}"
	}
	call := llm.ToolCall{ID: n.Ref, Name: rec.Tool, Arguments: args}
	b.out = append(b.out,
		Message{Node: n.ID, Message: llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{call}}},
		Message{Node: n.ID, Message: llm.Message{Role: llm.Tool, ToolCallID: call.ID, Content: result(rec)}})
}

func (e *exchange) has(id string) bool {
	for _, c := range e.calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// flush adds the open exchange: the calls that have results, each followed
// by its result (a provider refuses a call without one). Calls without a
// result (ask_user, whose answer is its question's, or calls cut off) are
// left out.
func (b *builder) flush() {
	e := b.open
	if e == nil {
		return
	}
	b.open = nil
	var calls []llm.ToolCall
	for _, c := range e.calls {
		if _, ok := e.results[c.ID]; ok {
			calls = append(calls, c)
		}
	}
	if len(calls) == 0 {
		return
	}
	b.out = append(b.out, Message{Node: e.node, Message: llm.Message{Role: llm.Assistant, Content: e.content, ToolCalls: calls}})
	for _, c := range calls {
		b.out = append(b.out, Message{Node: e.node, Message: llm.Message{Role: llm.Tool, ToolCallID: c.ID, Content: e.results[c.ID]}})
	}
}

// sides adds the side threads asked from node id before the turn began:
// each question and its reply, where the page shows them.
func (b *builder) sides(id int64) {
	qs := b.idx.SideThread(id)
	if len(qs) == 0 {
		return
	}
	b.flush()
	for _, q := range qs {
		if q.ID > b.last || b.skip[q.ID] {
			continue
		}
		m, _ := tree.Decode[tree.Message](q)
		b.add(q.ID, llm.User, "(Asked on the side:) "+m.Text)
		if end, ok := b.replyAsOf(q.ID); ok {
			r, _ := tree.Decode[tree.Message](end)
			b.add(end.ID, llm.Assistant, r.Text)
		}
	}
}

// replyAsOf returns the reply to side question q as it stood when the turn
// began: the newest node of q's own turn up to b.last, when that is its
// reply. A version of the side turn made later (an answer of its changed)
// is newer than the turn, and a replay of the turn must be given what its
// live run was (tree.Index.SideTip walks the same way, to the newest).
func (b *builder) replyAsOf(q int64) (tree.Node, bool) {
	tip := q
	stack := append([]int64(nil), b.idx.Children(q)...)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, _ := b.idx.Node(id)
		if n.Kind == tree.SideQuestion || id > b.last || b.idx.Continues(id) {
			continue
		}
		tip = max(tip, id)
		stack = append(stack, b.idx.Children(id)...)
	}
	n, _ := b.idx.Node(tip)
	return n, tip != q && n.Kind == tree.SideReply
}

// result is a tool call's result as the agent loop hands it to the model.
func result(rec tree.ToolRecord) string {
	switch {
	case rec.Outcome == "denied": // as agents.DeniedError words it: the tool did not run
		return "the call of " + rec.Tool + " was denied: " + rec.Error
	case rec.Outcome == "cancelled": // only the user's stop is recorded so (package consent)
		if rec.Started == 0 {
			return "the user stopped the call of " + rec.Tool + " before it ran: it did not run"
		}
		return "the user stopped the call of " + rec.Tool + " while it ran: it may not have finished"
	case rec.Error != "":
		return "Error: " + rec.Error
	case len(rec.Output) == 0:
		return "null"
	}
	return string(rec.Output)
}

// nestedCalls returns whether a call id was made within a tool call on
// path (up to last): its id begins with that call's id and a dot.
func nestedCalls(path []tree.Node, last int64) func(string) bool {
	tools := map[string]bool{}
	for _, n := range path {
		if n.ID > last {
			break
		}
		if n.Kind == tree.ToolCall {
			tools[n.Ref] = true
		}
	}
	return func(ref string) bool {
		for i := strings.LastIndexByte(ref, '.'); i > 0; i = strings.LastIndexByte(ref[:i], '.') {
			if tools[ref[:i]] {
				return true
			}
		}
		return false
	}
}

// maxOffered bounds what a question offered (its input) in the history:
// a long list of options is the question's, not the answer's.
const maxOffered = 2000

// compact returns raw JSON without its spacing, or as it is when it is not
// JSON.
func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (cut)"
}

// ofV0 is version 0: user and assistant messages, summaries and figures.
func ofV0(path []tree.Node, last int64) []Message {
	var out []Message
	for _, n := range path {
		if n.ID > last {
			break
		}
		switch n.Kind {
		case tree.UserMessage, tree.SideQuestion:
			m, _ := tree.Decode[tree.Message](n)
			out = append(out, Message{Node: n.ID, Message: llm.Message{Role: llm.User, Content: m.Text}})
		case tree.AssistantMessage, tree.SideReply:
			m, _ := tree.Decode[tree.Message](n)
			out = append(out, Message{Node: n.ID, Message: llm.Message{Role: llm.Assistant, Content: m.Text}})
		case tree.Summary:
			s, _ := tree.Decode[tree.SummaryRecord](n)
			out = ApplySummary(out, n.ID, s)
		case tree.Figure:
			if f, err := tree.Decode[figure.Figure](n); err == nil {
				out = append(out, Message{Node: n.ID, Message: llm.Message{Role: llm.Assistant, Content: "(Shown to the user:)\n" + figure.Text(f)}})
			}
		}
	}
	return out
}

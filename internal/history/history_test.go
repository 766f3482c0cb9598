package history_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// conv builds a conversation's nodes one after another, each the child of
// the one before unless said otherwise.
type conv struct{ nodes []tree.Node }

func (c *conv) add(kind tree.Kind, ref string, payload any) int64 {
	parent := int64(0)
	if len(c.nodes) > 0 {
		parent = c.nodes[len(c.nodes)-1].ID
	}
	return c.addAt(parent, kind, ref, payload)
}

func (c *conv) addAt(parent int64, kind tree.Kind, ref string, payload any) int64 {
	id := int64(len(c.nodes) + 1)
	c.nodes = append(c.nodes, tree.Node{ID: id, Parent: parent, Kind: kind, Ref: ref, Payload: tree.MustEncode(payload)})
	return id
}

func (c *conv) path(to int64) (*tree.Index, tree.Path) {
	idx := tree.NewIndex(c.nodes)
	return idx, idx.PathTo(to)
}

func sample(calls ...llm.ToolCall) tree.SampleRecord {
	return tree.SampleRecord{Response: &llm.Response{Content: "Let me look.", ToolCalls: calls}}
}

func render(msgs []history.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role))
		if m.ToolCallID != "" {
			b.WriteString("[" + m.ToolCallID + "]")
		}
		for _, c := range m.ToolCalls {
			b.WriteString(" call " + c.ID + " " + c.Name + c.Arguments)
		}
		if m.Content != "" {
			b.WriteString(": " + m.Content)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestAnEarlierTurnIsGivenAsItHappened(t *testing.T) {
	var c conv
	c.add(tree.UserMessage, "", tree.Message{Text: "Book Oslo"})
	// The model calls two tools at once; their results are recorded in
	// the other order, as lanes finish.
	c.add(tree.Sample, "1-1", sample(llm.ToolCall{ID: "a", Name: "search", Arguments: `{"city":"Oslo"}`}, llm.ToolCall{ID: "b", Name: "weather", Arguments: `{}`}))
	// A tool's own model call and tool call, within it, are its working.
	c.add(tree.Sample, "1-2.2.1.1", sample(llm.ToolCall{ID: "x", Name: "inner"}))
	c.add(tree.ToolCall, "1-2.2.1.2", tree.ToolRecord{Tool: "inner", Output: json.RawMessage(`1`)})
	c.add(tree.ToolCall, "1-2.2.1", tree.ToolRecord{Tool: "weather", CallID: "b", Output: json.RawMessage(`"sunny"`)})
	c.add(tree.ToolCall, "1-2.1.1", tree.ToolRecord{Tool: "search", CallID: "a", Output: json.RawMessage(`{"flights":["SK1"]}`)})
	// The model asks the user (ask_user has no tool record: its answer
	// is the question's), and a call it makes is denied after an approval.
	c.add(tree.Sample, "1-3", sample(llm.ToolCall{ID: "q", Name: "ask_user"}))
	c.add(tree.ElicitRequest, "1-4.1", elicit.Request{ID: "1-4.1", Kind: "choice", Message: "Which seat?", Input: json.RawMessage(`{"options": ["12A", "14C"]}`)})
	c.add(tree.ElicitResponse, "1-4.1", elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"option": "14C"}`)})
	c.add(tree.Sample, "1-5", sample(llm.ToolCall{ID: "d", Name: "book"}))
	c.add(tree.ElicitRequest, "1-6.1", elicit.Request{ID: "1-6.1", Kind: elicit.Approve.Name, Message: "Allow book?"})
	c.add(tree.ElicitResponse, "1-6.1", elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"choice":"deny"}`)})
	c.add(tree.ToolCall, "1-6", tree.ToolRecord{Tool: "book", CallID: "d", Outcome: "denied", Error: "you said no"})
	// A call cut off by a stop has no result, and is left out.
	c.add(tree.Sample, "1-7", sample(llm.ToolCall{ID: "e", Name: "search"}))
	c.add(tree.Stopped, "", tree.Message{Text: "Stopped."})
	// The next turn's code calls a tool itself, and declines a form.
	c.add(tree.UserMessage, "", tree.Message{Text: "Again"})
	c.add(tree.ToolCall, "17-1", tree.ToolRecord{Tool: "lookup", Input: json.RawMessage(`{"id": 7}`), Error: "not found"})
	c.add(tree.ElicitRequest, "17-2", elicit.Request{ID: "17-2", Kind: "form", Message: "Your name?"})
	c.add(tree.ElicitResponse, "17-2", elicit.Response{Action: elicit.Decline})
	c.add(tree.AssistantMessage, "", tree.Message{Text: "Fine."})
	last := c.add(tree.UserMessage, "", tree.Message{Text: "Which seat?"})

	idx, path := c.path(last)
	got := render(history.Of(idx, path, last, history.Latest))
	want := `user: Book Oslo
assistant call a search{"city":"Oslo"} call b weather{}: Let me look.
tool[a]: {"flights":["SK1"]}
tool[b]: "sunny"
assistant: (Asked the user, as a choice:) Which seat?
Offered: {"options":["12A","14C"]}
user: (Answered:) {"option":"14C"}
assistant call d book: Let me look.
tool[d]: the call of book was denied: you said no
user: Again
assistant call 17-1 lookup{"id":7}
tool[17-1]: Error: not found
assistant: (Asked the user, as a form:) Your name?
user: (Declined to answer.)
assistant: Fine.
user: Which seat?
`
	if got != want {
		t.Errorf("history:\n%s\nwant:\n%s", got, want)
	}

	// Version 0, a turn recorded before, is given messages alone.
	if got, want := render(history.Of(idx, path, last, 0)), "user: Book Oslo\nuser: Again\nassistant: Fine.\nuser: Which seat?\n"; got != want {
		t.Errorf("version 0:\n%s\nwant:\n%s", got, want)
	}
}

func TestAnExchangeSharesOneNodeSoASummaryTakesItWhole(t *testing.T) {
	var c conv
	c.add(tree.UserMessage, "", tree.Message{Text: "Go"})
	s := c.add(tree.Sample, "1-1", sample(llm.ToolCall{ID: "a", Name: "search"}))
	c.add(tree.ToolCall, "1-2", tree.ToolRecord{Tool: "search", CallID: "a", Output: json.RawMessage(`1`)})
	c.add(tree.AssistantMessage, "", tree.Message{Text: "Done"})
	last := c.add(tree.UserMessage, "", tree.Message{Text: "More"})
	idx, path := c.path(last)
	msgs := history.Of(idx, path, last, history.Latest)
	if msgs[1].Node != s || msgs[2].Node != s {
		t.Fatalf("the call and its result come from nodes %d and %d, want both %d", msgs[1].Node, msgs[2].Node, s)
	}
	got := render(history.ApplySummary(msgs, 99, tree.SummaryRecord{Text: "went", Covers: []int64{1, s}}))
	if want := "system: Summary of the earlier conversation: went\nassistant: Done\nuser: More\n"; got != want {
		t.Errorf("summarized:\n%s\nwant:\n%s", got, want)
	}
}

func TestSideThreadsAreGivenWhereTheyWereAsked(t *testing.T) {
	var c conv
	c.add(tree.UserMessage, "", tree.Message{Text: "Plan"})
	ask := c.add(tree.ElicitRequest, "1-1", elicit.Request{ID: "1-1", Kind: "form", Message: "Dates?"})
	q := c.addAt(ask, tree.SideQuestion, "", tree.Message{Text: "Is it cold?"})
	c.addAt(q, tree.SideReply, "", tree.Message{Text: "Yes."})
	c.addAt(ask, tree.ElicitResponse, "1-1", elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"from":"May"}`)})
	c.add(tree.AssistantMessage, "", tree.Message{Text: "Planned."})
	last := c.add(tree.UserMessage, "", tree.Message{Text: "Thanks"})
	// A side question asked after the turn began is not in its history:
	// its replay must be given what the live run was.
	c.addAt(ask, tree.SideQuestion, "", tree.Message{Text: "Later?"})
	// Nor is a later version of a side turn's reply (made when an answer
	// of the side turn changed): the reply stands as it was.
	c.addAt(q, tree.SideReply, "", tree.Message{Text: "Not any more."})

	idx, path := c.path(last)
	got := render(history.Of(idx, path, last, history.Latest))
	want := `user: Plan
assistant: (Asked the user, as a form:) Dates?
user: (Asked on the side:) Is it cold?
assistant: Yes.
user: (Answered:) {"from":"May"}
assistant: Planned.
user: Thanks
`
	if got != want {
		t.Errorf("history:\n%s\nwant:\n%s", got, want)
	}

	// The side turn itself is given the flow up to its thread, a note,
	// and its own thread once.
	side := history.Side(idx, q, history.Latest)
	if got, want := render(side), "user: Plan\nassistant: (Asked the user, as a form:) Dates?\nsystem: From here the user asks on the side while the conversation waits for their answer to: “Dates?”. Answer the side question; do not answer the waiting question for them.\nuser: Is it cold?\n"; got != want {
		t.Errorf("side history:\n%s\nwant:\n%s", got, want)
	}
}

// A side thread continued as the flow is given as the flow's messages,
// once; the flow's question it was asked beside keeps its thread for the
// turns replayed there; and a side question asked later from the continued
// flow is given the continued thread as the conversation before it.
func TestAContinuedSideThreadIsTheFlows(t *testing.T) {
	var c conv
	c.add(tree.UserMessage, "", tree.Message{Text: "Plan"})
	ask := c.add(tree.ElicitRequest, "1-1", elicit.Request{ID: "1-1", Kind: "form", Message: "Dates?"})
	q := c.addAt(ask, tree.SideQuestion, "", tree.Message{Text: "Is it cold?"})
	c.add(tree.SideReply, "", tree.Message{Text: "Yes."})
	c.add(tree.Stopped, "", tree.Message{Text: "The question “Dates?” was withdrawn."})
	c.add(tree.UserMessage, "", tree.Message{Text: "A train then"})
	reply := c.add(tree.AssistantMessage, "", tree.Message{Text: "Booked."})
	later := c.addAt(reply, tree.SideQuestion, "", tree.Message{Text: "When does it leave?"})

	idx, path := c.path(reply)
	got := render(history.Of(idx, path, reply, history.Latest))
	want := "user: Plan\nassistant: (Asked the user, as a form:) Dates?\nuser: Is it cold?\nassistant: Yes.\nuser: A train then\nassistant: Booked.\n"
	if got != want {
		t.Errorf("history:\n%s\nwant:\n%s", got, want)
	}
	// Back at the question, its turn is given the thread as a side one,
	// as it was live.
	got = render(history.Of(idx, idx.PathTo(ask), q+100, history.Latest))
	if !strings.Contains(got, "user: (Asked on the side:) Is it cold?\nassistant: Yes.\n") {
		t.Errorf("back at the question, history:\n%s", got)
	}
	side := render(history.Side(idx, later, history.Latest))
	if want := want + "system: From here the user asks on the side, in a thread beside the conversation. Answer there.\nuser: When does it leave?\n"; side != want {
		t.Errorf("a later side question's history:\n%s\nwant:\n%s", side, want)
	}
}

// A call the user stopped is told to the model as stopped, saying whether
// it ran: one stopped while its approval waited did not, one stopped
// while it ran did not finish. Neither is the tool's own error.
func TestAStoppedCallIsToldAsTheUserStoppingIt(t *testing.T) {
	var c conv
	c.add(tree.UserMessage, "", tree.Message{Text: "Note milk, then book Oslo"})
	c.add(tree.Sample, "1-1", sample(llm.ToolCall{ID: "a", Name: "remember_note"}, llm.ToolCall{ID: "b", Name: "book"}))
	c.add(tree.ToolCall, "1-2.1", tree.ToolRecord{Tool: "remember_note", CallID: "a", Outcome: "cancelled", Error: "context canceled", Approval: "1-2.1.1"})
	c.add(tree.ToolCall, "1-2.2", tree.ToolRecord{Tool: "book", CallID: "b", Outcome: "cancelled", Error: "context canceled", Started: 1700000000000})
	c.add(tree.Stopped, "", tree.Message{Text: "Stopped."})
	last := c.add(tree.UserMessage, "", tree.Message{Text: "Again"})
	idx, path := c.path(last)
	got := render(history.Of(idx, path, last, history.Latest))
	want := `user: Note milk, then book Oslo
assistant call a remember_note call b book: Let me look.
tool[a]: the user stopped the call of remember_note before it ran: it did not run
tool[b]: the user stopped the call of book while it ran: it may not have finished
user: Again
`
	if got != want {
		t.Errorf("history:\n%s\nwant:\n%s", got, want)
	}
}

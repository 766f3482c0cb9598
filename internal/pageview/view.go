// Package pageview is the page's read model: what a conversation's pages
// show (View), derived from the path to HEAD and the live state of the
// conversation. It holds no state of its own: package chat builds a View
// under the conversation's lock, and templates and transports read it.
package pageview

import (
	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"net/url"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// View is what a conversation page shows, derived from the path to HEAD and
// the conversation's live state.
type View struct {
	Conversation tree.Conversation
	Items        []Item
	Status       Status
	Notice       Notice // how the user's last request went, when the page has no better place for it
	Model        string // the model's name (chat.Service.ModelName), shown so offline mode is never mistaken for a real model
}

// Status is the state of the current turn.
type Status struct {
	Running  bool
	Waiting  bool // the turn waits for the user to answer a question
	Progress *middleware.Progress
	Draft    string // the reply as it streams in
	// Aside is set while a side question is being answered.
	Aside bool
	// Queued are the messages waiting for the turn to end, when the
	// assistant queues what is sent while it works.
	Queued []string
	// ModelWait is how long the turn has been waiting on a model call that
	// has sent nothing yet; zero when it is not waiting on one.
	ModelWait time.Duration
}

// Item is one visible entry of the conversation.
type Item struct {
	ID    int64 // the node id; elements are keyed by it
	Kind  tree.Kind
	Agent string
	Text  string
	// Details are a failure's details, behind a toggle.
	Details string
	// Diverged is set on a failed turn that cannot go on from its record
	// because the assistant changed since (tree.Message.Diverged): its
	// way on is to start again from the message.
	Diverged bool
	// Partial is, for a stopped turn, the reply streamed before the stop;
	// for a failed one, what streamed before the reply broke off.
	Partial string
	// Covers is how many messages a summary stands for.
	Covers int
	// Attachments are the files sent with a user message.
	Attachments []tree.Attachment
	// Scheduled is set on a user message a schedule sent (turn.Schedule).
	Scheduled bool
	Elicit    *ElicitView
	// Figure is a table or a chart the agent showed.
	Figure *figure.Figure
	Branch *Branch // set when the conversation forked here
	// For a side question: the reply, once there is one, and the kind of
	// node that ended its turn (a SideReply, or Stopped or TurnError, with
	// Details); while its turn works, the reply as it streams in.
	Reply   string
	Replied bool
	Ended   tree.Kind
	Draft   string
	Working bool
	// WhileWaiting is set for a side question asked while a question of the
	// flow waited, rather than in a thread the user opened beside a reply.
	WhileWaiting bool
	// Anchor is the node of HEAD's branch the side question's thread hangs
	// from: a follow-up is asked there.
	Anchor int64
	// Asks are the questions the side question's turn asked the user.
	Asks []Item
	// Rated is set on a reply, which can be given feedback, and on a side
	// question whose turn replied (its SideReply is node ReplyNode);
	// Feedback is the feedback that counts on the reply, if any
	// (tree.Index.FeedbackOn).
	Rated     bool
	ReplyNode int64
	Feedback  *tree.FeedbackRecord
	// Continuable: its thread can become the flow (chat.Service.ContinueHere); Continued: where one did.
	Continuable, Continued bool
}

// ElicitState is where an elicit stands.
type ElicitState string

const (
	// Pending elicits can be answered now.
	Pending ElicitState = "pending"
	// Answered elicits have a recorded response.
	Answered ElicitState = "answered"
	// Interrupted elicits lost the turn that asked them (it was stopped or the server restarted).
	Interrupted ElicitState = "interrupted"
)

// ElicitView is an elicit as shown: the request, where it stands, and for a
// rejected submission what was submitted and what was wrong with it.
type ElicitView struct {
	Request  elicit.Request
	State    ElicitState
	Response *elicit.Response
	Errors   elicit.FieldErrors
	Values   url.Values
	Problem  string // a problem with the submission as a whole
	// Stage is the last progress the implementation reported while the
	// user works on the request, if any.
	Stage *elicit.Progress
	// Position is the request's place in the queue of pending questions,
	// from 1, the one to answer now; Queued is how many are pending. Both
	// are zero once it is no longer pending.
	Position, Queued int
}

// Waiting reports whether the request is pending behind another.
func (e *ElicitView) Waiting() bool { return e.Position > 1 }

// Value returns the value to prefill field name with: what the user last
// submitted, else the answer given, else the schema's default.
func (e *ElicitView) Value(name string) string {
	return e.Request.Schema.FormValue(name, e.Values, e.Answer())
}

// Selected reports whether option of multi-choice field name shows picked.
func (e *ElicitView) Selected(name, option string) bool {
	return e.Request.Schema.FormSelected(name, option, e.Values, e.Answer())
}

// Answer returns the accepted content decoded as a map, for summaries.
func (e *ElicitView) Answer() map[string]any { return e.Response.Fields() }

// Branch places an item among its alternatives: the versions of an edited
// message, or the answers given to a question. Index counts from 1; Prev and
// Next are the nodes to switch to (0 at either end).
type Branch struct {
	Index, Count int
	Prev, Next   int64
}

// Notice is a line shown on a conversation's pages about the user's last
// request: a problem with it, or, when Info is set, how it went.
type Notice struct {
	Text string
	Info bool
}

// Recorded is what Items asks of the running conversation: which elicits
// are pending, and the requests and answers it holds decoded already, which
// spares decoding them again. A conversation's questions answer it.
type Recorded interface {
	IsPending(ref string) bool
	Decoded(n tree.Node) (elicit.Request, bool)
	// DecodedResponse is the answer node n records, as decoding its payload
	// would give it, if the conversation holds it so.
	DecodedResponse(n tree.Node) (elicit.Response, bool)
}

// Items turns a path into visible items. Elicits with no response are
// pending while live reports them so; a question withdrawn (its turn was
// stopped or failed) stays, read-only and marked withdrawn, so the user
// still sees what was asked.
func Items(path []tree.Node, live Recorded) []Item {
	var items []Item
	byRef := map[string]int{}
	for _, n := range path {
		switch n.Kind {
		case tree.UserMessage, tree.AssistantMessage, tree.TurnError, tree.Stopped, tree.SideQuestion, tree.SideReply: // a side thread continued (tree.AsFlow)
			m, _ := tree.Decode[tree.Message](n)
			items = append(items, Item{ID: n.ID, Kind: tree.AsFlow(n.Kind), Agent: n.Agent, Text: m.Text, Details: m.Details, Partial: m.Partial, Diverged: m.Diverged, Attachments: m.Attachments,
				Scheduled: n.Kind == tree.UserMessage && schedule.Scheduled(m.ID)})
		case tree.ElicitRequest:
			req, ok := live.Decoded(n)
			if !ok {
				req, _ = tree.Decode[elicit.Request](n)
			}
			state := Interrupted
			if live.IsPending(n.Ref) {
				state = Pending
			}
			byRef[n.Ref] = len(items)
			items = append(items, Item{ID: n.ID, Kind: n.Kind, Agent: n.Agent, Elicit: &ElicitView{Request: req, State: state}})
		case tree.Summary:
			// Where earlier messages were summarized for the model, so a
			// user knows what it still sees.
			s, _ := tree.Decode[tree.SummaryRecord](n)
			items = append(items, Item{ID: n.ID, Kind: n.Kind, Agent: n.Agent, Text: s.Text, Covers: s.Count})
		case tree.Figure:
			f, _ := tree.Decode[figure.Figure](n)
			items = append(items, Item{ID: n.ID, Kind: n.Kind, Agent: n.Agent, Figure: &f})
		case tree.ForkEnd:
			// What the agent tried and decided, where the flow went on.
			f, _ := tree.Decode[tree.ForkEndRecord](n)
			text := "Tried " + f.Label + ", then went back."
			if f.Forward {
				text = "Tried " + f.Label + " and kept it."
			}
			items = append(items, Item{ID: n.ID, Kind: n.Kind, Agent: n.Agent, Text: text})
		case tree.ElicitResponse:
			if i, ok := byRef[n.Ref]; ok {
				resp, ok := live.DecodedResponse(n)
				if !ok {
					resp, _ = tree.Decode[elicit.Response](n)
				}
				items[i].Elicit.State = Answered
				items[i].Elicit.Response = &resp
			}
		}
	}
	return items
}

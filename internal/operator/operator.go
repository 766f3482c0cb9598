// Package operator is what the operator page shows, read from the record:
// the accounts with their conversations, what waits for an answer in the
// conversations most recently at work, and the newest feedback on
// replies. An operator reads it; nobody else sees it. It also disables and
// enables accounts. Every listing is bounded, so that the page costs the
// same however many conversations the program keeps.
package operator

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The bounds of the page's listings.
const (
	// MaxAccounts is how many accounts the page lists, newest first.
	MaxAccounts = 500
	// PerAccount is how many of an account's conversations it lists, most
	// recently updated first; the count says how many there are.
	PerAccount = 20
	// Scanned is how many conversations, most recently updated first, are
	// read for questions waiting for an answer.
	Scanned = 200
	// MaxFeedback is how many feedback nodes it lists, newest first.
	MaxFeedback = 50
	// replyWords is how many words of a rated reply are shown.
	replyWords = 12
)

// Conversation is a conversation as the page lists it, with its owner.
type Conversation struct {
	ID, Title, Agent string
	// Owner is the account (or the anonymous browser session) that owns
	// it; OwnerEmail the account's email, "" for a session of no account.
	Owner, OwnerEmail string
	Updated           time.Time
	// Head is the node HEAD is at.
	Head int64
}

// Account is an account as the page lists it.
type Account struct {
	ID, Email, Name string
	Created         time.Time
	Disabled        bool
	// Count is how many conversations it owns; Conversations the newest
	// PerAccount of them.
	Count         int
	Conversations []Conversation
}

// Question is a question on a conversation's HEAD path that waits for an
// answer.
type Question struct {
	Node int64  // the request's node
	ID   string // the elicit's id
	Kind string // the elicit kind: "approval", "confirm", ...
	// Message is what it asks; for an approval, which tool of which agent
	// wants to run.
	Message string
	// Approval marks a tool call waiting for consent.
	Approval bool
	At       time.Time
}

// Waiting is a conversation with the questions that wait in it.
type Waiting struct {
	Conversation Conversation
	Questions    []Question
}

// Feedback is a feedback node as the page lists it.
type Feedback struct {
	Conversation Conversation
	Node, Reply  int64
	Rating       tree.Rating
	Comment      string
	// ReplyStart is the first words of the rated reply.
	ReplyStart string
	At         time.Time
}

// Page is everything the operator page shows.
type Page struct {
	Accounts []Account
	Waiting  []Waiting
	Feedback []Feedback
	// Scanned is how many conversations were read for Waiting.
	Scanned int
}

// Rated is a Feedback node with the reply it hangs from, in the
// conversation it is in.
type Rated struct {
	Conversation    Conversation
	Feedback, Reply tree.Node
}

// Records is what the page reads and changes of the record (the store).
// DisableAccount and EnableAccount return NotFound for an account there is
// not.
type Records interface {
	// OperatorAccounts lists up to limit accounts, newest first, each with
	// its count of conversations and its newest perAccount ones.
	OperatorAccounts(ctx context.Context, limit, perAccount int) ([]Account, error)
	// RecentConversations lists the limit most recently updated
	// conversations, whoever owns them.
	RecentConversations(ctx context.Context, limit int) ([]Conversation, error)
	// Outline returns a conversation's nodes, in id order, with the
	// payloads of the nodes of the kinds with alone (the others' are nil).
	Outline(ctx context.Context, conversation string, with ...tree.Kind) ([]tree.Node, error)
	// NewestFeedback returns up to limit Feedback nodes of any
	// conversation, newest first, each with its reply.
	NewestFeedback(ctx context.Context, limit int) ([]Rated, error)
	DisableAccount(ctx context.Context, id string) error
	EnableAccount(ctx context.Context, id string) error
}

// Desk reads the operator page from the record and changes accounts.
type Desk struct {
	records Records
}

// New returns a desk over records.
func New(records Records) *Desk { return &Desk{records: records} }

// Page reads the page as the record stands.
func (d *Desk) Page(ctx context.Context) (Page, error) {
	accounts, err := d.records.OperatorAccounts(ctx, MaxAccounts, PerAccount)
	if err != nil {
		return Page{}, fmt.Errorf("list the accounts: %w", err)
	}
	recent, err := d.records.RecentConversations(ctx, Scanned)
	if err != nil {
		return Page{}, fmt.Errorf("list the recent conversations: %w", err)
	}
	p := Page{Accounts: accounts, Scanned: len(recent)}
	for _, c := range recent {
		nodes, err := d.records.Outline(ctx, c.ID, tree.ElicitRequest)
		if err != nil {
			return Page{}, fmt.Errorf("read conversation %s: %w", c.ID, err)
		}
		if qs := Pending(tree.NewIndex(nodes), c.Head); len(qs) > 0 {
			p.Waiting = append(p.Waiting, Waiting{Conversation: c, Questions: qs})
		}
	}
	rated, err := d.records.NewestFeedback(ctx, MaxFeedback)
	if err != nil {
		return Page{}, fmt.Errorf("list the feedback: %w", err)
	}
	for _, r := range rated {
		p.Feedback = append(p.Feedback, feedbackOf(r))
	}
	return p, nil
}

// Pending returns the questions on the path to head that wait for an
// answer: the requests of the turn still open (one whose turn ended — a
// reply, an error, a stop — waits for nothing) with no answer on the path,
// oldest first. A request's payload must be in x (see Records.Outline).
func Pending(x *tree.Index, head int64) []Question {
	path := x.PathTo(head)
	open := path.OpenTurn()
	if open < 0 {
		return nil
	}
	var out []Question
	for _, n := range path[open:] {
		if n.Kind != tree.ElicitRequest {
			continue
		}
		if _, answered := x.NewestOnPath(path, n.Ref, tree.ElicitResponse); answered {
			continue
		}
		req, err := tree.Decode[elicit.Request](n)
		if err != nil {
			continue // a request that cannot be read asks nothing to show
		}
		q := Question{Node: n.ID, ID: req.ID, Kind: req.Kind, Message: req.Message, At: n.At}
		if req.Kind == elicit.Approve.Name {
			q.Approval = true
			var in elicit.ApprovalInput
			if json.Unmarshal(req.Input, &in) == nil {
				q.Message = cmp.Or(in.Summary, fmt.Sprintf("%s wants to run %s", in.Agent, cmp.Or(in.Title, in.Tool)))
			}
		}
		out = append(out, q)
	}
	return out
}

// feedbackOf is a rated reply as the page lists it.
func feedbackOf(r Rated) Feedback {
	f := Feedback{Conversation: r.Conversation, Node: r.Feedback.ID, Reply: r.Reply.ID, At: r.Feedback.At}
	if rec, err := tree.Decode[tree.FeedbackRecord](r.Feedback); err == nil {
		f.Rating, f.Comment = rec.Rating, rec.Comment
	}
	if m, err := tree.Decode[tree.Message](r.Reply); err == nil {
		f.ReplyStart = firstWords(m.Text, replyWords)
	}
	return f
}

// firstWords is text's first n words, with "…" when there were more.
func firstWords(text string, n int) string {
	words := strings.Fields(text)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ") + " …"
}

// Disable disables the account id: its sign-ins end, its open streams are
// cut at their next check, and it cannot sign in again until enabled.
// NotFound for an account there is not.
func (d *Desk) Disable(ctx context.Context, id string) error {
	return d.records.DisableAccount(ctx, id)
}

// Enable lets the disabled account id sign in again. NotFound for an
// account there is not.
func (d *Desk) Enable(ctx context.Context, id string) error {
	return d.records.EnableAccount(ctx, id)
}

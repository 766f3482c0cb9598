// Package inbound is what comes in from a user or a program before a
// conversation takes it — a message, a conversation's new name, a search —
// with the checks each passes, and what a message did once taken (Sent),
// for the page to tell its sender. The checks are the same wherever the
// text comes from (the page, the terminal, MCP, the event stream's
// commands), so each says in one place why it refuses.
package inbound

import (
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// MaxMessageLen is the longest message a user can send, in characters.
const MaxMessageLen = 8000

// CheckMessage returns text as a message records it, trimmed and its lines
// ended with "\n" alone, or why it cannot be sent: Invalid when it is empty
// or longer than MaxMessageLen.
func CheckMessage(text string) (string, error) { return checkUpTo(text, MaxMessageLen) }

// checkUpTo is CheckMessage with limit characters at most (0:
// MaxMessageLen).
func checkUpTo(text string, limit int) (string, error) {
	if limit <= 0 {
		limit = MaxMessageLen
	}
	text = strings.TrimSpace(lineend.Normalize(text))
	if text == "" {
		return "", apperr.Errorf(apperr.Invalid, "Type a message before sending.")
	}
	if n := utf8.RuneCountInString(text); n > limit {
		return "", apperr.Errorf(apperr.Invalid, "That message is %d characters long; the limit is %d.", n, limit)
	}
	return text, nil
}

// Message is a message as its sender sends it.
type Message struct {
	// ID is the id the sender chose for the message, by which a resend of
	// it is known: 1 to tree.MaxMessageIDLen letters, digits, '-' or '_'.
	// "" for none: each send is then a new message.
	ID   string
	Text string
	// Attachments are the files sent with it (package files), the
	// sender's own: a message may be files alone.
	Attachments []tree.Attachment
	// Limit is the longest Text may be, in characters; 0 is MaxMessageLen,
	// the composer's. A program's message is bounded by the request that
	// carried it instead (a tool call over MCP: its arguments).
	Limit int
	// Call is the tool call a program sends as the message (a call over
	// MCP), recorded typed in the message's payload; the turn reads it
	// with CallOf, and records its outcome with ReturnCall. Text then names
	// the call for a person reading the conversation.
	Call *tree.Call
}

// Record is m as a user message records it.
func (m Message) Record() tree.Message {
	return tree.Message{ID: m.ID, Text: m.Text, Attachments: m.Attachments, Call: m.Call}
}

// Checked is m with its words trimmed and checked (CheckMessage, up to
// m.Limit), or why it cannot be sent: files alone are a message, words too
// long are refused with files or without, and an id must be one a message
// can have (CheckID).
func (m Message) Checked() (Message, error) {
	text, err := checkUpTo(m.Text, m.Limit)
	if err != nil && (len(m.Attachments) == 0 || strings.TrimSpace(m.Text) != "") {
		return m, err
	}
	m.Text = text
	if m.ID != "" {
		if err := CheckID(m.ID); err != nil {
			return m, err
		}
	}
	return m, nil
}

// CheckID reports why id cannot name a message, if it cannot.
func CheckID(id string) error {
	if !tree.ValidMessageID(id) {
		return apperr.Errorf(apperr.Invalid, "A message id is 1 to %d letters, digits, '-' or '_'.", tree.MaxMessageIDLen)
	}
	return nil
}

// MaxTitleLen is the longest title, in characters, a user can give a
// conversation.
const MaxTitleLen = 120

// MaxQueryLen is the longest text, in characters, conversations are
// searched for.
const MaxQueryLen = 200

// CheckTitle returns title as a rename records it, its runs of spaces and
// line ends made one space, or why it cannot be a title: Invalid when it
// is empty or longer than MaxTitleLen.
func CheckTitle(title string) (string, error) {
	title = words.Line(title)
	if title == "" {
		return "", apperr.Errorf(apperr.Invalid, "Type a name for the conversation.")
	}
	if n := utf8.RuneCountInString(title); n > MaxTitleLen {
		return "", apperr.Errorf(apperr.Invalid, "That name is %d characters long; the limit is %d.", n, MaxTitleLen)
	}
	return title, nil
}

// Sent says what a message did, for the page to tell the sender.
type Sent string

// What a message can do.
const (
	SentTurn        Sent = ""            // started a turn
	SentInterrupted Sent = "interrupted" // stopped the turn that worked and started a new one
	SentJoined      Sent = "joined"      // joined the message before, whose turn starts again with both
	SentQueued      Sent = "queued"      // waits for the running turn to end
	SentAnswer      Sent = "answer"      // answered the question that waits, in words
	SentChange      Sent = "change"      // changed an earlier answer: the flow goes on from there
	SentSide        Sent = "side"        // asked on the side; the flow waits where it was
)

// Say is what the page tells the sender; "" when starting a turn needs no
// word.
func (s Sent) Say() string {
	switch s {
	case SentInterrupted:
		return "Sent — it interrupted the reply."
	case SentJoined:
		return "Sent — joined to your last message."
	case SentQueued:
		return "Queued — it will be sent when the reply ends."
	case SentAnswer:
		return "Taken as your answer to the question."
	case SentChange:
		return "Taken as a change of an earlier answer: the conversation goes on from there, and the earlier version is kept."
	case SentSide:
		return "Asked on the side — the question above still waits for you."
	}
	return ""
}

// Kept is what the pages are told when a message arrives again: a resend
// after a lost response finds it sent, which is news, not a problem.
const Kept = "Your message was already sent."

// MaxFeedbackComment is the longest comment on a reply, in characters.
const MaxFeedbackComment = 2000

// Feedback is what the user thinks of a reply: a rating and a comment.
type Feedback struct {
	Rating  tree.Rating
	Comment string
}

// Checked is f with its comment trimmed, or why it cannot be recorded:
// Invalid for an unknown rating, or a comment that is not text or is
// longer than MaxFeedbackComment.
func (f Feedback) Checked() (Feedback, error) {
	f.Comment = strings.TrimSpace(f.Comment)
	if !f.Rating.Valid() {
		return f, apperr.Errorf(apperr.Invalid, "A reply is rated up, down or none, not %q.", f.Rating)
	}
	if !utf8.ValidString(f.Comment) {
		return f, apperr.Errorf(apperr.Invalid, "The comment is not valid text.")
	}
	if n := utf8.RuneCountInString(f.Comment); n > MaxFeedbackComment {
		return f, apperr.Errorf(apperr.Invalid, "The comment is %d characters long; the limit is %d.", n, MaxFeedbackComment)
	}
	return f, nil
}

// MaxMethods is how many method names a frontend may say it implements
// (package protocol).
const MaxMethods = 256

// CheckMethods reports why names cannot be the methods a frontend says it
// implements, if they cannot: at most MaxMethods names, each one a kind
// could have (1 to 64 letters, digits, '-', '_' or '.').
func CheckMethods(names []string) error {
	if len(names) > MaxMethods {
		return apperr.Errorf(apperr.Invalid, "A page implements at most %d methods; this one names %d.", MaxMethods, len(names))
	}
	for _, m := range names {
		ok := m != "" && len(m) <= 64
		for _, r := range m {
			ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
		}
		if !ok {
			return apperr.Errorf(apperr.Invalid, "%q is not a method's name: 1 to 64 letters, digits, '-', '_' or '.'.", m)
		}
	}
	return nil
}

// Package words says the nodes of a conversation, and the answers given to
// its questions, in words a reader knows, for the reflog and the tree
// inspector: a developer reading either sees what happened, with the value,
// without opening a payload.
package words

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Answer says how a question was answered, with the values: two
// branches' answers differ at a glance ("accept: destination Oslo,
// travellers 2", "in words: “make it 3”", "decline"), and the progress
// recorded with it, a method's ("denied after requesting-permission").
func Answer(r elicit.Response) string {
	var said string
	switch {
	case r.Action == elicit.Other:
		said = "in words: “" + Title(r.Text) + "”"
	case r.Action == elicit.Expired:
		said = "expired: no answer in time"
	case r.Action != elicit.Accept || len(r.Content) == 0:
		said = string(r.Action)
	default:
		said = "accept: " + fields(r.Content)
	}
	return said + after(r.Progress)
}

// fields says a JSON object's fields by name, in a stable order ("lat
// 38.72, lng -9.14"); anything else as its text, on one line.
func fields(raw json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return Title(string(raw))
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(fields[k])
		parts[i] = k + " " + clipValue(strings.Trim(string(b), `"`))
	}
	return strings.Join(parts, ", ")
}

// maxValueWords is how many characters of one value fields says: a photo's
// data URL or a long text reads as its start and its length.
const maxValueWords = 80

// clipValue says v, or, past maxValueWords characters, its start and how
// long it is.
func clipValue(v string) string {
	if utf8.RuneCountInString(v) <= maxValueWords {
		return v
	}
	r := []rune(v)
	return fmt.Sprintf("%s… (%d characters)", string(r[:maxValueWords-20]), len(r))
}

// Name is what a reader of the conversation calls a node of kind k:
// "message", "reply", "answer"; other kinds by their name.
func Name(k tree.Kind) string {
	if name, ok := nodeNames[k]; ok {
		return name
	}
	return string(k)
}

var nodeNames = map[tree.Kind]string{
	tree.UserMessage: "message", tree.AssistantMessage: "reply", tree.TurnError: "error", tree.Stopped: "stopped turn",
	tree.ElicitRequest: "question", tree.ElicitResponse: "answer", tree.SideQuestion: "side question", tree.SideReply: "side reply",
	tree.Fork: "tried block", tree.ForkEnd: "end of a tried block", tree.Queued: "queued message",
	tree.Feedback: "feedback",
}

// Node names node n as a reader of the conversation knows it, with
// its number and what it says: "reply #14 “Your trip to Oslo is planned…”",
// "answer #9 accept: destination Oslo".
func Node(n tree.Node) string {
	var says string
	switch n.Kind {
	case tree.UserMessage, tree.AssistantMessage, tree.TurnError, tree.Stopped, tree.SideQuestion, tree.SideReply, tree.Queued:
		m, _ := tree.Decode[tree.Message](n)
		says = quote(m.Text)
	case tree.ElicitRequest:
		r, _ := tree.Decode[elicit.Request](n)
		if IsCall(r) {
			return fmt.Sprintf("call #%d %s", n.ID, Invoked(r))
		}
		says = quote(r.Message)
	case tree.ElicitResponse:
		r, _ := tree.Decode[elicit.Response](n)
		says = Answer(r)
	case tree.Fork:
		r, _ := tree.Decode[tree.ForkRecord](n)
		says = quote(r.Label)
	case tree.Feedback:
		says = Feedback(n)
	case tree.ForkEnd:
		r, _ := tree.Decode[tree.ForkEndRecord](n)
		says = fmt.Sprintf("(went back from #%d)", r.Fork)
		if r.Forward {
			says = fmt.Sprintf("(adopted #%d)", r.Fork)
		}
	}
	return strings.TrimSpace(fmt.Sprintf("%s #%d %s", Name(n.Kind), n.ID, says))
}

// quote is text on one line, cut short enough to leave room in a reflog
// row, in quotes.
func quote(text string) string {
	r := []rune(strings.Join(strings.Fields(text), " "))
	if len(r) > 48 {
		r = append(r[:47], '…')
	}
	return "“" + string(r) + "”"
}

// Title is text on one line, cut short enough for a title (60 runes).
func Title(text string) string {
	text = Line(text)
	if utf8.RuneCountInString(text) <= 60 {
		return text
	}
	r := []rune(text)
	return string(r[:59]) + "…"
}

// Line is text on one line: its runs of spaces and control characters
// (line ends, tabs, NUL, which a database may refuse) one space, trimmed.
func Line(text string) string {
	return strings.Join(strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// Plural is one when n is 1, else many: "1 turn", "2 turns".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Withdrawn says on the page, and in the reflog, that the question that
// waited was withdrawn when the user continued from a side question.
func Withdrawn(question string) (page, reflog string) {
	q := "“" + Title(question) + "”"
	return "The question " + q + " was withdrawn: the conversation went on from the side question.",
		"from the side question, withdrawing the question " + q
}

// Feedback says what Feedback node n records, and on which reply:
// "thumbs down on #14: “too vague”", "taken back on #14".
func Feedback(n tree.Node) string {
	r, _ := tree.Decode[tree.FeedbackRecord](n)
	rating := map[tree.Rating]string{tree.ThumbsUp: "thumbs up", tree.ThumbsDown: "thumbs down", tree.NoRating: "no rating"}[r.Rating]
	if r.Rating == tree.NoRating && r.Comment == "" {
		rating = "taken back"
	}
	says := fmt.Sprintf("%s on #%d", rating, n.Parent)
	if r.Comment != "" {
		says += ": " + quote(r.Comment)
	}
	return says
}

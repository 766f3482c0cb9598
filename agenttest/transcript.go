package agenttest

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Transcript is what happened in a turn run in process: its reply or
// error, and every call it made, each kind in the order made. String
// tells it all in one order, a line a call.
type Transcript struct {
	// Message is the user's message the turn answered.
	Message string
	// Reply is the turn's reply; Err its error, when it failed instead.
	Reply string
	Err   error
	// Questions are the questions the turn asked the user, with the
	// answers they got.
	Questions []Question
	// Notices are the progress the turn reported (turn.Notify).
	Notices []Notice
	// Logs are the lines the turn logged (turn.Log).
	Logs []Log
	// Figures are the tables and charts the turn showed (turn.Show).
	Figures []figure.Figure
	// Tools are the tool calls that ran, an agent's tools called by the
	// turn's code or by the model; ask_user is a question, not one of them.
	Tools []ToolCall
	// Requests are what the model was asked, a request per call.
	Requests []llm.Request

	lines []string
}

// String tells the run a line a call, in the order they were made: the
// message, each question and its answer, each notice, tool call, model
// call, log line and figure, and the reply or the error.
func (t Transcript) String() string {
	var b strings.Builder
	for _, l := range t.lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// Question is a question the turn asked and the answer it got (the zero
// Response while it waits). Its Request says what was asked: Kind,
// Message, and the Schema of the answer.
type Question struct {
	elicit.Request
	Answer elicit.Response
}

// Fields names the fields the question asks for, in order.
func (q Question) Fields() []string {
	if q.Schema == nil {
		return nil
	}
	return q.Schema.FieldOrder()
}

// Notice is progress the turn reported: a message and how far along it
// is, from 0 to 1 (negative when unknown).
type Notice struct {
	Message  string
	Fraction float64
}

// Log is a line the turn logged.
type Log struct {
	Level   slog.Level
	Message string
	Attrs   []any
}

// ToolCall is a tool call that ran: the agent and tool, its JSON input,
// and its JSON output or its error.
type ToolCall struct {
	Agent, Tool string
	Input       json.RawMessage
	Output      json.RawMessage
	Err         error
}

// The lines of a transcript, one for each thing that happened.

func messageLine(text string) string { return "user: " + clip(text) }

func questionLine(q Question) string {
	out := fmt.Sprintf("ask %s %q: %s", q.Kind, q.Message, q.Answer.Action)
	switch {
	case len(q.Answer.Content) > 0:
		out += " " + clip(string(q.Answer.Content))
	case q.Answer.Text != "":
		out += fmt.Sprintf(" %q", clip(q.Answer.Text))
	}
	return out
}

func noticeLine(n Notice) string {
	if n.Fraction < 0 {
		return "notify: " + clip(n.Message)
	}
	return fmt.Sprintf("notify: %s (%.0f%%)", clip(n.Message), 100*n.Fraction)
}

func logLine(l Log) string {
	r := slog.NewRecord(time.Time{}, l.Level, l.Message, 0)
	r.Add(l.Attrs...)
	out := fmt.Sprintf("log %s: %s", strings.ToLower(l.Level.String()), clip(l.Message))
	r.Attrs(func(a slog.Attr) bool {
		out += " " + a.String()
		return true
	})
	return out
}

func toolLine(c ToolCall) string {
	out := fmt.Sprintf("tool %s.%s(%s)", c.Agent, c.Tool, clip(string(c.Input)))
	if c.Err != nil {
		return out + " failed: " + clip(c.Err.Error())
	}
	return out + ": " + clip(string(c.Output))
}

func deniedLine(c agents.ToolCall, d *agents.DeniedError) string {
	return fmt.Sprintf("tool %s.%s(%s) denied: %s", c.Agent, c.Tool, clip(string(c.Input)), clip(d.Why))
}

func modelLine(req llm.Request, resp llm.Response, err error) string {
	out := "model: "
	if len(req.Messages) > 0 {
		out += clip(req.Messages[len(req.Messages)-1].Content)
	}
	switch {
	case isStop(err):
		return out + " → the script broke here"
	case err != nil:
		return out + " → failed: " + clip(err.Error())
	case len(resp.ToolCalls) > 0:
		return out + " → " + callsText(resp.ToolCalls)
	}
	return out + " → " + clip(resp.Content)
}

func figureLine(f figure.Figure) string {
	if f.Table != nil {
		return fmt.Sprintf("show table %q", f.Table.Title)
	}
	if f.Chart != nil {
		return fmt.Sprintf("show chart %q", f.Chart.Title)
	}
	return "show"
}

func endLine(reply string, err error) string {
	if isStop(err) {
		return "failed: the script broke"
	}
	if err != nil {
		return "failed: " + clip(err.Error())
	}
	return "reply: " + clip(reply)
}

package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Chat is what a run needs of the chat service. Errors are apperr errors:
// NotFound for a conversation the session does not own.
type Chat interface {
	eventstream.Following
	// Create starts a conversation with the agent named ("" for the
	// default one). Errors: NotFound for an unknown agent.
	Create(ctx context.Context, session, agent string) (tree.Conversation, error)
	// SendMessage records a message and starts its turn. Errors: Invalid
	// for a message that cannot be sent.
	SendMessage(ctx context.Context, session, id string, m inbound.Message) (inbound.Sent, error)
	// Answer answers a question the turn waits on, checked against it.
	// Errors: Invalid (with Fields) for an answer that breaks the
	// question's schema, Conflict for a question no longer waiting.
	Answer(ctx context.Context, session, id, eid string, a chat.Answer) error
	// Edit sends a new version of an earlier message, a new branch.
	Edit(ctx context.Context, session, id string, msgID int64, m inbound.Message) error
}

// Emit sends one event to the client; an error means it is gone.
type Emit func(Event) error

// Run runs in for the session and sends the run's events through emit,
// until the run ends: RUN_FINISHED (success, an interrupt outcome while a
// question waits, or cancelled when it was stopped) or RUN_ERROR. A thread
// the session does not own starts a new conversation in a session
// newSession gives (the session's own, or a new one when it has none);
// RUN_STARTED names it as the threadId to send from then on. Input that
// cannot run (a resume of no waiting question, an answer the question
// refuses, messages that differ from the branch before the last) gets
// RUN_ERROR with the reason, and records nothing. The error returned is the
// client's going away, or a failure to say so.
func Run(ctx context.Context, svc Chat, session string, newSession func() (string, error), in Input, emit Emit) error {
	r := &run{svc: svc, session: session, in: in, emit: emit}
	err := r.run(ctx, newSession)
	if err == nil || errors.Is(err, errGone) || ctx.Err() != nil {
		return nil
	}
	code := apperr.CodeOf(err)
	return emit(Event{Type: RunError, Message: apperr.MessageOf(err), Code: string(code)})
}

// errGone is the client going away while events were sent.
var errGone = errors.New("the client went away")

type run struct {
	svc     Chat
	session string
	conv    string
	in      Input
	emit    Emit

	follower *feed.Follower
	sent     states // the state the client holds
	msgs     int    // text messages started
	text     string // the open text message's id, "" for none
	held     int    // bytes of the reply the client holds
	finished *Event // the run's last event, once its end was seen
	// ours is the turn this run follows: the node of its message, once
	// known. Until then, starts says which message starts it: the events
	// of other turns (one that ran before a queued message) are not this
	// run's.
	ours   int64
	starts string
}

// branch is what a run reads of the conversation's branch before it acts.
type branch struct {
	users   []userMessage
	pending []tree.Node // questions waiting, their requests' nodes
}

type userMessage struct {
	node int64
	id   string
	text string
}

func (r *run) run(ctx context.Context, newSession func() (string, error)) error {
	if r.in.ThreadID == "" || r.in.RunID == "" {
		return apperr.Errorf(apperr.Invalid, "A run needs a threadId and a runId.")
	}
	b, act, err := r.open(ctx, newSession)
	if err != nil {
		return err
	}
	defer r.follower.Close()
	es, err := eventstream.OpenNew(ctx, r.svc, r.session, r.conv)
	if err != nil {
		return err
	}
	defer es.Close()
	if act != nil {
		if err := act(ctx); err != nil {
			return err
		}
	}
	if err := r.send(Event{Type: RunStarted, ThreadID: r.conv, RunID: r.in.RunID, ProtocolVersion: ProtocolVersion}); err != nil {
		return err
	}
	if err := r.send(Event{Type: StateSnapshot, Snapshot: r.sent.snapshot()}); err != nil {
		return err
	}
	if act == nil {
		// Nothing new to run: the client is told where the thread is.
		if err := r.syncState(); err != nil {
			return err
		}
		if len(b.pending) > 0 {
			return r.send(r.interrupted(b.pending))
		}
		return r.send(Event{Type: RunFinished, ThreadID: r.conv, RunID: r.in.RunID, Outcome: &Outcome{Type: "success"}})
	}
	return r.follow(ctx, es)
}

// open finds the thread, or makes a conversation for a new one, reads its
// branch and checks the input against it (plan). It leaves r.follower
// open on the conversation when it succeeds.
func (r *run) open(ctx context.Context, newSession func() (string, error)) (branch, func(context.Context) error, error) {
	r.conv = r.in.ThreadID
	var b branch
	f, err := r.svc.Follow(ctx, r.session, r.conv, feed.Want{})
	if err == nil {
		// The state is read before the run acts, so that what the run
		// changes comes as deltas after the snapshot.
		f.Look(func(l feed.Live) { b, r.sent = branchOf(l.Path), statesOf(l.Path) })
		act, err := r.plan(b)
		if err != nil {
			f.Close()
			return b, nil, err
		}
		r.follower = f
		return b, act, nil
	}
	if apperr.CodeOf(err) != apperr.NotFound {
		return b, nil, err
	}
	// A new thread: the input is checked before a conversation is made
	// for it, so that a refused one leaves none behind.
	if len(r.in.Resume) > 0 {
		return b, nil, apperr.Errorf(apperr.NotFound, "There is no thread %q to resume here.", r.in.ThreadID)
	}
	act, err := r.plan(b)
	if err != nil {
		return b, nil, err
	}
	if r.session, err = newSession(); err != nil {
		return b, nil, err
	}
	c, err := r.svc.Create(ctx, r.session, r.in.agent())
	if err != nil {
		return b, nil, err
	}
	r.conv, r.sent = c.ID, states{}
	if r.follower, err = r.svc.Follow(ctx, r.session, r.conv, feed.Want{}); err != nil {
		return b, nil, err
	}
	return b, act, nil
}

// follow sends the run's events as the feed gives them, until its end:
// its run.completed, or a question it asks.
func (r *run) follow(ctx context.Context, es *eventstream.Stream) error {
	for r.finished == nil {
		evs, err := es.Next(ctx)
		if err != nil {
			return err
		}
		var asked []eventstream.ElicitAsked
		var approvals []eventstream.ApprovalRequired
		for _, ev := range evs {
			if err := r.on(ev, &asked, &approvals); err != nil {
				return err
			}
		}
		if err := r.syncState(); err != nil {
			return err
		}
		if len(asked) > 0 && r.finished == nil {
			if err := r.endText(); err != nil {
				return err
			}
			ev := r.interruptedBy(asked, approvals)
			r.finished = &ev
		}
	}
	return r.send(*r.finished)
}

// plan checks the input against the branch and returns what to do: answer
// the questions the resume entries name, send the last message, or edit
// the earlier message the last one replaces. nil is nothing to do.
func (r *run) plan(b branch) (func(context.Context) error, error) {
	if len(r.in.Resume) > 0 {
		return r.resume(b)
	}
	var users []Message
	for _, m := range r.in.Messages {
		if m.Role == "user" {
			users = append(users, m)
		}
	}
	n := len(r.in.Messages)
	if n == 0 || r.in.Messages[n-1].Role != "user" {
		if len(b.pending) > 0 {
			return nil, nil // the client asks where the thread is
		}
		return nil, apperr.Errorf(apperr.Invalid, "The last message is not the user's: there is nothing to run.")
	}
	last, prior := users[len(users)-1], users[:len(users)-1]
	msg := inbound.Message{Text: last.Text()}
	if inbound.CheckID(last.ID) == nil {
		msg.ID = last.ID
	}
	k := 0
	for k < len(prior) && k < len(b.users) && strings.TrimSpace(prior[k].Text()) == b.users[k].text {
		k++
	}
	checked, err := msg.Checked()
	if err != nil {
		return nil, err
	}
	msg, r.starts = checked, checked.Text
	switch {
	case k < len(prior):
		return nil, apperr.Errorf(apperr.Invalid, "The messages differ from the thread's at user message %d: only the last message may be new or an edit of one of the thread's.", k+1)
	case k == len(b.users) && len(b.pending) > 0:
		return nil, apperr.Errorf(apperr.Conflict, "A question waits on this thread (interrupt %q): answer it with a resume entry before a new message.", b.pending[0].Ref)
	case k == len(b.users):
		return func(ctx context.Context) error {
			_, err := r.svc.SendMessage(ctx, r.session, r.conv, msg)
			return err
		}, nil
	case k == len(b.users)-1 && msg.ID != "" && b.users[k].id == msg.ID:
		return nil, nil // the thread's last message sent again: nothing new
	}
	// The client went back to message k and said something else there: a
	// new branch, the message's new version.
	node := b.users[k].node
	return func(ctx context.Context) error {
		return r.svc.Edit(ctx, r.session, r.conv, node, inbound.Message{Text: msg.Text})
	}, nil
}

// resume checks the resume entries against the questions waiting and
// returns their answering. An entry for a question not waiting, or of an
// unknown status, refuses the whole input before any answer is given.
func (r *run) resume(b branch) (func(context.Context) error, error) {
	waiting := map[string]bool{}
	for _, n := range b.pending {
		waiting[n.Ref] = true
	}
	answers := make([]chat.Answer, len(r.in.Resume))
	for i, e := range r.in.Resume {
		if !waiting[e.InterruptID] {
			return nil, apperr.Errorf(apperr.Conflict, "No question %q waits on this thread: it was answered, or never asked.", e.InterruptID)
		}
		switch e.Status {
		case "resolved":
			answers[i] = chat.Answer{Action: elicit.Accept, Content: e.Payload}
		case "cancelled":
			answers[i] = chat.Answer{Action: elicit.Cancel}
		default:
			return nil, apperr.Errorf(apperr.Invalid, "A resume entry's status is resolved or cancelled, not %q.", e.Status)
		}
	}
	if len(b.users) > 0 {
		r.ours = b.users[len(b.users)-1].node
	}
	return func(ctx context.Context) error {
		for i, e := range r.in.Resume {
			if err := r.svc.Answer(ctx, r.session, r.conv, e.InterruptID, answers[i]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// branchOf reads the user messages of path and the questions waiting at
// its end.
func branchOf(path tree.Path) branch {
	var b branch
	asked := map[string]int{}
	for _, n := range path {
		switch n.Kind {
		case tree.UserMessage:
			m, _ := tree.Decode[tree.Message](n)
			b.users = append(b.users, userMessage{node: n.ID, id: m.ID, text: strings.TrimSpace(m.Text)})
		case tree.ElicitRequest:
			if req, _ := tree.Decode[elicit.Request](n); len(req.Actions) == 0 {
				continue // a wait: only the clock answers it
			}
			asked[n.Ref] = len(b.pending)
			b.pending = append(b.pending, n)
		case tree.ElicitResponse:
			if i, ok := asked[n.Ref]; ok {
				b.pending[i] = tree.Node{}
			}
		}
	}
	pending := b.pending[:0]
	for _, n := range b.pending {
		if n.ID != 0 {
			pending = append(pending, n)
		}
	}
	b.pending = pending
	return b
}

// on turns one event of the run feed into AG-UI's. Questions asked are
// gathered, to end the run once the events of their node are all read.
func (r *run) on(ev eventstream.Event, asked *[]eventstream.ElicitAsked, approvals *[]eventstream.ApprovalRequired) error {
	if r.finished != nil || !r.follows(ev) {
		return nil
	}
	switch d := ev.Data.(type) {
	case eventstream.TokenDelta:
		if d.Aside {
			return nil
		}
		if d.Offset == 0 && r.held > 0 {
			// The reply starts over: what streamed was the text of a model
			// call that went on to call tools, a message of its own.
			if err := r.endText(); err != nil {
				return err
			}
		}
		r.held = d.Offset + len(d.Text)
		return r.say(d.Text)
	case eventstream.ToolCall:
		if d.Aside {
			return nil
		}
		if err := r.endText(); err != nil {
			return err
		}
		id := callID(d.Node)
		if err := r.send(Event{Type: ToolCallStart, ToolCallID: id, ToolCallName: d.Tool}); err != nil {
			return err
		}
		if len(d.Input) > 0 && string(d.Input) != "null" {
			if err := r.send(Event{Type: ToolCallArgs, ToolCallID: id, Delta: string(d.Input)}); err != nil {
				return err
			}
		}
		return r.send(Event{Type: ToolCallEnd, ToolCallID: id})
	case eventstream.ToolResult:
		if d.Aside {
			return nil
		}
		content := string(d.Output)
		if d.Error != "" {
			content = "Error: " + d.Error
		}
		return r.send(Event{Type: ToolCallResult, MessageID: fmt.Sprintf("result-%d", d.Node), ToolCallID: callID(d.Node), Content: &content, Role: "tool"})
	case eventstream.ElicitAsked:
		// A wait (turn.Sleep) is no interrupt: only the clock answers it,
		// and the run goes on when it does.
		if !d.Aside && len(d.Request.Actions) > 0 {
			*asked = append(*asked, d)
		}
	case eventstream.ApprovalRequired:
		if !d.Aside {
			*approvals = append(*approvals, d)
		}
	case eventstream.RunCompleted:
		if d.Aside {
			return nil
		}
		if err := r.endText(); err != nil {
			return err
		}
		end := Event{Type: RunFinished, ThreadID: r.conv, RunID: r.in.RunID}
		switch d.Status {
		case tree.OutcomeReplied:
			end.Outcome, end.Result = &Outcome{Type: "success"}, d.Text
		case tree.OutcomeStopped:
			end.Outcome = &Outcome{Type: "cancelled"}
		default:
			msg := d.Text
			if msg == "" {
				msg = "The run failed."
			}
			end = Event{Type: RunError, Message: msg, Code: string(d.Status)}
		}
		r.finished = &end
	}
	return nil
}

// follows reports whether ev is of the turn this run follows, and learns
// which turn that is from the run.started of the message it sent.
func (r *run) follows(ev eventstream.Event) bool {
	var run int64
	switch d := ev.Data.(type) {
	case eventstream.RunStarted:
		if r.ours == 0 && !d.Aside && strings.TrimSpace(d.Text) == strings.TrimSpace(r.starts) {
			r.ours = d.Node
		}
		return false
	case eventstream.TokenDelta:
		run = d.Run
	case eventstream.ToolCall:
		run = d.Run
	case eventstream.ToolResult:
		run = d.Run
	case eventstream.ElicitAsked:
		run = d.Run
	case eventstream.ApprovalRequired:
		run = d.Run
	case eventstream.RunCompleted:
		run = d.Run
	default:
		return false
	}
	return r.ours != 0 && run == r.ours
}

// callID is the AG-UI id of the tool call recorded at node.
func callID(node int64) string { return fmt.Sprintf("call-%d", node) }

// say sends text as the open text message's, opening one when none is.
func (r *run) say(text string) error {
	if text == "" {
		return nil
	}
	if r.text == "" {
		r.msgs++
		r.text = fmt.Sprintf("%s-%d", r.in.RunID, r.msgs)
		if err := r.send(Event{Type: TextMessageStart, MessageID: r.text, Role: "assistant"}); err != nil {
			return err
		}
	}
	return r.send(Event{Type: TextMessageContent, MessageID: r.text, Delta: text})
}

// endText ends the open text message, if one is.
func (r *run) endText() error {
	if r.text == "" {
		return nil
	}
	id := r.text
	r.text = ""
	return r.send(Event{Type: TextMessageEnd, MessageID: id})
}

// syncState sends the change of the agents' state since the client last
// had it, as a JSON Patch.
func (r *run) syncState() error {
	var now states
	r.follower.Look(func(l feed.Live) { now = statesOf(l.Path) })
	ops := r.sent.patch(now)
	if len(ops) == 0 {
		return nil
	}
	r.sent = now
	return r.send(Event{Type: StateDelta, Delta: ops})
}

// interrupted is the end of a run that waits on the questions of nodes.
func (r *run) interrupted(nodes []tree.Node) Event {
	var asked []eventstream.ElicitAsked
	for _, n := range nodes {
		req, _ := tree.Decode[elicit.Request](n)
		asked = append(asked, eventstream.ElicitAsked{Elicit: n.Ref, Request: req})
	}
	return r.interruptedBy(asked, nil)
}

// interruptedBy is the end of a run that waits on the questions asked,
// approvals among them.
func (r *run) interruptedBy(asked []eventstream.ElicitAsked, approvals []eventstream.ApprovalRequired) Event {
	out := Outcome{Type: "interrupt"}
	for _, q := range asked {
		it := Interrupt{ID: q.Elicit, Reason: q.Request.Kind, Message: q.Request.Message,
			Metadata: map[string]any{"kind": q.Request.Kind, "actions": q.Request.Actions}}
		if q.Request.Schema != nil {
			it.ResponseSchema, _ = json.Marshal(q.Request.Schema)
		}
		if len(q.Request.Input) > 0 {
			it.Metadata["input"] = q.Request.Input
		}
		if q.Request.Kind == elicit.Approve.Name {
			it.Reason = "tool_approval"
		}
		for _, a := range approvals {
			if a.Elicit == q.Elicit {
				it.Reason = "tool_approval"
				it.Metadata["agent"], it.Metadata["tool"], it.Metadata["args"] = a.Agent, a.Tool, a.Args
				if a.Description != "" {
					it.Metadata["description"] = a.Description
				}
				if len(a.Effects) > 0 {
					it.Metadata["effects"] = a.Effects
				}
			}
		}
		out.Interrupts = append(out.Interrupts, it)
	}
	return Event{Type: RunFinished, ThreadID: r.conv, RunID: r.in.RunID, Outcome: &out}
}

// send emits ev; a failure is the client's going away.
func (r *run) send(ev Event) error {
	if err := r.emit(ev); err != nil {
		return fmt.Errorf("%w: %w", errGone, err)
	}
	return nil
}

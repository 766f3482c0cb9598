package eventstream_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// sideAsked starts a forecaster conversation, follows it and asks a side
// question while its question waits; it returns the stream, the side
// question's run, and the chunks of the side turn's model call.
func sideAsked(t *testing.T, svc *chat.Service, model *paced, text string) (conv string, f *follower, run int64, chunks chan<- string) {
	t.Helper()
	conv = startConv(t, svc, "me", "forecaster")
	f = follow(t, svc, "me", conv, "")
	send(t, svc, "me", conv, "weather please")
	f.until("the question", is(eventstream.EventElicitAsked))
	chunks = model.stream(llm.Response{Usage: llm.Usage{PromptTokens: 4, CompletionTokens: 6}})
	send(t, svc, "me", conv, text)
	started := last(f.until("the side question", is(eventstream.EventRunStarted))).Data.(eventstream.RunStarted)
	if !started.Aside {
		t.Fatalf("run.started %+v, want a side question", started)
	}
	return conv, f, started.Run, chunks
}

// sideDelta matches a delta of side question run ending with suffix.
func sideDelta(run int64, suffix string) func(eventstream.Event) bool {
	return func(e eventstream.Event) bool {
		d, ok := e.Data.(eventstream.TokenDelta)
		return ok && d.Run == run && d.Aside && strings.HasSuffix(d.Text, suffix)
	}
}

// A side question's reply streams as deltas marked aside, of the side
// question's run; a client that drops mid-reply and comes back is sent the
// rest from the bytes it holds, then the reply as it goes on, and the
// deltas joined are the reply.
func TestASideRepliesDeltasStreamAndResume(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, run, chunks := sideAsked(t, svc, model, "what time is it?")
	chunks <- "It is "
	f.until("the side reply's first words", sideDelta(run, "It is "))
	chunks <- "no"
	f.until("the next words", sideDelta(run, "no"))
	held := last(f.seen).ID
	if !strings.Contains(held, "~") {
		t.Errorf("the id after a side delta is %q, want it to say the side reply's bytes held", held)
	}
	f.es.Close()
	chunks <- "on"
	waitView(t, svc, "me", conv, "the side draft", func(v pageview.View) bool {
		s := sideItems(v)
		return len(s) == 1 && s[0].Draft == "It is noon"
	})

	r := follow(t, svc, "me", conv, held)
	if got := r.take(1)[0].Data; got != (eventstream.TokenDelta{Run: run, Aside: true, Offset: len("It is no"), Text: "on"}) {
		t.Fatalf("first event after resuming = %+v, want the rest of the side draft", got)
	}
	chunks <- "."
	r.until("the last words", sideDelta(run, "."))
	close(chunks)
	done := last(r.until("the side run's end", is(eventstream.EventRunCompleted))).Data.(eventstream.RunCompleted)
	all := append(append([]eventstream.Event(nil), f.seen...), r.seen...)
	if !done.Aside || done.Run != run || done.Text != "It is noon." || joined(all, run) != done.Text {
		t.Fatalf("deltas joined %q, run.completed %+v, want the side reply %q:%s", joined(all, run), done, "It is noon.", describe(all))
	}
	noneTwice(t, all)
}

// A side run stopped mid-reply keeps its partial text, and so does the
// flow's: run.completed says what had streamed. From the id of any event
// of a conversation with a side reply streamed, a side reply stopped and
// the flow's reply stopped, the stream goes on with exactly the events
// that followed it.
func TestStoppedRunsCarryTheirPartialTextAndResumeExactly(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, first, chunks := sideAsked(t, svc, model, "what time is it?")
	chunks <- "It is "
	f.until("the side reply's words", sideDelta(first, "It is "))
	chunks <- "noon."
	close(chunks)
	f.until("the first side run's end", is(eventstream.EventRunCompleted))

	chunks = model.stream(llm.Response{})
	send(t, svc, "me", conv, "and the date?")
	second := last(f.until("the second side question", is(eventstream.EventRunStarted))).Data.(eventstream.RunStarted).Run
	chunks <- "Today is "
	f.until("the second side reply's words", sideDelta(second, "Today is "))
	if err := svc.Stop(t.Context(), "me", conv); err != nil {
		t.Fatal(err)
	}
	stopped := last(f.until("the stopped side run's end", is(eventstream.EventRunCompleted))).Data.(eventstream.RunCompleted)
	if stopped.Run != second || !stopped.Aside || stopped.Status != tree.OutcomeStopped || stopped.Partial != "Today is " {
		t.Errorf("the stopped side run's end = %+v, want stopped, aside, with its partial text", stopped)
	}

	// The flow's question is answered; its reply streams and is stopped.
	q := f.seen[slicesIndex(f.seen, is(eventstream.EventElicitAsked))].Data.(eventstream.ElicitAsked)
	main := q.Run
	chunks = model.stream(llm.Response{})
	if err := svc.Answer(t.Context(), "me", conv, q.Elicit, cityAnswer("Oslo")); err != nil {
		t.Fatal(err)
	}
	chunks <- "Clear "
	f.until("the flow's words", func(e eventstream.Event) bool { d, ok := e.Data.(eventstream.TokenDelta); return ok && d.Run == main })
	if err := svc.Stop(t.Context(), "me", conv); err != nil {
		t.Fatal(err)
	}
	end := last(f.until("the flow's end", func(e eventstream.Event) bool { return e.Type == eventstream.EventRunCompleted && runOf(e) == main })).Data.(eventstream.RunCompleted)
	if end.Status != tree.OutcomeStopped || end.Aside || end.Partial != "Clear " {
		t.Errorf("the stopped run's end = %+v, want stopped with its partial text", end)
	}

	// Read from the record: each side reply is one delta, then its end.
	whole := follow(t, svc, "me", conv, "")
	all := whole.until("the flow's end", func(e eventstream.Event) bool { return e.Type == eventstream.EventRunCompleted && runOf(e) == main })
	if got := reply(t, all, first); got != "It is noon." {
		t.Errorf("the first side reply read from the record: deltas give %q:%s", got, describe(all))
	}
	for i, e := range all {
		rest := all[i+1:]
		if len(rest) == 0 {
			break
		}
		r := follow(t, svc, "me", conv, e.ID)
		got := r.take(len(rest))
		r.es.Close()
		if !reflect.DeepEqual(got, rest) {
			t.Fatalf("after %s (%s) the stream sent:%s\nwant:%s", e.ID, e.Type, describe(got), describe(rest))
		}
	}
}

func cityAnswer(city string) chat.Answer {
	return chat.Answer{Action: "accept", Content: []byte(`{"city":"` + city + `"}`)}
}

// The side part of a Last-Event-ID is refused unless it is one the stream
// could have sent: a side question's reply, held bytes, in order.
func TestABadSidePartOfALastEventIDIsRefused(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, run, chunks := sideAsked(t, svc, model, "what time is it?")
	chunks <- "It is "
	f.until("the side reply's words", sideDelta(run, "It is "))
	held := last(f.seen).ID
	msg := runOf(f.seen[0]) // the flow's message: no side question
	node := held[:strings.Index(held, "~")]
	for _, id := range []string{node + "~", node + "~0.3.x", fmt.Sprintf("%s~%d.0.1", node, run), fmt.Sprintf("%s~%d.3.x", node, msg),
		fmt.Sprintf("%d~%d.3.x", run-1, run), held + held[strings.Index(held, "~"):], "~4.3.x", "0~4.3.x"} {
		if _, err := eventstream.Open(t.Context(), svc, "me", conv, id); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("Last-Event-ID %q: err = %v, want Invalid", id, err)
		}
	}
	if _, err := eventstream.Open(t.Context(), svc, "me", conv, held); err != nil {
		t.Errorf("Last-Event-ID %q, as sent: %v", held, err)
	}
}

// A side thread continued as the flow ends the flow's run that waited
// (stopped, its question withdrawn), and the runs after it are the flow's,
// not side runs.
func TestAContinuedSideThreadEndsTheFlowsRun(t *testing.T) {
	svc, model := newEventsService(t)
	conv, f, run, chunks := sideAsked(t, svc, model, "what time is it?")
	chunks <- "It is noon."
	close(chunks)
	f.until("the side run's end", is(eventstream.EventRunCompleted))
	flow := f.seen[0].Data.(eventstream.RunStarted).Run
	if err := svc.ContinueHere(t.Context(), "me", conv, run); err != nil {
		t.Fatal(err)
	}
	done := last(f.until("the flow's run's end", is(eventstream.EventRunCompleted))).Data.(eventstream.RunCompleted)
	if done.Run != flow || done.Aside || done.Status != tree.OutcomeStopped || !strings.Contains(done.Text, "withdrawn") {
		t.Errorf("after continue here, run.completed %+v; want the flow's run %d stopped, its question withdrawn", done, flow)
	}
	send(t, svc, "me", conv, "thanks")
	if started := last(f.until("the next run", is(eventstream.EventRunStarted))).Data.(eventstream.RunStarted); started.Aside {
		t.Errorf("the run after continue here is %+v, want a run of the flow", started)
	}
}

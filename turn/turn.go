// Package turn is what an agent's code calls while it runs a turn: the four
// primitives (Sample, Ask, Notify, Log), typed model output (SampleAs),
// figures (Show), concurrent work (Together), and the values a replayed
// turn must see again (Now, Random, Version).
//
// Every call goes through whichever implementation the turn's context
// carries: the conversation's recorder in the server, the terminal, or a
// test kit (package agenttest). An agent author never installs them; the
// middleware an application wraps them with is package middleware's.
//
// A turn is replayed after a restart, an edit or a deploy: everything that
// may differ between two runs must come through these calls (or a tool),
// not time.Now, math/rand or a network call of its own.
package turn

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Ask asks the user: it elicits kind k (a form, a choice, the device's
// location, ...) with message and input in, waits for the answer and
// decodes it. The answer has passed the request's schema and the kind's
// own rules; the result says whether the user accepted, declined or
// cancelled. A turn waiting here survives a restart of the server.
func Ask[In, Out any](ctx context.Context, k *elicit.Kind[In, Out], message string, in In) (elicit.Result[Out], error) {
	req, err := k.Request(message, in)
	if err != nil {
		return elicit.Result[Out]{}, err
	}
	resp, err := elicitChecked(ctx, req, func(resp elicit.Response) error { return k.Verify(req, resp) })
	if err != nil {
		return elicit.Result[Out]{}, err
	}
	return k.Decode(resp)
}

// AskWithProgress is Ask, calling onProgress with the stages the answering
// side reports while it works (a location being acquired, say): each
// report exactly once, in order — as it comes, and, from the answer's
// record, those it did not hear live (all of them when the turn is
// replayed after a restart or a rewind).
func AskWithProgress[In, Out any](ctx context.Context, k *elicit.Kind[In, Out], message string, in In, onProgress func(elicit.Progress)) (elicit.Result[Out], error) {
	req, err := k.Request(message, in)
	if err != nil {
		return elicit.Result[Out]{}, err
	}
	var (
		mu    sync.Mutex
		heard int
		done  bool
	)
	live := func(_ elicit.Request, p elicit.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			heard++
			onProgress(p)
		}
	}
	resp, err := elicitChecked(primitive.ElicitProgress.With(ctx, live), req, func(resp elicit.Response) error { return k.Verify(req, resp) })
	mu.Lock()
	done = true
	if err == nil && heard < len(resp.Progress) {
		for _, p := range resp.Progress[heard:] {
			onProgress(p)
		}
	}
	mu.Unlock()
	if err != nil {
		return elicit.Result[Out]{}, err
	}
	return k.Decode(resp)
}

// Elicit sends an untyped request to the user and waits for the answer;
// Ask is its typed form.
func Elicit(ctx context.Context, req elicit.Request) (elicit.Response, error) {
	return elicitChecked(ctx, req, req.Check)
}

// elicitChecked elicits req and checks the answer with check: an
// implementation that hands back content breaking the request's rules
// gets an error here, and the agent never sees the content.
func elicitChecked(ctx context.Context, req elicit.Request, check func(elicit.Response) error) (elicit.Response, error) {
	if req.Agent == "" {
		req.Agent = primitive.AgentName.Get(ctx)
	}
	resp, err := middleware.Elicit.Call(ctx, req)
	if err != nil {
		return resp, err
	}
	if err := check(resp); err != nil {
		return elicit.Response{}, fmt.Errorf("elicit %s: the answer breaks the request's rules: %w", req.Kind, err)
	}
	return resp, nil
}

// OpenFile reads a file the user gave: the answer to elicit.AskFile
// (res.Content.ID) or one sent with a message. The file is as it was
// stored, so a replayed turn reads the same bytes; it is the
// conversation's session's alone. The caller closes it.
func OpenFile(ctx context.Context, id string) (io.ReadCloser, error) {
	open := primitive.Files.Get(ctx)
	if open == nil {
		return nil, primitive.ErrNoFiles
	}
	return open(ctx, id)
}

// ReadFile reads a file the user gave whole, as OpenFile does: for files
// small enough to hold in memory, as a question's MaxSize can make sure
// they are.
func ReadFile(ctx context.Context, id string) ([]byte, error) {
	rc, err := OpenFile(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// Notify reports progress to the user: a message and how far along the
// work is, from 0 to 1 (negative when unknown).
func Notify(ctx context.Context, message string, fraction float64) error {
	_, err := middleware.Notify.Call(ctx, middleware.Progress{Message: message, Fraction: fraction})
	return err
}

// Log records a line for developers, kept with the turn and shown on the
// debug pages.
func Log(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	if _, err := middleware.Log.Call(ctx, middleware.LogEntry{Level: level, Message: msg, Attrs: attrs}); err != nil {
		slog.Default().Log(ctx, level, msg, attrs...) // outside a turn
	}
}

// Show shows the user a figure, a table or a chart, in place. A figure that
// fails its Check is not shown; the error says what is wrong with it.
func Show(ctx context.Context, f figure.Figure) error {
	if err := f.Check(); err != nil {
		return err
	}
	_, err := primitive.ShowAPI.Call(ctx, f)
	return err
}

// Together runs fns at once and returns when all have returned; the first to
// fail cancels the others. Their questions reach the user together, queued
// in the order asked, and a replay numbers each branch's calls on its own.
func Together(ctx context.Context, fns ...func(ctx context.Context) error) error {
	return primitive.WithScope(ctx, func(ctx context.Context, s *primitive.Scope) error {
		lane := func(int) context.Context { return ctx }
		if mk := primitive.Lanes.Get(ctx); mk != nil {
			lane = mk(ctx)
		}
		var wg sync.WaitGroup
		for i, fn := range fns {
			wg.Add(1)
			bctx := lane(i)
			s.Go(func(context.Context) error {
				defer wg.Done()
				return fn(bctx)
			})
		}
		wg.Wait()
		// Children that saw the scope cancelled return quietly; the caller
		// must still learn that not all of them finished.
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	})
}

// History returns the conversation so far, up to the message that started
// the turn, as messages for the model.
func History(ctx context.Context) ([]llm.Message, error) {
	return middleware.History.Call(ctx, struct{}{})
}

// ConversationID returns the id of the conversation the turn runs in, ""
// outside a turn. It is the runner's to say, never the model's or the
// user's: a tool that acts for a conversation (books a seat, files a
// ticket) keys what it does by it rather than by an id in its arguments,
// which a user may edit.
func ConversationID(ctx context.Context) string { return primitive.Conversation.Get(ctx) }

// Now returns the current time; in a turn it is recorded, and a replay sees
// the time it saw before.
func Now(ctx context.Context) time.Time {
	if t, err := primitive.NowAPI.Call(ctx, struct{}{}); err == nil {
		return t
	}
	return time.Now()
}

// Random returns a random number; in a turn it is recorded, and a replay
// draws the same numbers again.
func Random(ctx context.Context) uint64 {
	if n, err := primitive.RandomAPI.Call(ctx, struct{}{}); err == nil {
		return n
	}
	return rand.Uint64()
}

// Version says which version of a change to a turn's code the turn takes,
// so that a deploy does not break the conversations waiting on a question:
// a turn recorded before the change replays the old path, and a turn
// recorded after it the new one. Change names the change (unique within
// the turn's code), latest is the newest version the code has, counting
// from 1; 0 is the code before the change. A change reads:
//
//	if turn.Version(ctx, "notify-before-ask", 1) >= 1 {
//		turn.Notify(ctx, "Looking up your booking…", -1)
//	}
//	res, err := turn.Ask(ctx, ...)
//
// A live turn takes latest, and the choice is recorded (the tree inspector
// shows it as a value); a replay takes what it recorded. Changing the
// change again raises latest and adds a branch. Keep the call, and the old
// branch, while turns recorded before it may still resume: `sweatpants
// check` replays every waiting turn against the new code before a deploy
// and lists those that would not.
func Version(ctx context.Context, change string, latest int) int {
	if !primitive.Installed(ctx, primitive.VersionAPI) {
		return latest // outside a turn: the code's newest path
	}
	v, err := primitive.VersionAPI.Call(ctx, primitive.VersionRequest{Change: change, Latest: latest})
	if err != nil {
		return 0 // the core ended the turn: a record newer than the code
	}
	return v
}

// ExpiresIn returns ctx in which a question asked (Ask, Elicit, a method)
// waits at most d for its answer: unanswered by then, it is withdrawn and
// the asker gets elicit.Expired. The time counts from when the question is
// asked, as the conversation records it, through restarts and on any node.
func ExpiresIn(ctx context.Context, d time.Duration) context.Context {
	return primitive.ExpiresIn.With(ctx, d)
}

// Sleep waits d, durably: the wait is recorded in the conversation, the
// turn needs nothing in memory while it waits (it is suspended as it is
// while a question waits), and after a restart, or on another node, the
// wait ends once at its time — at once when the time passed while the
// program was down. Stop ends the wait (Sleep returns the context's
// error); an edit or rewind to before it abandons it, and recovering that
// branch from the reflog brings it back. Outside a turn it is a plain wait.
func Sleep(ctx context.Context, d time.Duration) error {
	return Wait(ctx, elicit.WaitInput{Until: Now(ctx).Add(d)})
}

// Until waits, as Sleep does, until t.
func Until(ctx context.Context, t time.Time) error {
	return Wait(ctx, elicit.WaitInput{Until: t})
}

// Wait waits, as Sleep does, until w.Until; w.For says what for, which
// the page shows beside the time.
func Wait(ctx context.Context, w elicit.WaitInput) error {
	w.Until = w.Until.UTC().Truncate(time.Millisecond) // as the record keeps it
	if !primitive.Installed(ctx, middleware.Elicit) {
		t := time.NewTimer(time.Until(w.Until))
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	req, err := elicit.Wait.Request(cmp.Or(w.For, "Waiting"), w)
	if err != nil {
		return err
	}
	req.Expires = &w.Until
	resp, err := Elicit(ctx, req)
	if err != nil {
		return err
	}
	if resp.Action != elicit.Expired {
		return fmt.Errorf("wait until %s ended with %q", w.Until.Format(time.RFC3339), resp.Action)
	}
	return nil
}

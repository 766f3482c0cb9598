// Package turn is what an agent's code calls while it runs a turn: the four
// primitives (Sample, Ask, Notify, Log), typed model output (SampleAs),
// figures (Show), concurrent work (Together), and the values a replayed
// turn must see again (Now, Random, Version).
//
// Every call goes through whichever implementation the turn's context
// carries: the conversation's recorder in the server, the terminal, or a
// test kit (package agenttest). An agent author never installs them; the
// hooks that do, and the middleware around each primitive, live in package
// primitive.
//
// A turn is replayed after a restart, an edit or a deploy: everything that
// may differ between two runs must come through these calls (or a tool),
// not time.Now, math/rand or a network call of its own.
package turn

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
)

// The types a turn's calls return. They are the primitive package's own,
// named here so that an author needs no other import.
type (
	// Typed is a model's reply read as a T (see SampleAs).
	Typed[T any] = primitive.Typed[T]
	// Sampled is a model call's result with what the sample pipeline's
	// stages made of it (see SampleFull).
	Sampled = primitive.Sampled
	// OutputError is a reply that could not be read as the type asked for.
	OutputError = primitive.OutputError
	// RefusedError is a model call whose every attempt was refused by a
	// stage of the pipeline.
	RefusedError = primitive.RefusedError
	// Described is a type that says what it is to the model, for the
	// second attempt of SampleAs.
	Described = primitive.Described
	// Exemplified is a type that offers examples of itself to the model.
	Exemplified[T any] = primitive.Exemplified[T]
)

// Sample calls the model with req through the sample pipeline (redaction,
// repair, budget and whatever else the program installed) and returns its
// reply. In a turn the call is recorded: a replay answers it from the record
// and does not call the model again.
func Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	return primitive.Sample(ctx, req)
}

// SampleFull is Sample, returning what the pipeline's stages made of the
// reply besides (metadata, confidence).
func SampleFull(ctx context.Context, req llm.Request) (Sampled, error) {
	return primitive.SampleFull(ctx, req)
}

// SampleAs asks the model for a value of type T, whose JSON Schema is
// derived from T as for forms and tool inputs. A reply that does not parse
// gets one more attempt that shows the model the format and an example;
// then the caller gets an *OutputError.
func SampleAs[T any](ctx context.Context, req llm.Request) (Typed[T], error) {
	return primitive.SampleAs[T](ctx, req)
}

// Ask asks the user: it elicits kind k (a form, a choice, the device's
// location, ...) with message and input in, waits for the answer and
// decodes it. The answer has passed the request's schema and the kind's
// own rules; the result says whether the user accepted, declined or
// cancelled. A turn waiting here survives a restart of the server.
func Ask[In, Out any](ctx context.Context, k *elicit.Kind[In, Out], message string, in In) (elicit.Result[Out], error) {
	return primitive.Ask(ctx, k, message, in)
}

// AskWithProgress is Ask, calling onProgress with the stages the answering
// side reports while it works (a location being acquired, say).
func AskWithProgress[In, Out any](ctx context.Context, k *elicit.Kind[In, Out], message string, in In, onProgress func(elicit.Progress)) (elicit.Result[Out], error) {
	return primitive.AskWithProgress(ctx, k, message, in, onProgress)
}

// Elicit sends an untyped request to the user and waits for the answer;
// Ask is its typed form.
func Elicit(ctx context.Context, req elicit.Request) (elicit.Response, error) {
	return primitive.Elicit(ctx, req)
}

// OpenFile reads a file the user gave: the answer to elicit.AskFile
// (res.Content.ID) or one sent with a message. The file is as it was
// stored, so a replayed turn reads the same bytes; it is the
// conversation's session's alone. The caller closes it.
func OpenFile(ctx context.Context, id string) (io.ReadCloser, error) {
	return primitive.OpenFile(ctx, id)
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
	return primitive.Notify(ctx, message, fraction)
}

// Log records a line for developers, kept with the turn and shown on the
// debug pages.
func Log(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	primitive.Log(ctx, level, msg, attrs...)
}

// Show shows the user a figure, a table or a chart, in place. A figure that
// fails its Check is not shown; the error says what is wrong with it.
func Show(ctx context.Context, f figure.Figure) error {
	return primitive.Show(ctx, f)
}

// Together runs fns at once and returns when all have returned; the first to
// fail cancels the others. Their questions reach the user together, queued
// in the order asked, and a replay numbers each branch's calls on its own.
func Together(ctx context.Context, fns ...func(ctx context.Context) error) error {
	return primitive.Together(ctx, fns...)
}

// History returns the conversation so far, up to the message that started
// the turn, as messages for the model.
func History(ctx context.Context) ([]llm.Message, error) {
	return primitive.History(ctx)
}

// Now returns the current time; in a turn it is recorded, and a replay sees
// the time it saw before.
func Now(ctx context.Context) time.Time { return primitive.Now(ctx) }

// Random returns a random number; in a turn it is recorded, and a replay
// draws the same numbers again.
func Random(ctx context.Context) uint64 { return primitive.Random(ctx) }

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
	return primitive.Version(ctx, change, latest)
}

// Retry is what a middleware stage returns to refuse the model's answer and
// have the pipeline try again; by names the stage, reason says why.
func Retry(by, reason string) error { return primitive.Retry(by, reason) }

package primitive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Progress is what notify reports: a message and, when known, how far along
// the work is, from 0 to 1 (negative when unknown).
type Progress struct {
	Message  string  `json:"message"`
	Fraction float64 `json:"fraction"`
}

// LogEntry is one call of log.
type LogEntry struct {
	Level   slog.Level `json:"level"`
	Message string     `json:"message"`
	Attrs   []any      `json:"-"`
}

// The four primitives. Their cores are provided by whoever runs the agent
// (the conversation runner, a terminal session, a test); middleware is
// installed around them with Around.
var (
	// SampleAPI is the model call itself, the heart of the sample pipeline
	// (sample.go); its core records the call in a turn.
	SampleAPI = NewAPI[llm.Request, llm.Response]("sample")
	ElicitAPI = NewAPI[elicit.Request, elicit.Response]("elicit")
	NotifyAPI = NewAPI[Progress, struct{}]("notify")
	LogAPI    = NewAPI[LogEntry, struct{}]("log")
	// HistoryAPI gives the conversation so far as model messages; middleware
	// around it can shorten it (compaction).
	HistoryAPI = NewAPI[struct{}, []llm.Message]("history")
)

// NowAPI and RandomAPI make time and chance replayable: a durable turn that
// reads them through package turn gets the same answers when it is resumed.
var (
	NowAPI    = NewAPI[struct{}, time.Time]("now")
	RandomAPI = NewAPI[struct{}, uint64]("random")
)

// Now returns the current time; in a turn, it is recorded, and a resumed
// turn sees the time it saw before.
func Now(ctx context.Context) time.Time {
	if t, err := NowAPI.Call(ctx, struct{}{}); err == nil {
		return t
	}
	return time.Now()
}

// Random returns a random number; in a turn, it is recorded, and a resumed
// turn draws the same numbers again.
func Random(ctx context.Context) uint64 {
	if n, err := RandomAPI.Call(ctx, struct{}{}); err == nil {
		return n
	}
	return rand.Uint64()
}

// VersionRequest is what Version asks of its core: which change, and the
// newest version of it the code knows.
type VersionRequest struct {
	Change string
	Latest int
}

// VersionAPI makes a change of a turn's code replayable (see Version): its
// core records which version of the change a live turn took, and answers
// a replayed turn from its record.
var VersionAPI = NewAPI[VersionRequest, int]("version")

// Version returns which version of change the running turn takes: latest
// in a live run, the version recorded in a replay, and 0 in a replay of a
// turn recorded before the change existed. Outside a turn (no core
// provided) it is latest, the code's newest path. A core that fails ends
// the turn itself (a record newer than the code is a divergence); the
// value returned then is 0.
func Version(ctx context.Context, change string, latest int) int {
	if !VersionAPI.Installed(ctx) {
		return latest
	}
	v, err := VersionAPI.Call(ctx, VersionRequest{Change: change, Latest: latest})
	if err != nil {
		return 0
	}
	return v
}

// History returns the conversation so far, up to the message that started
// the running turn, as messages for the model. Long conversations come back
// compacted: earlier spans replaced by their summaries.
func History(ctx context.Context) ([]llm.Message, error) {
	return HistoryAPI.Call(ctx, struct{}{})
}

// Elicit sends req to the user, through whichever implementation ctx
// provides (the browser, the terminal, a test double, an automated one),
// and waits for the answer. The answer has passed req.Check by the time it
// returns: an implementation that hands back content breaking the
// request's schema gets an error here, and the agent never sees the
// content. Ask checks the kind's own rules besides.
func Elicit(ctx context.Context, req elicit.Request) (elicit.Response, error) {
	return elicitChecked(ctx, req, req.Check)
}

// elicitChecked elicits req and checks the answer with check.
func elicitChecked(ctx context.Context, req elicit.Request, check func(elicit.Response) error) (elicit.Response, error) {
	if req.Agent == "" {
		req.Agent = AgentName.Get(ctx)
	}
	resp, err := ElicitAPI.Call(ctx, req)
	if err != nil {
		return resp, err
	}
	if err := check(resp); err != nil {
		return elicit.Response{}, fmt.Errorf("elicit %s: the answer breaks the request's rules: %w", req.Kind, err)
	}
	return resp, nil
}

// Ask elicits kind k with input in and decodes the typed result. The
// answer has passed k.Verify: the request's schema and k's own rules.
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

// Notify reports progress to the user.
func Notify(ctx context.Context, message string, fraction float64) error {
	_, err := NotifyAPI.Call(ctx, Progress{Message: message, Fraction: fraction})
	return err
}

// Log records a log line for developers. A missing core falls back to slog.
func Log(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	if _, err := LogAPI.Call(ctx, LogEntry{Level: level, Message: msg, Attrs: attrs}); err != nil {
		slog.Default().Log(ctx, level, msg, attrs...)
	}
}

// AgentName is the name of the agent whose code is running; elicits are
// attributed to it.
var AgentName = NewValue("agent", "")

// ElicitProgress, when set in the context of an elicit, hears the progress
// the implementation reports while the user works on the request (a
// location being acquired, say), before the answer comes back. Progress is
// shown live and not recorded: a resumed turn does not hear it again.
var ElicitProgress = NewValue[func(elicit.Request, elicit.Progress)]("elicit-progress", nil)

// AskWithProgress is Ask with progress reported to onProgress as it comes.
func AskWithProgress[In, Out any](ctx context.Context, k *elicit.Kind[In, Out], message string, in In, onProgress func(elicit.Progress)) (elicit.Result[Out], error) {
	return Ask(ElicitProgress.With(ctx, func(_ elicit.Request, p elicit.Progress) { onProgress(p) }), k, message, in)
}

// Conversation is the id of the conversation a turn is of, set by
// whoever runs the turn (the chat service): what the turn's code keeps
// in the world for a conversation, such as the demo's bookings, is kept
// under it, so that another conversation, another browser's, never sees
// it. Empty where a turn runs outside a conversation.
var Conversation = NewValue("conversation", "")

// Files opens, by upload id, the files a conversation was given (sent with
// a message, or as the answer to elicit.AskFile), for the turn's own code
// (turn.OpenFile): whoever runs the turn installs the reader of its
// session's files (the conversation, the check before a deploy, a test
// kit). Nil where no files are kept.
var Files = NewValue[func(ctx context.Context, id string) (io.ReadCloser, error)]("files", nil)

// ErrNoFiles is OpenFile's error where the turn's runner keeps no files.
var ErrNoFiles = errors.New("no files are kept where this turn runs")

// OpenFile reads the file with upload id through Files.
func OpenFile(ctx context.Context, id string) (io.ReadCloser, error) {
	open := Files.Get(ctx)
	if open == nil {
		return nil, ErrNoFiles
	}
	return open(ctx, id)
}

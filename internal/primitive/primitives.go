package primitive

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// NowAPI and RandomAPI make time and chance replayable: a durable turn that
// reads them through package turn gets the same answers when it is resumed.
var (
	NowAPI    = middleware.NewAPI[struct{}, time.Time]("now")
	RandomAPI = middleware.NewAPI[struct{}, uint64]("random")
)

// VersionRequest is what turn.Version asks of its core: which change, and
// the newest version of it the code knows.
type VersionRequest struct {
	Change string
	Latest int
}

// ImplementedAPI says whether the frontend where the user is implements a
// method, by its kind's name (protocol.Supported): true unless a frontend
// said which methods it implements and this is not one of them. Its core
// records the answer, so a replayed turn takes the same path.
var ImplementedAPI = middleware.NewAPI[string, bool]("implemented")

// VersionAPI makes a change of a turn's code replayable (turn.Version): its
// core records which version of the change a live turn took, and answers
// a replayed turn from its record.
var VersionAPI = middleware.NewAPI[VersionRequest, int]("version")

// AgentName is the name of the agent whose code is running; elicits are
// attributed to it.
var AgentName = middleware.NewValue("agent", "")

// ElicitProgress, when set in the context of an elicit, hears the progress
// the implementation reports while the user works on the request (a
// location being acquired, say), before the answer comes back. Progress is
// shown live and not recorded: a resumed turn does not hear it again.
var ElicitProgress = middleware.NewValue[func(elicit.Request, elicit.Progress)]("elicit-progress", nil)

// ExpiresIn, when set in the context of an elicit, is how long the
// question waits for an answer before it expires (elicit.Expired): from
// when it is asked, as the record says.
var ExpiresIn = middleware.NewValue[time.Duration]("expires-in", 0)

// Conversation is the id of the conversation a turn is of, set by
// whoever runs the turn (the chat service): what the turn's code keeps
// in the world for a conversation, such as the demo's bookings, is kept
// under it, so that another conversation, another browser's, never sees
// it. Empty where a turn runs outside a conversation.
var Conversation = middleware.NewValue("conversation", "")

// Files opens, by upload id, the files a conversation was given (sent with
// a message, or as the answer to elicit.AskFile), for the turn's own code
// (turn.OpenFile): whoever runs the turn installs the reader of its
// session's files (the conversation, the check before a deploy, a test
// kit). Nil where no files are kept.
var Files = middleware.NewValue[func(ctx context.Context, id string) (io.ReadCloser, error)]("files", nil)

// ErrNoFiles is turn.OpenFile's error where the turn's runner keeps no
// files.
var ErrNoFiles = errors.New("no files are kept where this turn runs")

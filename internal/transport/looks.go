package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Look is an operator reading what another account owns: who looked, at
// whose conversation (none for a file or the tool audit), at what (see
// lookAt), and when (the record's clock).
type Look struct {
	OperatorID, OperatorEmail string
	Conversation, Owner       string
	What                      string
	At                        time.Time
}

// Looks is what an operator's looks need of the program's record.
type Looks interface {
	// ConversationOwner returns the owner key of the conversation id; one
	// that does not exist is apperr.NotFound.
	ConversationOwner(ctx context.Context, id string) (string, error)
	// UploadOwner returns the owner key of the file id; one that does not
	// exist is apperr.NotFound.
	UploadOwner(ctx context.Context, id string) (string, error)
	// AccountExists reports whether id is an account's.
	AccountExists(ctx context.Context, id string) (bool, error)
	// RecordLook records the look l at the record's clock.
	RecordLook(ctx context.Context, l Look) error
	// Looks lists the latest looks, newest first, at most limit.
	Looks(ctx context.Context, limit int) ([]Look, error)
}

// lookAt names what an operator's GET of route looks at, for the record;
// "" for a route that is no look. Only these read pages, and their
// streams, are served with another account's key: every other route (any
// POST above all) keeps the operator's own, so a command on what the
// operator looks at is refused as anyone's on a conversation not theirs.
// The event stream and the WebSocket are not here: they take commands.
func lookAt(route string) string {
	switch route {
	case "/c/:id", "/c/:id/stream":
		return "page"
	case "/c/:id/tree", "/c/:id/tree/stream":
		return "tree"
	case "/c/:id/debug", "/c/:id/debug/stream":
		return "calls"
	case "/c/:id/feedback.json", "/c/:id/export.json":
		return "export"
	case "/files/:file":
		return "file"
	case "/tools", "/tools.jsonl":
		return "audit"
	}
	return ""
}

// look serves an operator's GET of a read page of what another account
// owns with that account's key, read-only, and records the look: who, at
// whose conversation, at what. A stream records one look when it opens.
// Anything that is not an operator's GET of such a page, or is of the
// operator's own, is left as it is; so is an id of nothing, which the
// page then answers 404 as it does to anyone.
func (s *Server) look(c echo.Context, a Account) error {
	if !a.Operator || s.signin.Looks == nil || c.Request().Method != http.MethodGet {
		return nil
	}
	what := lookAt(c.Path())
	if what == "" {
		return nil
	}
	ctx := c.Request().Context()
	l := Look{OperatorID: a.ID, OperatorEmail: a.Email, What: what}
	var err error
	switch what {
	case "file":
		l.Owner, err = s.signin.Looks.UploadOwner(ctx, c.Param("file"))
	case "audit":
		// The tool audit of the account ?owner=; without it, the
		// operator's own.
		if l.Owner = c.QueryParam("owner"); l.Owner == "" {
			return nil
		}
		if ok, err := s.signin.Looks.AccountExists(ctx, l.Owner); err != nil {
			return err
		} else if !ok {
			return apperr.Errorf(apperr.NotFound, "There is no account %s.", l.Owner)
		}
	default:
		l.Conversation = c.Param("id")
		l.Owner, err = s.signin.Looks.ConversationOwner(ctx, l.Conversation)
	}
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if l.Owner == a.ID {
		return nil
	}
	if err := s.signin.Looks.RecordLook(ctx, l); err != nil {
		return err
	}
	c.Set(sessionCookie, l.Owner)
	c.SetRequest(c.Request().WithContext(templates.WithLooking(ctx, templates.Looking{Owner: l.Owner})))
	return nil
}

// looksShown is how many looks the operator's page and its export list.
const looksShown = 500

// operatorLooks answers GET /operator/looks, for operators only (404 to
// anyone else): the latest looks at what others own, newest first.
func (s *Server) operatorLooks(c echo.Context) error {
	looks, err := s.operatorsLooks(c)
	if err != nil {
		return err
	}
	rows := make([]templates.LookRow, len(looks))
	for i, l := range looks {
		rows[i] = templates.LookRow(l)
	}
	return render(c, http.StatusOK, templates.LooksPage(rows, looksShown))
}

// lookLine is one look of the export, as a line of JSON.
type lookLine struct {
	At            time.Time `json:"at"`
	OperatorID    string    `json:"operator_id"`
	OperatorEmail string    `json:"operator_email"`
	Conversation  string    `json:"conversation,omitempty"`
	Owner         string    `json:"owner"`
	What          string    `json:"what"`
}

// operatorLooksExport answers GET /operator/looks.jsonl, for operators
// only: the looks of the page, one JSON object a line.
func (s *Server) operatorLooksExport(c echo.Context) error {
	looks, err := s.operatorsLooks(c)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/jsonl; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="looks.jsonl"`)
	c.Response().WriteHeader(http.StatusOK)
	enc := json.NewEncoder(c.Response())
	for _, l := range looks {
		if err := enc.Encode(lookLine{At: l.At.UTC(), OperatorID: l.OperatorID, OperatorEmail: l.OperatorEmail,
			Conversation: l.Conversation, Owner: l.Owner, What: l.What}); err != nil {
			return err // the browser went away
		}
	}
	return nil
}

// operatorsLooks returns the looks to show the request's browser: an
// operator's only; anyone else is answered as if there were no such page.
func (s *Server) operatorsLooks(c echo.Context) ([]Look, error) {
	if a, ok := accountOf(c); !ok || !a.Operator {
		return nil, echo.ErrNotFound
	}
	return s.signin.Looks.Looks(c.Request().Context(), looksShown)
}

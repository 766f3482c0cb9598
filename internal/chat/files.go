package chat

import (
	"context"
	"io"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Files. A conversation reads the files its session sent (package files)
// for the model (package attach) and for the agent's own code
// (primitive.Files); an answer that gives a file (elicit.AskFile) is
// checked against them and filled in from them (package answercheck).

// Files are the files sessions sent, as the chat uses them: a
// *files.Store.
type Files interface {
	// Read opens session's file id for reading. Errors: NotFound for a
	// file that is not the session's.
	Read(ctx context.Context, session, id string) (io.ReadCloser, error)
	// Attachment returns session's file id as a message or an answer
	// names it. Errors: as Read's.
	Attachment(ctx context.Context, session, id string) (tree.Attachment, error)
	// Attach makes session's files ids the conversation's: they live as
	// long as it does and are deleted with it.
	Attach(ctx context.Context, session, conversation string, ids []string) error
}

// DerivedFiles are Files that keep what is made of a file for a model (a
// picture scaled to what a provider takes), so that it is made once:
// *files.Store is. With Files that are not, pictures are scaled at each
// model call.
type DerivedFiles interface {
	// Derived returns what was kept under name of session's file id; ok
	// is false when nothing was. Errors: as Read's.
	Derived(ctx context.Context, session, id, name string) (data []byte, ok bool, err error)
	// KeepDerived keeps data under name for session's file id.
	KeepDerived(ctx context.Context, session, id, name string, data []byte) error
}

// sessionDerived is a session's DerivedFiles as package attach reads them.
type sessionDerived struct {
	files   DerivedFiles
	session string
}

func (d sessionDerived) Derived(ctx context.Context, id, name string) ([]byte, bool, error) {
	return d.files.Derived(ctx, d.session, id, name)
}

func (d sessionDerived) KeepDerived(ctx context.Context, id, name string, data []byte) error {
	return d.files.KeepDerived(ctx, d.session, id, name, data)
}

// fileCache is where the pictures made of the session's files are kept,
// or nil when the files keep none.
func (c *conversation) fileCache() attach.Cache {
	d, ok := c.svc.files.(DerivedFiles)
	if !ok {
		return nil
	}
	return sessionDerived{files: d, session: c.session()}
}

// openFile reads a file of the conversation's session.
func (c *conversation) openFile(ctx context.Context, id string) (io.ReadCloser, error) {
	if c.svc.files == nil {
		return nil, apperr.Errorf(apperr.NotFound, "Files are not kept here, so %s cannot be read.", id)
	}
	return c.svc.files.Read(ctx, c.session(), id)
}

// answerFiles are the files of c's session as an answer to a file
// question names them (answercheck.Files).
type answerFiles struct{ c *conversation }

func (f answerFiles) Attachment(ctx context.Context, id string) (tree.Attachment, error) {
	return f.c.svc.files.Attachment(ctx, f.c.session(), id)
}

func (f answerFiles) Attach(ctx context.Context, ids []string) error {
	return f.c.svc.files.Attach(ctx, f.c.session(), f.c.conv.ID, ids)
}

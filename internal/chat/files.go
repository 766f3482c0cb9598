package chat

import (
	"context"
	"encoding/json"
	"io"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Files. A conversation reads the files its session sent (package files)
// for the model (package attach) and for the agent's own code
// (primitive.Files); an answer that gives a file (elicit.AskFile) is
// checked against them and filled in from them.

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

// checkFileLocked converts a, an answer accepting req, a file question,
// and checks it as checkLocked does. An answer that gives a file names it
// by its upload id alone: the id must be one of the session's files, whose
// name, type and size are then the store's, whatever else the page sent,
// and a file so given becomes the conversation's, to live and be deleted
// with it. c.mu is held (the file is looked up by its key).
func (qs *questions) checkFileLocked(ctx context.Context, req elicit.Request, a Answer) (resp elicit.Response, problem, err error) {
	id := a.Form.Get("id")
	if a.Form == nil {
		var given elicit.File
		json.Unmarshal(a.Content, &given) // what does not read names no file
		id = given.ID
	}
	refuse := func(msg string) (elicit.Response, error, error) {
		return elicit.Response{Action: a.Action}, elicit.FieldErrors{{Field: "id", Message: msg}}, nil
	}
	switch {
	case id == "":
		return refuse("is required: choose a file")
	case qs.c.svc.files == nil:
		return refuse("cannot be taken: files are not kept here")
	}
	session := qs.c.session()
	f, err := qs.c.svc.files.Attachment(ctx, session, id)
	if apperr.CodeOf(err) == apperr.NotFound {
		return refuse("is not a file you uploaded")
	} else if err != nil {
		return elicit.Response{}, nil, err
	}
	content, _ := json.Marshal(elicit.File{ID: f.ID, Name: f.Name, Type: f.Type, Size: f.Size})
	if resp, problem = checkAnswer(qs.c.svc.kinds, req, Answer{Action: a.Action, Content: content}); problem != nil {
		return resp, problem, nil
	}
	return resp, nil, qs.c.svc.files.Attach(ctx, session, qs.c.conv.ID, []string{id})
}

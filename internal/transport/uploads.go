package transport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Files keeps the files people upload (files.Store).
type Files interface {
	// Limits are the server's limits on uploads.
	Limits() files.Limits
	// Put records a file read from r as session's. Errors: TooLarge over
	// lim.MaxFile, Unsupported for a type lim does not allow; then
	// nothing is recorded.
	Put(ctx context.Context, session, name, declaredType string, r io.Reader, lim files.Limits) (files.File, error)
	// Open returns session's file and its bytes. Errors: NotFound for
	// another session's file, as for a missing one.
	Open(ctx context.Context, session, id string) (files.File, io.ReadSeekCloser, error)
	// Room says how much more session may upload now, and how a file
	// over that is refused (files.Store.Room).
	Room(ctx context.Context, session string) (files.Room, error)
	// Discard deletes session's files that nothing uses yet.
	Discard(ctx context.Context, session string, ids []string) error
	// Stat returns session's file id. Errors: NotFound, as Open.
	Stat(ctx context.Context, session, id string) (files.File, error)
	// Attach makes session's files conversation's, kept while it is.
	Attach(ctx context.Context, session, conversation string, ids []string) error
}

const (
	// formSlack is what a form may hold beyond its files' bytes: the
	// parts' boundaries and headers.
	formSlack = 64 << 10
	// maxUploadFiles bounds the files of one upload, each a write.
	maxUploadFiles = 32
)

// Upload limits. An upload being read holds a connection, so a file
// descriptor, for as long as its body takes: as streams are, uploads are
// bounded per session, per client address and in all, and one whose body
// stops coming is cut rather than waited for.
const (
	// DefaultMaxUploads is how many uploads one session may send at once.
	// A page sends four at a time (upload.js), so this leaves room for a
	// second tab.
	DefaultMaxUploads = 8
	// DefaultMaxUploadsPerClient is how many one client address may send
	// at once, whatever its sessions (a browser without one uploads too).
	DefaultMaxUploadsPerClient = 32
	// DefaultMaxUploadsTotal is how many the server reads at once when
	// its configuration does not say; package app derives it from the
	// descriptor limit.
	DefaultMaxUploadsTotal = 256
	// DefaultUploadStall is how long an upload's body may send nothing
	// before it is cut. A large file on a slow link still arrives: only
	// silence counts, never the time the whole takes.
	DefaultUploadStall = 30 * time.Second
)

// UploadLimits bound the uploads (POST /files) being read at once, and
// how long one may stall; each zero field takes its default above.
type UploadLimits struct {
	PerSession, PerClient, Total int
	Stall                        time.Duration
}

// orDefaults is l with its zero fields set to the defaults.
func (l UploadLimits) orDefaults() UploadLimits {
	l.PerSession = cmp.Or(l.PerSession, DefaultMaxUploads)
	l.PerClient = cmp.Or(l.PerClient, DefaultMaxUploadsPerClient)
	l.Total = cmp.Or(l.Total, DefaultMaxUploadsTotal)
	l.Stall = cmp.Or(l.Stall, DefaultUploadStall)
	return l
}

// newUploadLimit bounds the uploads read at once as l says.
func newUploadLimit(l UploadLimits) *holdLimit {
	return newHoldLimit(l.PerSession, l.PerClient, l.Total, holdWords{
		session: "This browser is sending %d files already; wait for them, then send this one again.",
		client:  "Your network is sending %d files to this app already; wait for them, then send this one again.",
		total:   "The server is taking in as many files as it can; please send this one again in a little while.",
	})
}

// uploaded is how POST /files describes each file it recorded.
type uploaded struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
	URL  string `json:"url"`
}

// upload answers POST /files, a multipart/form-data form with one or more
// fields named file, read as it comes (never parsed whole into memory or
// temporary files by the form parser): each file is recorded as the
// session's, named and typed by package files, and the answer is 200 with
// a JSON array of {"id", "name", "type", "size", "url"}, in the order
// sent. The files are the session's until a message or an answer uses
// them (files.Store.Attach), or gc removes them. A file over the limit is
// 413, one of a type not accepted 415, a form that is not one 400, each
// with a message naming the file and the limit; a file past the session's
// quota is 413, past the server's, or one that would leave its disk less
// free space than it keeps for conversations, 507 (files.Store.Room); then
// nothing of the upload is recorded. Uploads read at once are bounded per
// session and per client address (429) and in all (503), and a body that
// sends nothing for the stall limit is cut (UploadLimits). An upload
// taken from a browser without a session gives it a new one of its own, so
// that a session id planted in the browser never receives what its user
// sends; a refused one records none.
func (s *Server) upload(c echo.Context) error {
	lim := s.files.Limits()
	r := c.Request()
	release, err := s.uploads.acquire(sessionOf(c), s.clientAddr(r))
	if err != nil {
		return err
	}
	defer release()
	bound := lim.MaxMessage + formSlack
	if r.ContentLength > bound {
		return tooLargeForm(lim)
	}
	r.Body = http.MaxBytesReader(c.Response(), &stallReader{r: r.Body, rc: http.NewResponseController(c.Response()), stall: s.uploadStall}, bound)
	mr, err := r.MultipartReader()
	if err != nil {
		return apperr.Errorf(apperr.Invalid, "An upload is a multipart/form-data form with one or more fields named file.")
	}
	// A browser with a session uploads into it (its conversation's page
	// does); one with none is given a new one of its own, so that no id
	// planted in it receives what it sends. That session is recorded, and
	// its cookie set, once the upload is taken: a refused one records no
	// session.
	session := sessionOf(c)
	fresh := session == ""
	if fresh && s.signin.Required {
		return signInFirst()
	}
	if fresh {
		session = chat.NewSessionID()
	}
	ctx := r.Context()
	room, err := s.files.Room(ctx, session)
	if err != nil {
		return err
	}
	got, err := readUploads(mr, lim, room, func(name, declared string, body io.Reader, lim files.Limits) (files.File, error) {
		return s.files.Put(ctx, session, name, declared, body, lim)
	})
	if err == nil && fresh {
		if err = s.chat.IssueSession(ctx, session); err == nil {
			s.setSessionCookie(c, session)
			c.Set(sessionCookie, session)
		}
	}
	if err != nil {
		if len(got) > 0 {
			ids := make([]string, len(got))
			for i, f := range got {
				ids[i] = f.ID
			}
			if derr := s.files.Discard(context.WithoutCancel(ctx), session, ids); derr != nil {
				s.log.Error("discard a refused upload's files", "err", derr)
			}
		}
		return err
	}
	out := make([]uploaded, len(got))
	for i, f := range got {
		out[i] = uploaded{ID: f.ID, Name: f.Name, Type: f.Type, Size: f.Size, URL: files.URL(f.ID)}
	}
	return c.JSON(http.StatusOK, out)
}

// stallReader reads an upload's body, which is cut when nothing comes for
// stall: each read moves the connection's read deadline to stall from
// then, in place of the server's read timeout, which bounds a command's
// whole request (a large file on a slow link takes longer).
type stallReader struct {
	r     io.ReadCloser
	rc    *http.ResponseController
	stall time.Duration
}

func (b *stallReader) Read(p []byte) (int, error) {
	// A connection that cannot take a deadline (an in-memory test) is read
	// under the server's timeouts alone.
	_ = b.rc.SetReadDeadline(time.Now().Add(b.stall))
	n, err := b.r.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = &stalledError{stall: b.stall, err: err}
	}
	return n, err
}

func (b *stallReader) Close() error { return b.r.Close() }

// stalledError is an upload's body that sent nothing for stall.
type stalledError struct {
	stall time.Duration
	err   error
}

func (e *stalledError) Error() string {
	return fmt.Sprintf("upload stalled for %s: %v", e.stall, e.err)
}
func (e *stalledError) Unwrap() error { return e.err }

// putFunc records one file of an upload (Files.Put, for a session).
type putFunc func(name, declared string, body io.Reader, lim files.Limits) (files.File, error)

// readUploads reads the parts of an upload's form in order and records
// each field named file by put, others skipped, holding the files
// together to lim.MaxMessage and to the room the store has for them. It
// returns the files recorded, and on an error those recorded before it,
// for the caller to discard.
func readUploads(mr *multipart.Reader, lim files.Limits, room files.Room, put putFunc) ([]files.File, error) {
	var got []files.File
	var used int64
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return got, formError(err, lim)
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		if len(got) == maxUploadFiles {
			part.Close()
			return got, apperr.Errorf(apperr.Invalid, "At most %d files go in one upload.", maxUploadFiles)
		}
		name := formFileName(part)
		if name == "" {
			part.Close()
			return got, apperr.Errorf(apperr.Invalid, `The field "file" must hold a file, with its name.`)
		}
		// The file may be no larger than a file may be, than what is left
		// of the message's total, and than the room left: whichever is
		// least says why when it goes over.
		each := lim
		each.MaxFile = min(lim.MaxFile, lim.MaxMessage-used, room.Bytes-used)
		over := func() error {
			if each.MaxFile == room.Bytes-used {
				return room.Refusal(name)
			}
			return apperr.Errorf(apperr.TooLarge, "%s goes over %s, the most one message's files may be together.",
				files.CleanName(name), bytesize.Words(lim.MaxMessage))
		}
		if each.MaxFile <= 0 {
			part.Close()
			return got, over()
		}
		body := &partReader{r: part}
		f, err := put(name, part.Header.Get("Content-Type"), body, each)
		part.Close()
		switch {
		case body.err != nil:
			return got, formError(body.err, lim) // the client's part, not the store, failed
		case apperr.CodeOf(err) == apperr.TooLarge && each.MaxFile < lim.MaxFile:
			return got, over()
		case err != nil:
			return got, err
		}
		used += f.Size
		got = append(got, f)
	}
	if len(got) == 0 {
		return nil, apperr.Errorf(apperr.Invalid, `The upload has no file: send one or more in form fields named "file".`)
	}
	return got, nil
}

// formFileName is the name of the file in part as its device called it.
// Browsers encode a name's quotation marks and line breaks in a form
// (%22, %0D, %0A: the HTML standard's multipart/form-data encoding),
// which the form's parser leaves as they came; "a\"b.txt" is kept as
// such, not as "a%22b.txt".
func formFileName(part *multipart.Part) string {
	return strings.NewReplacer("%22", `"`, "%0D", "\r", "%0A", "\n").Replace(part.FileName())
}

// partReader reads a part of a form, remembering the error reading it
// failed with: a form cut short or malformed is the client's.
type partReader struct {
	r   io.Reader
	err error
}

func (p *partReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		p.err = err
	}
	return n, err
}

// formError is the answer to an upload's form that could not be read: over
// the bound, or not a well-formed form.
func formError(err error, lim files.Limits) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return tooLargeForm(lim)
	}
	if e, ok := errors.AsType[*stalledError](err); ok {
		return apperr.Errorf(apperr.Invalid, "The upload stalled: nothing came for %s, so it was cut. Send the file again.", e.stall)
	}
	return apperr.Errorf(apperr.Invalid, "The upload's form could not be read: it is cut short or malformed.")
}

// tooLargeForm is the answer to a form larger than the files of a
// message may be, read no further than that.
func tooLargeForm(lim files.Limits) error {
	return apperr.Errorf(apperr.TooLarge, "These files are larger than %s, the most one message's files may be together (and a file at most %s).",
		bytesize.Words(lim.MaxMessage), bytesize.Words(lim.MaxFile))
}

// download answers GET /files/:id with the bytes of the session's file:
// 404 for another session's, as for a missing one. Whatever the file
// holds, it cannot act as a page of the app: its type is the one decided
// from the allow-list, never sniffed by the browser (nosniff); anything
// but a raster image is a download (Content-Disposition: attachment); and
// a sandboxing CSP lets nothing in it run or load. Ranges and conditional
// requests (its ETag is its content's hash) are answered as for any file.
func (s *Server) download(c echo.Context) error {
	f, body, err := s.files.Open(c.Request().Context(), sessionOf(c), c.Param("file"))
	if err != nil {
		return err
	}
	defer body.Close()
	h := c.Response().Header()
	h.Set("Content-Type", f.Type)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	disposition := "attachment"
	if files.Inline(f.Type) {
		disposition = "inline"
	}
	if v := mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}); v != "" {
		disposition = v
	}
	h.Set("Content-Disposition", disposition)
	// Private, and asked again each time (a 304 while unchanged): the
	// browser may be someone else's session tomorrow.
	h.Set("Cache-Control", "private, no-cache")
	h.Set("ETag", `"`+f.Hash+`"`)
	http.ServeContent(c.Response(), c.Request(), "", f.Created, body)
	return nil
}

// attachments reads the files a message is sent with, ids comma-separated
// as the composer sends them: each must be session's (the files store says
// what it is; the page's words about it are not taken), and together they
// may be no larger than a message's limit. Errors say which file and why;
// then nothing is sent.
func (s *Server) attachments(ctx context.Context, session, ids string) ([]tree.Attachment, error) {
	if strings.TrimSpace(ids) == "" {
		return nil, nil
	}
	if s.files == nil {
		return nil, apperr.Errorf(apperr.Invalid, "This server keeps no files, so none can be sent.")
	}
	var (
		out   []tree.Attachment
		total int64
	)
	for _, id := range strings.Split(ids, ",") {
		f, err := s.files.Stat(ctx, session, strings.TrimSpace(id))
		if err != nil {
			if apperr.CodeOf(err) == apperr.NotFound {
				return nil, apperr.Errorf(apperr.Invalid, "A file attached to the message is not one you uploaded; attach it again.")
			}
			return nil, err
		}
		total += f.Size
		out = append(out, files.Attachment(f))
	}
	if lim := s.files.Limits(); lim.MaxMessage > 0 && total > lim.MaxMessage {
		return nil, apperr.Errorf(apperr.TooLarge, "The files attached come to %s; a message takes at most %s.", bytesize.Words(total), bytesize.Words(lim.MaxMessage))
	}
	if len(out) > maxUploadFiles {
		return nil, apperr.Errorf(apperr.Invalid, "A message takes at most %d files.", maxUploadFiles)
	}
	return out, nil
}

// attach makes the files a message is sent with conversation's (Files.Attach)
// before its turn reads them.
func (s *Server) attach(ctx context.Context, session, conversation string, atts []tree.Attachment) error {
	if len(atts) == 0 {
		return nil
	}
	ids := make([]string, len(atts))
	for i, a := range atts {
		ids[i] = a.ID
	}
	return s.files.Attach(ctx, session, conversation, ids)
}

// ownFiles are the files among ids, comma-separated, that are session's:
// those a page that refused a message shows again, to keep or remove.
func (s *Server) ownFiles(ctx context.Context, session, ids string) []tree.Attachment {
	var out []tree.Attachment
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id == "" || s.files == nil || len(out) == maxUploadFiles {
			continue
		}
		if f, err := s.files.Stat(ctx, session, id); err == nil {
			out = append(out, files.Attachment(f))
		}
	}
	return out
}

package term

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// Files keeps the files given at the terminal, as the server keeps those
// uploaded from the page: a *files.Store.
type Files interface {
	// Limits are the server's limits on files.
	Limits() files.Limits
	// Put records a file read from r as session's upload called name.
	// Errors: TooLarge over lim.MaxFile, Unsupported for a type lim does
	// not allow, each with a message for the user; then nothing is
	// recorded.
	Put(ctx context.Context, session, name, declaredType string, r io.Reader, lim files.Limits) (files.File, error)
}

// upload is how a question stores a file in the conversation's session:
// Files.Put, under the server's limits.
type upload struct {
	limits files.Limits
	put    func(name string, r io.Reader) (files.File, error)
}

// uploadTo stores files in f as session's.
func uploadTo(ctx context.Context, f Files, session string) *upload {
	lim := f.Limits()
	return &upload{limits: lim, put: func(name string, r io.Reader) (files.File, error) {
		// The store decides the type from the content and the name, as
		// it does for a browser's upload; nothing is declared.
		return f.Put(ctx, session, name, "", r, lim)
	}}
}

// filePrompter asks for a file by its path on this machine: it says what the
// question takes, checks the path names a readable file small enough
// before sending a byte, stores the file in the conversation's session
// under its base name (never the path) and answers with its upload id,
// from which the server fills in the rest. A file the store refuses (too
// large for the server, of a type it does not take) is a problem shown in
// place, and the path asked again. Where the terminal keeps no files
// (Config.Files unset) it says so, and the question can only be declined
// or cancelled.
//
// The chat command sets upload to the store of the conversation's session
// for each question, which Builtin cannot know.
type filePrompter struct {
	upload *upload // nil where no files are kept
}

// Prompt asks q for a file.
func (p filePrompter) Prompt(q *terminal.Question) (elicit.Response, error) {
	var in elicit.FileInput
	if err := q.Input(&in); err != nil {
		return elicit.Response{}, err
	}
	most := in.MaxSize
	if p.upload != nil && (most <= 0 || p.upload.limits.MaxFile < most) {
		most = p.upload.limits.MaxFile
	}
	if q.Errors == nil {
		describeFileQuestion(q, in, most)
	}
	if p.upload == nil {
		return noFiles(q)
	}
	for {
		line, err := q.PathLine("Path of the file: ")
		if err != nil {
			return elicit.Response{}, err
		}
		path := localPath(line)
		if path == "" {
			q.Problem("Type the path of a file on this computer. %s", q.Hint())
			continue
		}
		f, msg := openLocal(path, most, most == in.MaxSize)
		if msg != "" {
			q.Problem("%s", msg)
			continue
		}
		q.Progress(elicit.StageUploading)
		stored, err := p.upload.put(filepath.Base(path), f)
		f.Close()
		if err != nil {
			if c := apperr.CodeOf(err); c == apperr.TooLarge || c == apperr.Unsupported {
				q.Problem("%s", apperr.MessageOf(err))
				continue
			}
			return elicit.Response{}, fmt.Errorf("store %s: %w", filepath.Base(path), err)
		}
		q.Progress(elicit.StageStored)
		q.Printf("  Uploaded %s (%s, %s).\n", stored.Name, stored.Type, bytesize.Words(stored.Size))
		return terminal.Accept(elicit.File{ID: stored.ID})
	}
}

// describeFileQuestion says why the agent wants a file, the types it takes
// and the most it takes.
func describeFileQuestion(q *terminal.Question, in elicit.FileInput, most int64) {
	if in.Reason != "" {
		q.Printf("  (%s)\n", in.Reason)
	}
	if len(in.Accept) > 0 {
		q.Printf("  Types taken: %s\n", strings.Join(in.Accept, ", "))
	} else {
		q.Printf("  Types taken: any the server takes\n")
	}
	if most > 0 {
		q.Printf("  At most: %s\n", bytesize.Words(most))
	}
}

// noFiles answers a file question where no files are kept: only the
// keystrokes can.
func noFiles(q *terminal.Question) (elicit.Response, error) {
	why := "Files cannot be given here: this terminal keeps none."
	q.Printf("  %s %s\n", why, q.Hint())
	for {
		if _, err := q.PathLine("Path of the file: "); err != nil {
			return elicit.Response{}, err
		}
		q.Problem("%s %s", why, q.Hint())
	}
}

// localPath reads a typed path: quotes around it (as a terminal adds when
// a file is dropped on it) are not part of it, and ~/ is the home folder.
func localPath(line string) string {
	if n := len(line); n >= 2 && (line[0] == '"' || line[0] == '\'') && line[n-1] == line[0] {
		line = line[1 : n-1]
	}
	if rest, ok := strings.CutPrefix(line, "~"+string(filepath.Separator)); ok {
		if home, err := os.UserHomeDir(); err == nil {
			line = filepath.Join(home, rest)
		}
	}
	return line
}

// openLocal opens the file at path for sending, or says what is wrong: no
// file there, a folder, one that cannot be read, or one over most bytes
// (the question's limit when asked is true, else the server's). It looks
// before it opens, since opening a pipe would wait for a writer.
func openLocal(path string, most int64, asked bool) (*os.File, string) {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, cannotRead(path, err)
	case info.IsDir():
		return nil, fmt.Sprintf("%s is a folder; type the path of a file.", path)
	case !info.Mode().IsRegular():
		return nil, fmt.Sprintf("%s is not a file that can be sent.", path)
	case most > 0 && info.Size() > most:
		whose := "the most a file may be here"
		if asked {
			whose = "the most this question takes"
		}
		return nil, fmt.Sprintf("%s is %s; %s is %s.", path, bytesize.Words(info.Size()), whose, bytesize.Words(most))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, cannotRead(path, err)
	}
	return f, ""
}

// cannotRead says why the file at path cannot be read.
func cannotRead(path string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("There is no file at %s.", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s cannot be read: you lack the permission.", path)
	}
	return fmt.Sprintf("%s cannot be read: %v.", path, unwrapPath(err))
}

// unwrapPath is the system's reason inside a path error, which names the
// path the message names already.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"path"
	"sync"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// GiveFile answers the question whose message contains question (one of
// elicit.AskFile) with a file called name holding content, as a user who
// picks one: the turn gets elicit.File with an id, name, a type from
// name's extension as the server names it (text/csv for .csv), else
// application/octet-stream, and content's size, and turn.OpenFile(ctx, id)
// reads content, in Run, Play and Serve. The file must fit the question:
// a type it does not take, or a size over its MaxSize, fails the test.
//
//	agenttest.User(agenttest.GiveFile("Which statement?", "march.csv", []byte("date,amount\n"))),
func GiveFile(question, name string, content []byte) UserStep {
	return UserStep{question: question, resp: elicit.Response{Action: elicit.Accept},
		file: &givenFile{name: name, content: bytes.Clone(content)}}
}

// givenFile is the file a GiveFile step gives.
type givenFile struct {
	name    string
	content []byte
}

// response is the answer the step gives: its file, kept on sh, when it
// gives one.
func (s UserStep) response(sh *shelf) elicit.Response {
	if s.file == nil {
		return s.resp
	}
	raw, _ := json.Marshal(sh.give(s.file.name, s.file.content)) // a File always marshals
	return elicit.Response{Action: elicit.Accept, Content: raw}
}

// shelf keeps the files the user gave in one run, in memory, by id: what
// turn.OpenFile reads in process, and the service's store of files
// (chat.Files) in Serve.
type shelf struct {
	mu    sync.Mutex
	files map[string]shelved
}

type shelved struct {
	file    elicit.File
	content []byte
}

// give keeps content as a file called name and returns it: ids are
// file-1, file-2, ... in the order given.
func (sh *shelf) give(name string, content []byte) elicit.File {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.files == nil {
		sh.files = map[string]shelved{}
	}
	f := elicit.File{ID: fmt.Sprintf("file-%d", len(sh.files)+1), Name: name, Type: typeOfName(name), Size: int64(len(content))}
	sh.files[f.ID] = shelved{file: f, content: content}
	return f
}

// typeOfName is the type of a file called name: the server's name for its
// extension, else the system's, else application/octet-stream.
func typeOfName(name string) string {
	if t := files.TypeOf(name); t != "" {
		return t
	}
	if t, _, err := mime.ParseMediaType(mime.TypeByExtension(path.Ext(name))); err == nil && t != "" {
		return t
	}
	return "application/octet-stream"
}

// lookup returns the file with id. Errors: NotFound for one not given.
func (sh *shelf) lookup(id string) (shelved, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	f, ok := sh.files[id]
	if !ok {
		return shelved{}, apperr.Errorf(apperr.NotFound, "No file %s was given in this run: the user's script gives a file with GiveFile.", id)
	}
	return f, nil
}

// open reads the file with id, for turn.OpenFile in process.
func (sh *shelf) open(_ context.Context, id string) (io.ReadCloser, error) {
	f, err := sh.lookup(id)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(f.content)), nil
}

// servedFiles are the shelf as the service reads it (chat.Files), for
// Serve's Session alone.
type servedFiles struct{ sh *shelf }

func (s servedFiles) Read(ctx context.Context, session, id string) (io.ReadCloser, error) {
	if session != Session {
		return nil, notSessions(id)
	}
	return s.sh.open(ctx, id)
}

func (s servedFiles) Attachment(_ context.Context, session, id string) (tree.Attachment, error) {
	if session != Session {
		return tree.Attachment{}, notSessions(id)
	}
	f, err := s.sh.lookup(id)
	return tree.Attachment{ID: f.file.ID, Name: f.file.Name, Type: f.file.Type, Size: f.file.Size}, err
}

// Attach is no change: the shelf keeps every file for the run.
func (s servedFiles) Attach(_ context.Context, session, _ string, ids []string) error {
	for _, id := range ids {
		if _, err := s.Attachment(context.Background(), session, id); err != nil {
			return err
		}
	}
	return nil
}

func notSessions(id string) error {
	return apperr.Errorf(apperr.NotFound, "No file %s is the session's.", id)
}

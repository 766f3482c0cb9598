package attach_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// files is a store of files by id for the tests, which remembers which it
// opened and checks that each was closed.
type files struct {
	mu     sync.Mutex
	data   map[string]string
	opened []string
	open   int
}

func newFiles(t testing.TB) *files {
	f := &files{data: map[string]string{}}
	t.Cleanup(func() {
		if f.open != 0 {
			t.Errorf("%d files left open", f.open)
		}
	})
	return f
}

// add stores content under id and returns its attachment.
func (f *files) add(id, name, typ, content string) tree.Attachment {
	f.data[id] = content
	return tree.Attachment{ID: id, Name: name, Type: typ, Size: int64(len(content))}
}

func (f *files) Open(_ context.Context, id string) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.data[id]
	if !ok {
		return nil, errors.New("no such file")
	}
	f.opened = append(f.opened, id)
	f.open++
	return closer{strings.NewReader(s), f}, nil
}

type closer struct {
	io.Reader
	f *files
}

func (c closer) Close() error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.open--
	return nil
}

func user(text string) llm.Message { return llm.Message{Role: llm.User, Content: text} }

func TestMessageGivesTextFilesAsText(t *testing.T) {
	fs := newFiles(t)
	csv := fs.add("f1", "report.csv", "text/csv", "city,population\nOslo,709000\nLyon,522000\n")
	md := fs.add("f2", "notes.md", "text/markdown", "# Trip\n\n- pack light")
	got, err := attach.Message(context.Background(), user("What do these say?"), []tree.Attachment{csv, md}, fs.Open, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := "What do these say?\n\n" +
		"Attached file report.csv (40 bytes, text/csv):\n```csv\ncity,population\nOslo,709000\nLyon,522000\n```\n\n" +
		"Attached file notes.md (20 bytes, text/markdown):\n```markdown\n# Trip\n\n- pack light\n```"
	if got.Content != want {
		t.Errorf("content:\n%s\nwant:\n%s", got.Content, want)
	}
	if len(got.Images) != 0 {
		t.Errorf("images = %v, want none", got.Images)
	}
}

func TestMessageTrimsALongFileWithANote(t *testing.T) {
	fs := newFiles(t)
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "line %d of the log\n", i+1)
	}
	log := fs.add("f1", "server.log", "text/plain", b.String())
	got, err := attach.Message(context.Background(), user(""), []tree.Attachment{log}, fs.Open, 200)
	if err != nil {
		t.Fatal(err)
	}
	size := attach.Size(int64(b.Len()))
	head := "Attached file server.log (" + size + ", text/plain):\n```\n"
	body, note, ok := strings.Cut(strings.TrimPrefix(got.Content, head), "```\n")
	if !ok || !strings.HasPrefix(got.Content, head+"line 1 of the log\n") {
		t.Fatalf("content = %q, want the file's first lines fenced", got.Content)
	}
	// The cut falls at a line's end, and the note says how much is shown.
	if !strings.HasSuffix(body, " of the log\n") {
		t.Errorf("the content shown ends within a line: %q", body[max(0, len(body)-40):])
	}
	shown := strings.Count(body, "\n")
	want := fmt.Sprintf("(Trimmed to fit the context: the first %s of %s are shown, %d of 1000 lines; the rest is left out.)", attach.Size(int64(len(body))), size, shown)
	if note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	if shown < 20 {
		t.Errorf("only %d lines shown of a budget of 200 tokens", shown)
	}
}

func TestMessageGivesAnImageAsAnImagePart(t *testing.T) {
	fs := newFiles(t)
	pic := pngOf(t, 2100, 10, false)
	png := fs.add("img1", "photo.png", "image/png", string(pic))
	got, err := attach.Message(context.Background(), user("Look"), []tree.Attachment{png}, fs.Open, 100)
	if err != nil {
		t.Fatal(err)
	}
	// The size it is sent at, read from its header, counts its tokens.
	if want := []llm.Image{{Type: "image/png", File: "img1", Name: "photo.png", Width: 2048, Height: 10}}; fmt.Sprint(got.Images) != fmt.Sprint(want) {
		t.Errorf("images = %v, want %v", got.Images, want)
	}
	want := fmt.Sprintf("Look\n\nAttached image photo.png (%s, image/png), given as an image.", attach.Size(int64(len(pic))))
	if got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
}

func TestMessageNamesAnUnknownType(t *testing.T) {
	fs := newFiles(t)
	zip := fs.add("z1", "photos.zip", "application/zip", strings.Repeat("PK", 1000))
	got, err := attach.Message(context.Background(), user("Here"), []tree.Attachment{zip}, fs.Open, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Here\n\nAttached file photos.zip (2.0 KB, application/zip), not text: only its name is given."; got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
	if len(fs.opened) != 0 || len(got.Images) != 0 {
		t.Errorf("opened %v, images %v: a file of another type is named alone", fs.opened, got.Images)
	}
}

func TestMessageNamesATextFileThatIsNotText(t *testing.T) {
	fs := newFiles(t)
	bin := fs.add("b1", "data.txt", "text/plain", "abc\x00\x01\x02")
	got, err := attach.Message(context.Background(), user(""), []tree.Attachment{bin}, fs.Open, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Attached file data.txt (6 bytes, text/plain), not text: only its name is given."; got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
}

func TestMessageReadsSourceCodeByItsName(t *testing.T) {
	fs := newFiles(t)
	src := fs.add("s1", "main.go", "application/octet-stream", "package main\n")
	got, err := attach.Message(context.Background(), user(""), []tree.Attachment{src}, fs.Open, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Attached file main.go (13 bytes, application/octet-stream):\n```go\npackage main\n```"; got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
}

func TestMessageFencesContentHoldingAFence(t *testing.T) {
	fs := newFiles(t)
	md := fs.add("m1", "README.md", "text/markdown", "Run:\n```\nmake\n```\n")
	got, err := attach.Message(context.Background(), user(""), []tree.Attachment{md}, fs.Open, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Attached file README.md (18 bytes, text/markdown):\n````markdown\nRun:\n```\nmake\n```\n````"; got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
	_, read := attach.Parse(got.Content)
	if len(read) != 1 || read[0].Text != "Run:\n```\nmake\n```\n" {
		t.Errorf("parsed %+v", read)
	}
}

func TestMessageKeepsToTheBudget(t *testing.T) {
	fs := newFiles(t)
	long := fs.add("l1", "long.txt", "text/plain", strings.Repeat("a long line of words here\n", 4000))
	short := fs.add("s1", "short.csv", "text/csv", "a,b\n1,2\n")
	json := fs.add("j1", "config.json", "application/json", `{"name": "trip", "days": 3}`)
	img := fs.add("i1", "map.webp", "image/webp", "RIFF")
	atts := []tree.Attachment{long, short, json, img}
	in := user("Please read all of these.")
	for _, budget := range []int{200, 400, 2000, 20000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			got, err := attach.Message(context.Background(), in, atts, fs.Open, budget)
			if err != nil {
				t.Fatal(err)
			}
			text := got
			text.Images = nil // the budget is the text's: pictures are counted where the history is
			added := history.EstimateTokens([]llm.Message{text}) - history.EstimateTokens([]llm.Message{in})
			if added > budget {
				t.Errorf("the files added %d tokens, over the budget of %d", added, budget)
			}
			_, read := attach.Parse(got.Content)
			if len(read) != 4 {
				t.Fatalf("parsed %d files, want 4: %+v", len(read), read)
			}
			// The short files are given whole beside a long one: the long
			// one is the one trimmed.
			if read[1].Text != "a,b\n1,2\n" || read[2].Text != `{"name": "trip", "days": 3}`+"\n" {
				t.Errorf("short files given as %q and %q", read[1].Text, read[2].Text)
			}
			if !read[0].Trimmed || read[0].Lines != 4000 {
				t.Errorf("long file: trimmed %v, %d lines; want trimmed, 4000 lines", read[0].Trimmed, read[0].Lines)
			}
		})
	}
}

func TestMessageLeavesOutWhatHasNoRoom(t *testing.T) {
	fs := newFiles(t)
	log := fs.add("l1", "app.log", "text/plain", "started\n")
	got, err := attach.Message(context.Background(), user("x"), []tree.Attachment{log}, fs.Open, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "x\n\nAttached file app.log (8 bytes, text/plain), left out: the context has no room for it."; got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
}

func TestMessageIsTheSameEachTime(t *testing.T) {
	fs := newFiles(t)
	atts := []tree.Attachment{
		fs.add("a", "a.txt", "text/plain", strings.Repeat("alpha\n", 500)),
		fs.add("b", "b.txt", "text/plain", strings.Repeat("beta\n", 500)),
	}
	first, err := attach.Message(context.Background(), user("hi"), atts, fs.Open, 300)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := attach.Message(context.Background(), user("hi"), atts, fs.Open, 300)
		if err != nil {
			t.Fatal(err)
		}
		if again.Content != first.Content {
			t.Fatal("the same files and budget gave another text: a replay would not match its record")
		}
	}
}

func TestMessageFailsOnAFileItCannotOpen(t *testing.T) {
	fs := newFiles(t)
	gone := tree.Attachment{ID: "gone", Name: "a.txt", Type: "text/plain", Size: 3}
	_, err := attach.Message(context.Background(), user(""), []tree.Attachment{gone}, fs.Open, 100)
	if err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("err = %v, want one naming the file", err)
	}
}

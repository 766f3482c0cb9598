package files_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// newStore is a files store over a real SQLite file, spooling in a
// directory of the test's own.
func newStore(t *testing.T, lim files.Limits) (*files.Store, *store.DB, string) {
	t.Helper()
	db := storetest.Open(t)
	spool := t.TempDir()
	return files.New(db, files.Options{Limits: lim, Spool: spool}), db, spool
}

// recorded is how many uploads no conversation uses the database holds.
func recorded(t *testing.T, db *store.DB) int {
	t.Helper()
	n, err := db.CollectUploads(context.Background(), -time.Hour) // every one: a count that removes them
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// counting counts the bytes read from it.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// A file is kept under a clean name and the type its content says, read
// back as sent, to its session alone.
func TestPutKeepsTheFileForItsSessionAlone(t *testing.T) {
	s, _, spool := newStore(t, files.Limits{})
	ctx := context.Background()
	data := bytes.Repeat([]byte("name,qty\nwidget,3\n"), 40000) // 720 KB: several chunks
	f, err := s.Put(ctx, "s1", "../../etc/stock.csv", "application/octet-stream", bytes.NewReader(data), files.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "stock.csv" || f.Type != "text/csv" || f.Size != int64(len(data)) {
		t.Errorf("put = %q %s %d bytes, want stock.csv text/csv %d", f.Name, f.Type, f.Size, len(data))
	}
	got, r, err := s.Open(ctx, "s1", f.ID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(back, data) || got != f {
		t.Errorf("open = %+v, %d bytes, %v; want %+v and the bytes sent", got, len(back), err, f)
	}
	if _, _, err := s.Open(ctx, "s2", f.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session opens the file: %v, want NotFound", err)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("%d spool files left behind", len(left))
	}
	if a := files.Attachment(f); a != (tree.Attachment{ID: f.ID, Name: "stock.csv", Type: "text/csv", Size: f.Size}) {
		t.Errorf("Attachment = %+v", a)
	}
}

// A file over the limit is refused with a message that says the limit,
// is not read further than the limit, and leaves nothing: no upload, no
// spool file.
func TestOversizedFileLeavesNothing(t *testing.T) {
	s, db, spool := newStore(t, files.Limits{})
	lim := files.Limits{MaxFile: 100 << 10}
	src := &counting{r: bytes.NewReader(bytes.Repeat([]byte("x"), 10<<20))}
	_, err := s.Put(context.Background(), "s1", "big.txt", "", src, lim)
	if apperr.CodeOf(err) != apperr.TooLarge || !strings.Contains(err.Error(), "100 KB") {
		t.Errorf("put 10 MB over a 100 KB limit: %v, want TooLarge saying 100 KB", err)
	}
	if src.n > lim.MaxFile+64<<10 {
		t.Errorf("read %d bytes of the file, want about the limit", src.n)
	}
	if n := recorded(t, db); n != 0 {
		t.Errorf("%d uploads recorded, want 0", n)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("%d spool files left behind", len(left))
	}
}

// A file of a type not accepted is refused from its first bytes, and
// leaves nothing.
func TestRefusedTypeLeavesNothing(t *testing.T) {
	s, db, spool := newStore(t, files.Limits{})
	body := `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>` + strings.Repeat(" ", 1<<20)
	src := &counting{r: strings.NewReader(body)}
	_, err := s.Put(context.Background(), "s1", "logo.svg", "image/svg+xml", src, files.Limits{})
	if apperr.CodeOf(err) != apperr.Unsupported || !strings.Contains(err.Error(), "SVG") {
		t.Errorf("put an SVG: %v, want Unsupported naming SVG", err)
	}
	if src.n > 4<<10 {
		t.Errorf("read %d bytes of a refused file, want its head", src.n)
	}
	if n := recorded(t, db); n != 0 {
		t.Errorf("%d uploads recorded, want 0", n)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("%d spool files left behind", len(left))
	}
}

// A message's files together are held to the server's limit when they
// are attached; under it they are attached, and outlive gc.
func TestAttachHoldsAMessageToItsLimit(t *testing.T) {
	s, db, _ := newStore(t, files.Limits{MaxMessage: 100})
	ctx := context.Background()
	if err := db.EnsureSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: "c1", Session: "s1", Agent: "concierge"}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, text := range []string{strings.Repeat("a", 60), strings.Repeat("b", 60)} {
		f, err := s.Put(ctx, "s1", "part.txt", "", strings.NewReader(text), files.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	if err := s.Attach(ctx, "s1", "c1", ids); apperr.CodeOf(err) != apperr.TooLarge {
		t.Errorf("attach 120 bytes to a message of at most 100: %v, want TooLarge", err)
	}
	if err := s.Attach(ctx, "s1", "c1", ids[:1]); err != nil {
		t.Fatal(err)
	}
	if n := recorded(t, db); n != 1 {
		t.Errorf("gc of every unattached upload removed %d, want 1 (the attached one stays)", n)
	}
	if _, err := s.Stat(ctx, "s1", ids[0]); err != nil {
		t.Errorf("the attached file after gc: %v", err)
	}
}

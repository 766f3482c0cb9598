package app

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store"
)

// removeDB removes the SQLite database at path, as `rm x.db x.db-wal
// x.db-shm` does.
func removeDB(t *testing.T, path string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// getBody is GET url's status and body.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// startOrRefusal starts a server with args and returns nil once it
// listens (and stops it), or its error if it refuses to start: a test that
// expects a refusal does not hang on a server that starts after all.
func startOrRefusal(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		p := newProgram(testConfig(), func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		done <- p.run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
		pw.Close()
	}()
	listening := make(chan bool, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(pr, int64(len("listening on"))))
		listening <- string(b) == "listening on"
		io.Copy(io.Discard, pr)
	}()
	select {
	case err := <-done:
		return err
	case <-listening:
		cancel()
		<-done
		return nil
	}
}

// A serving server whose database file is deleted notices: /readyz fails
// saying why, and a write is refused with 503 and what is wrong, where it
// used to be acknowledged into the deleted file. The next start on that
// path refuses rather than start on an empty database.
func TestAServerWhoseDatabaseIsDeletedSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "app.db")
	addr := startServer(t, "--db", path)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}
	create := func() *http.Response {
		t.Helper()
		res, err := client.PostForm("http://"+addr+"/c", url.Values{"agent": {"echo"}, "message": {"hello"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := create()
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("a conversation before: %s", res.Status)
	}
	if code, _ := getBody(t, "http://"+addr+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz before = %d, want 200", code)
	}

	removeDB(t, path)
	code, body := getBody(t, "http://"+addr+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "database file was deleted") {
		t.Errorf("/readyz once deleted = %d %q, want 503 saying the file was deleted", code, body)
	}
	res = create()
	said, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(said), "database file was deleted") {
		t.Errorf("a write once deleted = %s %q, want 503 saying the file was deleted", res.Status, said)
	}
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("a write once deleted: no Retry-After")
	}

	err = startOrRefusal(t, "--db", path)
	if err == nil || !strings.Contains(err.Error(), "is missing") || !strings.Contains(err.Error(), markOf(path)) {
		t.Errorf("a start on the deleted database: got %v, want a refusal naming %s", err, markOf(path))
	}
}

// A database missing where one was created is refused, and not created
// anew, until the mark that says it existed is deleted.
func TestAStartOnAMissingDatabaseRefuses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "app.db")
	open := func() error {
		db, release, err := openStore(ctx, testName, path, store.Options{})
		if err == nil {
			db.Close()
			release()
		}
		return err
	}
	if err := open(); err != nil {
		t.Fatalf("a new database: %v", err)
	}
	if err := open(); err != nil {
		t.Fatalf("the same database again: %v", err)
	}
	removeDB(t, path)
	err := open()
	want := "delete " + markOf(path) + " to start with an empty database"
	if err == nil || !strings.Contains(err.Error(), "the database "+path+" is missing") || !strings.Contains(err.Error(), want) {
		t.Fatalf("a start on the deleted database: got %v, want it refused with %q", err, want)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused start created %s", path)
	}
	if err := os.Remove(markOf(path)); err != nil {
		t.Fatal(err)
	}
	if err := open(); err != nil {
		t.Errorf("a start once the mark is deleted: %v", err)
	}
}

// Deleting the lock file beside a served database does not let a second
// server in: the database file itself is locked too.
func TestDeletingTheLockFileLetsNoSecondServerIn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the database file itself is locked on Linux only")
	}
	path := filepath.Join(t.TempDir(), "data", "app.db")
	startServer(t, "--db", path)
	if err := os.Remove(path + ".lock"); err != nil {
		t.Fatal(err)
	}
	err := startOrRefusal(t, "--db", path)
	want := "another greeter process is using the database " + path
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a second server: got %v, want %q", err, want)
	}
}

// PostgreSQL's key=value connection string is PostgreSQL's, not the name
// of a new SQLite file; what only looks like a connection string is
// refused.
func TestAConnectionStringIsNeverAFile(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ db, want string }{
		{"host=/nonexistent/socket dbname=x user=postgres", "host=/nonexistent/socket"},
		{"cache=shared mode=rwc", "names none of PostgreSQL's keys"},
	} {
		_, _, err := runArgs(t, "chat", "--db", tc.db)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--db %q: got %v, want %q", tc.db, err, tc.want)
		}
	}
	if left, _ := os.ReadDir("."); len(left) > 0 {
		t.Errorf("connection strings left files: %v", left)
	}
}

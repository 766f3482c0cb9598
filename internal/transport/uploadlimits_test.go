package transport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// newUploadsApp is the test app serving files as opts says, its uploads
// bounded by up.
func newUploadsApp(t testing.TB, opts files.Options, up UploadLimits) *testApp {
	t.Helper()
	opts.Spool = t.TempDir()
	return newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()},
		func(db *store.DB, c *Config) {
			c.Files = files.New(db, opts)
			c.Uploads = up
		})
}

// heldUpload is an upload whose body has begun and then stops coming, as a
// slow or hostile client's does, on a connection of its own.
type heldUpload struct {
	conn net.Conn
	rest []byte
}

// holdUpload starts an upload of a 4 KB file with the session cookie
// (none when ""), sends part of it, and holds the rest back.
func (b *browser) holdUpload(cookie string) *heldUpload {
	b.t.Helper()
	ct, body := form(b.t, part{"slow.txt", "text/plain", bytes.Repeat([]byte("s"), 4<<10)})
	conn, err := net.Dial("tcp", b.app.srv.Listener.Addr().String())
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { conn.Close() })
	head := fmt.Sprintf("POST /files HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n",
		b.app.srv.Listener.Addr(), b.app.srv.URL, ct, len(body))
	if cookie != "" {
		head += "Cookie: " + sessionCookie + "=" + cookie + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		b.t.Fatal(err)
	}
	if _, err := conn.Write(body[:len(body)/2]); err != nil {
		b.t.Fatal(err)
	}
	return &heldUpload{conn: conn, rest: body[len(body)/2:]}
}

// finish sends the rest of the upload and returns its answer.
func (h *heldUpload) finish(t *testing.T) (int, string) {
	t.Helper()
	if _, err := h.conn.Write(h.rest); err != nil {
		t.Fatal(err)
	}
	return uploadAnswer(t, h.conn)
}

// readAnswer reads the HTTP answer on conn, within a generous deadline.
func uploadAnswer(t *testing.T, conn net.Conn) (int, string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the upload's answer: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// probe is a request to POST /files that is never a form: refused 429 or
// 503 while the uploads are at their bound, 400 (and nothing recorded)
// once there is room.
func (b *browser) probe() (int, string) {
	b.t.Helper()
	return b.do(http.MethodPost, "/files", "application/json", "{}")
}

// waitForProbe probes until the answer is want, within a generous deadline:
// a held upload counts from when the server has read its request, which
// the client cannot see.
func (b *browser) waitForProbe(want int) string {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, text := b.probe()
		if code == want {
			return text
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("POST /files still answers %d %q, want %d", code, text, want)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, not waiting for it to happen
	}
}

// Uploads being read at once are bounded per session and per client
// address, with a message saying so (429), as streams are: a slow client
// holds no more than its share of connections, and the others' uploads go
// on. An upload that finishes makes room again.
func TestUploadsAtOnceAreBoundedPerSessionAndPerClient(t *testing.T) {
	app := newUploadsApp(t, files.Options{}, UploadLimits{PerSession: 2, PerClient: 3, Stall: time.Minute})
	b := app.browser(t)
	if code, text, _ := b.upload(part{"first.txt", "text/plain", []byte("first")}); code != http.StatusOK {
		t.Fatalf("POST /files = %d %q", code, text)
	}
	held := []*heldUpload{b.holdUpload(b.cookie()), b.holdUpload(b.cookie())}
	if text := b.waitForProbe(http.StatusTooManyRequests); !strings.Contains(text, "This browser is sending 2 files already") {
		t.Errorf("a third upload of the session says %q, want why", text)
	}
	other := app.browser(t) // no session, the same address
	if code, text := other.probe(); code != http.StatusBadRequest {
		t.Errorf("another browser's upload = %d %q, want it read (400 for a form that is not one)", code, text)
	}

	held = append(held, other.holdUpload(""))
	if text := other.waitForProbe(http.StatusTooManyRequests); !strings.Contains(text, "Your network is sending 3 files") {
		t.Errorf("a fourth upload from the address says %q, want why", text)
	}

	if code, text := held[0].finish(t); code != http.StatusOK {
		t.Fatalf("a held upload, finished = %d %q, want 200", code, text)
	}
	b.waitForProbe(http.StatusBadRequest)
	if code, text, _ := b.upload(part{"next.txt", "text/plain", []byte("next")}); code != http.StatusOK {
		t.Errorf("an upload once another finished = %d %q, want 200", code, text)
	}
}

// An upload whose body stops coming is cut after the stall limit, with a
// message saying so, and records nothing; one that keeps coming, however
// slowly, is read to its end although it takes longer than that in all.
func TestAStalledUploadIsCutAndASlowOneIsNot(t *testing.T) {
	const stall = 500 * time.Millisecond
	app := newUploadsApp(t, files.Options{}, UploadLimits{Stall: stall})
	b := app.browser(t)

	h := b.holdUpload("")
	start := time.Now()
	code, text := uploadAnswer(t, h.conn)
	if code != http.StatusBadRequest || !strings.Contains(text, "stalled") {
		t.Errorf("a stalled upload = %d %q, want 400 saying it stalled", code, text)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a stalled upload was cut after %s, want about %s", took, stall)
	}
	if n := app.uploadsRecorded(t); n != 0 {
		t.Errorf("%d uploads recorded, want 0", n)
	}

	h = b.holdUpload("")
	for i := 0; len(h.rest) > 0; i++ {
		n := min(len(h.rest), 256)
		if _, err := h.conn.Write(h.rest[:n]); err != nil {
			t.Fatal(err)
		}
		h.rest = h.rest[n:]
		time.Sleep(stall / 5) // the pace of a slow link: each piece well within the stall limit
	}
	if took := time.Since(start); took < 2*stall {
		t.Fatalf("the slow upload took %s, want longer than the stall limit twice to show anything", took)
	}
	if code, text := uploadAnswer(t, h.conn); code != http.StatusOK {
		t.Errorf("a slow upload that keeps coming = %d %q, want 200", code, text)
	}
}

// A session may keep so many bytes of files, and the server so many in
// all: a file past the session's quota is 413, past the server's 507,
// each saying why, and nothing of it is recorded; other sessions upload
// up to the server's.
func TestUploadsAreKeptWithinQuotas(t *testing.T) {
	app := newUploadsApp(t, files.Options{Limits: files.Limits{MaxSession: 100, MaxTotal: 200}}, UploadLimits{})
	sixty := bytes.Repeat([]byte("6"), 60)
	b := app.browser(t)
	if code, text, _ := b.upload(part{"one.txt", "text/plain", sixty}); code != http.StatusOK {
		t.Fatalf("the first upload = %d %q", code, text)
	}
	code, text, _ := b.upload(part{"two.txt", "text/plain", sixty})
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(text, "two.txt cannot be kept") || !strings.Contains(text, "may keep 100 bytes") {
		t.Errorf("past the session's quota = %d %q, want 413 saying the quota", code, text)
	}
	for range 2 {
		if code, text, _ := app.browser(t).upload(part{"theirs.txt", "text/plain", sixty}); code != http.StatusOK {
			t.Fatalf("another browser's upload = %d %q, want 200", code, text)
		}
	}
	code, text, _ = app.browser(t).upload(part{"last.txt", "text/plain", sixty})
	if code != http.StatusInsufficientStorage || !strings.Contains(text, "last.txt cannot be kept") || !strings.Contains(text, "at most 200 bytes of files") {
		t.Errorf("past the server's quota = %d %q, want 507 saying the quota", code, text)
	}
	if n := app.uploadsRecorded(t); n != 3 {
		t.Errorf("%d uploads recorded, want the 3 within the quotas", n)
	}
}

// An upload that would leave a disk the server writes to with less free
// space than the reserve kept for conversations is 507, saying so, and
// records nothing; a smaller one that leaves the reserve is taken.
func TestUploadsLeaveTheDiskReserveFree(t *testing.T) {
	const reserve = 1 << 20
	free := func(string) (uint64, error) { return reserve + 3*1000, nil } // room for 1,000 bytes written thrice
	app := newUploadsApp(t, files.Options{Limits: files.Limits{Reserve: reserve}, Disks: []string{t.TempDir()}, Free: free}, UploadLimits{})
	b := app.browser(t)
	code, text, _ := b.upload(part{"big.txt", "text/plain", bytes.Repeat([]byte("b"), 1500)})
	if code != http.StatusInsufficientStorage || !strings.Contains(text, "big.txt cannot be kept: the server's disk is nearly full") {
		t.Errorf("an upload into the reserve = %d %q, want 507 saying the disk is nearly full", code, text)
	}
	if n := app.uploadsRecorded(t); n != 0 {
		t.Errorf("%d uploads recorded, want 0", n)
	}
	if code, text, _ := b.upload(part{"small.txt", "text/plain", bytes.Repeat([]byte("s"), 500)}); code != http.StatusOK {
		t.Errorf("an upload that leaves the reserve = %d %q, want 200", code, text)
	}
}

package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startServer runs the real serve command on a free loopback port with a
// fresh database and returns its address; it stops with the test.
func startServer(t *testing.T, args ...string) string {
	t.Helper()
	return startServerWith(t, testConfig(), args...)
}

// startServerWith is startServer for the application cfg.
func startServerWith(t *testing.T, cfg Config, args ...string) string {
	t.Helper()
	needDatastar(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	args = append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "app.db")}, args...)
	go func() {
		p := newProgram(cfg, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		done <- p.run(ctx, args)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "listening on http://"); ok {
			go io.Copy(io.Discard, pr)
			return addr
		}
	}
	t.Fatalf("the server did not start: %v", <-done)
	return ""
}

// request sends one raw HTTP/1.1 request on conn and reads the answer's
// status line and headers, leaving the connection open.
func request(t *testing.T, conn net.Conn, br *bufio.Reader, path string) int {
	t.Helper()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// closedByServer waits until the server closes conn, up to within; what the
// server says before closing it is read and dropped.
func closedByServer(conn net.Conn, within time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(within))
	_, err := io.Copy(io.Discard, conn)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

func TestIdleConnectionsCannotLockOthersOut(t *testing.T) {
	const limit, flood = 20, 40
	addr := startServer(t, "--max-conns", strconv.Itoa(limit), "--idle-timeout", "1h")
	// One client opens many keep-alive connections and leaves them idle.
	var idle []net.Conn
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if code := request(t, c, bufio.NewReader(c), "/healthz"); code != 200 {
			t.Fatalf("healthz = %d", code)
		}
		idle = append(idle, c)
	}
	// Everyone else is still served.
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// Idle connections were closed to make room: with the visitor's, no
	// more than the limit are left open. Which ones depends on when the
	// server saw each go idle, so this counts them (the order is
	// TestReaperClosesTheLongestIdle's).
	closed := make(chan struct{}, flood)
	for _, c := range idle {
		go func() {
			if closedByServer(c, 10*time.Second) {
				closed <- struct{}{}
			}
		}()
	}
	want := flood + 1 - limit
	deadline := time.After(10 * time.Second)
	for n := 0; n < want; n++ {
		select {
		case <-closed:
		case <-deadline:
			t.Fatalf("%d idle connections were closed, want at least %d", n, want)
		}
	}
}

// TestReaperClosesTheLongestIdle: beyond the limit, the connections idle the
// longest are closed, and only as many as needed; one in use is never.
func TestReaperClosesTheLongestIdle(t *testing.T) {
	r := newIdleReaper(4)
	conn := func() *pipeEnd {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return &pipeEnd{Conn: a}
	}
	busy, oldest, older, newer := conn(), conn(), conn(), conn()
	r.track(busy, http.StateNew)
	r.track(busy, http.StateActive)
	for _, c := range []*pipeEnd{oldest, older, newer} { // idle in this order
		r.track(c, http.StateNew)
		r.track(c, http.StateIdle)
		r.idle[c] = time.Unix(int64(len(r.idle)), 0) // in this order, whatever the clock says
	}
	if oldest.closed || older.closed || newer.closed || busy.closed {
		t.Fatal("a connection was closed at the limit")
	}
	visitor := conn()
	r.track(visitor, http.StateNew) // one over the limit
	if !oldest.closed || older.closed || newer.closed || busy.closed || visitor.closed {
		t.Fatalf("closed: oldest %v, older %v, newer %v, busy %v, visitor %v; want only the oldest",
			oldest.closed, older.closed, newer.closed, busy.closed, visitor.closed)
	}
	r.track(oldest, http.StateClosed) // the server reports the close
	second := conn()
	r.track(second, http.StateNew)
	if !older.closed || newer.closed || busy.closed {
		t.Fatalf("closed: older %v, newer %v, busy %v; want the older next", older.closed, newer.closed, busy.closed)
	}
}

// pipeEnd is a connection that remembers being closed.
type pipeEnd struct {
	net.Conn
	closed bool
}

func (p *pipeEnd) Close() error {
	p.closed = true
	return p.Conn.Close()
}

func TestSlowAndIdleClientsAreCutOff(t *testing.T) {
	addr := startServer(t, "--read-timeout", "300ms", "--idle-timeout", "300ms")

	t.Run("a body that never finishes", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nmessage=")
		if !closedByServer(c, 10*time.Second) {
			t.Error("a request whose body never arrives holds its connection open")
		}
	})

	t.Run("an idle keep-alive", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		request(t, c, bufio.NewReader(c), "/healthz")
		if !closedByServer(c, 10*time.Second) {
			t.Error("an idle keep-alive connection stays open")
		}
	})

	t.Run("a stream outlives the read timeout", func(t *testing.T) {
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		post := func(path, body string) *http.Response {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		res := post("/c", "agent=greeter&message=hello")
		conv := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || conv == "" {
			t.Fatalf("POST /c = %d", res.StatusCode)
		}
		stream, err := client.Get("http://" + addr + conv + "/stream")
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Body.Close()
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stream.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// Quiet for longer than the read timeout: what is under test is
		// that time passing does not end the stream.
		time.Sleep(time.Second)
		if res := post(conv+"/stop", ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("stop = %d", res.StatusCode)
		}
		deadline := time.After(10 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatal("the stream ended while quiet, before the turn was stopped")
				}
				if strings.Contains(line, `data-testid="turn-stopped"`) {
					return
				}
			case <-deadline:
				t.Fatal("the stream did not carry the stop")
			}
		}
	})
}

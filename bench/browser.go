package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// stepError says which browser failed at which step.
type stepError struct {
	Browser int
	Step    string
	Err     error
}

func (e *stepError) Error() string {
	return fmt.Sprintf("browser %d: %s: %v", e.Browser, e.Step, e.Err)
}

func (e *stepError) Unwrap() error { return e.Err }

// browser is one simulated user with its own cookie jar, driving one
// survey conversation through its page's stream, as the app's page does.
type browser struct {
	n       int
	base    string // the node serving the browser's page and stream
	answers string // the node its answers go to: base, or another node
	client  *http.Client
	timeout time.Duration // bound on each step

	conv      string
	events    <-chan event
	streamErr <-chan error // the stream reader's last error, sent before events closes
	endStream context.CancelFunc
	track     *tracker
	pace      *thinker // nil in the closed loop
}

// newBrowser returns browser n of a run against base, answering on answers
// (base itself, or another node of a cluster), sharing transport's
// connections with the other browsers but not their cookies. A session
// cookie is the host's, whatever the port, so every node on loopback gets
// it.
func newBrowser(n int, base, answers string, transport http.RoundTripper, timeout time.Duration) (*browser, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	client := &http.Client{
		Transport: transport,
		Jar:       jar,
		// Redirects are read, not followed: creating a conversation
		// redirects to its page, whose id is all the browser needs.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &browser{n: n, base: base, answers: answers, client: client, timeout: timeout, track: newTracker()}, nil
}

// fail wraps err with the browser and step.
func (b *browser) fail(step string, err error) error {
	return &stepError{Browser: b.n, Step: step, Err: err}
}

// setup does everything before the timed phase: it opens the app, starts
// a survey conversation (which issues its session), opens its stream, asks
// for rounds questions and waits for the first one.
func (b *browser) setup(ctx context.Context, rounds int) error {
	if _, err := b.request(ctx, http.MethodGet, "/", "", "", http.StatusOK); err != nil {
		return b.fail("GET /", err)
	}
	loc, err := b.request(ctx, http.MethodPost, "/c", "application/x-www-form-urlencoded", "agent=survey", http.StatusSeeOther)
	if err != nil {
		return b.fail("POST /c", err)
	}
	if b.conv, err = conversationID(loc); err != nil {
		return b.fail("POST /c", err)
	}
	if err := b.openStream(ctx); err != nil {
		return b.fail("GET /c/"+b.conv+"/stream", err)
	}
	body := `{"message":"` + strconv.Itoa(rounds) + `"}`
	if _, err := b.request(ctx, http.MethodPost, "/c/"+b.conv+"/messages", "application/json", body, http.StatusOK); err != nil {
		return b.fail("POST /c/"+b.conv+"/messages", err)
	}
	if _, err := b.waitPending(ctx); err != nil {
		return b.fail("wait for question 1", err)
	}
	return nil
}

// run answers rounds questions, recording each round trip's latency: from
// just before the answer is sent to the arrival of the stream's next event.
// Before each answer the browser thinks (see think), counting from when the
// question arrived, or from began, when the timed phase started, for a
// question that was already there. Think time is not part of the latency.
func (b *browser) run(ctx context.Context, rounds int, began time.Time, record func(sent time.Time, d time.Duration)) error {
	for i := 1; i <= rounds; i++ {
		eid, err := b.waitPending(ctx)
		if err != nil {
			return b.fail(fmt.Sprintf("wait for question %d of %d", i, rounds), err)
		}
		step := fmt.Sprintf("answer %d of %d (POST /c/%s/elicits/%s)", i, rounds, b.conv, eid)
		if err := b.think(ctx, latest(b.track.shown(eid), began)); err != nil {
			return b.fail(step+": think", err)
		}
		t0 := time.Now()
		if _, err := b.requestAt(ctx, b.answers, http.MethodPost, "/c/"+b.conv+"/elicits/"+eid, "application/json",
			`{"action":"accept","content":{"answer":"x"}}`, http.StatusNoContent); err != nil {
			return b.fail(step, err)
		}
		b.track.markAnswered(eid)
		d, err := b.waitAfter(ctx, t0)
		if err != nil {
			return b.fail(step+": wait for the stream's next event", err)
		}
		record(t0, d)
	}
	return nil
}

// think waits until the browser's next think time has passed since from,
// as a person reading the question would before answering. It returns at
// once in the closed loop, or when that time is already past.
func (b *browser) think(ctx context.Context, from time.Time) error {
	if b.pace == nil {
		return nil
	}
	wait := time.Until(from.Add(b.pace.next()))
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// conversationID takes the conversation id from the Location of a
// redirect to its page, /c/ID.
func conversationID(location string) (string, error) {
	u, err := url.Parse(location)
	if err != nil {
		return "", fmt.Errorf("bad Location %q: %w", location, err)
	}
	id, ok := strings.CutPrefix(u.Path, "/c/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", fmt.Errorf("Location %q is not a conversation page", location)
	}
	return id, nil
}

// request sends one command or page request as the app's page would and
// checks its status, returning the response's Location. The body is read
// to its end so that the connection can be reused.
func (b *browser) request(ctx context.Context, method, path, contentType, body string, want int) (string, error) {
	return b.requestAt(ctx, b.base, method, path, contentType, body, want)
}

// requestAt is request sent to the node at base.
func (b *browser) requestAt(ctx context.Context, base, method, path, contentType, body string, want int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	b.sameOrigin(req)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if contentType == "application/json" {
		req.Header.Set("Datastar-Request", "true")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("reading the response: %w", err)
	}
	if resp.StatusCode != want {
		return "", fmt.Errorf("status %d, want %d: %s", resp.StatusCode, want, clip(string(got), 300))
	}
	return resp.Header.Get("Location"), nil
}

// sameOrigin marks req as coming from the app's own page, as a browser
// does, so that cross-origin protection lets commands through: the page
// of the node req goes to, as behind a load balancer all nodes are one
// origin.
func (b *browser) sameOrigin(req *http.Request) {
	req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
}

// openStream opens the conversation's stream and starts reading its events
// in the background until ctx ends or closeStream is called.
func (b *browser) openStream(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, b.base+"/c/"+b.conv+"/stream", nil)
	if err != nil {
		cancel()
		return err
	}
	b.sameOrigin(req)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Datastar-Request", "true")
	// The stream outlives any step, so only waiting for its headers is
	// bounded here.
	timer := time.AfterFunc(b.timeout, cancel)
	resp, err := b.client.Do(req)
	if !timer.Stop() {
		err = errors.Join(err, fmt.Errorf("no response within %v", b.timeout))
	}
	if err != nil {
		cancel()
		if resp != nil {
			resp.Body.Close()
		}
		return err
	}
	if resp.StatusCode != http.StatusOK {
		got, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		cancel()
		return fmt.Errorf("status %d: %s", resp.StatusCode, clip(string(got), 300))
	}
	events := make(chan event, 64)
	errc := make(chan error, 1)
	go func() {
		defer close(events)
		defer resp.Body.Close()
		errc <- readEvents(resp.Body, time.Now, func(ev event) bool {
			select {
			case events <- ev:
				return true
			case <-sctx.Done():
				return false
			}
		})
	}()
	b.events, b.streamErr, b.endStream = events, errc, cancel
	return nil
}

// closeStream ends the stream and waits for its reader to stop.
func (b *browser) closeStream() {
	if b.endStream == nil {
		return
	}
	b.endStream()
	for range b.events {
	}
	b.endStream = nil
}

// next waits up to the step timeout for the stream's next event.
func (b *browser) next(ctx context.Context) (event, error) {
	timer := time.NewTimer(b.timeout)
	defer timer.Stop()
	select {
	case ev, ok := <-b.events:
		if !ok {
			err := <-b.streamErr
			if err == nil || errors.Is(err, io.EOF) {
				return ev, errors.New("the server ended the stream")
			}
			return ev, fmt.Errorf("the stream failed: %w", err)
		}
		b.track.observe(ev)
		return ev, nil
	case <-timer.C:
		return event{}, fmt.Errorf("no event on the stream within %v", b.timeout)
	case <-ctx.Done():
		return event{}, context.Cause(ctx)
	}
}

// waitPending returns the oldest unanswered pending elicit the stream has
// shown, waiting for one if there is none yet.
func (b *browser) waitPending(ctx context.Context) (string, error) {
	for {
		if eid, ok := b.track.pending(); ok {
			return eid, nil
		}
		if _, err := b.next(ctx); err != nil {
			return "", err
		}
	}
}

// waitAfter waits for the first event that arrives at or after t0 and
// returns how long after t0 it arrived. Events that arrived earlier but
// were not yet taken are noted on the way.
func (b *browser) waitAfter(ctx context.Context, t0 time.Time) (time.Duration, error) {
	for {
		ev, err := b.next(ctx)
		if err != nil {
			return 0, err
		}
		if !ev.At.Before(t0) {
			return ev.At.Sub(t0), nil
		}
	}
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

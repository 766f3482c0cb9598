package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// -mode transports measures the answer round trip over the ways a program
// talks to a conversation (docs/transports.md), each on a fresh server
// with the same users and pace: a program answers its survey's question
// and waits for the next typed event. A round trip runs from just before
// the answer is sent to the arrival of that event (the answer recorded),
// which may come before the command's own response.

// modeTransports is the -mode that compares the transports.
const modeTransports = "transports"

// The transports -transports may name.
const (
	transportSSE  = "sse"  // GET /c/:id/events, commands as the page's POSTs in JSON
	transportWS   = "ws"   // GET /c/:id/ws, events and commands on one connection
	transportAGUI = "agui" // POST /agui: a run per message or answer, its AG-UI events as the response
)

// transportUser returns the maker of users on the transport named name:
// the one place a transport is chosen, where another (AG-UI) adds its own.
func transportUser(name string) (newUser, error) {
	var open func(u *feedUser) feedLink
	switch name {
	case transportSSE:
		open = func(*feedUser) feedLink { return &sseFeed{} }
	case transportWS:
		open = func(*feedUser) feedLink { return &wsFeed{} }
	case transportAGUI:
		open = func(*feedUser) feedLink { return newAGUIFeed() }
	default:
		return nil, fmt.Errorf("there is no transport %q: the transports are %s, %s and %s", name, transportSSE, transportWS, transportAGUI)
	}
	return func(n int, base, _ string, transport http.RoundTripper, timeout time.Duration, pace *thinker) (user, error) {
		jar, err := cookiejar.New(nil)
		if err != nil {
			return nil, err
		}
		u := &feedUser{n: n, base: base, timeout: timeout, pace: pace, client: &http.Client{
			Transport: transport, Jar: jar,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}
		u.link = open(u)
		return u, nil
	}, nil
}

// feedLink is how one transport carries a conversation's typed events out
// and a program's commands in.
type feedLink interface {
	// open connects to u's conversation; its events then come, stamped with
	// their arrival, on the channel it returns until the connection ends,
	// when the error channel says why.
	open(ctx context.Context, u *feedUser) (<-chan event, <-chan error, error)
	// send sends the message text; answer answers question eid. Each
	// returns once the server took the command.
	send(ctx context.Context, u *feedUser, text string) error
	answer(ctx context.Context, u *feedUser, eid string) error
	close()
}

// feedUser is a program on a conversation of the survey, over one
// transport of typed events.
type feedUser struct {
	n       int
	base    string
	client  *http.Client
	timeout time.Duration
	pace    *thinker
	link    feedLink

	conv      string
	events    <-chan event
	streamErr <-chan error
	asked     []asked // questions shown and not answered yet, oldest first
}

// asked is a question as the events showed it, and when.
type asked struct {
	eid string
	at  time.Time
}

func (u *feedUser) fail(step string, err error) error {
	return &stepError{Browser: u.n, Step: step, Err: err}
}

// setup starts a survey conversation (POST /c, which issues the session),
// opens its events, asks for rounds questions and waits for the first.
func (u *feedUser) setup(ctx context.Context, rounds int) error {
	res, err := u.do(ctx, http.MethodPost, "/c", "application/x-www-form-urlencoded", "agent=survey", http.StatusSeeOther)
	if err != nil {
		return u.fail("POST /c", err)
	}
	if u.conv, err = conversationID(res.Header.Get("Location")); err != nil {
		return u.fail("POST /c", err)
	}
	if u.events, u.streamErr, err = u.link.open(ctx, u); err != nil {
		return u.fail("open the events", err)
	}
	if err := u.link.send(ctx, u, strconv.Itoa(rounds)); err != nil {
		return u.fail("send the message", err)
	}
	if _, err := u.waitAsked(ctx); err != nil {
		return u.fail("wait for question 1", err)
	}
	return nil
}

// run answers rounds questions as browser.run does, recording each round
// trip: from just before the answer is sent to the arrival of the next
// event.
func (u *feedUser) run(ctx context.Context, rounds int, began time.Time, record func(sent time.Time, d time.Duration)) error {
	for i := 1; i <= rounds; i++ {
		q, err := u.waitAsked(ctx)
		if err != nil {
			return u.fail(fmt.Sprintf("wait for question %d of %d", i, rounds), err)
		}
		step := fmt.Sprintf("answer %d of %d (%s)", i, rounds, q.eid)
		if err := u.think(ctx, latest(q.at, began)); err != nil {
			return u.fail(step+": think", err)
		}
		u.asked = u.asked[1:]
		t0 := time.Now()
		if err := u.link.answer(ctx, u, q.eid); err != nil {
			return u.fail(step, err)
		}
		d, err := u.waitAfter(ctx, t0)
		if err != nil {
			return u.fail(step+": wait for the next event", err)
		}
		record(t0, d)
	}
	return nil
}

// think waits as browser.think does.
func (u *feedUser) think(ctx context.Context, from time.Time) error {
	b := browser{pace: u.pace}
	return b.think(ctx, from)
}

func (u *feedUser) closeStream() {
	if u.link != nil {
		u.link.close()
	}
}

// next waits up to the step timeout for the next event, noting the
// questions it asks.
func (u *feedUser) next(ctx context.Context) (event, error) {
	timer := time.NewTimer(u.timeout)
	defer timer.Stop()
	select {
	case ev := <-u.events:
		if ev.Name == "elicit.asked" {
			var q struct {
				Elicit string `json:"elicit"`
			}
			if err := json.Unmarshal([]byte(ev.Data), &q); err != nil || q.Elicit == "" {
				return ev, fmt.Errorf("elicit.asked %s: no elicit id (%v)", clip(ev.Data, 200), err)
			}
			u.asked = append(u.asked, asked{eid: q.Elicit, at: ev.At})
		}
		return ev, nil
	case err := <-u.streamErr:
		return event{}, fmt.Errorf("the events ended: %w", err)
	case <-timer.C:
		return event{}, fmt.Errorf("no event within %v", u.timeout)
	case <-ctx.Done():
		return event{}, context.Cause(ctx)
	}
}

// waitAsked returns the oldest question not answered yet, waiting for one.
func (u *feedUser) waitAsked(ctx context.Context) (asked, error) {
	for len(u.asked) == 0 {
		if _, err := u.next(ctx); err != nil {
			return asked{}, err
		}
	}
	return u.asked[0], nil
}

// waitAfter waits for the first event that arrived at or after t0 and
// returns how long after t0 that was.
func (u *feedUser) waitAfter(ctx context.Context, t0 time.Time) (time.Duration, error) {
	for {
		ev, err := u.next(ctx)
		if err != nil {
			return 0, err
		}
		if !ev.At.Before(t0) {
			return ev.At.Sub(t0), nil
		}
	}
}

// do sends a request as a script does (no page's headers), checks its
// status and returns the response, its body read.
func (u *feedUser) do(ctx context.Context, method, path, contentType, body string, want int) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.base+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := u.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	got, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the response: %w", err)
	}
	if res.StatusCode != want {
		return nil, fmt.Errorf("status %d, want %d: %s", res.StatusCode, want, clip(string(got), 300))
	}
	return res, nil
}

// sseFeed is the event stream, GET /c/:id/events, with the page's POST
// commands sent as JSON.
type sseFeed struct{ cancel context.CancelFunc }

func (l *sseFeed) open(ctx context.Context, u *feedUser) (<-chan event, <-chan error, error) {
	sctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, u.base+"/c/"+u.conv+"/events", nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	timer := time.AfterFunc(u.timeout, cancel) // only the headers are bounded
	res, err := u.client.Do(req)
	if !timer.Stop() {
		err = errors.Join(err, fmt.Errorf("no response within %v", u.timeout))
	}
	if err != nil {
		cancel()
		if res != nil {
			res.Body.Close()
		}
		return nil, nil, err
	}
	if res.StatusCode != http.StatusOK {
		got, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
		res.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("status %d: %s", res.StatusCode, clip(string(got), 300))
	}
	l.cancel = cancel
	events, errc := make(chan event, 64), make(chan error, 1)
	go func() {
		defer res.Body.Close()
		errc <- readEvents(res.Body, time.Now, func(ev event) bool {
			select {
			case events <- ev:
				return true
			case <-sctx.Done():
				return false
			}
		})
	}()
	return events, errc, nil
}

func (l *sseFeed) send(ctx context.Context, u *feedUser, text string) error {
	body, _ := json.Marshal(map[string]string{"message": text})
	_, err := u.do(ctx, http.MethodPost, "/c/"+u.conv+"/messages", "application/json", string(body), http.StatusNoContent)
	return err
}

func (l *sseFeed) answer(ctx context.Context, u *feedUser, eid string) error {
	_, err := u.do(ctx, http.MethodPost, "/c/"+u.conv+"/elicits/"+eid, "application/json",
		`{"action":"accept","content":{"answer":"x"}}`, http.StatusNoContent)
	return err
}

func (l *sseFeed) close() {
	if l.cancel != nil {
		l.cancel()
	}
}

// wsFeed is the WebSocket binding, GET /c/:id/ws: event frames out,
// commands in, each answered by a result frame with its id.
type wsFeed struct {
	conn    *websocket.Conn
	cancel  context.CancelFunc
	results chan wsResult
	ids     atomic.Int64
}

// wsResult is the part of a frame the bench reads.
type wsResult struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Event  string          `json:"event"`
	Data   json.RawMessage `json:"data"`
	OK     *bool           `json:"ok"`
	Status int             `json:"status"`
	Error  string          `json:"error"`
}

func (l *wsFeed) open(ctx context.Context, u *feedUser) (<-chan event, <-chan error, error) {
	sctx, cancel := context.WithCancel(ctx)
	dctx, dcancel := context.WithTimeout(sctx, u.timeout)
	defer dcancel()
	url := "ws" + strings.TrimPrefix(u.base, "http") + "/c/" + u.conv + "/ws"
	conn, res, err := websocket.Dial(dctx, url, &websocket.DialOptions{HTTPClient: u.client})
	if err != nil {
		cancel()
		if res != nil {
			return nil, nil, fmt.Errorf("status %d: %w", res.StatusCode, err)
		}
		return nil, nil, err
	}
	conn.SetReadLimit(1 << 20)
	l.conn, l.cancel, l.results = conn, cancel, make(chan wsResult, 4)
	events, errc := make(chan event, 64), make(chan error, 1)
	go func() {
		for {
			_, data, err := conn.Read(sctx)
			at := time.Now()
			if err != nil {
				errc <- err
				return
			}
			var f wsResult
			if err := json.Unmarshal(data, &f); err != nil {
				errc <- fmt.Errorf("frame %s: %w", clip(string(data), 200), err)
				return
			}
			if f.Type == "result" {
				l.results <- f
				continue
			}
			select {
			case events <- event{Name: f.Event, ID: f.ID, Data: string(f.Data), At: at}:
			case <-sctx.Done():
				return
			}
		}
	}()
	return events, errc, nil
}

// command sends cmd with an id of its own and waits for its result.
func (l *wsFeed) command(ctx context.Context, u *feedUser, cmd map[string]any) error {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	id := strconv.FormatInt(l.ids.Add(1), 10)
	cmd["id"] = id
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	if err := l.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	select {
	case r := <-l.results:
		if r.ID != id || r.OK == nil || !*r.OK {
			return fmt.Errorf("command %s refused: %d %s", cmd["type"], r.Status, r.Error)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no result for %s within %v", cmd["type"], u.timeout)
	}
}

func (l *wsFeed) send(ctx context.Context, u *feedUser, text string) error {
	return l.command(ctx, u, map[string]any{"type": "send", "text": text})
}

func (l *wsFeed) answer(ctx context.Context, u *feedUser, eid string) error {
	return l.command(ctx, u, map[string]any{"type": "answer", "elicit": eid, "action": "accept", "content": map[string]string{"answer": "x"}})
}

func (l *wsFeed) close() {
	if l.cancel != nil {
		l.cancel()
		l.conn.CloseNow()
	}
}

// transportNames say what each transport is, in results.
var transportNames = map[string]string{
	transportSSE:  "SSE + POST (GET /c/:id/events, answers POSTed as JSON)",
	transportWS:   "WebSocket (GET /c/:id/ws, answers as commands on it)",
	transportAGUI: "AG-UI (POST /agui, a run per answer: resume in, the run's events out)",
}

// runTransports measures each transport of cfg.transports in turn, each
// against a fresh server, and prints the results side by side.
func runTransports(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	var all []*results
	for _, name := range cfg.transports {
		makeUser, err := transportUser(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench: %s: %d conversations × %d rounds…\n", name, cfg.conversations, cfg.rounds)
		res, err := runOnce(ctx, cfg, nil, cfg.rate, makeUser)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		res.Transport = name
		all = append(all, res)
	}
	if cfg.json {
		return json.NewEncoder(stdout).Encode(struct {
			Transports []*results `json:"transports"`
		}{all})
	}
	pace := "closed loop: each answer as soon as its question arrives"
	if cfg.rate > 0 {
		pace = fmt.Sprintf("paced at %.1f answers/s in total", cfg.rate)
	}
	for i, res := range all {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "== %s: %d conversations, %s ==\n", res.Transport, res.Conversations, pace)
		if err := res.writeText(stdout); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "== answer → event round trip ==")
	for _, res := range all {
		fmt.Fprintf(stdout, "%-4s p50 %.3f ms  p99 %.3f ms  (%d round trips)\n", res.Transport, res.P50ms, res.P99ms, res.RoundTrips)
	}
	return nil
}

// aguiFeed is AG-UI (POST /agui): each message and each answer is a run
// of its own, whose events are the response, until the run ends with the
// next question as an interrupt. The runs' events come on one channel, an
// interrupt read as the question it asks (elicit.asked), so that the
// round trip is measured as for the others: from just before the answer
// (a resume) is sent to the first event of its run (RUN_STARTED, sent once
// the answer was taken).
type aguiFeed struct {
	events chan event
	errc   chan error
	runs   atomic.Int64
	cancel context.CancelFunc
	ctx    context.Context
}

func newAGUIFeed() *aguiFeed {
	return &aguiFeed{events: make(chan event, 64), errc: make(chan error, 1)}
}

func (l *aguiFeed) open(ctx context.Context, u *feedUser) (<-chan event, <-chan error, error) {
	l.ctx, l.cancel = context.WithCancel(ctx)
	return l.events, l.errc, nil
}

func (l *aguiFeed) send(ctx context.Context, u *feedUser, text string) error {
	return l.run(ctx, u, map[string]any{"messages": []map[string]any{{"id": "m1", "role": "user", "content": text}}})
}

func (l *aguiFeed) answer(ctx context.Context, u *feedUser, eid string) error {
	return l.run(ctx, u, map[string]any{"messages": []any{},
		"resume": []map[string]any{{"interruptId": eid, "status": "resolved", "payload": map[string]string{"answer": "x"}}}})
}

// run posts one RunAgentInput and returns once the server took it (the
// response's headers); its events then follow on the feed's channel.
func (l *aguiFeed) run(ctx context.Context, u *feedUser, in map[string]any) error {
	in["threadId"], in["runId"] = u.conv, fmt.Sprintf("run-%d", l.runs.Add(1))
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, u.base+"/agui", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	timer := time.AfterFunc(u.timeout, l.cancel) // only the headers are bounded
	res, err := u.client.Do(req)
	if !timer.Stop() {
		err = errors.Join(err, fmt.Errorf("no response within %v", u.timeout))
	}
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		got, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
		res.Body.Close()
		return fmt.Errorf("status %d: %s", res.StatusCode, clip(string(got), 300))
	}
	go func() {
		defer res.Body.Close()
		err := readEvents(res.Body, time.Now, func(ev event) bool {
			var e struct {
				Type    string `json:"type"`
				Message string `json:"message"`
				Outcome *struct {
					Interrupts []struct {
						ID string `json:"id"`
					} `json:"interrupts"`
				} `json:"outcome"`
			}
			json.Unmarshal([]byte(ev.Data), &e)
			ev.Name = e.Type
			if e.Type == "RUN_ERROR" {
				l.fail(fmt.Errorf("RUN_ERROR: %s", e.Message))
				return false
			}
			if e.Type == "RUN_FINISHED" && e.Outcome != nil && len(e.Outcome.Interrupts) > 0 {
				ev.Name = "elicit.asked"
				ev.Data = fmt.Sprintf(`{"elicit":%q}`, e.Outcome.Interrupts[0].ID)
			}
			select {
			case l.events <- ev:
				return true
			case <-l.ctx.Done():
				return false
			}
		})
		if err != nil && !errors.Is(err, io.EOF) && l.ctx.Err() == nil {
			l.fail(err)
		}
	}()
	return nil
}

// fail ends the feed with err, the first one said.
func (l *aguiFeed) fail(err error) {
	select {
	case l.errc <- err:
	default:
	}
}

func (l *aguiFeed) close() {
	if l.cancel != nil {
		l.cancel()
	}
}

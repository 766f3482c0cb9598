package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionLog is where the sessions the server began are recorded (the
// database, store.DB), so that it begins them again after a restart.
type SessionLog interface {
	// SaveMCPSession records that session id began, with what the server
	// keeps of it (a sessionRecord, as JSON: what its client said of
	// itself, the conversation of its calls).
	SaveMCPSession(ctx context.Context, id string, init []byte) error
	// MCPSession returns what was recorded of session id, and false when
	// nothing was.
	MCPSession(ctx context.Context, id string) ([]byte, bool, error)
	// ForgetMCPSessions forgets session id, or, with id "", every session
	// not begun again since before.
	ForgetMCPSessions(ctx context.Context, id string, before time.Time) error
}

// sessionRecord is what the session log keeps of a session: its client's
// initialize params, and the conversation of its calls once it has one,
// which the session goes on in once begun again.
type sessionRecord struct {
	Initialize   json.RawMessage `json:"initialize"`
	Conversation string          `json:"conversation,omitempty"`
	// Owner owns the session's calls: the account of the personal token
	// it was begun with; "" for the program's own session (Config.Owner).
	Owner string `json:"owner,omitempty"`
}

// readRecord reads a session's record; one kept before records had a
// conversation is the initialize params alone.
func readRecord(b []byte) (sessionRecord, error) {
	var rec sessionRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, err
	}
	if rec.Initialize == nil {
		rec = sessionRecord{Initialize: b}
	}
	return rec, nil
}

// reviver begins a session again, under its id, after a restart. The SDK
// keeps its sessions in memory and answers a request of one it does not
// know 404, upon which a client begins a new session and has lost the
// streams it would have resumed. The sessions it began are recorded
// (Config.Sessions) with their clients' initialize params, so a request
// of a recorded session the SDK does not know begins it again: the
// initialize and initialized the client sent then are replayed to the SDK,
// which is told to give the session that id (ServerOptions.GetSessionID).
// The client then goes on in its session and its conversation: a stream
// it resumes with Last-Event-ID is replayed from the event store, and the
// calls the restart cut off go on (orphan): their streams, the client's
// answers to their questions and its retries of them are served here, as
// the SDK cannot. Hand-written because the SDK has no way to restore a
// session; it relies on nothing but its handler's documented behaviour.
type reviver struct {
	s   *Server
	log SessionLog

	// mu makes beginning a session again and beginning a new one take
	// turns, so that the id meant for the first (next) is never given to
	// the second.
	mu   sync.Mutex
	next string
	// initialized holds, for a session being begun again, what is closed
	// once it has handled its initialized: the SDK refuses calls before,
	// and handles a notification after its POST is answered.
	waitMu      sync.Mutex
	initialized map[string]chan struct{}

	// beginning holds, by session id, what is closed once a session being
	// begun again goes on where it was (goOn): the SDK knows the session
	// before, and a request of it must not be served before its calls cut
	// off are found.
	beginning map[string]chan struct{}
	// orphans holds, by session id, the calls of the sessions begun again
	// that a restart cut off.
	orphanMu sync.Mutex
	orphans  map[string][]*orphan
}

// sessionID is the id of a session the SDK begins: the one being begun
// again, or a new random one.
func (rv *reviver) sessionID() string {
	if id := rv.next; id != "" {
		rv.next = ""
		return id
	}
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// begun records a session that began (ServerOptions.InitializedHandler),
// and forgets those that did not begin again for IdleSession.
func (rv *reviver) begun(ctx context.Context, req *sdk.InitializedRequest) {
	ss := req.Session
	defer rv.initializedDone(ss.ID())
	if ss.ID() == "" {
		return
	}
	go rv.forgetWhenClosed(ss)
	if rv.beingBegunAgain(ss.ID()) {
		return // beginAgain records it again, with its conversation
	}
	rv.save(ctx, ss.ID(), ss, rv.s.ownerOf(ctx), "")
	if err := rv.log.ForgetMCPSessions(ctx, "", time.Now().Add(-IdleSession)); err != nil {
		rv.s.cfg.Log.Warn("mcp: idle sessions not forgotten", "err", err)
	}
}

// forgetWhenClosed forgets session ss once it is closed: by its client
// (DELETE) or for being idle (Config.SessionIdle). A request of it then
// gets 404, as the protocol says, and its client begins a new session;
// begun again it would hold what its client gave up. (A restart closes no
// session: the process ends with them.)
func (rv *reviver) forgetWhenClosed(ss *sdk.ServerSession) {
	ss.Wait()
	if err := rv.log.ForgetMCPSessions(context.Background(), ss.ID(), time.Time{}); err != nil {
		rv.s.cfg.Log.Warn("mcp: a closed session not forgotten", "session", ss.ID(), "err", err)
	}
}

// save records session id, ss, with the owner and conversation of its
// calls.
func (rv *reviver) save(ctx context.Context, id string, ss *sdk.ServerSession, owner, conv string) {
	init, err := json.Marshal(ss.InitializeParams())
	if err != nil {
		return
	}
	if owner == rv.s.cfg.Owner {
		owner = ""
	}
	rec, err := json.Marshal(sessionRecord{Initialize: init, Conversation: conv, Owner: owner})
	if err == nil {
		err = rv.log.SaveMCPSession(ctx, id, rec)
	}
	if err != nil {
		rv.s.cfg.Log.Warn("mcp: session not recorded; it will not survive a restart", "session", id, "err", err)
	}
}

// remember records the conversation of session ss's calls, for the
// session to go on in after a restart. A nil reviver records nothing.
func (rv *reviver) remember(ctx context.Context, ss *sdk.ServerSession, owner, conv string) {
	if rv != nil && ss.ID() != "" {
		rv.save(ctx, ss.ID(), ss, owner, conv)
	}
}

// beingBegunAgain reports whether session id is being begun again.
func (rv *reviver) beingBegunAgain(id string) bool {
	rv.waitMu.Lock()
	defer rv.waitMu.Unlock()
	_, ok := rv.initialized[id]
	return ok
}

// orphanOf returns the call a restart cut off in session ss of which a
// call of message msg is a retry, if any. A nil reviver has none.
func (rv *reviver) orphanOf(ss *sdk.ServerSession, msg string) *orphan {
	if rv == nil || ss == nil {
		return nil
	}
	rv.orphanMu.Lock()
	defer rv.orphanMu.Unlock()
	for _, o := range rv.orphans[ss.ID()] {
		if o.retried(msg) {
			return o
		}
	}
	return nil
}

// awaitBegun waits until session id, if it is being begun again, goes on
// where it was.
func (rv *reviver) awaitBegun(ctx context.Context, id string) {
	rv.orphanMu.Lock()
	began := rv.beginning[id]
	rv.orphanMu.Unlock()
	if began != nil {
		select {
		case <-began:
		case <-ctx.Done():
		}
	}
}

// orphanOfStream returns the call a restart cut off in session id whose
// stream is stream, if any.
func (rv *reviver) orphanOfStream(id, stream string) *orphan {
	rv.orphanMu.Lock()
	defer rv.orphanMu.Unlock()
	for _, o := range rv.orphans[id] {
		if o.stream == stream {
			return o
		}
	}
	return nil
}

// answered hands the client's response to the question of a call cut off
// in session id that it answers, and reports whether there was one.
func (rv *reviver) answered(id string, resp *jsonrpc.Response) bool {
	rv.orphanMu.Lock()
	os := rv.orphans[id]
	rv.orphanMu.Unlock()
	for _, o := range os {
		if o.answer(resp) {
			return true
		}
	}
	return false
}

// handler serves sessions (the SDK's handler of sessions), beginning
// again a session it does not know but the log does, and forgetting one
// its client closes.
func (rv *reviver) handler(sessions http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		switch {
		case id == "" && r.Method == http.MethodPost:
			// A new session: its id is drawn while no session is begun
			// again.
			rv.mu.Lock()
			defer rv.mu.Unlock()
		case id != "" && !rv.live(id):
			if err := rv.beginAgain(r, sessions, id); err != nil {
				rv.s.cfg.Log.Warn("mcp: a session not begun again", "session", id, "err", err)
			}
		}
		if id != "" {
			rv.awaitBegun(r.Context(), id)
		}
		if id != "" && rv.orphaned(w, r, id) {
			return
		}
		sessions.ServeHTTP(w, r)
		if id != "" && r.Method == http.MethodDelete {
			if err := rv.log.ForgetMCPSessions(context.WithoutCancel(r.Context()), id, time.Time{}); err != nil {
				rv.s.cfg.Log.Warn("mcp: a closed session not forgotten", "session", id, "err", err)
			}
		}
	})
}

// orphaned serves what r, of session id, asks of a call a restart cut off
// (see orphan), and reports whether it did: a GET resuming its stream, an
// answer to a question of it. A tools/call it leaves to the SDK, marked
// for the priming event of its stream to keep it (withCall).
func (rv *reviver) orphaned(w http.ResponseWriter, r *http.Request, id string) bool {
	switch r.Method {
	case http.MethodGet:
		last := r.Header.Get("Last-Event-ID")
		stream, idx, ok := strings.Cut(last, "_")
		n, err := strconv.Atoi(idx)
		if last == "" || !ok || err != nil {
			return false
		}
		if o := rv.orphanOfStream(id, stream); o != nil {
			o.serve(w, r, n)
			return true
		}
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		// What was read goes on to the SDK, with the error reading the rest
		// (a body over its bound: the SDK answers 413).
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		if err != nil || rv.s.events == nil {
			return false
		}
		switch m, _ := jsonrpc.DecodeMessage(body); m := m.(type) {
		case *jsonrpc.Response:
			if rv.answered(id, m) {
				w.WriteHeader(http.StatusAccepted)
				return true
			}
		case *jsonrpc.Request:
			switch {
			case m.Method == "tools/call" && m.IsCall():
				*r = *r.WithContext(withCall(r.Context(), body))
			case m.Method == "notifications/cancelled":
				rv.cancelled(r.Context(), id, m.Params)
			}
		}
	}
	return false
}

// cancelled stops the call a restart cut off in session id that the
// client's notifications/cancelled names, if it names one. The SDK, which
// does not know the call, ignores the notification after.
func (rv *reviver) cancelled(ctx context.Context, id string, params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	call, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	rv.orphanMu.Lock()
	os := rv.orphans[id]
	rv.orphanMu.Unlock()
	for _, o := range os {
		if o.cancel(context.WithoutCancel(ctx), call) {
			return
		}
	}
}

// errReader is a body that fails with err, or ends when err is nil.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

// live reports whether the SDK holds session id.
func (rv *reviver) live(id string) bool {
	for ss := range rv.s.sdk.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// beginAgain begins session id again, if the log has it, by replaying its
// initialize and initialized to sessions as r's client sent them.
func (rv *reviver) beginAgain(r *http.Request, sessions http.Handler, id string) error {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.live(id) {
		return nil // begun again by a request of the same client meanwhile
	}
	b, ok, err := rv.log.MCPSession(r.Context(), id)
	if err != nil || !ok {
		return err
	}
	rec, err := readRecord(b)
	if err != nil {
		return fmt.Errorf("read the session's record: %w", err)
	}
	owner := rec.Owner
	if owner == "" {
		owner = rv.s.cfg.Owner
	}
	if owner != rv.s.ownerOf(r.Context()) {
		// Not begun again for another owner: the SDK answers 404.
		return fmt.Errorf("the session is another owner's")
	}
	init := rec.Initialize
	var params sdk.InitializeParams
	if err := json.Unmarshal(init, &params); err != nil {
		return fmt.Errorf("read the session's initialize: %w", err)
	}
	began := make(chan struct{})
	rv.orphanMu.Lock()
	if rv.beginning == nil {
		rv.beginning = map[string]chan struct{}{}
	}
	rv.beginning[id] = began
	rv.orphanMu.Unlock()
	defer func() {
		rv.orphanMu.Lock()
		delete(rv.beginning, id)
		rv.orphanMu.Unlock()
		close(began)
	}()
	rv.next = id
	defer func() { rv.next = "" }()
	w := &headersOnly{header: http.Header{}}
	sessions.ServeHTTP(w, replayed(r, "", params.ProtocolVersion,
		`{"jsonrpc":"2.0","id":"sweatpants-begin-again","method":"initialize","params":`+string(init)+`}`))
	if got := w.header.Get("Mcp-Session-Id"); w.code != http.StatusOK || got != id {
		return fmt.Errorf("its initialize was answered %d with session %q", w.code, got)
	}
	done := make(chan struct{})
	rv.waitMu.Lock()
	if rv.initialized == nil {
		rv.initialized = map[string]chan struct{}{}
	}
	rv.initialized[id] = done
	rv.waitMu.Unlock()
	defer rv.initializedDone(id) // forgotten, if not handled in time
	w = &headersOnly{header: http.Header{}}
	sessions.ServeHTTP(w, replayed(r, id, params.ProtocolVersion, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if w.code/100 != 2 {
		return fmt.Errorf("its initialized was answered %d", w.code)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		return fmt.Errorf("its initialized was not handled within 5s")
	case <-r.Context().Done():
		return r.Context().Err()
	}
	return rv.goOn(r.Context(), id, owner, rec.Conversation)
}

// goOn has session id, just begun again, go on where it was: in its
// conversation convID of owner, with the calls the restart cut off.
func (rv *reviver) goOn(ctx context.Context, id, owner, convID string) error {
	var ss *sdk.ServerSession
	for s := range rv.s.sdk.Sessions() {
		if s.ID() == id {
			ss = s
		}
	}
	if ss == nil {
		return fmt.Errorf("the session ended as it was begun again")
	}
	rv.save(ctx, id, ss, owner, convID) // begun again now, for ForgetMCPSessions
	if convID != "" {
		rv.s.mu.Lock()
		err := rv.s.hold(ctx, ss, &conv{id: convID, owner: owner})
		rv.s.mu.Unlock()
		if err != nil {
			return fmt.Errorf("hold the session's conversation: %w", err)
		}
	}
	if rv.s.events == nil {
		return nil
	}
	os, err := rv.s.orphans(ctx, id)
	if err != nil {
		return err
	}
	if len(os) == 0 {
		return nil
	}
	// The calls go on while the session lasts, whatever request began it
	// again.
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	for _, o := range os {
		o.ended, o.conv, o.owner = run.Done(), convID, owner
		go o.run(run, ss, convID)
	}
	rv.orphanMu.Lock()
	if rv.orphans == nil {
		rv.orphans = map[string][]*orphan{}
	}
	rv.orphans[id] = os
	rv.orphanMu.Unlock()
	go func() {
		ss.Wait()
		stop()
		rv.orphanMu.Lock()
		delete(rv.orphans, id)
		rv.orphanMu.Unlock()
	}()
	return nil
}

// initializedDone says that session id handled its initialized, to a
// beginAgain waiting for it.
func (rv *reviver) initializedDone(id string) {
	rv.waitMu.Lock()
	defer rv.waitMu.Unlock()
	if done, ok := rv.initialized[id]; ok {
		close(done)
		delete(rv.initialized, id)
	}
}

// replayed is a POST of body as r's client would send it, in session id
// ("": none yet) of revision version.
func replayed(r *http.Request, id, version, body string) *http.Request {
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), bytes.NewBufferString(body))
	req.Host = r.Host
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	return req
}

// headersOnly is a response that keeps its status and headers and throws
// its body away: what beginning a session again needs of the SDK's answer.
type headersOnly struct {
	header http.Header
	code   int
}

func (h *headersOnly) Header() http.Header { return h.header }

func (h *headersOnly) Write(b []byte) (int, error) {
	if h.code == 0 {
		h.code = http.StatusOK
	}
	return len(b), nil
}

func (h *headersOnly) WriteHeader(code int) {
	if h.code == 0 {
		h.code = code
	}
}

func (h *headersOnly) Flush() {}

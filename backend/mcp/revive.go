package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionLog is where the sessions the server began are recorded (the
// database, store.DB), so that it begins them again after a restart.
type SessionLog interface {
	// SaveMCPSession records that session id began, with what its client
	// said of itself (its initialize params, as JSON).
	SaveMCPSession(ctx context.Context, id string, init []byte) error
	// MCPSession returns what was recorded of session id, and false when
	// nothing was.
	MCPSession(ctx context.Context, id string) ([]byte, bool, error)
	// ForgetMCPSessions forgets session id, or, with id "", every session
	// not begun again since before.
	ForgetMCPSessions(ctx context.Context, id string, before time.Time) error
}

// reviver begins a session again, under its id, after a restart. The SDK
// keeps its sessions in memory and answers a request of one it does not
// know 404, upon which a client begins a new session and has lost the
// streams it would have resumed. The sessions it began are recorded
// (Config.Sessions) with their clients' initialize params, so a request
// of a recorded session the SDK does not know begins it again: the
// initialize and initialized the client sent then are replayed to the SDK,
// which is told to give the session that id (ServerOptions.GetSessionID).
// The client then goes on in its session: a stream it resumes with
// Last-Event-ID is replayed from the event store, and a call it makes
// again takes its waiting turn over (cutOff). Hand-written because the SDK
// has no way to restore a session; it relies on nothing but its handler's
// documented behaviour.
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
	init, err := json.Marshal(ss.InitializeParams())
	if err != nil || ss.ID() == "" {
		return
	}
	if err := rv.log.SaveMCPSession(ctx, ss.ID(), init); err != nil {
		rv.s.cfg.Log.Warn("mcp: session not recorded; it will not survive a restart", "session", ss.ID(), "err", err)
	}
	if err := rv.log.ForgetMCPSessions(ctx, "", time.Now().Add(-IdleSession)); err != nil {
		rv.s.cfg.Log.Warn("mcp: idle sessions not forgotten", "err", err)
	}
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
		sessions.ServeHTTP(w, r)
		if id != "" && r.Method == http.MethodDelete {
			if err := rv.log.ForgetMCPSessions(context.WithoutCancel(r.Context()), id, time.Time{}); err != nil {
				rv.s.cfg.Log.Warn("mcp: a closed session not forgotten", "session", id, "err", err)
			}
		}
	})
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
	init, ok, err := rv.log.MCPSession(r.Context(), id)
	if err != nil || !ok {
		return err
	}
	var params sdk.InitializeParams
	if err := json.Unmarshal(init, &params); err != nil {
		return fmt.Errorf("read the session's initialize: %w", err)
	}
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
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("its initialized was not handled within 5s")
	case <-r.Context().Done():
		return r.Context().Err()
	}
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

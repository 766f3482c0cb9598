package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// questionMeta is the key, in an elicitation/create's _meta, of the id of
// the question it asks: a server restarted reads from a call's stream
// which questions were asked there, and under which request ids.
const questionMeta = "sweatpants/question"

// orphan is a tool call that a restart cut off from its session: the
// server went down while the call ran or waited on a question. The SDK
// keeps a session's requests in memory, so the session begun again
// (reviver) does not know the call: a client resuming the call's stream
// would be replayed what it missed and then nothing, and its answer to the
// question would be taken and dropped. An orphan goes on with the call
// instead, in the session's conversation, and serves the call's stream
// itself (serve): a client that resumes it with Last-Event-ID is replayed
// what it missed and then sent what comes, progress, each question once,
// and the call's result under the call's id. The client's answer to a
// question of the stream is recorded, whichever server asked it (answer),
// and a retry of the call in the session is handed the call's result
// rather than running it again (await). Everything it sends is kept in
// the event store first, so a client whose resumed stream breaks again
// resumes it again.
type orphan struct {
	s       *Server
	session string
	stream  string
	conv    string     // the conversation of the call's turn ("": none yet)
	owner   string     // the owner of conv (the session's)
	id      jsonrpc.ID // the call's
	params  sdk.CallToolParamsRaw
	msg     string // the call, as its conversation's message

	mu   sync.Mutex
	next int // the index of the stream's next event
	// asked holds, by question id, the request that asked it on the stream;
	// answers the client's answers by the request they answer, until taken.
	asked   map[string]jsonrpc.ID
	answers map[jsonrpc.ID]chan *jsonrpc.Response
	// w is the client's GET the stream goes to, while one is open; closing
	// release ends it.
	w       http.ResponseWriter
	release chan struct{}
	// res is the call's result, once done is closed; handed says that the
	// client has it (on its open stream, or as a retry's result).
	res    *sdk.CallToolResult
	handed bool
	done   chan struct{}
	// ended is done when the session ends.
	ended <-chan struct{}
}

// orphans returns the calls of session that a restart cut off: its
// streams whose priming event holds a tools/call (see EventStore.Append)
// and which hold no response to it.
func (s *Server) orphans(ctx context.Context, session string) ([]*orphan, error) {
	streams, err := s.cfg.Events.EventStreams(ctx, session)
	if err != nil {
		return nil, fmt.Errorf("list the session's streams: %w", err)
	}
	var out []*orphan
	for _, stream := range streams {
		first, data, err := s.cfg.Events.EventsAfter(ctx, session, stream, -1)
		if err != nil {
			return nil, fmt.Errorf("read the session's stream: %w", err)
		}
		if first != 0 || len(data) == 0 || len(data[0]) == 0 || data[0][0] != primeMark {
			continue // not a call's stream, or its call is no longer kept
		}
		m, err := jsonrpc.DecodeMessage(data[0][1:])
		req, ok := m.(*jsonrpc.Request)
		if err != nil || !ok || !req.IsCall() || req.Method != "tools/call" {
			continue
		}
		o := &orphan{s: s, session: session, stream: stream, id: req.ID, next: len(data),
			asked: map[string]jsonrpc.ID{}, answers: map[jsonrpc.ID]chan *jsonrpc.Response{}, done: make(chan struct{})}
		if json.Unmarshal(req.Params, &o.params) != nil {
			continue
		}
		if o.msg, err = s.message(&o.params); err != nil {
			continue
		}
		if o.read(data[1:]) {
			out = append(out, o)
		}
	}
	return out, nil
}

// read takes in the events the stream held after its priming event: the
// questions asked on it. It reports whether the call is still to be
// answered.
func (o *orphan) read(events [][]byte) bool {
	for _, d := range events {
		switch m, _ := jsonrpc.DecodeMessage(d); m := m.(type) {
		case *jsonrpc.Response:
			if m.ID == o.id {
				return false
			}
		case *jsonrpc.Request:
			var p struct {
				Meta map[string]any `json:"_meta"`
			}
			if m.Method != "elicitation/create" || !m.IsCall() || json.Unmarshal(m.Params, &p) != nil {
				continue
			}
			if q, ok := p.Meta[questionMeta].(string); ok {
				o.asked[q] = m.ID
				o.answers[m.ID] = make(chan *jsonrpc.Response, 1)
			}
		}
	}
	return true
}

// message is the conversation's message of the call of params, whose name
// is the tool's as listed.
func (s *Server) message(params *sdk.CallToolParamsRaw) (string, error) {
	for _, q := range s.cfg.Tools.order {
		if s.cfg.Tools.listedName(q) == params.Name {
			params.Name = q
			return call{Tool: q, Arguments: params.Arguments}.key()
		}
	}
	return "", fmt.Errorf("no tool %q", params.Name)
}

// run goes on with the call in conversation conv, in session ss, until its
// result is sent or the session ends (ctx).
func (o *orphan) run(ctx context.Context, ss *sdk.ServerSession, conv string) {
	res, err := o.follow(ctx, ss, conv)
	if err != nil {
		if ctx.Err() != nil {
			return // the session ended; a restart finds the call again
		}
		o.s.cfg.Log.Warn("mcp: a call cut off by a restart did not go on", "session", o.session, "err", err)
		res = errorResult("The call could not go on after the server restarted; call it again.")
	}
	o.finish(ctx, res)
}

// follow follows the call's turn in conv, as a call of the session would
// (watch), and returns its result.
func (o *orphan) follow(ctx context.Context, ss *sdk.ServerSession, conv string) (*sdk.CallToolResult, error) {
	if conv == "" {
		return errorResult("The server restarted before the call began; call it again."), nil
	}
	w := o.s.newWatch(&sdk.CallToolRequest{Session: ss, Params: &o.params}, o.owner, conv, false)
	w.out = o
	es, err := w.openRun(ctx)
	if err != nil {
		return nil, err
	}
	defer es.Close()
	if w.run == 0 || w.call != o.msg {
		return errorResult("The server restarted before the call began; call it again."), nil
	}
	o.forgetAnswered(w)
	return w.wait(ctx, es)
}

// forgetAnswered stops taking answers to the questions of the stream that
// the call's run no longer waits on (answered before the restart): their
// request ids were the old server's, and this one's session may use them
// again.
func (o *orphan) forgetAnswered(w *watch) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for q, id := range o.asked {
		if _, pending := w.isPending(q); !pending {
			delete(o.answers, id)
		}
	}
}

// elicit asks question q on the stream, unless it was asked there already
// (before the restart too), and returns the client's answer.
func (o *orphan) elicit(ctx context.Context, q string, params *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	o.mu.Lock()
	id, ok := o.asked[q]
	if !ok {
		var err error
		if id, err = jsonrpc.MakeID("sweatpants-" + q); err == nil {
			err = o.sendLocked(ctx, &jsonrpc.Request{ID: id, Method: "elicitation/create"}, params)
		}
		if err != nil {
			o.mu.Unlock()
			return nil, err
		}
		o.asked[q] = id
		o.answers[id] = make(chan *jsonrpc.Response, 1)
	}
	ch, ok := o.answers[id]
	if !ok {
		ch = make(chan *jsonrpc.Response, 1)
		o.answers[id] = ch
	}
	o.mu.Unlock()
	select {
	case resp := <-ch:
		o.mu.Lock()
		delete(o.answers, id) // answered: the id may come again, of another request
		o.mu.Unlock()
		if resp.Error != nil {
			return nil, resp.Error
		}
		var res sdk.ElicitResult
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			return nil, fmt.Errorf("read the answer: %w", err)
		}
		return &res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// answer takes the client's response if it answers a question of the
// stream, and reports whether it did. A second answer to one question is
// dropped: the first is recorded.
func (o *orphan) answer(resp *jsonrpc.Response) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	ch, ok := o.answers[resp.ID]
	if ok {
		select {
		case ch <- resp:
		default:
		}
	}
	return ok
}

// cancel stops the call's turn, as the client cancelled the call: as a
// call of the session is stopped (waitOrStop), so that the session's next
// call does not wait behind it. It reports whether id is the call's.
func (o *orphan) cancel(ctx context.Context, id jsonrpc.ID) bool {
	conv := o.conv
	if id != o.id {
		return false
	}
	if conv != "" {
		if err := o.s.cfg.Chat.Stop(ctx, o.owner, conv); err != nil && apperr.CodeOf(err) != apperr.Conflict {
			o.s.cfg.Log.Warn("mcp: a cancelled call's turn not stopped", "conversation", conv, "err", err)
		}
	}
	return true
}

// notify sends a notification on the stream.
func (o *orphan) notify(ctx context.Context, method string, params any) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sendLocked(ctx, &jsonrpc.Request{Method: method}, params)
}

// sendLocked sends req with params on the stream. o.mu is held.
func (o *orphan) sendLocked(ctx context.Context, req *jsonrpc.Request, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	req.Params = p
	data, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return err
	}
	return o.writeLocked(ctx, data)
}

// writeLocked keeps data as the stream's next event and writes it to the
// client's open GET, if any. o.mu is held.
func (o *orphan) writeLocked(ctx context.Context, data []byte) error {
	if err := o.s.events.Append(ctx, o.session, o.stream, data); err != nil {
		return err
	}
	idx := o.next
	o.next++
	if o.w != nil && writeEvent(o.w, o.stream, idx, data) != nil {
		o.w = nil // gone; the client resumes from the store
	}
	return nil
}

// writeEvent writes an event of the stream as the SDK does.
func writeEvent(w http.ResponseWriter, stream string, idx int, data []byte) error {
	if _, err := fmt.Fprintf(w, "event: message\nid: %s_%d\ndata: %s\n\n", stream, idx, data); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

// finish sends the call's result on the stream, under the call's id, and
// ends the stream.
func (o *orphan) finish(ctx context.Context, res *sdk.CallToolResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	raw, err := json.Marshal(res)
	if err == nil {
		var data []byte
		if data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: o.id, Result: raw}); err == nil {
			err = o.writeLocked(ctx, data)
		}
	}
	if err != nil {
		o.s.cfg.Log.Warn("mcp: the result of a call cut off by a restart not kept", "session", o.session, "err", err)
	}
	o.res, o.handed = res, err == nil && o.w != nil
	o.answers = map[jsonrpc.ID]chan *jsonrpc.Response{} // no question of the call is left
	if o.release != nil {
		close(o.release)
		o.w, o.release = nil, nil
	}
	close(o.done)
}

// serve serves the client's GET resuming the stream after event last: it
// replays what the stream kept after it, then sends what comes, until the
// call's result, the client's going away, another GET of the stream (which
// takes over) or the session's end.
func (o *orphan) serve(w http.ResponseWriter, r *http.Request, last int) {
	o.mu.Lock()
	first, data, err := o.s.cfg.Events.EventsAfter(r.Context(), o.session, o.stream, last)
	if err != nil || last+1 < first {
		o.mu.Unlock()
		// As the SDK answers: a 404 would say the session is gone.
		http.Error(w, "failed to replay events", http.StatusBadRequest)
		return
	}
	if o.release != nil {
		close(o.release)
	}
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	for i, d := range data {
		if len(d) > 0 && d[0] != primeMark {
			if writeEvent(w, o.stream, last+1+i, d) != nil {
				o.w, o.release = nil, nil
				o.mu.Unlock()
				return
			}
		}
	}
	http.NewResponseController(w).Flush()
	select {
	case <-o.done:
		o.handed = true // the result was in the replay
		o.w, o.release = nil, nil
		o.mu.Unlock()
		return
	default:
	}
	rel := make(chan struct{})
	o.w, o.release = w, rel
	o.mu.Unlock()
	select {
	case <-rel:
	case <-r.Context().Done():
	case <-o.ended:
	}
	o.mu.Lock()
	if o.release == rel {
		o.w, o.release = nil, nil
	}
	o.mu.Unlock()
}

// await returns the call's result to a retry of the call, once it has one.
func (o *orphan) await(ctx context.Context) (*sdk.CallToolResult, error) {
	select {
	case <-o.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handed = true
	return o.res, nil
}

// retried reports whether a call of message msg is a retry of the orphan:
// the same call, whose result the client does not have yet.
func (o *orphan) retried(msg string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.msg == msg && !o.handed
}

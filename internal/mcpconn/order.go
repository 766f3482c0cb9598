package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's question shows its fields in the order its schema names
// them, the order the server meant them to be read in. The SDK hands the
// question's schema over decoded into a map, in which that order is gone;
// so each message from a server that asks a question is given, on its way
// in, the order of its schema's properties, as the schema's "x-order"
// (elicit.Schema.Order), which survives the map. Over stdio that is done
// to the messages the connection reads; over HTTP to the bodies of the
// responses, JSON or an event stream, since the SDK's connection there
// must stay its own.

// methodElicit is the method of a server's question.
const methodElicit = "elicitation/create"

// orderedConn is a connection to a command whose questions keep their
// order.
type orderedConn struct{ mcp.Connection }

func (c orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == methodElicit {
			m.Params = orderParams(m.Params)
		}
	case *jsonrpc.Response:
		m.Result = orderResult(m.Result)
	}
	return msg, err
}

// orderParams adds to the params of a question the order of its schema's
// properties, unless it says one.
func orderParams(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["requestedSchema"] == nil {
		return params
	}
	var schema map[string]json.RawMessage
	if json.Unmarshal(p["requestedSchema"], &schema) != nil || schema["x-order"] != nil {
		return params
	}
	order := propertyOrder(p["requestedSchema"])
	if order == nil {
		return params
	}
	schema["x-order"], _ = json.Marshal(order)
	p["requestedSchema"], _ = json.Marshal(schema)
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// orderResult orders the questions a result asks (the input requests of
// a call's result, in the multi-round-trip way).
func orderResult(result json.RawMessage) json.RawMessage {
	if !bytes.Contains(result, []byte(`"inputRequests"`)) {
		return result
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || r["inputRequests"] == nil {
		return result
	}
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	}
	if json.Unmarshal(r["inputRequests"], &reqs) != nil {
		return result
	}
	for id, req := range reqs {
		if req.Method == methodElicit {
			req.Params = orderParams(req.Params)
			reqs[id] = req
		}
	}
	r["inputRequests"], _ = json.Marshal(reqs)
	out, err := json.Marshal(r)
	if err != nil {
		return result
	}
	return out
}

// orderMessage is orderParams or orderResult of one JSON-RPC message as
// sent: a question, or the result of a call.
func orderMessage(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`"requestedSchema"`)) {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	switch {
	case m["params"] != nil && string(m["method"]) == `"`+methodElicit+`"`:
		m["params"] = orderParams(m["params"])
	case m["result"] != nil:
		m["result"] = orderResult(m["result"])
	default:
		return raw
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// orderedBodies orders the questions in the bodies of a server's answers
// over HTTP.
type orderedBodies struct{ next http.RoundTripper }

func (o orderedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := o.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		body = orderMessage(body)
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		resp.Header.Del("Content-Length")
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = &orderedEvents{r: bufio.NewReader(resp.Body), body: resp.Body}
	}
	return resp, nil
}

// orderedEvents is an event stream whose events' data, each a message on
// one line, have their questions ordered.
type orderedEvents struct {
	r    *bufio.Reader
	body io.ReadCloser
	line []byte // what is left of the line read last
}

func (e *orderedEvents) Read(p []byte) (int, error) {
	if len(e.line) == 0 {
		line, err := e.r.ReadBytes('\n')
		if len(line) == 0 {
			return 0, err
		}
		e.line = orderDataLine(line)
	}
	n := copy(p, e.line)
	e.line = e.line[n:]
	return n, nil
}

func (e *orderedEvents) Close() error { return e.body.Close() }

// orderDataLine orders the message of an event's data line; any other
// line is left as it is.
func orderDataLine(line []byte) []byte {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(data, []byte(`"requestedSchema"`)) {
		return line
	}
	end := len(data) - len(bytes.TrimRight(data, "\r\n"))
	msg := bytes.TrimSpace(data)
	ordered := orderMessage(msg)
	if bytes.Equal(ordered, msg) {
		return line
	}
	out := append([]byte("data: "), ordered...)
	return append(out, data[len(data)-end:]...)
}

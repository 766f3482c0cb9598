package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The WebSocket binding: one connection per conversation for programs and
// other front ends (the page stays on Datastar's SSE). The typed events of
// the event stream go out, each a text frame
//
//	{"type":"event","id":"<event id>","event":"run.started","data":{...}}
//
// and commands come in, each a text frame with an id of the client's own,
// answered by a result frame with that id:
//
//	{"id":"1","type":"send","text":"Book a flight","messageId":"m1"}
//	{"type":"result","id":"1","ok":true,"sent":"queued","say":"Queued — ..."}
//	{"type":"result","id":"2","ok":false,"status":422,"error":"...","fields":[...]}
//
// The commands are the page's: send, answer, progress, stop, edit, retry,
// switch, change (an earlier answer), methods (what the client
// implements). Each goes through the service as the page's request does,
// with the same checks and the same session rules. A client that drops
// reconnects with ?after=<the last event id> (or Last-Event-ID) and misses
// nothing.
//
// What the connection refuses, it closes with a code that says why:
// binary frames (1003), a frame over the command size (1009), a flood of
// commands (1008). Before the upgrade, a page of another site (its Origin)
// is refused 403, and a conversation the session does not own 404.

// wsCommandRate and wsCommandBurst bound the commands one connection may
// send: a client that sends faster is cut off, as a flood.
const (
	wsCommandRate  = 20 // a second, sustained
	wsCommandBurst = 40
)

// wsCommand is a command as a client sends it.
type wsCommand struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	MessageID string          `json:"messageId,omitempty"`
	Elicit    string          `json:"elicit,omitempty"`
	Action    elicit.Action   `json:"action,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	Stage     string          `json:"stage,omitempty"`
	Message   string          `json:"message,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Node      int64           `json:"node,omitempty"`
	Methods   []string        `json:"methods,omitempty"`
	Rating    tree.Rating     `json:"rating,omitempty"`
	Comment   string          `json:"comment,omitempty"`
}

// wsFrame is a frame the server sends: an event, or a command's result.
type wsFrame struct {
	Type   string          `json:"type"`
	ID     string          `json:"id,omitempty"`
	Event  string          `json:"event,omitempty"`
	Data   any             `json:"data,omitempty"`
	OK     *bool           `json:"ok,omitempty"`
	Sent   string          `json:"sent,omitempty"`
	Say    string          `json:"say,omitempty"`
	Status int             `json:"status,omitempty"`
	Error  string          `json:"error,omitempty"`
	Fields json.RawMessage `json:"fields,omitempty"`
}

func (s *Server) webSocket(c echo.Context) error {
	r := c.Request()
	// A browser opens a WebSocket to any site with that site's cookies,
	// so the Origin a browser sends must be the app's own, scheme and all
	// (crossorigin.go); a program sends none. The library's own check
	// compares hosts only, and is turned off below for this one.
	if o := r.Header.Get("Origin"); o != "" && !s.isOwnOrigin(r, o) {
		return echo.NewHTTPError(http.StatusForbidden, "This connection came from another site and was refused.")
	}
	release, err := s.acquireStream(c)
	if err != nil {
		return err
	}
	defer release()
	session, id := sessionOf(c), c.Param("id")
	after := r.URL.Query().Get("after")
	if after == "" {
		after = r.Header.Get("Last-Event-ID")
	}
	es, err := eventstream.Open(r.Context(), s.chat, session, id, after)
	if err != nil {
		return err // not upgraded yet, so the status still counts
	}
	defer es.Close()
	http.NewResponseController(c.Response()).SetReadDeadline(time.Time{}) // a connection outlives the read timeout
	conn, err := websocket.Accept(c.Response(), r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil // Accept answered the request itself
	}
	c.Response().Committed = true
	defer conn.CloseNow()
	conn.SetReadLimit(s.maxBody)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		defer cancel()
		for {
			evs, err := es.Next(ctx)
			if err != nil {
				return
			}
			for _, ev := range evs {
				if err := writeFrame(ctx, conn, wsFrame{Type: "event", ID: ev.ID, Event: ev.Type, Data: ev.Data}); err != nil {
					return
				}
			}
		}
	})
	defer wg.Wait()

	flood := rate.NewLimiter(wsCommandRate, wsCommandBurst)
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return nil // closed by either side; a frame over the limit is closed 1009 by the library
		}
		if typ != websocket.MessageText {
			conn.Close(websocket.StatusUnsupportedData, "Binary frames are not taken: send each command as JSON text.")
			return nil
		}
		if !flood.Allow() {
			conn.Close(websocket.StatusPolicyViolation, fmt.Sprintf("Too many commands: at most %d a second.", wsCommandRate))
			return nil
		}
		res := s.wsRun(ctx, session, id, data)
		if err := writeFrame(ctx, conn, res); err != nil {
			return nil
		}
	}
}

// wsRun runs one command and says how it went.
func (s *Server) wsRun(ctx context.Context, session, id string, data []byte) wsFrame {
	var cmd wsCommand
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&cmd)
	if err != nil {
		err = badBody(err)
	}
	res := wsFrame{Type: "result", ID: cmd.ID}
	if err == nil {
		var sent inbound.Sent
		sent, err = s.wsCommand(ctx, session, id, cmd)
		res.Sent, res.Say = string(sent), sent.Say()
	}
	ok := err == nil
	res.OK = &ok
	if err != nil {
		res.Status, res.Error = status(err), apperr.MessageOf(err)
		if e, is := errors.AsType[*apperr.Error](err); is && e.Fields != nil {
			res.Fields, _ = json.Marshal(e.Fields)
		}
		if res.Status >= 500 {
			s.log.Error("websocket command failed", "type", cmd.Type, "conversation", id, "err", err)
		}
	}
	return res
}

// wsCommand runs cmd as the page's request of the same name does.
func (s *Server) wsCommand(ctx context.Context, session, id string, cmd wsCommand) (inbound.Sent, error) {
	answer := chat.Answer{Action: cmd.Action, Content: cmd.Content, Text: cmd.Text}
	switch cmd.Type {
	case "send":
		return s.chat.SendMessage(ctx, session, id, inbound.Message{ID: cmd.MessageID, Text: cmd.Text})
	case "answer":
		return "", s.chat.Answer(ctx, session, id, cmd.Elicit, answer)
	case "change":
		return "", s.chat.ChangeAnswer(ctx, session, id, cmd.Elicit, answer)
	case "progress":
		return "", s.chat.Progress(ctx, session, id, cmd.Elicit, elicit.Progress{Stage: cmd.Stage, Message: cmd.Message, Data: cmd.Data})
	case "stop":
		return "", s.chat.Stop(ctx, session, id)
	case "edit":
		return "", s.chat.Edit(ctx, session, id, cmd.Node, inbound.Message{Text: cmd.Text})
	case "retry":
		return "", s.chat.Retry(ctx, session, id, cmd.Node)
	case "switch":
		return "", s.chat.Switch(ctx, session, id, cmd.Node)
	case "methods":
		return "", s.chat.Implements(ctx, session, id, cmd.Methods)
	case "feedback":
		_, err := s.chat.GiveFeedback(ctx, session, id, cmd.Node, inbound.Feedback{Rating: cmd.Rating, Comment: cmd.Comment})
		return "", err
	case "":
		return "", apperr.Errorf(apperr.Invalid, `A command needs a "type".`)
	}
	return "", apperr.Errorf(apperr.Invalid, "There is no command %s: the commands are send, answer, change, progress, stop, edit, retry, switch, methods and feedback.", strconv.Quote(cmd.Type))
}

// writeFrame sends f as one text frame.
func writeFrame(ctx context.Context, conn *websocket.Conn, f wsFrame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return conn.Write(ctx, websocket.MessageText, b)
}

package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// call runs a tool call as a turn of the session's conversation and
// returns the turn's end as the tool's result: its reply as structured
// content and text, or its error as an error result.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if req.ProtocolVersion() >= stateless {
		return s.callStateless(ctx, req)
	}
	c := call{Tool: req.Params.Name, Arguments: req.Params.Arguments}
	msg, err := c.key()
	if err != nil {
		return nil, err
	}
	if o := s.revive.orphanOf(req.Session, msg); o != nil {
		// A retry of a call a restart cut off: it is the same call, going
		// on, not a new one.
		return o.await(ctx)
	}
	cv, err := s.conversation(ctx, req, msg)
	if err != nil {
		return nil, fmt.Errorf("start the conversation of the call: %w", err)
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	w := s.newWatch(req, cv.owner, cv.id, false)
	if cv.taken {
		// The session took this call over from one cut off while its
		// question waited: the run goes on, not again.
		cv.taken = false
		es, err := w.openRun(ctx)
		if err != nil {
			return nil, err
		}
		defer es.Close()
		return w.waitOrStop(ctx, es)
	}
	// The stream is open before the message is sent, so no event of the
	// run is missed; it starts after the session's earlier calls.
	es, err := eventstream.OpenNew(ctx, s.cfg.Chat, cv.owner, cv.id)
	if err != nil {
		return nil, fmt.Errorf("follow the conversation of the call: %w", err)
	}
	defer es.Close()
	if err := s.send(ctx, cv.owner, cv.id, c); err != nil {
		return errorResult(apperr.MessageOf(err)), nil
	}
	return w.waitOrStop(ctx, es)
}

// waitOrStop waits for the call's result. When the client cancels the call
// or goes away meanwhile, its turn is stopped, as the browser's Stop
// would, so the session's next call does not wait behind it; the record
// keeps it, stopped.
func (w *watch) waitOrStop(ctx context.Context, es *eventstream.Stream) (*sdk.CallToolResult, error) {
	res, err := w.wait(ctx, es)
	if err != nil && ctx.Err() != nil {
		if serr := w.s.cfg.Chat.Stop(context.WithoutCancel(ctx), w.owner, w.conv); serr != nil && apperr.CodeOf(serr) != apperr.Conflict {
			w.s.cfg.Log.Warn("mcp: a cancelled call's turn not stopped", "conversation", w.conv, "err", serr)
		}
	}
	return res, err
}

// result is the call's result, once its run ended: the tool's outcome
// (run.completed's, typed), the turn's error, or its stop.
func (w *watch) result() *sdk.CallToolResult {
	switch end := w.end; end.Status {
	case tree.OutcomeReplied:
		if o := end.Outcome; o != nil {
			if o.Error != "" {
				return errorResult(o.Error)
			}
			return result(string(o.Output))
		}
		// A call recorded before calls were typed: its reply is its
		// outcome's JSON.
		var o outcome
		switch {
		case json.Unmarshal([]byte(end.Text), &o) != nil:
			return errorResult("The call's reply cannot be read: " + end.Text)
		case o.Error != "":
			return errorResult(o.Error)
		}
		return result(string(o.Result))
	case tree.OutcomeStopped:
		return errorResult("The call was stopped.")
	default:
		text := end.Text
		if end.Details != "" {
			text += "\n" + end.Details
		}
		return errorResult(text)
	}
}

// result is a tool's JSON result. One shaped as agents.Content (an
// object of "content" alone, a list of MCP content blocks) is returned as
// those blocks: text, images, audio, embedded resources. Any other is
// returned as text, and as structured content too when it is an object.
func result(reply string) *sdk.CallToolResult {
	if res, ok := contentResult(reply); ok {
		return res
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: reply}}}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(reply), &obj) == nil {
		res.StructuredContent = json.RawMessage(reply)
	}
	return res
}

// contentResult reads reply as agents.Content, when it is one: an object
// whose only member is a list of blocks the protocol knows.
func contentResult(reply string) (*sdk.CallToolResult, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(reply), &obj) != nil || len(obj) != 1 || obj["content"] == nil {
		return nil, false
	}
	var blocks []json.RawMessage
	if json.Unmarshal(obj["content"], &blocks) != nil || len(blocks) == 0 {
		return nil, false
	}
	// The SDK's own reading refuses a block of a type it does not know.
	var res sdk.CallToolResult
	if json.Unmarshal([]byte(reply), &res) != nil || len(res.Content) != len(blocks) {
		return nil, false
	}
	return &res, true
}

// errorResult is a failed call's result: the error, for the model to read.
func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

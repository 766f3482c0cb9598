package mcp

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
)

// stateless is the first revision whose tool calls cannot send
// elicitation/create while they run: a call whose turn waits on a question
// answers input_required, and the client calls again with the answers.
const stateless = "2026-07-28"

// callStateless serves a call of revision 2026-07-28. A first request
// starts the call's turn in a conversation of its own; while the turn
// waits on questions, the call answers input_required with them as input
// requests and a requestState naming the turn (sealed: see state). The
// client's retry with that state and the answers records the answers
// through the same path as a browser's and follows the turn on, to its
// next questions or its end. The turn is in the tree between the two, so
// a restart loses nothing; an answer sent twice is recorded once.
func (s *Server) callStateless(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	owner := s.ownerOf(ctx)
	var st state
	if rs := req.Params.RequestState; rs != "" {
		var err error
		if st, err = open(s.cfg.Secret, rs); err != nil || st.Tool != req.Params.Name {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: errState.Error()}
		}
	}
	first := st.Conv == ""
	if first {
		c, err := s.cfg.Chat.Create(ctx, owner, AssistantName)
		if err != nil {
			return nil, fmt.Errorf("start the conversation of the call: %w", err)
		}
		if err := s.cfg.Chat.Rename(ctx, owner, c.ID, titleOf(req.ClientInfo())+": "+req.Params.Name); err != nil {
			return nil, fmt.Errorf("name the conversation of the call: %w", err)
		}
		st = state{Conv: c.ID, Tool: req.Params.Name}
	}
	w := s.newWatch(req, owner, st.Conv, true)
	if first {
		// The stream is open before the call is sent, so no event of its
		// run is missed.
		es, err := eventstream.OpenNew(ctx, s.cfg.Chat, owner, st.Conv)
		if err != nil {
			return nil, fmt.Errorf("follow the conversation of the call: %w", err)
		}
		defer es.Close()
		if err := s.send(ctx, owner, st.Conv, call{Tool: req.Params.Name, Arguments: req.Params.Arguments, Stateless: true}); err != nil {
			return errorResult(apperr.MessageOf(err)), nil
		}
		return w.waitOrStop(ctx, es)
	}
	// The stream is open, and has told what the run asked, before the
	// answers are recorded, so no event after them is missed.
	es, err := w.openRun(ctx)
	if err != nil {
		return nil, err
	}
	defer es.Close()
	if err := w.answers(ctx, st); err != nil {
		return nil, err
	}
	return w.waitOrStop(ctx, es)
}

// answers records the client's answers to the questions st says were
// asked, those of them the run still waits on (w.pending, read by
// openRun); responses to other keys are ignored, and a question left
// unanswered is asked again.
func (w *watch) answers(ctx context.Context, st state) error {
	for key, id := range st.Asked {
		resp, ok := w.req.Params.InputResponses[key]
		q, waiting := w.isPending(id)
		if !ok || !waiting {
			continue // not answered now, or answered before (a retry)
		}
		res, ok := resp.(*sdk.ElicitResult)
		if !ok {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("the input response %q is not the answer to an elicitation", key)}
		}
		a := answerOf(q, res)
		err := w.s.cfg.Chat.Answer(ctx, w.owner, w.conv, id, a)
		switch {
		case err == nil, apperr.CodeOf(err) == apperr.Conflict:
			w.answered(id) // its answer's event is yet to come
		case apperr.CodeOf(err) == apperr.Invalid:
			// Asked again, saying what was wrong, rather than cancelled:
			// the client can answer anew in its next retry.
			w.refused[id] = apperr.MessageOf(err)
		default:
			return fmt.Errorf("record the answer to %q: %w", q.Message, err)
		}
	}
	return nil
}

// input takes a pending question of a stateless call: one the client can
// be asked becomes an input request; one it cannot is answered here, as
// route says, and the turn goes on.
func (w *watch) input(ctx context.Context, req elicit.Request) {
	if form, a := w.route(ctx, req); form == nil {
		w.record(ctx, req, a)
		w.answered(req.ID)
		return
	}
	w.inputs = append(w.inputs, req)
}

// inputRequired is the call's answer while its turn waits on w.inputs:
// each as an elicitation, keyed by the question's id, and the state that
// names them.
func (w *watch) inputRequired() *sdk.CallToolResult {
	st := state{Conv: w.conv, Tool: w.req.Params.Name, Asked: map[string]string{}}
	reqs := sdk.InputRequestMap{}
	for _, q := range w.inputs {
		form, _ := flatForm(q.Schema)
		msg := messageOf(q)
		if why := w.refused[q.ID]; why != "" {
			msg = "Your answer was refused: " + why + "\n" + msg
		}
		reqs[q.ID] = &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: form}
		st.Asked[q.ID] = q.ID
	}
	return &sdk.CallToolResult{InputRequests: reqs, RequestState: seal(w.s.cfg.Secret, st)}
}

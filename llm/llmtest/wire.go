package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The wire format of OpenAI's chat completions, as the real API sends it.
type (
	completion struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             *Usage   `json:"usage"`
	}
	choice struct {
		Index        int       `json:"index"`
		Message      *message  `json:"message,omitempty"`
		Delta        *message  `json:"delta,omitempty"`
		Logprobs     *logprobs `json:"logprobs"`
		FinishReason *string   `json:"finish_reason"`
	}
	message struct {
		Role      string         `json:"role,omitempty"`
		Content   *string        `json:"content,omitempty"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	// wireToolCall is a whole call in a message, or a piece of one in a
	// stream event, where only the first piece has an id, type and name.
	wireToolCall struct {
		Index    *int   `json:"index,omitempty"`
		ID       string `json:"id,omitempty"`
		Type     string `json:"type,omitempty"`
		Function struct {
			Name      string `json:"name,omitempty"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	logprobs struct {
		Content []tokenLogprob `json:"content"`
	}
	tokenLogprob struct {
		Token       string   `json:"token"`
		Logprob     float64  `json:"logprob"`
		Bytes       []int    `json:"bytes"`
		TopLogprobs []string `json:"top_logprobs"`
	}
)

const (
	completionID = "chatcmpl-llmtest"
	created      = 1700000000
	fingerprint  = "fp_llmtest"
)

// completion is the unstreamed answer.
func (r Reply) completion(in Request) completion {
	text := strings.Join(r.Chunks, "")
	msg := &message{Role: "assistant", Content: &text, ToolCalls: r.wireToolCalls(false)}
	if text == "" && len(r.ToolCalls) > 0 {
		msg.Content = nil
	}
	finish := r.finishReason()
	u := r.usage(in)
	return completion{
		ID: completionID, Object: "chat.completion", Created: created, Model: r.model(in), SystemFingerprint: fingerprint,
		Choices: []choice{{Message: msg, Logprobs: r.logprobs(in, 0, len(r.Chunks)), FinishReason: &finish}},
		Usage:   &u,
	}
}

// stream sends the answer as server-sent events: a role chunk, a chunk per
// text chunk, the tool calls, the finish reason, the usage and [DONE].
func (r Reply) stream(w http.ResponseWriter, req *http.Request, in Request, done <-chan struct{}) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	empty := ""
	r.event(w, in, choice{Delta: &message{Role: "assistant", Content: &empty}})
	for i, c := range r.Chunks {
		if i > 0 && r.Gap > 0 && !wait(req, r.Gap, done) {
			return
		}
		if r.gate != nil && !r.gate(req.Context()) {
			return
		}
		r.event(w, in, choice{Delta: &message{Content: &c}, Logprobs: r.logprobs(in, i, i+1)})
	}
	if r.SplitArguments > 0 {
		for _, piece := range r.toolCallPieces() {
			r.event(w, in, choice{Delta: &message{ToolCalls: []wireToolCall{piece}}})
		}
	} else if calls := r.wireToolCalls(true); len(calls) > 0 {
		r.event(w, in, choice{Delta: &message{ToolCalls: calls}})
	}
	if r.Drop {
		drop(w)
		return
	}
	if r.Hold {
		select {
		case <-req.Context().Done():
		case <-done:
		}
		return
	}
	if r.Cut {
		return
	}
	finish := r.finishReason()
	r.event(w, in, choice{Delta: &message{}, FinishReason: &finish})
	if in.StreamOptions != nil && in.StreamOptions.IncludeUsage {
		u := r.usage(in)
		writeEvent(w, completion{
			ID: completionID, Object: "chat.completion.chunk", Created: created, Model: r.model(in),
			SystemFingerprint: fingerprint, Choices: []choice{}, Usage: &u,
		})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(w)
}

func (r Reply) event(w http.ResponseWriter, in Request, c choice) {
	writeEvent(w, completion{
		ID: completionID, Object: "chat.completion.chunk", Created: created, Model: r.model(in),
		SystemFingerprint: fingerprint, Choices: []choice{c},
	})
}

// logprobs gives chunks [from, to) their log probabilities, when asked for.
func (r Reply) logprobs(in Request, from, to int) *logprobs {
	if !in.Logprobs || len(r.Logprobs) == 0 {
		return nil
	}
	lp := &logprobs{Content: []tokenLogprob{}}
	for i := from; i < to && i < len(r.Logprobs) && i < len(r.Chunks); i++ {
		lp.Content = append(lp.Content, tokenLogprob{Token: r.Chunks[i], Logprob: r.Logprobs[i], Bytes: bytesOf(r.Chunks[i]), TopLogprobs: []string{}})
	}
	return lp
}

func (r Reply) wireToolCalls(indexed bool) []wireToolCall {
	var out []wireToolCall
	for i, tc := range r.ToolCalls {
		c := wireToolCall{ID: tc.ID, Type: "function"}
		if indexed {
			c.Index = &i
		}
		c.Function.Name, c.Function.Arguments = tc.Name, tc.Arguments
		out = append(out, c)
	}
	return out
}

// toolCallPieces splits the tool calls into stream deltas: per call, one
// that names it and then its arguments SplitArguments bytes at a time.
func (r Reply) toolCallPieces() []wireToolCall {
	var out []wireToolCall
	for i, tc := range r.ToolCalls {
		first := wireToolCall{Index: &i, ID: tc.ID, Type: "function"}
		first.Function.Name = tc.Name
		out = append(out, first)
		for args := tc.Arguments; args != ""; {
			n := min(r.SplitArguments, len(args))
			piece := wireToolCall{Index: &i}
			piece.Function.Arguments = args[:n]
			out = append(out, piece)
			args = args[n:]
		}
	}
	return out
}

func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

func writeEvent(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: encode event: %v", err)) // The wire types always encode.
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	flush(w)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// A failed write shows up at the client as a broken body.
	_ = json.NewEncoder(w).Encode(v)
}

// writeError sends an OpenAI error object.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	var body struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	body.Error.Message, body.Error.Type = msg, typ
	if status == http.StatusTooManyRequests {
		code := "rate_limit_exceeded"
		body.Error.Code = &code
	}
	writeJSON(w, status, body)
}

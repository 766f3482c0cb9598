package sampling_test

import (
	"context"
	"errors"
	"sync"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// model is a core for middleware.Sample that answers with the next of its
// replies (the last one again once they run out) and keeps the requests
// it got. It is safe for concurrent calls.
type model struct {
	mu       sync.Mutex
	replies  []llm.Response
	requests []llm.Request
}

// replying returns a model that answers with replies' contents in order.
func replying(replies ...string) *model {
	m := &model{}
	for _, r := range replies {
		m.replies = append(m.replies, llm.Response{Content: r})
	}
	return m
}

func (m *model) provide(ctx context.Context) context.Context {
	return primitive.Provide(ctx, middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.requests = append(m.requests, req)
		if len(m.replies) == 0 {
			return llm.Response{}, errors.New("no replies")
		}
		r := m.replies[0]
		if len(m.replies) > 1 {
			m.replies = m.replies[1:]
		}
		return r, nil
	})
}

// calls returns how many requests the model got.
func (m *model) calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// asked is a request of the given messages, alternating user and
// assistant and starting with the user.
func asked(texts ...string) llm.Request {
	var req llm.Request
	for i, t := range texts {
		role := llm.User
		if i%2 == 1 {
			role = llm.Assistant
		}
		req.Messages = append(req.Messages, llm.Message{Role: role, Content: t})
	}
	return req
}

// jsonOutput is the wanted output of a request that asks for JSON.
var jsonOutput = &llm.OutputSchema{Name: "Answer", Schema: []byte(`{"type":"object"}`)}

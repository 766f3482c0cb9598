package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests of a call whose question waits while the program is killed
// with SIGKILL and started again on the same database: the client's retry
// finishes the call, asked only what was not answered, and once. They use
// the fixture's tool that asks a name, then a colour.

const twoQuestions = "test_input_required_result_multi_round"

func connect(t *testing.T, url, rev string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "restart-test", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTwoQuestions(t *testing.T, cs *sdk.ClientSession, answers sdk.InputResponseMap, state string) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: twoQuestions, Arguments: map[string]any{},
		InputResponses: answers, RequestState: state})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return res
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// onlyQuestion is the one input request res asks, and its key.
func onlyQuestion(t *testing.T, res *sdk.CallToolResult) (string, string) {
	t.Helper()
	if !res.NeedsInput() || len(res.InputRequests) != 1 {
		t.Fatalf("result = %+v; want input_required with one question", res)
	}
	for key, r := range res.InputRequests {
		if p, ok := r.(*sdk.ElicitParams); ok {
			return key, p.Message
		}
	}
	t.Fatalf("result = %+v; want an elicitation", res)
	return "", ""
}

const done = "Multi-round complete: Ada likes blue"

// TestAStatelessCallSurvivesSIGKILL: revision 2026-07-28. The program is
// killed while the call's second question is with the client; the retry
// with its answer and requestState, to the restarted program, finishes the
// call, and the same retry again gets the same result.
func TestAStatelessCallSurvivesSIGKILL(t *testing.T) {
	p := newProc(t, buildFixture(t)).start()
	opts := &sdk.ClientOptions{
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, errors.New("the test answers the input requests itself")
		},
	}
	cs := connect(t, p.url, "2026-07-28", opts)
	res := callTwoQuestions(t, cs, nil, "")
	key, asked := onlyQuestion(t, res)
	if asked != "Step 1: What is your name?" {
		t.Fatalf("asked %q first", asked)
	}
	res = callTwoQuestions(t, cs, sdk.InputResponseMap{key: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}, res.RequestState)
	key, asked = onlyQuestion(t, res)
	if asked != "Step 2: What is your favorite color?" {
		t.Fatalf("asked %q second", asked)
	}

	p.kill()
	p.start()
	cs = connect(t, p.url, "2026-07-28", opts)
	answer := sdk.InputResponseMap{key: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}}
	first := callTwoQuestions(t, cs, answer, res.RequestState)
	if first.NeedsInput() || first.IsError || resultText(first) != done {
		t.Fatalf("the retry after SIGKILL = %+v %q; want %q", first, resultText(first), done)
	}
	again := callTwoQuestions(t, cs, answer, res.RequestState)
	if resultText(again) != done {
		t.Errorf("the same retry again = %q; want the same result", resultText(again))
	}
}

// TestASessionsCallSurvivesSIGKILL: revision 2025-11-25. The program is
// killed while the call's second question is with the client; the client,
// whose session died with it, calls again in a new session and is asked
// only the second question, and the call finishes with both answers.
func TestASessionsCallSurvivesSIGKILL(t *testing.T) {
	p := newProc(t, buildFixture(t)).start()
	secondAsked := make(chan struct{})
	first := connect(t, p.url, "2025-11-25", &sdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if strings.HasPrefix(req.Params.Message, "Step 1") {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			}
			close(secondAsked)
			<-ctx.Done() // still thinking when the server goes down
			return nil, ctx.Err()
		},
	})
	go first.CallTool(context.Background(), &sdk.CallToolParams{Name: twoQuestions, Arguments: map[string]any{}}) //nolint:errcheck // cut off
	select {
	case <-secondAsked:
	case <-time.After(20 * time.Second):
		t.Fatal("the second question never reached the client")
	}

	p.kill()
	first.Close()
	p.start()
	var asked []string
	second := connect(t, p.url, "2025-11-25", &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
		},
	})
	res := callTwoQuestions(t, second, nil, "")
	if resultText(res) != done {
		t.Errorf("the retry in a new session = %q; want %q", resultText(res), done)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "Step 2") {
		t.Errorf("the retry was asked %q; want only the question that waited", asked)
	}
}

package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/turn"
)

// cutAgent's tool reports progress, waits until the test has cut the
// client's stream, then reports progress again and asks a question: what
// it sends after the cut reaches the client only by a replay.
func cutAgent(cut <-chan struct{}) *agents.Agent {
	a := agents.New("relay", "Asks after a pause.")
	agents.NewTool(a, "greet", "Greets the user by name, after a pause", func(ctx context.Context, _ struct{}) (greetOut, error) {
		if err := turn.Notify(ctx, "before the cut", 0.25); err != nil {
			return greetOut{}, err
		}
		select {
		case <-cut:
		case <-ctx.Done():
			return greetOut{}, ctx.Err()
		}
		if err := turn.Notify(ctx, "after the cut", 0.5); err != nil {
			return greetOut{}, err
		}
		r, err := turn.Ask(ctx, nameForm, "What is your name?", struct{}{})
		if err != nil {
			return greetOut{}, err
		}
		if r.Action != elicit.Accept {
			return greetOut{Text: "Hello, stranger"}, nil
		}
		return greetOut{Text: "Hello, " + r.Content.Name}, nil
	})
	return a
}

// cutter is the client's HTTP transport. It cuts the response of the tool
// call once the "before the cut" progress has arrived, as a network drop
// would, and holds the client's resuming GET until the events sent
// meanwhile are in the database, so that they can reach the client only
// from there.
type cutter struct {
	db      *store.DB
	cut     chan struct{}
	once    sync.Once
	mu      sync.Mutex
	resumed []string // the Last-Event-IDs the client resumed with
}

func (c *cutter) RoundTrip(r *http.Request) (*http.Response, error) {
	if id := r.Header.Get("Last-Event-ID"); r.Method == http.MethodGet && id != "" {
		c.mu.Lock()
		c.resumed = append(c.resumed, id)
		c.mu.Unlock()
		c.awaitQuestion(r.Context(), r.Header.Get("Mcp-Session-Id"), id)
	}
	var call bool
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		call = bytes.Contains(body, []byte(`"tools/call"`))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !call {
		return resp, err
	}
	resp.Body = &cutBody{body: resp.Body, c: c}
	return resp, nil
}

// awaitQuestion waits until the stream named by the Last-Event-ID id holds
// the question, for at most ten seconds.
func (c *cutter) awaitQuestion(ctx context.Context, session, id string) {
	stream, idx, _ := strings.Cut(id, "_")
	after, _ := strconv.Atoi(idx)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		_, data, err := c.db.EventsAfter(ctx, session, stream, after)
		if err == nil && bytes.Contains(bytes.Join(data, nil), []byte(`"elicitation/create"`)) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cutBody passes the response through until a whole event holding "before
// the cut" has been read, then breaks the connection and lets the tool go
// on.
type cutBody struct {
	body io.ReadCloser
	c    *cutter
	seen []byte
	done bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.body.Read(p)
	b.seen = append(b.seen, p[:n]...)
	if i := bytes.Index(b.seen, []byte("before the cut")); i >= 0 && bytes.Contains(b.seen[i:], []byte("\n\n")) {
		b.done = true
		b.body.Close()
		b.c.once.Do(func() { close(b.c.cut) })
	}
	return n, err
}

func (b *cutBody) Close() error { return b.body.Close() }

// A client whose stream of a tool call is cut mid-call resumes it with
// Last-Event-ID and misses nothing: the question sent while it was away
// (its resuming GET is held until the question is in the database) is
// replayed from there, its answer completes the call, and no progress is
// lost or repeated. Another store on the same file reads the stream's
// events, as the server would after a restart.
func TestACutStreamResumesWithLastEventIDAndMissesNothing(t *testing.T) {
	c := &cutter{cut: make(chan struct{})}
	tools := mcp.NewTools(cutAgent(c.cut))
	svc, db := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	c.db = db
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: chat.NewSessionID(), Events: db, Name: "sweatpants-test", Version: "test"})

	var (
		mu       sync.Mutex
		progress []string
		asked    int
	)
	opts := &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			asked++
			mu.Unlock()
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bea"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		},
	}
	ts := httptest.NewServer(mcp.Handler(srv, "", nil))
	t.Cleanup(func() {
		ts.CloseClientConnections() // a failed call's stream may still hang
		ts.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// A client of sessions (2025-11-25; the stateless revision resumes by
	// requestState instead) tries to resume a broken stream (MaxRetries 0: the
	// SDK's five attempts).
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: c}}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	params := &sdk.CallToolParams{Name: "relay.greet", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("the call, its stream cut: %v", err)
	}
	if got := text(res); got != `{"text":"Hello, Bea"}` {
		t.Errorf("result = %q; want the answer given after resuming", got)
	}
	// The client hands notifications to its handler apart from the
	// call's result: the last progress may reach it just after.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n >= 2 {
			break
		}
	}
	mu.Lock()
	if got := strings.Join(progress, "|"); got != "before the cut|after the cut" {
		t.Errorf("progress = %q; want each once, in order", got)
	}
	if asked != 1 {
		t.Errorf("asked %d times; want once", asked)
	}
	mu.Unlock()
	c.mu.Lock()
	resumed := c.resumed
	c.mu.Unlock()
	if len(resumed) != 1 {
		t.Fatalf("resumed with %q; want one GET with the Last-Event-ID of the call's stream", resumed)
	}

	t.Run("another store on the file reads the stream", func(t *testing.T) {
		again, err := store.Open(context.Background(), db.Path(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		stream, _, _ := strings.Cut(resumed[0], "_")
		data, errs := replay(mcp.NewEventStore(again, mcp.EventOptions{}), cs.ID(), stream, -1)
		if errs != nil {
			t.Fatal(errs)
		}
		var got []string
		for _, d := range data {
			got = append(got, describe(t, d))
		}
		// The server asks before it reports the progress of the same
		// moment; what is between the priming event and the result is
		// compared as a set.
		if len(got) == 5 {
			slices.Sort(got[1:4])
		}
		want := "prime|elicitation/create|progress after the cut|progress before the cut|result"
		if strings.Join(got, "|") != want {
			t.Errorf("the stream's events in the database: %q; want %q", got, want)
		}
	})
}

// describe names an event of a stream as the test expects it.
func describe(t *testing.T, d string) string {
	if d == "" {
		return "prime"
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(d), &m); err != nil {
		t.Fatalf("an event of the stream is not JSON-RPC: %q", d)
	}
	switch {
	case m.Method == "notifications/progress":
		var p sdk.ProgressNotificationParams
		json.Unmarshal(m.Params, &p)
		return "progress " + p.Message
	case m.Method != "":
		return m.Method
	case m.Result != nil:
		return "result"
	}
	return d
}

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// AG-UI's own client library, @ag-ui/client's HttpAgent run by Node
// (testdata/agui/client.cjs), drives the program at POST /agui: a flight
// is searched (a tool call with its result), the flight picker waits as an
// interrupt; the server is killed (SIGKILL) and started again on the same
// database; a pick the picker refuses gets RUN_ERROR with the reason and
// leaves the picker waiting; the pick, then the booking's approval, are
// answered by resume; the booking streams its reply with its tool calls,
// and the agent's state (the bookings of the branch) comes as a delta. The
// bookings listed are exactly one, the one booked. The first message
// changed in the client is a new branch: the picker for the new city, and
// the state of that branch, without the booking.
func TestAGUIClientBooksAFlightThroughInterruptsAcrossAKill(t *testing.T) {
	t.Parallel()
	cl := newAGUIClient(t)
	a := startApp(t)

	book := cl.run(a, "book")["book"]
	if book.Outcome != "interrupt" || len(book.Interrupts) != 1 || book.Interrupts[0].Reason != "flight" {
		t.Fatalf("the first run ended %q with %+v, want an interrupt for the flight picker; events %v", book.Outcome, book.Interrupts, book.Events)
	}
	if !regexp.MustCompile(`^Which flight to Tokyo on Friday \d+ \w+\?$`).MatchString(book.Interrupts[0].Message) {
		t.Errorf("the picker asks %q", book.Interrupts[0].Message)
	}
	if want := []string{"RUN_STARTED", "STATE_SNAPSHOT", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "RUN_FINISHED"}; !slices.Equal(book.Events, want) {
		t.Errorf("the first run's events %v, want %v", book.Events, want)
	}
	if !slices.Equal(book.Tools, []string{"search"}) || len(book.Results) != 1 {
		t.Errorf("tool calls %v with results %v, want the search with its result", book.Tools, book.Results)
	}
	for _, out := range book.Results {
		if !strings.Contains(out, `"to":"Tokyo"`) {
			t.Errorf("the search's result %.200s, want flights to Tokyo", out)
		}
	}

	a.stop(syscall.SIGKILL)
	a.start()

	res := cl.run(a, "resume")
	if bad := res["bad"]; bad.Error == "" || !strings.Contains(bad.Error, "flight: must be one of") || slices.Contains(bad.Events, "RUN_STARTED") {
		t.Errorf("a pick of no flight offered: events %v, error %q, want RUN_ERROR alone, saying why", bad.Events, bad.Error)
	}
	pick := res["pick"]
	if pick.Outcome != "interrupt" || len(pick.Interrupts) != 1 || pick.Interrupts[0].Reason != "tool_approval" || pick.Interrupts[0].Metadata["tool"] != "book" {
		t.Fatalf("after the pick: %q %+v (error %q), want the booking's approval as an interrupt", pick.Outcome, pick.Interrupts, pick.Error)
	}
	approve := res["approve"]
	ref := reference.FindString(approve.Text)
	if approve.Outcome != "success" || ref == "" || approve.Result != approve.Text {
		t.Fatalf("after the approval: %q, text %q, result %v (error %q), want a booking with a reference", approve.Outcome, approve.Text, approve.Result, approve.Error)
	}
	if !slices.Equal(approve.Tools, []string{"book", "bookFlight"}) || len(approve.Results) != 2 {
		t.Errorf("after the approval, tool calls %v with results %v, want book and bookFlight", approve.Tools, approve.Results)
	}
	if booked := stateBooked(approve.State); !slices.Equal(booked, []string{ref}) || len(approve.Patches) == 0 {
		t.Errorf("the client's state %v after deltas %v, want chat.booked = [%s]", approve.State, approve.Patches, ref)
	}
	list := res["list"]
	if got := reference.FindAllString(list.Text, -1); !slices.Equal(got, []string{ref}) {
		t.Errorf("the bookings listed %v (%q), want exactly the one booked, %s", got, list.Text, ref)
	}

	edit := cl.run(a, "edit")["edit"]
	if edit.Outcome != "interrupt" || len(edit.Interrupts) != 1 || !strings.Contains(edit.Interrupts[0].Message, "Osaka") {
		t.Fatalf("the first message edited: %q %+v (error %q), want the picker for Osaka", edit.Outcome, edit.Interrupts, edit.Error)
	}
	if booked := stateBooked(edit.State); len(booked) != 0 {
		t.Errorf("the edited branch's state %v, want no bookings on it", edit.State)
	}
}

// The reply of a model that streams comes as it streams: the client holds
// the first words while the model has sent no more, then the rest; the
// contents of the one text message, joined, are the reply.
func TestAGUIClientStreamsAReply(t *testing.T) {
	t.Parallel()
	cl := newAGUIClient(t)
	story := []string{"Once ", "upon ", "a ", "time ", "a ", "fox ", "went ", "north."}
	model := llmtest.NewServer(t, llmtest.Text(story...))
	gate := newModelGate(t, model)
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+gate.URL)
	gate.allow(3)
	got := cl.runWatching(a, "story", func(text string) {
		if text == strings.Join(story[:3], "") {
			gate.allow(len(story) - 3)
		}
	})["story"]
	if got.Outcome != "success" || got.Text != strings.Join(story, "") || got.Deltas < 2 {
		t.Fatalf("the story: %q, %d deltas %q (error %q), want the model's reply", got.Outcome, got.Deltas, got.Text, got.Error)
	}
	if got.Events[0] != "RUN_STARTED" || got.Events[len(got.Events)-1] != "RUN_FINISHED" || !slices.Contains(got.Events, "TEXT_MESSAGE_END") {
		t.Errorf("events %v", got.Events)
	}
}

// What POST /agui refuses before a run: another site's page (403), a body
// that is not JSON (400), one over the size limit (413), a run past the
// session's streams (429); and a resume of another session's thread, or
// of a question not waiting, gets RUN_ERROR and records nothing.
func TestAGUIRefusesBadInput(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	post := func(body string, header ...string) (int, string, http.Header) {
		req, _ := http.NewRequest(http.MethodPost, a.URL+"/agui", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), res.Header
	}
	input := `{"threadId":"t","runId":"r","messages":[{"id":"m1","role":"user","content":"Book me a flight to Tokyo next Friday"}]}`
	if code, _, _ := post(input, "Origin", "https://evil.example"); code != http.StatusForbidden {
		t.Errorf("another site's page: %d, want 403", code)
	}
	if code, body, _ := post(`{"threadId":`); code != http.StatusBadRequest {
		t.Errorf("a body cut short: %d %s, want 400", code, body)
	}
	if code, _, _ := post(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"` + strings.Repeat("x", 2<<20) + `"}]}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body of 2 MiB: %d, want 413", code)
	}

	// A thread started and waiting on its picker; another session (no
	// cookie) cannot resume it, nor can its own resume a question that
	// does not wait.
	_, body, h := post(input)
	thread := regexp.MustCompile(`"type":"RUN_STARTED","threadId":"(\w+)"`).FindStringSubmatch(body)
	eid := regexp.MustCompile(`"interrupts":\[\{"id":"([^"]+)"`).FindStringSubmatch(body)
	if thread == nil || eid == nil {
		t.Fatalf("the first run: %s", body)
	}
	cookie := strings.Split(h.Get("Set-Cookie"), ";")[0]
	resume := func(eid, payload string) string {
		return `{"threadId":"` + thread[1] + `","runId":"r2","messages":[],"resume":[{"interruptId":"` + eid + `","status":"resolved","payload":` + payload + `}]}`
	}
	if _, body, _ := post(resume(eid[1], `{"flight":"x","seat":"1A"}`)); !strings.Contains(body, `"type":"RUN_ERROR"`) || !strings.Contains(body, "no thread") {
		t.Errorf("another session's resume: %s, want RUN_ERROR: no such thread", body)
	}
	if _, body, _ := post(resume("no-such", `{}`), "Cookie", cookie); !strings.Contains(body, `"type":"RUN_ERROR"`) || !strings.Contains(body, "No question") {
		t.Errorf("a resume of no question waiting: %s, want RUN_ERROR", body)
	}
	// The picker still waits, unanswered: a run with nothing new says so.
	again := `{"threadId":"` + thread[1] + `","runId":"r3","messages":[]}`
	if _, body, _ := post(again, "Cookie", cookie); !strings.Contains(body, `"id":"`+eid[1]+`"`) || !strings.Contains(body, `"type":"interrupt"`) {
		t.Errorf("after refused resumes, the thread: %s, want the picker still waiting", body)
	}

	// A run is a stream of the session's: past the session's streams
	// (32, the thread's event stream open in each), it is refused 429.
	for range 32 {
		req, _ := http.NewRequest(http.MethodGet, a.URL+"/c/"+thread[1]+"/events", nil)
		req.Header.Set("Cookie", cookie)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("an event stream: %v %v", res, err)
		}
		defer res.Body.Close()
	}
	if code, body, _ := post(again, "Cookie", cookie); code != http.StatusTooManyRequests {
		t.Errorf("a run past the session's streams: %d %s, want 429", code, body)
	}
}

// stateBooked is chat.booked of an AG-UI state document.
func stateBooked(state map[string]any) []string {
	chat, _ := state["chat"].(map[string]any)
	refs, _ := chat["booked"].([]any)
	var out []string
	for _, r := range refs {
		s, _ := r.(string)
		out = append(out, s)
	}
	return out
}

// aguiClient runs testdata/agui/client.cjs on the Node and the
// @ag-ui/client that make e2e-deps installs, one phase at a time; the
// thread is kept in a file between phases.
type aguiClient struct {
	t          *testing.T
	node, libs string
	state      string
}

// aguiRun is what the client saw of one run.
type aguiRun struct {
	Events     []string          `json:"events"`
	Text       string            `json:"text"`
	Deltas     int               `json:"deltas"`
	Tools      []string          `json:"tools"`
	Results    map[string]string `json:"results"`
	States     int               `json:"states"`
	Patches    []json.RawMessage `json:"patches"`
	Outcome    string            `json:"outcome"`
	Interrupts []struct {
		ID       string         `json:"id"`
		Reason   string         `json:"reason"`
		Message  string         `json:"message"`
		Metadata map[string]any `json:"metadata"`
	} `json:"interrupts"`
	Result any            `json:"result"`
	Error  string         `json:"error"`
	Thrown string         `json:"thrown"`
	State  map[string]any `json:"state"`
}

func newAGUIClient(t *testing.T) *aguiClient {
	t.Helper()
	node, libs := os.Getenv("MCP_NODE"), os.Getenv("AGUI_CLIENT")
	if node == "" || libs == "" {
		t.Skip("MCP_NODE and AGUI_CLIENT are unset: `make e2e-deps` installs Node 22 and @ag-ui/client, and `make e2e` sets them")
	}
	return &aguiClient{t: t, node: node, libs: libs, state: filepath.Join(t.TempDir(), "thread.json")}
}

func (c *aguiClient) run(a *app, phase string) map[string]aguiRun {
	c.t.Helper()
	return c.runWatching(a, phase, func(string) {})
}

// runWatching runs a phase as run does, and hands text the text the
// client holds of the reply each time it grows.
func (c *aguiClient) runWatching(a *app, phase string, text func(string)) map[string]aguiRun {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience(60*time.Second))
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "agui", "client.cjs"))
	cmd := exec.CommandContext(ctx, c.node, script, a.URL, c.state, phase)
	cmd.Env = append(os.Environ(), "NODE_PATH="+c.libs)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		var held string
		if rest, ok := strings.CutPrefix(sc.Text(), "TEXT "); ok && json.Unmarshal([]byte(rest), &held) == nil {
			text(held)
			continue
		}
		stderr.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		c.t.Fatalf("the AG-UI client's %s: %v\n%s", phase, err, stderr.String())
	}
	var out map[string]aguiRun
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		c.t.Fatalf("the AG-UI client's %s said %q: %v\n%s", phase, stdout.String(), err, stderr.String())
	}
	return out
}

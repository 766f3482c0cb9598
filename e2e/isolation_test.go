package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/playwright-community/playwright-go"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// person is one signed-in account reaching the binary through an
// authenticating proxy (trusted-header sign-in): each request names them.
type person struct {
	t    *testing.T
	a    *app
	user string
	c    *http.Client
}

func (a *app) person(t *testing.T, user string) *person {
	return &person{t: t, a: a, user: user, c: &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (p *person) request(method, path, contentType string, body io.Reader) *http.Request {
	req, err := http.NewRequest(method, p.a.URL+path, body)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-User", p.user)
	req.Header.Set("X-Forwarded-Email", p.user+"@example.com")
	if method == http.MethodPost {
		req.Header.Set("Origin", p.a.URL)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// do sends a request as p, and returns the answer's status, body (what
// came within a second, for a stream) and Location.
func (p *person) do(method, path, contentType, body string, header ...string) (int, string, string) {
	p.t.Helper()
	req := p.request(method, path, contentType, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := p.c.Do(req.WithContext(ctx))
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body) // a stream is cut at the second
	return res.StatusCode, string(out), res.Header.Get("Location")
}

func (p *person) get(path string) (int, string) {
	code, body, _ := p.do("GET", path, "", "")
	return code, body
}

func (p *person) form(path string, v url.Values) (int, string, string) {
	return p.do("POST", path, "application/x-www-form-urlencoded", v.Encode())
}

// start starts a conversation with agent, its first message text.
func (p *person) start(agent, text string) string {
	p.t.Helper()
	code, body, loc := p.form("/c", url.Values{"agent": {agent}, "message": {text}})
	id, ok := strings.CutPrefix(loc, "/c/")
	if code != http.StatusSeeOther || !ok {
		p.t.Fatalf("starting a conversation: %d %q %s", code, loc, body)
	}
	return id
}

// await reads page path until it matches re, and returns the match.
func (p *person) await(path string, re *regexp.Regexp) []string {
	p.t.Helper()
	var m []string
	waitFor(p.t, 20*time.Second, path+" to show "+re.String(), func() bool {
		_, page := p.get(path)
		m = re.FindStringSubmatch(page)
		return m != nil
	})
	return m
}

// mcp connects an MCP client to /mcp with token.
func (p *person) mcp(token string) *sdk.ClientSession {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "client-of-" + p.user, Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: p.a.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport(token)}, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		p.t.Fatalf("%s's MCP client: %v", p.user, err)
	}
	p.t.Cleanup(func() { cs.Close() })
	return cs
}

var (
	pendingElicit = regexp.MustCompile(`/elicits/([A-Za-z0-9-]+)`)
	replyNode     = regexp.MustCompile(`/replies/(\d+)/feedback`)
	tokenShown    = regexp.MustCompile(`data-testid="token-value">([^<]+)<`)
	treeNode      = regexp.MustCompile(`data-testid="tree-node"`)
	shareMade     = regexp.MustCompile(`(?s)data-testid="share-url"[^>]*>(/s/[^<]+)<.*data-share="(\d+)"`)
)

// TestASecondAccountSeesNothingOfTheFirst: account A has a conversation
// waiting on a question, one with feedback on a reply and a shared link,
// a file, and a tool call made over MCP with a personal token. Account B
// gets 404 from every page, stream, file, export and command of them,
// records nothing in A's trees by trying, and finds none of A's in the
// tool audit, the search or over MCP with its own token.
func TestASecondAccountSeesNothingOfTheFirst(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_TRUSTED_HEADER_SIGNIN=true", "SWEATPANTS_TRUSTED_PROXIES=127.0.0.1/32")
	ann, bob := a.person(t, "ann"), a.person(t, "bob")

	asks := ann.start("showcase", "where am i?")
	eid := ann.await("/c/"+asks, pendingElicit)[1]
	rated := ann.start("chat", "hello there")
	reply := ann.await("/c/"+rated, replyNode)[1]
	if code, body, _ := ann.form("/c/"+rated+"/replies/"+reply+"/feedback", url.Values{"rating": {"up"}, "comment": {"ann's secret praise"}}); code != http.StatusNoContent {
		t.Fatalf("ann's feedback: %d %s", code, body)
	}
	code, body, _ := ann.form("/c/"+rated+"/shares", url.Values{"node": {reply}, "expiry": {"1d"}})
	sm := shareMade.FindStringSubmatch(body)
	if code != http.StatusCreated || sm == nil {
		t.Fatalf("ann's share: %d %s", code, body)
	}
	share := struct{ ID, URL string }{sm[2], sm[1]}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "ann-notes.txt")
	fw.Write([]byte("ann's private notes"))
	mw.Close()
	res, err := ann.c.Do(ann.request("POST", "/files", mw.FormDataContentType(), &buf))
	if err != nil {
		t.Fatal(err)
	}
	var files []struct{ URL string }
	json.NewDecoder(res.Body).Decode(&files)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(files) != 1 {
		t.Fatalf("ann's upload: %d %v", res.StatusCode, files)
	}
	file := files[0].URL
	code, page, _ := ann.form("/settings/tokens", url.Values{"label": {"ann's editor"}})
	m := tokenShown.FindStringSubmatch(page)
	if code != http.StatusOK || m == nil {
		t.Fatalf("ann's MCP token: %d", code)
	}
	annMCP := ann.mcp(m[1])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if res, err := annMCP.CallTool(ctx, &sdk.CallToolParams{Name: "weather.getWeather", Arguments: map[string]any{"city": "Oslo"}}); err != nil || res.IsError {
		t.Fatalf("ann's MCP call: %v %+v", err, res)
	}
	// Ann sees all of it: the tool call is in her audit, as a conversation
	// of hers.
	_, audit := ann.get("/tools.jsonl")
	if !strings.Contains(audit, `"tool":"getWeather"`) {
		t.Fatalf("ann's audit has no MCP call: %s", audit)
	}
	var called struct {
		Conversation string `json:"conversation"`
	}
	json.Unmarshal([]byte(strings.SplitN(audit, "\n", 2)[0]), &called)
	convs := []string{asks, rated}
	if called.Conversation != "" {
		convs = append(convs, called.Conversation)
	}
	for _, path := range []string{"/c/" + asks, "/c/" + rated + "/tree", file, "/c/" + rated + "/shares"} {
		if code, _ := ann.get(path); code != http.StatusOK {
			t.Fatalf("ann's own GET %s: %d, want 200", path, code)
		}
	}
	nodes := func(conv string) int {
		_, page := ann.get("/c/" + conv + "/tree")
		return len(treeNode.FindAllString(page, -1))
	}
	before := map[string]int{}
	for _, conv := range convs {
		if before[conv] = nodes(conv); before[conv] == 0 {
			t.Fatalf("ann's tree of %s shows no node", conv)
		}
	}

	// What bob reads of ann's.
	for _, conv := range convs {
		for _, path := range []string{"/c/%s", "/c/%s/stream", "/c/%s/events", "/c/%s/tree", "/c/%s/tree/stream", "/c/%s/debug",
			"/c/%s/debug/stream", "/c/%s/feedback.json", "/c/%s/export.json", "/c/%s/shares"} {
			path := fmt.Sprintf(path, conv)
			code, body := bob.get(path)
			if code != http.StatusNotFound {
				t.Errorf("bob's GET %s: %d, want 404", path, code)
			}
			for _, secret := range []string{"where am i", "hello there", "secret praise", "Oslo"} {
				if strings.Contains(body, secret) {
					t.Errorf("bob's GET %s shows ann's %q", path, secret)
				}
			}
		}
		wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
		h := http.Header{"X-Forwarded-User": {"bob"}, "X-Forwarded-Email": {"bob@example.com"}}
		conn, res, err := websocket.Dial(wctx, "ws"+strings.TrimPrefix(a.URL, "http")+"/c/"+conv+"/ws", &websocket.DialOptions{HTTPHeader: h})
		if err == nil {
			conn.CloseNow()
			t.Errorf("bob's WebSocket on %s was opened, want 404", conv)
		} else if res == nil || res.StatusCode != http.StatusNotFound {
			t.Errorf("bob's WebSocket on %s: %v, want 404", conv, err)
		}
		wcancel()
		// A thread bob does not own is not ann's conversation to him: his run
		// starts a new thread of his own (docs/transports.md), told nothing
		// of hers.
		code, body, _ := bob.do("POST", "/agui", "application/json",
			fmt.Sprintf(`{"threadId":%q,"runId":"r1","messages":[{"id":"m-bob","role":"user","content":"bob was here"}]}`, conv))
		if code != http.StatusOK || !strings.Contains(body, `"type":"RUN_STARTED","threadId":"`) || strings.Contains(body, conv) {
			t.Errorf("bob's AG-UI run naming ann's thread %s: %d %.300s, want a new thread of his own", conv, code, body)
		}
		for _, secret := range []string{"where am i", "hello there", "secret praise", "Oslo"} {
			if strings.Contains(body, secret) {
				t.Errorf("bob's AG-UI run naming ann's thread %s shows her %q", conv, secret)
			}
		}
	}
	if code, body := bob.get(file); code != http.StatusNotFound || strings.Contains(body, "private notes") {
		t.Errorf("bob's GET of ann's file: %d, want 404", code)
	}

	// What bob tries to do to ann's: every command is refused 404.
	form := "application/x-www-form-urlencoded"
	for _, tc := range []struct{ path, contentType, body string }{
		{"/c/%s/messages", "application/json", `{"message":"bob was here"}`},
		{"/c/%s/elicits/" + eid, "application/json", `{"action":"accept","content":{"lat":1,"lng":1}}`},
		{"/c/%s/elicits/" + eid + "/progress", "application/json", `{"stage":"x"}`},
		{"/c/%s/elicits/" + eid + "/change", "application/json", `{"action":"decline"}`},
		{"/c/%s/methods", "application/json", `{"methods":[]}`},
		{"/c/%s/stop", form, ""},
		{"/c/%s/messages/1/edit", form, "message=bob+was+here"},
		{"/c/%s/replies/" + reply + "/retry", form, ""},
		{"/c/%s/replies/" + reply + "/feedback", form, "rating=down&comment=bob"},
		{"/c/%s/nodes/" + reply + "/switch", form, ""},
		{"/c/%s/nodes/" + reply + "/aside", form, "message=bob+was+here"},
		{"/c/%s/nodes/" + reply + "/continue", form, ""},
		{"/c/%s/to-flow", form, ""},
		{"/c/%s/reflog/1/recover", form, ""},
		{"/c/%s/gc", form, ""},
		{"/c/%s/shares", form, "node=" + reply + "&expiry=1d"},
		{"/c/%s/shares/" + share.ID + "/revoke", form, ""},
		{"/c/%s/rename", form, "title=bob"},
		{"/c/%s/delete", form, ""},
	} {
		for _, conv := range convs {
			path := fmt.Sprintf(tc.path, conv)
			if code, body, _ := bob.do("POST", path, tc.contentType, tc.body, "Datastar-Request", "true"); code != http.StatusNotFound {
				t.Errorf("bob's POST %s: %d %.200s, want 404", path, code, body)
			}
		}
	}
	for _, conv := range convs {
		if got := nodes(conv); got != before[conv] {
			t.Errorf("bob's attempts changed ann's %s: %d nodes, were %d", conv, got, before[conv])
		}
	}
	if code, _ := ann.get("/c/" + rated + "/shares"); code != http.StatusOK {
		t.Errorf("ann's shares after bob's attempts: %d, want 200", code)
	}
	if code, _ := bob.get(share.URL); code != http.StatusOK {
		t.Errorf("ann's shared link after bob's revoke: %d, want 200 (still shared)", code)
	}

	// What bob finds in lists: none of ann's.
	code, bobToken, _ := bob.form("/settings/tokens", url.Values{"label": {"bob's"}})
	m = tokenShown.FindStringSubmatch(bobToken)
	if code != http.StatusOK || m == nil {
		t.Fatalf("bob's MCP token: %d", code)
	}
	bobMCP := bob.mcp(m[1])
	if res, err := bobMCP.CallTool(ctx, &sdk.CallToolParams{Name: "weather.getWeather", Arguments: map[string]any{"city": "Bergen"}}); err != nil || res.IsError {
		t.Fatalf("bob's MCP call: %v %+v", err, res)
	}
	for _, path := range []string{"/tools", "/tools.jsonl", "/", "/conversations?q=where", "/conversations?q=hello", "/conversations?q=MCP", "/settings/tokens"} {
		_, body := bob.get(path)
		for _, conv := range convs {
			if strings.Contains(body, conv) {
				t.Errorf("bob's %s names ann's conversation %s", path, conv)
			}
		}
		for _, secret := range []string{"Oslo", "where am i", "hello there", "ann's editor"} {
			if strings.Contains(body, secret) {
				t.Errorf("bob's %s shows ann's %q", path, secret)
			}
		}
	}
	if _, audit := bob.get("/tools.jsonl"); !strings.Contains(audit, "Bergen") {
		t.Errorf("bob's audit lacks his own MCP call: %s", audit)
	}
	// Bob's token in ann's MCP session is refused; ann's session goes on.
	req := bob.request("POST", "/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather.getWeather","arguments":{"city":"Bergen"}}}`))
	req.Header.Set("Authorization", "Bearer "+m[1])
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", annMCP.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("bob's token in ann's MCP session: %v %v, want 403", res, err)
	} else {
		res.Body.Close()
	}
	if res, err := annMCP.CallTool(ctx, &sdk.CallToolParams{Name: "weather.getWeather", Arguments: map[string]any{"city": "Oslo"}}); err != nil || res.IsError {
		t.Errorf("ann's MCP session after bob's attempt: %v %+v", err, res)
	}
}

// TestAnAccountsMCPCallsShowLiveInItsBrowsers: a call made with an
// account's personal MCP token appears, as it is made, in the list of an
// open page signed in to that account, titled after the client, and its
// page opens there; a browser of another account lists only its own.
func TestAnAccountsMCPCallsShowLiveInItsBrowsers(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_TRUSTED_HEADER_SIGNIN=true", "SWEATPANTS_TRUSTED_PROXIES=127.0.0.1/32")
	pages := map[string]*chatPage{}
	for _, user := range []string{"ann", "bob"} {
		conv := a.person(t, user).start("chat", "hello from "+user)
		p := &chatPage{t: t, Page: newPageWith(t, playwright.BrowserNewContextOptions{
			ExtraHttpHeaders: map[string]string{"X-Forwarded-User": user, "X-Forwarded-Email": user + "@example.com"}})}
		if _, err := p.Goto(a.URL + "/c/" + conv); err != nil {
			t.Fatal(err)
		}
		p.waitForStream()
		p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(1))
		pages[user] = p
	}
	ann := a.person(t, "ann")
	_, page, _ := ann.form("/settings/tokens", url.Values{"label": {"editor"}})
	m := tokenShown.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no token shown")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if res, err := ann.mcp(m[1]).CallTool(ctx, &sdk.CallToolParams{Name: "weather.getWeather", Arguments: map[string]any{"city": "Oslo"}}); err != nil || res.IsError {
		t.Fatalf("ann's MCP call: %v %+v", err, res)
	}
	p := pages["ann"]
	p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(2))
	// Bob's open page, and his page loaded afresh, list his alone.
	bob := pages["bob"]
	bob.must(expect.Locator(bob.sidebarTitles()).ToHaveCount(1))
	if _, err := bob.Reload(); err != nil {
		t.Fatal(err)
	}
	bob.waitForStream()
	mcpConv := p.sidebarTitles().Filter(playwright.LocatorFilterOptions{HasText: "MCP: client-of-ann"})
	p.must(expect.Locator(mcpConv).ToHaveCount(1))
	p.must(mcpConv.Click())
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("user-message").First()).ToContainText("getWeather"))
	bob.must(expect.Locator(bob.sidebarTitles()).ToHaveCount(1))
	bob.must(expect.Locator(bob.sidebarTitles().Filter(playwright.LocatorFilterOptions{HasText: "MCP"})).ToHaveCount(0))
}

// TestARevokedTokenIsRefusedOnEveryNode: two servers on one PostgreSQL
// database; a personal MCP token made on one calls on the other as its
// account, and once revoked on the first it is refused 401 on both, at
// once, recording nothing.
func TestARevokedTokenIsRefusedOnEveryNode(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	signin := []string{"SWEATPANTS_TRUSTED_HEADER_SIGNIN=true", "SWEATPANTS_TRUSTED_PROXIES=127.0.0.1/32"}
	one, two := startAppOn(t, db, signin...), startAppOn(t, db, signin...)
	ann := one.person(t, "ann")
	_, page, _ := ann.form("/settings/tokens", url.Values{"label": {"editor"}})
	m := tokenShown.FindStringSubmatch(page)
	id := regexp.MustCompile(`data-token="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || id == nil {
		t.Fatal("no token shown")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if res, err := two.person(t, "ann").mcp(m[1]).CallTool(ctx, &sdk.CallToolParams{Name: "weather.getWeather", Arguments: map[string]any{"city": "Oslo"}}); err != nil || res.IsError {
		t.Fatalf("ann's call on the second node: %v %+v", err, res)
	}
	if _, audit := ann.get("/tools.jsonl"); !strings.Contains(audit, "Oslo") {
		t.Fatalf("ann's audit on the first node lacks her call on the second: %s", audit)
	}
	if code, _, _ := ann.form("/settings/tokens/"+id[1]+"/revoke", nil); code != http.StatusSeeOther {
		t.Fatalf("revoking: %d, want 303", code)
	}
	_, before := ann.get("/tools.jsonl")
	for _, node := range []*app{one, two} {
		req, _ := http.NewRequest("POST", node.URL+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+m[1])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("the revoked token on %s: %d, want 401", node.URL, res.StatusCode)
		}
	}
	if _, after := ann.get("/tools.jsonl"); after != before {
		t.Errorf("the refused requests recorded calls: %s", after)
	}
}

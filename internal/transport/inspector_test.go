package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// inspectorNodes is how large a tree TestTheInspectorGetsChangesNotTheWholeTree
// grows; -inspector-nodes=3000 measures a larger one.
var inspectorNodes = flag.Int("inspector-nodes", 1000, "nodes of the tree the inspector's patches are measured on")

// After the first drawing, a change of a large tree reaches the inspector
// as a patch of a few kilobytes, and the inspector it patches is the one a
// fresh load draws.
func TestTheInspectorGetsChangesNotTheWholeTree(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("survey")
	growInspectedTree(t, a.db, conv, *inspectorNodes)
	st := b.openInspector(conv, "")
	pg := st.first()

	b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"1"}`)
	bytes := 0
	for !pg.has(`[data-kind=elicit]`, "Question 1 of 1") || pg.inspector() != b.freshInspector(conv, "") {
		ev := st.next()
		bytes += ev.size
		pg.apply(ev)
	}
	t.Logf("%d nodes: the whole inspector is %d bytes, the change %d bytes", *inspectorNodes, st.fullSize, bytes)
	if bytes*20 > st.fullSize {
		t.Errorf("the change took %d bytes, want under 5%% of the %d of the whole inspector", bytes, st.fullSize)
	}
}

// Whatever happens to the conversation — a turn starting and ending, a side
// question, an edit's fork, a changed answer, a switch, a recovery, a stop,
// garbage collection — the patched inspector is the one a fresh load
// draws, for HEAD and for an earlier state inspected.
func TestThePatchedInspectorIsTheOneAFreshLoadDraws(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("survey")
	head := b.openInspector(conv, "")
	pg := head.first()
	viewers := []*inspectorStream{head}
	var first *inspectorStream  // of the state after the first message
	var picked *inspectorStream // of the agents' state at the first message
	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"a first message", func(t *testing.T) { b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"3"}`) }},
		{"an inspector of that state", func(sub *testing.T) {
			_, entry, _ := strings.Cut(pg.attr(`tr[data-action=message] a`, "href"), "?")
			b.t = t // the stream stays open for the steps after this one
			first = b.openInspector(conv, "?"+entry)
			b.t = sub
			first.first()
			viewers = append(viewers, first)
		}},
		{"an inspector of the agents' state at the message", func(sub *testing.T) {
			b.t = t
			picked = b.openInspector(conv, "?node="+pg.attr(`.on-path[data-kind=user]`, "data-node"))
			b.t = sub
			picked.first()
			viewers = append(viewers, picked)
		}},
		{"an answer", func(t *testing.T) { b.answerPending(t, conv, "one") }},
		{"a side question", func(t *testing.T) {
			b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"what is the capital of France?"}`)
		}},
		{"the answer after it", func(t *testing.T) { b.answerPending(t, conv, "two") }},
		{"the last answer", func(t *testing.T) { b.answerPending(t, conv, "three") }},
		{"an edit of the message", func(t *testing.T) {
			b.command(t, "/c/"+conv+"/messages/"+pg.attr(`.on-path[data-kind=user]`, "data-node")+"/edit", "application/x-www-form-urlencoded", "message=2")
		}},
		{"an answer on the new branch", func(t *testing.T) { b.answerPending(t, conv, "four") }},
		{"a changed answer", func(t *testing.T) {
			eid := pg.text(`.on-path[data-kind=response] .node-ref`)
			b.command(t, "/c/"+conv+"/elicits/"+eid+"/change", "application/json", `{"action":"accept","content":{"answer":"five"}}`)
		}},
		{"a switch back to the first message", func(t *testing.T) {
			b.command(t, "/c/"+conv+"/nodes/"+pg.attr(`[data-kind=user][data-on-path=false]`, "data-node")+"/switch", "", "")
		}},
		{"a message there", func(t *testing.T) { b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"1"}`) }},
		{"a recovery", func(t *testing.T) {
			_, entry, _ := strings.Cut(pg.attr(`tr[data-action=edit] a`, "href"), "at=")
			b.command(t, "/c/"+conv+"/reflog/"+entry+"/recover", "", "")
		}},
		{"a stop", func(t *testing.T) { b.command(t, "/c/"+conv+"/stop", "", "") }},
		{"a message after the stop", func(t *testing.T) { b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"1"}`) }},
		{"garbage collection", func(t *testing.T) {
			viewers = viewers[:1] // its reflog entry goes
			if _, err := a.svc.GC(chat.GCRetention.With(t.Context(), 0), b.sessionID(), conv); err != nil {
				t.Fatal(err)
			}
		}},
		{"an answer after it", func(t *testing.T) { b.answerPending(t, conv, "six") }},
	} {
		t.Run(step.name, func(t *testing.T) {
			b.t = t
			step.do(t)
			b.sameAsFresh(t, conv, viewers...)
		})
	}
	b.t, head.t, first.t, picked.t = t, t, t, t
	if picked.fulls != 1 {
		t.Errorf("the inspector of the state at a node was drawn whole %d times, want once", picked.fulls)
	}
	if head.fulls != 3 {
		t.Errorf("the inspector was drawn whole %d times, want three times: at first, for the first node (the tree was empty) and after garbage collection", head.fulls)
	}
	if first.fulls != 1 {
		t.Errorf("the inspector of an earlier state was drawn whole %d times, want once", first.fulls)
	}
}

// A summary that compaction records is patched in with the messages it
// stands for, as a fresh load draws it. The agents' state is patched in as
// it changes at HEAD, and stays as it was at a node picked.
func TestThePatchedInspectorShowsASummary(t *testing.T) {
	a := newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), CompactTokens: 30})
	b := a.browser(t)
	conv := b.newConversation("concierge")
	st := b.openInspector(conv, "")
	st.first()
	var picked *inspectorStream // of the state at the first reply
	for _, city := range []string{"Oslo", "Riga", "Bern"} {
		t.Run(city, func(sub *testing.T) {
			b.t = sub
			b.command(sub, "/c/"+conv+"/messages", "application/json", `{"message":"A trip to `+city+`"}`)
			b.acceptPending(sub, conv, `{"destination":"`+city+`","travellers":1,"cabin":"economy","hotel":false}`)
			for !st.page.has(`[data-kind=assistant]`, "Your trip to "+city) {
				st.page.apply(st.next())
			}
			if picked == nil {
				b.t = t // the stream stays open for the trips after this one
				picked = b.openInspector(conv, "?node="+st.page.attr(`[data-kind=assistant]`, "data-node"))
				b.t = sub
				picked.first()
			}
			b.sameAsFresh(sub, conv, st, picked)
			if got := st.page.text(`.agent-state [data-testid=state-value]`); !strings.Contains(got, city) {
				sub.Errorf("the state at HEAD reads %q, want the trip to %s in it", got, city)
			}
			if got := picked.page.text(`.agent-state [data-testid=state-value]`); !strings.Contains(got, "Oslo") || strings.Contains(got, "Riga") {
				sub.Errorf("the state at the first reply reads %q, want the trip to Oslo alone", got)
			}
		})
	}
	b.t, st.t, picked.t = t, t, t
	if !st.page.has(`[data-kind=summary] [data-testid=covered-node]`, "A trip to Oslo") {
		t.Error("no summary standing for the first trip")
	}
	if st.fulls != 2 {
		t.Errorf("the inspector was drawn whole %d times, want twice: at first and for the first node (the tree was empty)", st.fulls)
	}
}

// sameAsFresh waits until each of viewers, patched, shows what a fresh load
// of its page shows, once the conversation has settled: its turn waits or
// ended.
func (b *browser) sameAsFresh(t *testing.T, conv string, viewers ...*inspectorStream) {
	t.Helper()
	for _, st := range viewers {
		st.t, st.page.t = t, t
		for fresh := b.freshInspector(conv, st.query); st.page.inspector() != fresh; fresh = b.freshInspector(conv, st.query) {
			ev, ok := st.nextWithin(10 * time.Second)
			if !ok {
				t.Fatalf("the patched inspector %s differs from a fresh one:\n%s", st.query, domDifference(st.page.inspector(), fresh))
			}
			st.page.apply(ev)
		}
	}
	b.checkCurrent(t, conv)
}

// checkCurrent checks the reflog entries the inspector marks current
// against what that means: recovering the entry would leave HEAD where it
// is, the newest node under the entry's state that a recovery goes to
// (past no side question or decision: tree.Index.FlowTip) being HEAD.
func (b *browser) checkCurrent(t *testing.T, conv string) {
	t.Helper()
	in, err := inspector.Inspect(t.Context(), b.app.svc, b.sessionID(), conv, inspector.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var here int64 // the newest entry whose state is HEAD's: the one row marked
	for _, e := range in.Reflog {
		newest, under := e.State(), []int64{e.State()}
		for len(under) > 0 {
			id := under[len(under)-1]
			under = under[:len(under)-1]
			newest = max(newest, id)
			for _, c := range in.Children[id] {
				if k := in.Nodes[c].Kind; k != tree.SideQuestion && k != tree.Decision {
					under = append(under, c)
				}
			}
		}
		if got, want := in.Current[e.ID], newest == in.Conversation.Head; got != want {
			t.Errorf("entry %d (%s to %d) current = %v, want %v: a recovery goes to %d, HEAD is %d", e.ID, e.Action, e.Head, got, want, newest, in.Conversation.Head)
		}
		if here == 0 && newest == in.Conversation.Head {
			here = e.ID
		}
	}
	if in.Here != here {
		t.Errorf("the row marked as HEAD's is entry %d, want %d, the newest whose state is HEAD's", in.Here, here)
	}
}

// A flood of progress reports on one question is refused past the burst,
// with a message; the refused reports change nothing, and none of them
// makes the inspector draw anything.
func TestProgressReportsAreLimitedAndDrawNoTree(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("showcase")
	eid := b.pendingElicit(conv, "where am I")
	st := b.openInspector(conv, "")
	st.first()

	start := time.Now()
	for i := 1; i <= inbound.ProgressBurst+5; i++ {
		code, body := b.do(http.MethodPost, "/c/"+conv+"/elicits/"+eid+"/progress", "application/json", fmt.Sprintf(`{"stage":"s%d"}`, i))
		switch {
		case i <= inbound.ProgressBurst && code != http.StatusNoContent:
			t.Fatalf("report %d = %d %q, want 204", i, code, body)
		case i > inbound.ProgressBurst && code == http.StatusNoContent && time.Since(start) < inbound.ProgressWindow:
			t.Errorf("report %d within %v = 204, want it refused past a burst of %d", i, time.Since(start), inbound.ProgressBurst)
		case i > inbound.ProgressBurst && (code != http.StatusTooManyRequests || !strings.Contains(body, "Too many progress reports for this question")):
			t.Errorf("report %d = %d %q, want 429 saying why", i, code, body)
		}
	}
	if time.Since(start) >= inbound.ProgressWindow {
		t.Skipf("the flood took %v, longer than the window it tests", time.Since(start))
	}
	if _, page := b.do(http.MethodGet, "/c/"+conv, "", ""); !strings.Contains(page, fmt.Sprintf(`data-stage="s%d"`, inbound.ProgressBurst)) {
		t.Errorf("the page does not show the last stage taken, s%d", inbound.ProgressBurst)
	}

	// Two notices, the second sent once the first arrived: the inspector
	// passes them on, and nothing else comes before them. An inspector that
	// drew anything for the reports would have drawn it before the second.
	for _, node := range []string{"nosuch-1", "nosuch-2"} {
		if code, _ := b.do(http.MethodPost, "/c/"+conv+"/nodes/"+node+"/switch", "", ""); code != http.StatusNotFound {
			t.Fatalf("switch to %q = %d, want 404", node, code)
		}
		for {
			ev := st.next()
			if !strings.Contains(ev.elements, `data-testid="notice"`) {
				t.Fatalf("the inspector drew after progress reports: %.300s", ev.elements)
			}
			if strings.Contains(ev.elements, node) {
				break
			}
		}
	}
}

// growInspectedTree records turns directly in the store, as a conversation
// that is not loaded: each a message, a model call and a reply, every tenth
// message an edit of the one before (a fork), until it has size nodes.
func growInspectedTree(t testing.TB, db *store.DB, conv string, size int) {
	t.Helper()
	ctx := context.Background()
	appendNode := func(n tree.Node, opts tree.AppendOptions) tree.Node {
		n.Conversation = conv
		n, err := db.Append(ctx, n, opts)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var head, lastMessageParent int64
	for i := 0; size-3*i >= 3; i++ {
		text := fmt.Sprintf("Message %d, with a few words in it", i)
		msg := tree.Node{Parent: head, Kind: tree.UserMessage, Payload: inspectorJSON(t, tree.Message{Text: text})}
		opts := tree.AppendOptions{Log: &tree.Move{Action: tree.ActMessage, Detail: text}}
		if i%10 == 9 {
			msg.Parent = lastMessageParent
			opts = tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActEdit, Detail: text}}
		}
		lastMessageParent = msg.Parent
		m := appendNode(msg, opts)
		req := llm.Request{Messages: []llm.Message{{Role: llm.System, Content: "You are the survey agent."}, {Role: llm.User, Content: text}}}
		reply := fmt.Sprintf("Reply %d: a sentence or two of an answer, as a model would give one.", i)
		s := appendNode(tree.Node{Parent: m.ID, Kind: tree.Sample, Ref: fmt.Sprintf("%d-1", m.ID), Agent: "survey",
			Payload: inspectorJSON(t, tree.SampleRecord{Request: req, Response: &llm.Response{Content: reply}, LatencyMS: 1.5})}, tree.AppendOptions{})
		head = appendNode(tree.Node{Parent: s.ID, Kind: tree.AssistantMessage, Agent: "survey", Payload: inspectorJSON(t, tree.Message{Text: reply})}, tree.AppendOptions{}).ID
	}
}

func inspectorJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// command sends a command and fails the test unless it succeeds.
func (b *browser) command(t *testing.T, path, contentType, body string) {
	t.Helper()
	if code, out := b.do(http.MethodPost, path, contentType, body); code >= 300 {
		t.Fatalf("POST %s = %d %q", path, code, out)
	}
}

// answerPending answers the survey question pending on HEAD's branch with
// text, once the chat page shows it.
func (b *browser) answerPending(t *testing.T, conv, text string) {
	t.Helper()
	b.acceptPending(t, conv, `{"answer":"`+text+`"}`)
}

// acceptPending accepts the question pending on HEAD's branch with
// content, once the chat page shows it.
func (b *browser) acceptPending(t *testing.T, conv, content string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := b.do(http.MethodGet, "/c/"+conv, "", "")
		if m := elicitIDRe.FindStringSubmatch(pendingQuestionPart(body)); code == http.StatusOK && m != nil {
			b.command(t, "/c/"+conv+"/elicits/"+m[1], "application/json", `{"action":"accept","content":`+content+`}`)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question pending to answer with %s", content)
		}
		time.Sleep(5 * time.Millisecond) // polling the page for a condition, with a deadline
	}
}

// pendingQuestionPart is the part of a chat page from its pending question on.
func pendingQuestionPart(page string) string {
	i := strings.Index(page, `data-state="pending"`)
	if i < 0 {
		return ""
	}
	return page[strings.LastIndex(page[:i], "<"):]
}

// sessionID is the browser's session id.
func (b *browser) sessionID() string {
	u, _ := url.Parse(b.app.srv.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == sessionCookie {
			return c.Value
		}
	}
	b.t.Fatal("the browser has no session")
	return ""
}

// freshInspector loads the inspector page (with query, if any) and returns
// its inspector.
func (b *browser) freshInspector(conv, query string) string {
	b.t.Helper()
	code, body := b.do(http.MethodGet, "/c/"+conv+"/tree"+query, "", "")
	if code != http.StatusOK {
		b.t.Fatalf("GET tree = %d %q", code, body)
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	return domRender(b.t, domByID(doc, "inspector"))
}

// inspectorStream is an open inspector stream, read in the background.
type inspectorStream struct {
	t        *testing.T
	query    string // "?at=…" for an earlier state
	page     *inspectorPage
	events   chan patchEvent
	fullSize int // bytes of the first event, the whole inspector
	fulls    int // how many events drew the whole inspector
}

// patchEvent is one datastar-patch-elements event.
type patchEvent struct {
	selector, mode, elements string
	size                     int // bytes on the wire
}

// openInspector opens the inspector stream of conv (with query, if any).
func (b *browser) openInspector(conv, query string) *inspectorStream {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.app.srv.URL+"/c/"+conv+"/tree/stream"+query, nil)
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b.t.Fatalf("GET tree stream = %d", res.StatusCode)
	}
	st := &inspectorStream{t: b.t, query: query, events: make(chan patchEvent)}
	go func() {
		defer res.Body.Close()
		rd := bufio.NewReader(res.Body)
		var ev patchEvent
		var elements []string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			ev.size += len(line)
			line = strings.TrimSuffix(line, "\n")
			data, isData := strings.CutPrefix(line, "data: ")
			switch {
			case line == "" && ev.size > 1:
				ev.elements = strings.Join(elements, "\n")
				select {
				case st.events <- ev:
				case <-ctx.Done():
					return
				}
				ev, elements = patchEvent{}, nil
			case isData && strings.HasPrefix(data, "selector "):
				ev.selector = strings.TrimPrefix(data, "selector ")
			case isData && strings.HasPrefix(data, "mode "):
				ev.mode = strings.TrimPrefix(data, "mode ")
			case isData && strings.HasPrefix(data, "elements "):
				elements = append(elements, strings.TrimPrefix(data, "elements "))
			}
		}
	}()
	return st
}

// nextWithin returns the next event, or false if none comes in time.
func (st *inspectorStream) nextWithin(d time.Duration) (patchEvent, bool) {
	select {
	case ev := <-st.events:
		if ev.selector == "" && strings.HasPrefix(ev.elements, `<div id="inspector"`) {
			st.fulls++
		}
		return ev, true
	case <-time.After(d):
		return patchEvent{}, false
	}
}

// next returns the next event.
func (st *inspectorStream) next() patchEvent {
	st.t.Helper()
	ev, ok := st.nextWithin(10 * time.Second)
	if !ok {
		st.t.Fatal("no event on the inspector stream")
	}
	return ev
}

// first reads the first event, the whole inspector, and returns the page it
// draws.
func (st *inspectorStream) first() *inspectorPage {
	st.t.Helper()
	ev := st.next()
	if st.fulls != 1 {
		st.t.Fatalf("the first event is not the whole inspector: %.200s", ev.elements)
	}
	st.fullSize = ev.size
	st.page = &inspectorPage{t: st.t, root: &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}}
	for _, n := range domParse(st.t, ev.elements) {
		st.page.root.AppendChild(n)
	}
	return st.page
}

// inspectorPage is the inspector as a browser holds it, patched as
// Datastar patches it.
type inspectorPage struct {
	t    *testing.T
	root *html.Node
}

// apply applies a patch as Datastar does. An outer patch morphs: what an
// element marked data-ignore-morph held stays.
func (pg *inspectorPage) apply(ev patchEvent) {
	pg.t.Helper()
	if strings.Contains(ev.elements, `data-testid="notice"`) {
		return // the notice is outside the inspector
	}
	frag := domParse(pg.t, ev.elements)
	var targets []*html.Node
	for sel := range strings.SplitSeq(ev.selector, ",") {
		if sel = strings.TrimSpace(sel); sel != "" {
			n := domByID(pg.root, strings.TrimPrefix(sel, "#"))
			if n == nil {
				pg.t.Fatalf("no element %s to patch", sel)
			}
			targets = append(targets, n)
		}
	}
	switch ev.mode {
	case "", "outer":
		for _, n := range frag {
			old := domByID(pg.root, domAttr(n, "id"))
			if ev.selector != "" {
				old = targets[0]
			}
			if old == nil {
				pg.t.Fatalf("no element #%s to morph", domAttr(n, "id"))
			}
			domMorph(old, n)
		}
	case "remove":
		for _, n := range targets {
			n.Parent.RemoveChild(n)
		}
	case "append":
		for _, n := range frag {
			targets[0].AppendChild(n)
		}
	case "prepend":
		first := targets[0].FirstChild
		for _, n := range frag {
			targets[0].InsertBefore(n, first)
		}
	case "after":
		next := targets[0].NextSibling
		for _, n := range frag {
			targets[0].Parent.InsertBefore(n, next)
		}
	default:
		pg.t.Fatalf("unexpected patch mode %q", ev.mode)
	}
}

// domMorph puts nw in old's place, keeping what old's elements marked
// data-ignore-morph held: an element keeps its own, found by its id or by
// its tag and class under the nearest element with an id.
func domMorph(old, nw *html.Node) {
	kept := map[string]*html.Node{}
	for n := range old.Descendants() {
		if domHasAttr(n, "data-ignore-morph") {
			kept[domMorphKey(n)] = n
		}
	}
	var swap [][2]*html.Node
	for n := range nw.Descendants() {
		if o := kept[domMorphKey(n)]; o != nil && domHasAttr(n, "data-ignore-morph") {
			swap = append(swap, [2]*html.Node{n, o})
		}
	}
	for _, s := range swap {
		s[1].Parent.RemoveChild(s[1])
		s[0].Parent.InsertBefore(s[1], s[0])
		s[0].Parent.RemoveChild(s[0])
	}
	old.Parent.InsertBefore(nw, old)
	old.Parent.RemoveChild(old)
}

func domMorphKey(n *html.Node) string {
	owner := n.Parent
	for owner != nil && domAttr(owner, "id") == "" {
		owner = owner.Parent
	}
	if owner == nil {
		return ""
	}
	return domAttr(owner, "id") + " " + n.Data + "." + domAttr(n, "class")
}

// inspector renders the inspector as patched.
func (pg *inspectorPage) inspector() string {
	return domRender(pg.t, domByID(pg.root, "inspector"))
}

// has reports whether an element matching the simple selector sel (see
// matches) contains text.
func (pg *inspectorPage) has(sel, text string) bool {
	for n := range pg.root.Descendants() {
		if domMatches(n, sel) && strings.Contains(domText(n), text) {
			return true
		}
	}
	return false
}

// attr returns attribute name of the last element matching sel.
func (pg *inspectorPage) attr(sel, name string) string {
	var last *html.Node
	for n := range pg.root.Descendants() {
		if domMatches(n, sel) {
			last = n
		}
	}
	if last == nil {
		pg.t.Fatalf("no element %s", sel)
	}
	return domAttr(last, name)
}

// text returns the text of the last element matching sel.
func (pg *inspectorPage) text(sel string) string {
	var last *html.Node
	for n := range pg.root.Descendants() {
		if domMatches(n, sel) {
			last = n
		}
	}
	if last == nil {
		pg.t.Fatalf("no element %s", sel)
	}
	return domText(last)
}

// domMatches reports whether n matches sel: one or two compound selectors,
// each a tag, classes and [name=value] attributes, the second a descendant
// of the first.
func domMatches(n *html.Node, sel string) bool {
	parts := strings.Fields(sel)
	if !domMatchesCompound(n, parts[len(parts)-1]) {
		return false
	}
	if len(parts) == 1 {
		return true
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if domMatchesCompound(p, parts[0]) {
			return true
		}
	}
	return false
}

func domMatchesCompound(n *html.Node, sel string) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for sel != "" {
		switch {
		case sel[0] == '[':
			end := strings.IndexByte(sel, ']')
			name, value, _ := strings.Cut(sel[1:end], "=")
			if domAttr(n, name) != value {
				return false
			}
			sel = sel[end+1:]
		case sel[0] == '.':
			end := strings.IndexAny(sel[1:], ".[")
			if end < 0 {
				end = len(sel) - 1
			}
			if !strings.Contains(" "+domAttr(n, "class")+" ", " "+sel[1:end+1]+" ") {
				return false
			}
			sel = sel[end+1:]
		default:
			end := strings.IndexAny(sel, ".[")
			if end < 0 {
				end = len(sel)
			}
			if n.Data != sel[:end] {
				return false
			}
			sel = sel[end:]
		}
	}
	return true
}

func domParse(t *testing.T, s string) []*html.Node {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "template", DataAtom: atom.Template})
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

func domByID(root *html.Node, id string) *html.Node {
	for n := range root.Descendants() {
		if domAttr(n, "id") == id {
			return n
		}
	}
	return nil
}

func domAttr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func domHasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}

func domText(n *html.Node) string {
	var sb strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			sb.WriteString(d.Data)
		}
	}
	return sb.String()
}

func domRender(t *testing.T, n *html.Node) string {
	t.Helper()
	if n == nil {
		t.Fatal("no inspector to render")
	}
	var sb strings.Builder
	if err := html.Render(&sb, n); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// domDifference shows where got and want part.
func domDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-120)
	oneLine := strings.NewReplacer("\n", "⏎", "&#34;", `"`)
	return fmt.Sprintf("at byte %d:\n got: …%.500s\nwant: …%.500s", i, oneLine.Replace(got[from:]), oneLine.Replace(want[from:]))
}

// A node to show the agents' state at that is not a number, or not a node
// of the conversation, is answered with a page that says so, for the
// inspector and its stream alike.
func TestTheInspectorSaysANodePickedIsNotThere(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("survey")
	b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"1"}`)
	for _, tc := range []struct{ query, want string }{
		{"?node=abc", "There is no such node in this conversation; nodes are numbered from 1."},
		{"?node=-3", "There is no such node in this conversation; nodes are numbered from 1."},
		{"?node=999", "There is no node 999 in this conversation."},
	} {
		for _, path := range []string{"/tree", "/tree/stream"} {
			code, body := b.do(http.MethodGet, "/c/"+conv+path+tc.query, "", "")
			if code != http.StatusNotFound || !strings.Contains(body, tc.want) {
				t.Errorf("GET %s%s = %d %.300q, want 404 saying %q", path, tc.query, code, body, tc.want)
			}
		}
	}
}

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// Three servers on one PostgreSQL database, as the README runs them, each
// the real binary on a port of its own, and one client whose requests
// land on any of them: its stream on one node, its answer on another.
// The answer reaches the turn that waits for it, wherever it runs; the
// event stream resumes on a third node, missing and repeating nothing;
// and when the node the conversation lives on is killed with -9 while a
// form waits, a survivor takes it over and the answer given there
// finishes the turn exactly once.
func TestServersOnOneDatabaseShareAConversation(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	a, b, c := startAppOn(t, db), startAppOn(t, db), startAppOn(t, db)
	cl := newEventsClient(t, a)

	conv := cl.start("concierge", "Plan a trip to Bergen")
	onA := cl.open(conv, "")
	asked := onA.until("the question", lastIs("elicit.asked"))
	question := asked[len(asked)-1]
	cl.at(b).answer(conv, question.Data["elicit"].(string), `{"action":"accept","content":{"destination":"Bergen","travellers":2,"cabin":"premium","hotel":true}}`)
	done := onA.until("the reply", endsRun)
	if end := done[len(done)-1]; !replied(end, "Your trip to Bergen is planned: 2 travellers in premium class, flights and a hotel.") {
		t.Fatalf("the turn answered on another node ended %s", end.Raw)
	}

	// Resumed on a third node from the question: what came after, once.
	onC := cl.at(c).open(conv, question.ID)
	again := onC.until("the reply again", endsRun)
	onC.close()
	if ids(again) != ids(done) || countOf(again, "run.completed") != 1 {
		t.Errorf("resumed on another node after %s:%s\nwant what the first node sent after it:%s", question.ID, describeEvents(again), describeEvents(done))
	}

	// The node where the conversation lives is killed while a form waits.
	cl.at(b).send(conv, "Plan a trip to Oslo")
	asked = onA.until("the second question", lastIs("elicit.asked"))
	question = asked[len(asked)-1]
	a.stop(syscall.SIGKILL)
	cl.at(c).answer(conv, question.Data["elicit"].(string), `{"action":"accept","content":{"destination":"Oslo","travellers":3,"cabin":"business","hotel":false}}`)
	onB := cl.at(b).open(conv, question.ID)
	done = onB.until("the second reply", endsRun)
	onB.close()
	if end := done[len(done)-1]; !replied(end, "Your trip to Oslo is planned: 3 travellers in business class, flights only, no hotel.") {
		t.Fatalf("the turn taken over ended %s", end.Raw)
	}
	all := cl.at(c).open(conv, "")
	whole := all.until("both runs", func(evs []streamEvent) bool { return countOf(evs, "run.completed") == 2 })
	all.close()
	if n := countOf(whole, "elicit.answered"); n != 2 {
		t.Errorf("%d answers recorded, want 2, each once:%s", n, describeEvents(whole))
	}
}

// at is the client's session talking to another node.
func (cl *eventsClient) at(a *app) *eventsClient {
	other := *cl
	other.base = a.URL
	return &other
}

// answer posts answer (JSON) to question eid and checks it was taken.
func (cl *eventsClient) answer(conv, eid, answer string) {
	cl.t.Helper()
	res, err := cl.http.Post(cl.base+"/c/"+conv+"/elicits/"+eid, "application/json", bytes.NewReader([]byte(answer)))
	if err != nil {
		cl.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		cl.t.Fatalf("the answer on %s: %s %s, want 204", cl.base, res.Status, body)
	}
}

// replied reports whether run.completed end is a reply that begins with
// text.
func replied(end streamEvent, text string) bool {
	got, _ := end.Data["text"].(string)
	return end.Data["status"] == "replied" && strings.HasPrefix(got, text)
}

func lastIs(typ string) func([]streamEvent) bool {
	return func(evs []streamEvent) bool { return evs[len(evs)-1].Type == typ }
}

func countOf(evs []streamEvent, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// ids are the recorded events in order, each by its type and node, and
// how each run ended, as one string to compare.
func ids(evs []streamEvent) string {
	var out []string
	for _, e := range evs {
		switch e.Type {
		case "token.delta":
			// The live stream may show a draft of the reply that a client
			// resuming from the record never sees (a model call's text
			// that the reply then started over from): what the reply
			// comes to is in run.completed.
			continue
		case "run.completed":
			out = append(out, e.Raw)
			continue
		}
		id, _, _ := strings.Cut(e.ID, ".") // the node, without what the client held of the reply
		out = append(out, e.Type+" "+id)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// Two tabs of one browser, each on another node, show one conversation
// live: a form answered in one shows the reply in both. When the node the
// conversation lives on is shut down (SIGTERM, as a deploy drains it), the
// tab on the other node goes on after a reconnect: its next message is
// answered there.
func TestTwoTabsOnTwoNodes(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	a, b := startAppOn(t, db), startAppOn(t, db)
	bc, err := browser.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.Close() })
	first := &chatPage{t: t, Page: newPageIn(t, bc)}
	if _, err := first.Goto(a.URL + "/new?agent=concierge"); err != nil {
		t.Fatal(err)
	}
	first.send("Plan a trip to Bergen")
	first.must(expect.Locator(first.pendingForm()).ToBeVisible())

	second := &chatPage{t: t, Page: newPageIn(t, bc)}
	if _, err := second.Goto(b.URL + first.convPath()); err != nil {
		t.Fatal(err)
	}
	second.waitForStream()
	// The session's calls page on the second node too: it shows the calls
	// the turn makes on the first.
	calls := &chatPage{t: t, Page: newPageIn(t, bc)}
	if _, err := calls.Goto(b.URL + "/debug"); err != nil {
		t.Fatal(err)
	}
	calls.waitForStream()
	made, err := calls.GetByTestId("debug-call").Count()
	calls.must(err)
	if made == 0 {
		t.Fatal("the calls page shows no call of the turn so far")
	}

	second.fillTrip("Bergen", "2", "premium", true)
	second.must(second.pendingForm().GetByTestId("elicit-submit").Click())
	for _, p := range []*chatPage{first, second} {
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Bergen is planned: 2 travellers in premium class"))
	}
	calls.must(expect.Locator(calls.GetByTestId("debug-call")).ToHaveCount(made + 1))

	a.stop(syscall.SIGTERM)
	second.waitForStream()
	second.send("Plan a trip to Oslo")
	second.must(expect.Locator(second.pendingForm()).ToBeVisible())
	second.fillTrip("Oslo", "3", "business", false)
	second.must(second.pendingForm().GetByTestId("elicit-submit").Click())
	second.must(expect.Locator(second.lastAssistant()).ToContainText("Your trip to Oslo is planned: 3 travellers in business class"))
	second.must(expect.Locator(second.GetByTestId("assistant-message")).ToHaveCount(2))
}

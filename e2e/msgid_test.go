package e2e

import (
	"encoding/json"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// The composer sends each message with an id of the page's choosing. The
// first post of a message reaches the server, which records it, but the
// page never hears back (the connection breaks): the page sends the
// message again by itself, with the same id, and the server takes it as
// the message it has. The message shows once, its turn runs once, the
// composer is cleared, and the next message gets an id of its own.
func TestAMessageResentAfterALostResponseShowsOnce(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Oslo")

	var (
		mu       sync.Mutex
		bodies   []string // the posts of messages, as sent
		statuses []int    // the status of each post the page heard back from
	)
	p.must(p.Route("**/messages", func(r playwright.Route) {
		if r.Request().Method() != "POST" {
			r.Continue()
			return
		}
		body, _ := r.Request().PostData()
		mu.Lock()
		bodies = append(bodies, body)
		first := len(bodies) == 1
		mu.Unlock()
		res, err := r.Fetch()
		if err != nil {
			r.Abort("connectionrefused")
			return
		}
		if first {
			r.Abort("connectionreset") // recorded, and the answer lost
			return
		}
		mu.Lock()
		statuses = append(statuses, res.Status())
		mu.Unlock()
		r.Fulfill(playwright.RouteFulfillOptions{Response: res})
	}))

	p.send("Plan a trip to Rome")
	waitFor(t, 30*time.Second, "the page to send the message again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(statuses) > 0
	})
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"Plan a trip", "Plan a trip to Rome"}))
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToHaveValue(""))
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(1))

	// The next message, asked on the side of the form that waits, is a
	// message of its own, and the only one asked on the side: the resend,
	// which came while the form waited, was not taken as one. The page
	// shows what happened in order, so both would show by now.
	p.send("And the weather there?")
	p.must(expect.Locator(p.GetByTestId("side-question")).ToHaveText([]string{"And the weather there?"}))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveCount(2))

	mu.Lock()
	defer mu.Unlock()
	if statuses[0] != 200 {
		t.Errorf("the resend was answered %d, want 200 as the first send", statuses[0])
	}
	ids := make([]string, len(bodies))
	for i, b := range bodies {
		var in struct {
			Message   string `json:"message"`
			MessageID string `json:"messageId"`
		}
		if err := json.Unmarshal([]byte(b), &in); err != nil {
			t.Fatalf("post %d: %q: %v", i, b, err)
		}
		ids[i] = in.MessageID
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	if len(ids) != 3 || !uuid.MatchString(ids[0]) || ids[1] != ids[0] || ids[2] == ids[0] || !uuid.MatchString(ids[2]) {
		t.Errorf("the messages' ids = %q, want a UUID, the same one on the resend, then a new one", ids)
	}
}

// A page served over plain HTTP from another machine is not a secure
// origin, where browsers have no crypto.randomUUID: the composer still
// gives its messages ids, of random bytes.
func TestAMessageHasAnIDWhereTheBrowserHasNoRandomUUID(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(`Object.defineProperty(Crypto.prototype, 'randomUUID', {value: undefined})`)}))
	if _, err := p.Goto(a.URL + "/new?agent=concierge"); err != nil {
		t.Fatal(err)
	}
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	posted := make(chan string, 1)
	p.must(p.Route("**/messages", func(r playwright.Route) {
		body, _ := r.Request().PostData()
		select {
		case posted <- body:
		default:
		}
		r.Continue()
	}))
	p.send("And the weather there?")
	p.must(expect.Locator(p.GetByTestId("side-question")).ToHaveText("And the weather there?"))
	var in struct {
		MessageID string `json:"messageId"`
	}
	if err := json.Unmarshal([]byte(<-posted), &in); err != nil || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(in.MessageID) {
		t.Errorf("the message's id = %q (%v), want 16 random bytes in hex", in.MessageID, err)
	}
}

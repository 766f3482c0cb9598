package e2e

import (
	"database/sql"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// A conversation waiting on a question when the assistant's code changed
// under it (a deploy without turn.Version) tells its user so in plain words
// once the server is back, and "Start again from my message" takes the
// turn again from the message: the assistant asks afresh and answers, and
// the conversation goes on.
func TestADivergedTurnOffersToStartAgainFromTheMessage(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Bergen")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	eid, err := p.pendingForm().GetAttribute("data-elicit-id")
	p.must(err)

	a.stop(syscall.SIGTERM)
	// The binary holds only its own agents, so the deploy is made the other
	// way round: the record now says the concierge asked otherwise than its
	// code does, as a record left by an earlier version of it would.
	askedOtherwise(t, a.db, eid, "Where shall we go? (as an earlier version asked)")
	a.start()
	p.waitForStream()

	end := p.Locator(`[data-testid=reply-turn]`).Last()
	p.must(expect.Locator(end).ToContainText(words.DivergedText))
	again := end.Locator(`[data-testid=retry][data-diverged]`)
	p.must(expect.Locator(again).ToHaveText("Start again from my message"))
	p.must(again.Click())

	form := p.pendingForm()
	p.must(expect.Locator(form).ToBeVisible())
	if id, err := form.GetAttribute("data-elicit-id"); err != nil || id == eid {
		t.Fatalf("the form waiting after starting again is %q (%v), want a question asked afresh, not %s", id, err, eid)
	}
	p.fillTrip("Bergen", "2", "economy", false)
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Bergen is planned"))
}

// askedOtherwise rewrites, in the stopped app's database file, the message
// of the question recorded as call eid.
func askedOtherwise(t *testing.T, path, eid, message string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id int64
	var payload []byte
	if err := db.QueryRow(`SELECT id, payload FROM nodes WHERE ref = ? AND kind = ?`, eid, string(tree.ElicitRequest)).Scan(&id, &payload); err != nil {
		t.Fatalf("find question %s: %v", eid, err)
	}
	var req map[string]any
	if err := json.Unmarshal(payload, &req); err != nil {
		t.Fatal(err)
	}
	req["message"] = message
	payload, err = json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE nodes SET payload = ? WHERE id = ?`, payload, id); err != nil {
		t.Fatalf("rewrite question %s: %v", eid, err)
	}
}

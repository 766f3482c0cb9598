package e2e

import (
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// The inspector draws every branch and the reflog, stays live, and recovers
// a discarded branch with its waiting form live again.
func TestInspectorShowsTheTreeAndRecoversADiscardedBranch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Rome")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	// Discard that branch: edit the message and finish the new one.
	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("Plan a trip to Oslo"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Oslo"))
	p.fillTrip("Oslo", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))

	// The inspector, in a second tab of the same browser.
	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	ins.must(expect.Locator(ins.GetByTestId("head-mark")).ToHaveCount(1))
	userNodes := ins.Locator(`[data-testid=tree-node][data-kind=user]`)
	ins.must(expect.Locator(userNodes).ToHaveCount(2)) // both versions of the message
	head := ins.Locator(`[data-testid=tree-node]:has([data-testid=head-mark])`)
	ins.must(expect.Locator(head).ToHaveAttribute("data-kind", "assistant"))
	// A node's payload on click.
	ins.must(userNodes.First().Locator("summary").Click())
	ins.must(expect.Locator(userNodes.First().GetByTestId("node-payload")).ToContainText(`"text": "Plan a trip to Rome"`))

	entries := ins.GetByTestId("reflog-entry")
	ins.must(expect.Locator(entries).ToHaveCount(2))
	ins.must(expect.Locator(entries.Nth(0)).ToHaveAttribute("data-action", "edit"))
	ins.must(expect.Locator(entries.Nth(1)).ToHaveAttribute("data-action", "message"))

	// Inspect the first state: read-only, the Rome branch on the path.
	ins.must(entries.Nth(1).GetByTestId("reflog-inspect").Click())
	ins.must(expect.Locator(ins.GetByTestId("inspecting")).ToContainText("message"))
	ins.must(expect.Locator(ins.GetByTestId("inspected-state")).ToContainText("Plan a trip to Rome"))
	ins.must(expect.Locator(ins.Locator(`[data-testid=tree-node][data-kind=user][data-on-path=true]`)).ToContainText("Rome"))

	// Recover it: the chat tab shows the Rome branch with its form waiting again.
	ins.must(ins.GetByTestId("reflog-entry").Nth(1).GetByTestId("reflog-recover").Click())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Rome"))
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	// The inspector follows live: a recover entry on top of the reflog.
	ins.must(expect.Locator(ins.GetByTestId("reflog-entry").First()).ToHaveAttribute("data-action", "recover"))

	p.fillTrip("Rome", "3", "premium", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Rome is planned: 3 travellers"))

	// gc tells what it removed, as news, not as a problem: every branch
	// here is younger than the retention, so nothing.
	ins.must(ins.GetByTestId("gc").Click())
	notice := ins.GetByTestId("notice")
	ins.must(expect.Locator(notice).ToHaveText("Garbage collection removed 0 nodes and 0 reflog entries."))
	ins.must(expect.Locator(notice).ToHaveAttribute("role", "status"))
	ins.must(expect.Locator(ins.Locator(`[data-testid=tree-node][data-kind=user]`)).ToHaveCount(2))
}

func newPageIn(t *testing.T, bc playwright.BrowserContext) playwright.Page {
	t.Helper()
	pg, err := bc.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// With a small limit, the branch is compacted: the inspector shows the
// summary node with the original messages it stands for under it.
func TestCompactionShowsInTheInspector(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_COMPACT_TOKENS=30")
	p := openChat(t, a)
	for _, city := range []string{"Oslo", "Riga"} {
		p.send("A trip to " + city)
		p.fillTrip(city, "1", "economy", false)
		p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to " + city + " is planned"))
	}
	_, err := p.Goto(p.URL() + "/tree")
	p.must(err)
	p.waitForStream()
	summary := p.Locator(`[data-testid=tree-node][data-kind=summary]`).First()
	p.must(summary.Locator("summary").Click())
	covered := summary.GetByTestId("covered-node")
	p.must(expect.Locator(covered.First()).ToContainText("A trip to Oslo"))
	// The originals are still in the tree.
	p.must(expect.Locator(p.Locator(`[data-testid=tree-node][data-kind=user]`)).ToHaveCount(2))
	p.must(expect.Locator(p.Locator(`[data-testid=reflog-entry][data-action=compact]`)).Not().ToHaveCount(0))
}

// treeShape describes the inspector as a user sees it: each node with its
// kind, whether it is on the path, whether it is HEAD and how deep among
// the branches it is drawn; the reflog rows; the legend.
const treeShape = `() => {
	const ins = document.getElementById('inspector')
	const nodes = [...ins.querySelectorAll('[data-testid=tree-node]')].map(n => {
		let depth = 0
		for (let e = n.parentElement; e !== ins; e = e.parentElement) if (e.matches('ul.branches')) depth++
		const head = n.querySelector(':scope > details > summary [data-testid=head-mark]') ? 'HEAD' : ''
		return [n.dataset.node, n.dataset.kind, n.dataset.onPath, head, depth].join(' ')
	})
	const rows = [...ins.querySelectorAll('[data-testid=reflog-entry]')].map(r =>
		[r.dataset.action, r.className, !!r.querySelector('[data-testid=reflog-recover]')].join(' '))
	return JSON.stringify({nodes, rows, legend: ins.querySelector('.tree-pane .tree-legend').textContent})
}`

// sameAsFresh waits until the live inspector ins shows what a fresh load
// of the same page shows.
func sameAsFresh(t *testing.T, ins *chatPage) string {
	t.Helper()
	fresh := &chatPage{t: t, Page: newPageIn(t, ins.Context())}
	defer fresh.Close()
	_, err := fresh.Goto(ins.URL())
	fresh.must(err)
	fresh.waitForStream()
	want, err := fresh.Evaluate(treeShape)
	fresh.must(err)
	var got any
	waitFor(t, 10*time.Second, "the live inspector to show what a fresh one shows", func() bool {
		got, err = ins.Evaluate(treeShape)
		ins.must(err)
		return got == want
	})
	return want.(string)
}

// The inspector follows the conversation with patches, and what it shows is
// what a fresh load shows: a new message's nodes, an edit's fork drawn as
// two branches, HEAD's mark moving. A node opened for its payload stays
// open meanwhile, as the tree is patched, not drawn anew.
func TestTheLiveInspectorShowsWhatAFreshOneShows(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Rome")
	p.fillTrip("Rome", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Rome is planned"))

	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	first := ins.Locator(`[data-testid=tree-node][data-kind=user]`).First()
	ins.must(first.Locator("summary").First().Click())
	opened := first.Locator(":scope > details[open]")
	ins.must(expect.Locator(opened).ToHaveCount(1))
	nodes := ins.GetByTestId("tree-node")

	t.Run("a new message's nodes appear", func(t *testing.T) {
		p.t, ins.t = t, t
		before, err := nodes.Count()
		ins.must(err)
		p.send("Plan a trip to Oslo")
		p.must(expect.Locator(p.pendingForm()).ToBeVisible())
		ins.must(expect.Locator(ins.Locator(`[data-testid=tree-node][data-kind=user]`)).ToHaveCount(2))
		sameAsFresh(t, ins)
		if after, _ := nodes.Count(); after <= before {
			t.Errorf("%d nodes after the message, want more than %d", after, before)
		}
		ins.must(expect.Locator(opened).ToHaveCount(1))
	})

	t.Run("an edit's fork is drawn as two branches", func(t *testing.T) {
		p.t, ins.t = t, t
		turn := p.GetByTestId("user-turn").Last()
		p.must(turn.GetByTestId("edit-message").Click())
		p.must(turn.GetByTestId("edit-input").Fill("Plan a trip to Riga"))
		p.must(turn.GetByTestId("edit-send").Click())
		p.must(expect.Locator(p.GetByTestId("user-message").Last()).ToHaveText("Plan a trip to Riga"))
		p.must(expect.Locator(p.pendingForm()).ToBeVisible())
		sameAsFresh(t, ins)
		// The fork is below the first turn: two branches side by side, one
		// the Oslo message's, one the Riga message's.
		fork := ins.Locator(`ul.branches ul.branches`)
		ins.must(expect.Locator(fork).ToHaveCount(1))
		ins.must(expect.Locator(fork.Locator(":scope > li")).ToHaveCount(2))
		ins.must(expect.Locator(fork.Locator(":scope > li").Nth(0).Locator(`[data-kind=user]`)).ToContainText("Oslo"))
		ins.must(expect.Locator(fork.Locator(":scope > li").Nth(1).Locator(`[data-kind=user]`)).ToContainText("Riga"))
		ins.must(expect.Locator(fork.Locator(":scope > li").Nth(1).GetByTestId("head-mark")).ToHaveCount(1))
		ins.must(expect.Locator(opened).ToHaveCount(1))
	})

	t.Run("HEAD's mark moves with a switch", func(t *testing.T) {
		p.t, ins.t = t, t
		p.must(p.GetByTestId("user-turn").Last().GetByTestId("branch-prev").Click())
		p.must(expect.Locator(p.GetByTestId("user-message").Last()).ToHaveText("Plan a trip to Oslo"))
		sameAsFresh(t, ins)
		fork := ins.Locator(`ul.branches ul.branches > li`)
		ins.must(expect.Locator(fork.Nth(0).GetByTestId("head-mark")).ToHaveCount(1))
		ins.must(expect.Locator(fork.Nth(1).GetByTestId("head-mark")).ToHaveCount(0))
		ins.must(expect.Locator(fork.Nth(1).Locator(`[data-on-path=true]`)).ToHaveCount(0))
		ins.must(expect.Locator(ins.GetByTestId("head-mark")).ToHaveCount(1))
		ins.must(expect.Locator(opened).ToHaveCount(1))
	})
}

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// The browser's side of the protocol system: the device's location is a
// method (the seed's getLocation) that methods.js implements on
// protocol.js, run from its card, its progress shown and recorded with its
// result; a method the page's modules do not implement is answered
// "unsupported" at once; a result that breaks its schema is refused in
// the card; Stop withdraws a method that waits and the method hears of it.
// One server serves every case; each is a browser session of its own.
func TestTheBrowserRunsMethods(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t)
		})
	}

	run("location with both stages", func(t *testing.T) {
		p := openShowcase(t, a, "geolocation")
		p.must(p.Context().SetGeolocation(&playwright.Geolocation{Latitude: 59.9139, Longitude: 10.7522, Accuracy: playwright.Float(30)}))
		p.willAskForLocation()
		q := p.ask("where am i", "location")
		// Each stage shows on the card while the method is at it: the
		// second report, then the answer, are held until the stage before
		// them has shown (the stream draws the latest state, and the
		// stages of a quick device come faster than a test looks).
		progress, answer := p.hold("**/elicits/*/progress", "acquiring"), p.hold("**/elicits/*", "")
		p.must(q.GetByTestId("location-share").Click())
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Asking for permission…"))
		p.must(expect.Locator(q.GetByTestId("location-share")).ToBeDisabled())
		p.must(progress().Continue())
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Finding your location…"))
		p.must(answer().Continue())
		p.replied("You are at 59.9139, 10.7522 (within 30 m). Your device went through: requesting-permission → acquiring.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Shared location 59.91390, 10.75220 (within 30 m)"))
		// The answer is recorded with the progress it took, typed as the
		// method declares it.
		answered := p.events("run.completed").of("elicit.answered")
		if len(answered) != 1 {
			t.Fatalf("%d answers recorded, want 1", len(answered))
		}
		var got struct {
			Response struct {
				Action   string
				Progress []struct {
					Stage string
					Data  struct{ Status string }
				}
			}
		}
		p.must(json.Unmarshal(answered[0], &got))
		var stages []string
		for _, pr := range got.Response.Progress {
			stages = append(stages, pr.Stage+"/"+pr.Data.Status)
		}
		if want := []string{"requesting-permission/requesting-permission", "acquiring/acquiring"}; got.Response.Action != "accept" || !slices.Equal(stages, want) {
			t.Errorf("recorded %s with progress %q, want accept with %q", got.Response.Action, stages, want)
		}
	})

	run("location refused when the browser asks", func(t *testing.T) {
		// The browser asks and the user says no: the outcome is denied, and
		// the stage it went through is recorded with it.
		p := openShowcase(t, a)
		p.willAskForLocation()
		q := p.ask("where am i", "location")
		p.must(q.GetByTestId("location-share").Click())
		p.replied("Permission was refused — I don't know where you are.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Permission refused."))
		p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText(""))
		answered := p.events("run.completed").of("elicit.answered")
		if len(answered) != 1 || !strings.Contains(string(answered[0]), `"action":"denied"`) || !strings.Contains(string(answered[0]), `"status":"requesting-permission"`) {
			t.Errorf("recorded %s, want one denied answer after asking for permission", answered)
		}
	})

	run("unsupported at once", func(t *testing.T) {
		// A page whose modules implement nothing (the built-in methods
		// taken away) answers the location "unsupported" without a click,
		// and says so when it loads.
		p := openShowcase(t, a)
		p.withModule(`export {}`)
		announced := p.announcements()
		p.send("where am i")
		p.replied("Your device can't do that here — I don't know where you are.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Not available here: nothing on this page can do that."))
		answered := p.events("run.completed").of("elicit.answered")
		if len(answered) != 1 || !strings.Contains(string(answered[0]), `"action":"unsupported"`) {
			t.Errorf("recorded %s, want one unsupported answer", answered)
		}
		if got, want := announced(), []string{"notify-desktop", "take-photo"}; len(got) == 0 || !slices.Equal(got[0], want) {
			t.Errorf("the page announced %q, want the demo module's methods alone, %q", got, want)
		}
	})

	run("the page says what it implements", func(t *testing.T) {
		p := openShowcase(t, a)
		announced := p.announcements()
		p.send("hello")
		p.must(expect.Locator(p.lastAssistant()).Not().ToBeEmpty())
		waitFor(t, patience(10*time.Second), "the page's methods", func() bool { return len(announced()) > 0 })
		if got, want := announced()[0], []string{"clipboard-read", "clipboard-write", "location", "notify-desktop", "take-photo"}; !slices.Equal(got, want) {
			t.Errorf("the page announced %q, want %q", got, want)
		}
	})

	run("a result that breaks the schema is refused", func(t *testing.T) {
		// An implementation that answers a latitude no place has: the
		// server refuses it, the card says why and waits for another answer.
		p := openShowcase(t, a)
		p.withModule(`import { implement } from '/static/protocol.js'
implement('location', async () => ({ lat: 200, lng: 4.89 }))`)
		q := p.ask("where am i", "location")
		p.must(q.GetByTestId("location-share").Click())
		p.must(expect.Locator(q.GetByTestId("form-error")).ToHaveText("One answer needs fixing before this can be sent."))
		p.must(expect.Locator(q.GetByTestId("error-lat")).ToContainText("90"))
		p.must(expect.Locator(q.GetByTestId("location-share")).ToBeEnabled())
		p.must(expect.Locator(q).ToHaveAttribute("data-state", "pending"))
		p.must(q.GetByTestId("elicit-decline").Click())
		p.replied("You declined — I don't know where you are.")
	})

	run("stop withdraws a method that waits", func(t *testing.T) {
		// The method is still at work when the turn is stopped: the card is
		// withdrawn, the method hears so (ctx.signal) and nothing more is
		// posted for it.
		p := openShowcase(t, a)
		p.withModule(`import { implement } from '/static/protocol.js'
implement('location', (args, send, ctx) => new Promise((resolve) => {
  send({ status: 'requesting-permission' })
  ctx.signal.addEventListener('abort', () => { document.documentElement.dataset.methodStopped = 'yes'; resolve({ lat: 1, lng: 1 }) })
}))`)
		q := p.ask("where am i", "location")
		p.must(q.GetByTestId("location-share").Click())
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Asking for permission…"))
		p.must(expect.Locator(q.GetByTestId("location-share")).ToBeDisabled())
		p.must(p.GetByTestId("stop").Click())
		p.must(expect.Locator(p.Locator(`[data-testid=elicit][data-state=interrupted]`)).ToHaveCount(1))
		p.must(expect.Locator(p.Locator("html")).ToHaveAttribute("data-method-stopped", "yes"))
		p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText(""))
		if n := len(p.events("run.completed").of("elicit.answered")); n != 0 {
			t.Errorf("%d answers recorded for a withdrawn method, want none", n)
		}
	})
}

// A location the page waits on survives the server being killed: the page
// reconnects, the same card asks again, and its answer is recorded once.
func TestAWaitingLocationSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a, "geolocation")
	p.must(p.Context().SetGeolocation(&playwright.Geolocation{Latitude: 52.3731, Longitude: 4.8922, Accuracy: playwright.Float(25)}))
	q := p.ask("where am i", "location")
	eid, err := q.GetAttribute("data-elicit-id")
	p.must(err)

	a.stop(syscall.SIGKILL)
	_, err = p.WaitForFunction(`() => document.documentElement.dataset.stream === 'reconnecting'`, nil)
	p.must(err)
	a.start()
	p.waitForStream()

	card := p.Locator(`[data-testid=elicit][data-state=pending][data-elicit-id="` + eid + `"]`)
	p.must(expect.Locator(card).ToBeVisible())
	p.must(card.GetByTestId("location-share").Click())
	p.replied("You are at 52.3731, 4.8922 (within 25 m). Your device went through: acquiring.")
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	evs := p.events("run.completed")
	if n := len(evs.of("elicit.answered")); n != 1 {
		t.Errorf("%d answers recorded, want 1", n)
	}
	if n := len(evs.of("elicit.asked")); n != 1 {
		t.Errorf("the location was asked %d times, want once", n)
	}
}

// willAskForLocation makes the page's browser one that will ask before
// it gives the location: Playwright's Chromium either has the permission
// (granted) or refuses at once, and says so to navigator.permissions, so
// a prompt is never on the way. The permission itself stays Playwright's
// to grant or refuse.
func (p *chatPage) willAskForLocation() {
	p.t.Helper()
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(`{
  const query = navigator.permissions.query.bind(navigator.permissions)
  navigator.permissions.query = async (desc) => desc?.name === 'geolocation' ? { state: 'prompt', onchange: null } : query(desc)
}`)}))
}

// withModule serves js as the page's built-in methods (/static/methods.js),
// for the pages the browser loads from now on.
func (p *chatPage) withModule(js string) {
	p.t.Helper()
	p.must(p.Route("**/static/methods.js", func(r playwright.Route) {
		r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(200), ContentType: playwright.String("text/javascript; charset=utf-8"), Body: js})
	}))
}

// announcements records what the pages loaded from now on say they
// implement (POST /c/:id/methods, passed on to the server); it returns a
// function that reads them.
func (p *chatPage) announcements() func() [][]string {
	p.t.Helper()
	var (
		mu   sync.Mutex
		seen [][]string
	)
	p.must(p.Route("**/c/*/methods", func(r playwright.Route) {
		var body struct{ Methods []string }
		data, _ := r.Request().PostData()
		if err := json.Unmarshal([]byte(data), &body); err == nil {
			mu.Lock()
			seen = append(seen, append([]string{}, body.Methods...))
			mu.Unlock()
		}
		p.must(r.Continue())
	}))
	return func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// hold holds the page's next request to url whose body contains text
// (any, for ""), letting the others through; it returns a function that
// waits for the request held and hands it over, to let through when the
// test says.
func (p *chatPage) hold(url, text string) func() playwright.Route {
	p.t.Helper()
	held := make(chan playwright.Route, 1)
	var once sync.Once
	p.must(p.Route(url, func(r playwright.Route) {
		data, _ := r.Request().PostData()
		taken := false
		if strings.Contains(data, text) {
			once.Do(func() { taken = true; held <- r })
		}
		if !taken {
			r.Fallback()
		}
	}))
	return func() playwright.Route {
		p.t.Helper()
		select {
		case r := <-held:
			return r
		case <-time.After(patience(10 * time.Second)):
			p.t.Fatalf("the page sent no request to %s with %q", url, text)
			return nil
		}
	}
}

// convEvents are a conversation's events, as its event stream gives them.
type convEvents []struct {
	Type string
	Data json.RawMessage
}

// of are the data of the events of type typ.
func (evs convEvents) of(typ string) []json.RawMessage {
	var out []json.RawMessage
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e.Data)
		}
	}
	return out
}

// events reads the open conversation's event stream (GET /c/:id/events),
// as the page's session, from its start to the first event of type until.
func (p *chatPage) events(until string) convEvents {
	p.t.Helper()
	v, err := p.Evaluate(`([path, until]) => new Promise((resolve, reject) => {
  const es = new EventSource(path + '/events')
  const seen = []
  for (const type of ['run.started', 'elicit.asked', 'elicit.answered', 'run.completed']) {
    es.addEventListener(type, (e) => {
      seen.push({ type, data: JSON.parse(e.data) })
      if (type === until) { es.close(); resolve(JSON.stringify(seen)) }
    })
  }
  setTimeout(() => { es.close(); reject(new Error('no ' + until + ' event within 10 s: ' + JSON.stringify(seen))) }, 10000)
})`, []string{p.convPath(), until})
	p.must(err)
	var evs convEvents
	p.must(json.Unmarshal([]byte(v.(string)), &evs))
	return evs
}

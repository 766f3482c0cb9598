package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchTreeNodes is how large the inspected conversation is: at this size
// the inspector drawn whole is about 3 MB.
const benchTreeNodes = 3000

// otherEvery is how often the other user loads their page: each load
// starts this long after the one before, or when it answers, if later.
const otherEvery = 10 * time.Millisecond

// BenchmarkInspectorsAndOthers measures what tree inspectors open on one
// large conversation cost another user of the server. One session's
// conversation holds benchTreeNodes nodes; as many inspector streams as
// the sub-benchmark's name says are open on it, and a driver answers the
// conversation's survey questions back to back. Meanwhile another session
// loads the page of its own conversation, one load per iteration, every
// otherEvery (so ns/op is at least that). It reports the p50, p90 and
// slowest of those loads, the bytes per second the inspector streams
// received, and the answers per second the driven conversation got. Run
// it with -benchtime 200x: 200 loads.
func BenchmarkInspectorsAndOthers(b *testing.B) {
	if testing.Short() {
		b.Skip("opens 30 streams on a conversation of 3,000 nodes")
	}
	for _, n := range []int{0, 30} { // a browser may hold 32 streams; the driver's page is one more
		b.Run(fmt.Sprintf("inspectors=%d", n), func(b *testing.B) { benchInspectors(b, n) })
	}
}

func benchInspectors(b *testing.B, inspectors int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := newTestApp(b)
	// Their t stays nil: the benchmark's requests go through attempt, which
	// returns errors, since most are made off the benchmark's goroutine.
	owner, other := a.browser(nil), a.browser(nil)

	conv, err := owner.create("survey")
	if err != nil {
		b.Fatal(err)
	}
	growInspectedTree(b, a.db, conv, benchTreeNodes)
	mine, err := other.create("survey")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := other.questionAsked(ctx, mine, "1"); err != nil {
		b.Fatal(err)
	}

	var received atomic.Int64
	for range inspectors {
		if err := owner.inspect(ctx, conv, &received); err != nil {
			b.Fatal(err)
		}
	}
	driven, err := owner.drive(ctx, conv)
	if err != nil {
		b.Fatal(err)
	}

	var loads []time.Duration
	bytes0, answers0, t0 := received.Load(), driven.answers.Load(), time.Now()
	next := t0
	for b.Loop() {
		// The pause is the other user's schedule, not a wait for the server.
		time.Sleep(time.Until(next))
		start := time.Now()
		next = start.Add(otherEvery)
		if _, _, err := other.attempt(http.MethodGet, "/c/"+mine, "", ""); err != nil {
			b.Fatal(err)
		}
		loads = append(loads, time.Since(start))
	}
	secs := time.Since(t0).Seconds()
	got, answers := received.Load()-bytes0, driven.answers.Load()-answers0
	cancel()
	if err := driven.wait(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(benchMicros(loads, 0.50), "p50-µs")
	b.ReportMetric(benchMicros(loads, 0.90), "p90-µs")
	b.ReportMetric(benchMicros(loads, 1), "max-µs")
	b.ReportMetric(float64(got)/1e6/secs, "inspector-MB/s")
	b.ReportMetric(float64(answers)/secs, "answers/s")
}

// attempt is do for a benchmark, whose goroutines may not fail it: it reads
// the body to its end and returns the status and the Location header, or
// an error for a failure or a status of 400 or more.
func (b *browser) attempt(method, path, contentType, body string) (int, string, error) {
	req, err := http.NewRequest(method, b.app.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if method == http.MethodPost {
		req.Header.Set("Origin", b.app.srv.URL)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := b.c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 500))
		return res.StatusCode, "", fmt.Errorf("%s %s = %d %q", method, path, res.StatusCode, msg)
	}
	_, err = io.Copy(io.Discard, res.Body)
	return res.StatusCode, res.Header.Get("Location"), err
}

// create creates a conversation with agent and returns its id.
func (b *browser) create(agent string) (string, error) {
	code, loc, err := b.attempt(http.MethodPost, "/c", "application/x-www-form-urlencoded", url.Values{"agent": {agent}}.Encode())
	if err == nil && (code != http.StatusSeeOther || !strings.HasPrefix(loc, "/c/")) {
		err = fmt.Errorf("POST /c = %d to %q, want 303 to the conversation", code, loc)
	}
	return strings.TrimPrefix(loc, "/c/"), err
}

// questionAsked sends message to conv and returns the id of the question
// the agent then asks, as conv's stream shows it pending.
func (b *browser) questionAsked(ctx context.Context, conv, message string) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	asked, err := b.questions(ctx, conv)
	if err != nil {
		return "", err
	}
	if _, _, err := b.attempt(http.MethodPost, "/c/"+conv+"/messages", "application/json", `{"message":"`+message+`"}`); err != nil {
		return "", err
	}
	select {
	case id, ok := <-asked:
		if !ok {
			return "", fmt.Errorf("the stream of %s ended before a question", conv)
		}
		return id, nil
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("no question on the stream of %s after %q", conv, message)
	}
}

// questions opens conv's stream and sends the id of each question that
// shows there pending, once each; the channel closes when the stream ends,
// as it does when ctx does.
func (b *browser) questions(ctx context.Context, conv string) (<-chan string, error) {
	res, err := b.open(ctx, "/c/"+conv+"/stream")
	if err != nil {
		return nil, err
	}
	asked := make(chan string, 1)
	go func() {
		defer res.Body.Close()
		defer close(asked)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 64<<20) // the first event holds the whole conversation
		seen := map[string]bool{}
		for sc.Scan() {
			m := elicitIDRe.FindStringSubmatch(pendingQuestionPart(sc.Text()))
			if m == nil || seen[m[1]] {
				continue
			}
			seen[m[1]] = true
			select {
			case asked <- m[1]:
			case <-ctx.Done():
				return
			}
		}
	}()
	return asked, nil
}

// inspect opens an inspector stream of conv and returns once it has drawn
// the inspector whole; from then on, in the background, it adds what the
// stream sends to received.
func (b *browser) inspect(ctx context.Context, conv string, received *atomic.Int64) error {
	res, err := b.open(ctx, "/c/"+conv+"/tree/stream")
	if err != nil {
		return err
	}
	drawn := make(chan error, 1)
	go func() {
		defer res.Body.Close()
		buf := make([]byte, 64<<10)
		first := true // until the first event has ended
		var last byte // of the read before, for an event's end split between reads
		for {
			n, err := res.Body.Read(buf)
			received.Add(int64(n))
			if first && n > 0 && (last == '\n' && buf[0] == '\n' || bytes.Contains(buf[:n], []byte("\n\n"))) {
				drawn <- nil
				first = false
			}
			if n > 0 {
				last = buf[n-1]
			}
			if err != nil {
				if first {
					drawn <- fmt.Errorf("the inspector stream ended before its first event: %w", err)
				}
				return
			}
		}
	}()
	select {
	case err := <-drawn:
		return err
	case <-time.After(60 * time.Second):
		return errors.New("the inspector was not drawn within a minute")
	}
}

// open opens the stream at path, which ends when ctx does.
func (b *browser) open(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.app.srv.URL+path, nil)
	if err != nil {
		return nil, err
	}
	res, err := b.c.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("GET %s = %d", path, res.StatusCode)
	}
	return res, nil
}

// driver answers one conversation's questions back to back.
type driver struct {
	answers atomic.Int64
	done    chan error
}

// drive starts a survey in conv that asks without end, waits for its first
// question and answers it and every question after it, each as soon as
// conv's stream shows it, until ctx ends.
func (b *browser) drive(ctx context.Context, conv string) (*driver, error) {
	asked, err := b.questions(ctx, conv)
	if err != nil {
		return nil, err
	}
	if _, _, err := b.attempt(http.MethodPost, "/c/"+conv+"/messages", "application/json", `{"message":"1000000"}`); err != nil {
		return nil, err
	}
	d := &driver{done: make(chan error, 1)}
	go func() {
		for id := range asked {
			if ctx.Err() != nil {
				break
			}
			if _, _, err := b.attempt(http.MethodPost, "/c/"+conv+"/elicits/"+id, "application/json", `{"action":"accept","content":{"answer":"yes"}}`); err != nil {
				d.done <- err
				return
			}
			d.answers.Add(1)
		}
		d.done <- nil
	}()
	deadline := time.Now().Add(30 * time.Second)
	for d.answers.Load() == 0 {
		if time.Now().After(deadline) {
			return nil, errors.New("the driver answered nothing within 30 s")
		}
		time.Sleep(time.Millisecond) // polling a condition, with a deadline
	}
	return d, nil
}

// wait waits for the driver to stop, once its context has ended, and
// returns what stopped it early, if anything did.
func (d *driver) wait() error {
	select {
	case err := <-d.done:
		return err
	case <-time.After(30 * time.Second):
		return errors.New("the driver did not stop")
	}
}

// benchMicros is the q quantile of d in microseconds.
func benchMicros(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	k := int(math.Ceil(q*float64(len(d)))) - 1
	return float64(d[min(max(k, 0), len(d)-1)].Nanoseconds()) / 1e3
}

package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync/atomic"
	"time"
)

// The browsers of BenchmarkTokenStream: each holds one conversation's page
// open, reads its stream as a browser does and notes when each token of
// the model's replies first shows.

// tokenPage is one browser's page of one conversation.
type tokenPage struct {
	n      int // the conversation's number, from 0
	script *tokenScript
	base   string
	client *http.Client
	id     string
	stream *http.Response
	got    []atomic.Int64 // per token of all the replies: when an event first showed it, in Unix nanoseconds

	events, bytes atomic.Int64 // events and bytes the stream carried
	drafts        atomic.Int64 // events that showed a draft, checked
	done          chan int     // the replies done: exact, with the turn ended
	failed        chan error   // why reading the stream stopped
}

// openTokenPage creates conversation n with the general assistant in a
// session of its own and opens its stream.
func openTokenPage(ctx context.Context, base string, tr http.RoundTripper, n int, script *tokenScript) (*tokenPage, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	p := &tokenPage{n: n, script: script, base: base, got: make([]atomic.Int64, script.tokens),
		done: make(chan int, len(script.replies)), failed: make(chan error, 1),
		client: &http.Client{Transport: tr, Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	res, err := p.post(ctx, "/c", "application/x-www-form-urlencoded", "agent=assistant")
	if err != nil {
		return nil, err
	}
	p.id = strings.TrimPrefix(res.Header.Get("Location"), "/c/")
	if res.StatusCode != http.StatusSeeOther || p.id == "" {
		return nil, fmt.Errorf("POST /c = %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/c/"+p.id+"/stream", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if p.stream, err = p.client.Do(req); err != nil {
		return nil, err
	}
	if p.stream.StatusCode != http.StatusOK {
		p.stream.Body.Close()
		return nil, fmt.Errorf("GET /c/%s/stream = %d", p.id, p.stream.StatusCode)
	}
	go func() { p.failed <- p.read(p.stream.Body) }()
	return p, nil
}

// post sends a command as the page does and reads its answer.
func (p *tokenPage) post(ctx context.Context, path, contentType, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Origin", p.base)
	req.Header.Set("Content-Type", contentType)
	res, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return res, err
}

// close ends the stream.
func (p *tokenPage) close() { p.stream.Body.Close() }

// converse asks the conversation's questions one after another, the first
// at start, each as soon as the page shows the one before answered, and
// returns once the last is.
func (p *tokenPage) converse(ctx context.Context, start time.Time) error {
	select {
	// The pause spreads the conversations' starts; it waits for no server.
	case <-time.After(time.Until(start)):
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	for r := range p.script.replies {
		body, _ := json.Marshal(map[string]string{"message": ask(p.n, r)})
		res, err := p.post(ctx, "/c/"+p.id+"/messages", "application/json", string(body))
		if err != nil {
			return err
		}
		if res.StatusCode >= 300 {
			return fmt.Errorf("POST /c/%s/messages = %d", p.id, res.StatusCode)
		}
		select {
		case <-p.done:
		case err := <-p.failed:
			return fmt.Errorf("reply %d: %w", r+1, err)
		case <-time.After(time.Minute):
			return fmt.Errorf("reply %d was not done within a minute; %d of its %d tokens shown",
				r+1, p.shown(r), len(p.script.replies[r].tokens))
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// shown counts the tokens of reply r the page has shown.
func (p *tokenPage) shown(r int) int {
	n := 0
	for i := range p.script.replies[r].tokens {
		if p.got[p.script.first[r]+i].Load() != 0 {
			n++
		}
	}
	return n
}

var (
	errWrongDraft = errors.New("a draft on the page is not the rendering of the model's text so far")
	errNotExact   = errors.New("a reply's message is not the rendering of the model's text")
	draftDiv      = []byte(`data-testid="draft" dir="auto">`)
	closeDiv      = []byte(`</div>`)
	runningFalse  = []byte(`data-testid="status" data-running="false"`)
	turnError     = []byte(`data-testid="turn-error"`)
	assistantMsg  = []byte(`data-testid="assistant-message"`)
	elementsLine  = []byte("data: elements ")
	appendingLine = []byte("data: mode append")
)

// read reads the page's stream as a browser does, one event at a time. On
// each it notes the tokens it shows for the first time, checks that a
// draft is the rendering of the reply's text up to some token and that a
// reply's message is that of its whole text, and reports a reply done once
// its message is there and the turn has ended.
func (p *tokenPage) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		data, line []byte
		appending  bool
		reply      int  // the reply being waited for
		next       int  // its first token not shown yet
		exact      bool // its message was shown, exact
	)
	for {
		line = line[:0]
		for {
			part, err := br.ReadSlice('\n')
			line = append(line, part...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return err
			}
			break
		}
		p.bytes.Add(int64(len(line)))
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case bytes.HasPrefix(line, elementsLine):
			data = append(append(data, line[len(elementsLine):]...), '\n')
			continue
		case bytes.Equal(line, appendingLine):
			appending = true
			continue
		case len(line) > 0 || len(data) == 0:
			// Another field, or a blank line that ends no event (Datastar
			// ends its events with two).
			continue
		}
		// The event is whole, and the browser applies it now.
		at := time.Now().UnixNano()
		p.events.Add(1)
		if reply < len(p.script.replies) {
			rp, first := p.script.replies[reply], p.script.first[reply]
			show := func(upTo int) { // the tokens before upTo show
				for ; next < upTo; next++ {
					p.got[first+next].Store(at)
				}
			}
			if i := bytes.Index(data, draftDiv); i >= 0 {
				k, ok := rp.draftShown(data[i+len(draftDiv):], max(next-1, 0))
				if !ok {
					return fmt.Errorf("reply %d, after %d tokens: %w; the page shows:\n%s", reply+1, next, errWrongDraft, data)
				}
				show(k + 1)
				p.drafts.Add(1)
			}
			switch {
			case bytes.Contains(data, rp.final):
				show(len(rp.tokens))
				exact = true
			case appending && bytes.Contains(data, assistantMsg):
				return fmt.Errorf("reply %d: %w; the page shows:\n%s", reply+1, errNotExact, data)
			case bytes.Contains(data, turnError):
				return fmt.Errorf("reply %d: the turn failed; the page shows:\n%s", reply+1, data)
			}
			if exact && bytes.Contains(data, runningFalse) {
				p.done <- reply
				reply, next, exact = reply+1, 0, false
			}
		}
		data, appending = data[:0], false
	}
}

// draftShown finds which draft of the reply html starts with, the draft
// being followed by the end of its element: the last token it shows. The
// drafts from token from on are tried, in order; a page never shows fewer
// tokens than it did.
func (r *tokenReply) draftShown(html []byte, from int) (int, bool) {
	for k := from; k < len(r.drafts); k++ {
		d := r.drafts[k]
		if d.n <= len(html) && bytes.HasPrefix(html[d.n:], closeDiv) && sumOf(html[:d.n]) == d {
			return k, true
		}
	}
	return 0, false
}

package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/markdown"
)

// The model of BenchmarkTokenStream: what it answers, cut into tokens, and
// an OpenAI-compatible endpoint that streams it at a steady pace.

// tokenReplyText is the markdown of every reply: what a model answers a
// question about a trip with, with headings, emphasis, two lists, a table
// and a code block. %d is the reply's number, so that the replies of a
// conversation differ.
const tokenReplyText = `## A plan for trip %d

Here is what I found for your trip. The **short answer**: take the train. It is the most *reliable* option, and once you count the transfers it costs about the same as flying.

### What to book

- A return ticket on the morning train, with a reserved seat
- Two nights at the hotel near the station, breakfast included
- A day pass for the local buses and trams
- Travel insurance that covers delays and cancellations

### How the options compare

| Option | Time | Cost | Notes |
|---|---|---|---|
| Train | 4 h | €40 | from centre to centre |
| Flight | 3 h | €90 | add the airport transfers |
| Car | 5 h | €120 | parking is hard to find |

### On the day

1. Leave the hotel early: the station is a short walk, but the morning queues are long.
2. Keep your ticket and your passport at hand, since both are checked before you board.
3. Buy water and something to eat before the train leaves, because the buffet car is often closed.

A note on the weather: it is *usually* mild in the spring, but bring a coat for the evenings and an umbrella for the odd shower.

### Checking the fares yourself

If you want to check the fares again later, this small function adds up the costs of a plan:

` + "```go" + `
func total(items []Item) int {
	sum := 0
	for _, item := range items {
		sum += item.Cost
	}
	return sum
}
` + "```" + `

Run it with your own list of items; the result is the cost in euros. Ask me if you want me to book any of this, or to look at another date for trip %d.
`

// tokenScript is the replies of every conversation: all conversations get
// the same replies, in the same order.
type tokenScript struct {
	replies []*tokenReply
	first   []int // per reply, the number of its first token among all the replies
	tokens  int   // the tokens of all the replies
}

// tokenReply is one reply: its tokens, the events the model streams them
// in, the page's rendering of each draft, and of the reply's message.
type tokenReply struct {
	tokens []string
	chunks [][]byte
	// drafts[k] is the rendering of the draft of tokens [0, k], as its
	// length and hash: what a page showing those tokens holds.
	drafts []draftSum
	// final is what the page holds once the reply is a message of its
	// own: exactly the rendering of the model's text.
	final []byte
}

// draftSum stands for a draft's HTML.
type draftSum struct {
	n   int
	sum uint64
}

var draftSeed = maphash.MakeSeed()

func sumOf(html []byte) draftSum { return draftSum{len(html), maphash.Bytes(draftSeed, html)} }

func newTokenScript(replies int) *tokenScript {
	s := &tokenScript{}
	for r := range replies {
		reply := newTokenReply(fmt.Sprintf(tokenReplyText, r+1, r+1))
		s.replies = append(s.replies, reply)
		s.first = append(s.first, s.tokens)
		s.tokens += len(reply.tokens)
	}
	return s
}

// newTokenReply cuts text into tokens, as tokenize does, and renders each
// draft. A token that would not change the page (a table row's closing
// "|") joins the token before it, so that every token shows.
func newTokenReply(text string) *tokenReply {
	r := &tokenReply{}
	var draft strings.Builder
	for _, t := range tokenize(text) {
		draft.WriteString(t)
		sum := sumOf([]byte(markdown.HTML(draft.String())))
		if n := len(r.tokens); n > 0 && sum == r.drafts[n-1] {
			r.tokens[n-1] += t
			continue
		}
		r.tokens = append(r.tokens, t)
		r.drafts = append(r.drafts, sum)
	}
	for _, t := range r.tokens {
		r.chunks = append(r.chunks, streamChunk(t))
	}
	r.final = []byte(`data-testid="assistant-message" dir="auto">` + markdown.HTML(text) + "</div>")
	return r
}

// tokenize cuts md into tokens of a few bytes, as a model's tokenizer
// does: a word or a piece of a long one, with the white space before it,
// or a short run of other characters.
func tokenize(md string) []string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }
	isWord := func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c >= 0x80 }
	var toks []string
	for i := 0; i < len(md); {
		j := i
		for j < len(md) && isSpace(md[j]) {
			j++
		}
		if j == len(md) { // white space at the end
			toks[len(toks)-1] += md[i:]
			break
		}
		k := j + 1
		if isWord(md[j]) {
			for k < len(md) && isWord(md[k]) && (k-j < 6 || md[k] >= 0x80 && md[k] < 0xc0) {
				k++
			}
		} else {
			for k < len(md) && !isWord(md[k]) && !isSpace(md[k]) && k-j < 3 {
				k++
			}
		}
		toks = append(toks, md[i:k])
		i = k
	}
	return toks
}

// streamChunk is one event of an OpenAI chat completion stream carrying
// text.
func streamChunk(text string) []byte {
	type delta struct {
		Content string `json:"content"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	b, err := json.Marshal(struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
	}{"chatcmpl-bench", "chat.completion.chunk", 1700000000, "bench", []choice{{Delta: delta{Content: text}}}})
	if err != nil {
		panic(err)
	}
	return append(append([]byte("data: "), b...), "\n\n"...)
}

// ask is the question r (from 0) of conversation n (from 0): the model
// knows from it which reply to stream, and for whom.
func ask(n, r int) string {
	return fmt.Sprintf("Conversation %d, question %d: plan my trip.", n+1, r+1)
}

// pacedModel is an OpenAI-compatible chat completions endpoint that streams
// the replies of its script one token every interval, and notes when it
// has written each token.
type pacedModel struct {
	srv      *httptest.Server
	script   *tokenScript
	interval time.Duration
	sent     [][]atomic.Int64 // per conversation and token: when written, in Unix nanoseconds
}

func newPacedModel(script *tokenScript, conversations int, interval time.Duration) *pacedModel {
	m := &pacedModel{script: script, interval: interval}
	for range conversations {
		m.sent = append(m.sent, make([]atomic.Int64, script.tokens))
	}
	return m
}

// reset forgets when tokens were sent, for another run.
func (m *pacedModel) reset() {
	for _, s := range m.sent {
		for i := range s {
			s[i].Store(0)
		}
	}
}

func (m *pacedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Stream {
		http.Error(w, "the benchmark's model streams only", http.StatusBadRequest)
		return
	}
	var n, q int
	for _, msg := range slices.Backward(req.Messages) {
		if msg.Role == "user" {
			if _, err := fmt.Sscanf(msg.Content, "Conversation %d, question %d:", &n, &q); err != nil {
				http.Error(w, "the benchmark's model does not know "+strconv.Quote(msg.Content), http.StatusBadRequest)
				return
			}
			break
		}
	}
	n, q = n-1, q-1
	if n < 0 || n >= len(m.sent) || q < 0 || q >= len(m.script.replies) {
		http.Error(w, "no such conversation or question", http.StatusBadRequest)
		return
	}
	reply, sent := m.script.replies[q], m.sent[n][m.script.first[q]:]
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	start := time.Now()
	for i, chunk := range reply.chunks {
		// The pause is the model's pace, not a wait for the server.
		time.Sleep(time.Until(start.Add(time.Duration(i) * m.interval)))
		if _, err := w.Write(chunk); err != nil {
			return
		}
		flusher.Flush()
		sent[i].Store(time.Now().UnixNano())
	}
	io.WriteString(w, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	flusher.Flush()
}

// The benchmark's replies are a few hundred tokens of a few bytes each,
// with the blocks a model writes, and every token changes the page.
func TestTokenScript(t *testing.T) {
	s := newTokenScript(2)
	for i, r := range s.replies {
		text := fmt.Sprintf(tokenReplyText, i+1, i+1)
		if got := strings.Join(r.tokens, ""); got != text {
			t.Fatalf("reply %d: the tokens make %q, want %q", i, got, text)
		}
		if n := len(r.tokens); n < 250 || n > 600 {
			t.Errorf("reply %d is %d tokens, want a few hundred", i, n)
		}
		if avg := float64(len(text)) / float64(len(r.tokens)); avg < 3 || avg > 6 {
			t.Errorf("reply %d: %.1f bytes a token, want about four, as a model's", i, avg)
		}
		for k := 1; k < len(r.drafts); k++ {
			if r.drafts[k] == r.drafts[k-1] {
				t.Errorf("reply %d: token %d (%q) does not change the page", i, k, r.tokens[k])
			}
		}
		for _, block := range []string{`<h2 dir="auto">`, "<strong>", `<ul dir="auto">`, `<ol dir="auto">`, "<table>", `<code class="language-go">`} {
			if !bytes.Contains(r.final, []byte(block)) {
				t.Errorf("reply %d renders no %s", i, block)
			}
		}
	}
	if s.replies[0].drafts[len(s.replies[0].drafts)-1] == s.replies[1].drafts[len(s.replies[1].drafts)-1] {
		t.Error("two replies are the same")
	}
}

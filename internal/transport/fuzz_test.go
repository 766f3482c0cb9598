package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The fuzz targets here send any body, with any content type, to the
// routes that read what a browser sends, through the real handler and a
// real SQLite file. What a user relies on: every request is answered 2xx,
// or 4xx with a plain-text message saying what is wrong, never 5xx or a
// dropped connection; and a refused request records nothing. Each target
// keeps one app and one conversation across its inputs, and sets the
// conversation up again only when an accepted request has used it up.

// seenType remembers the Content-Type of the last response a browser got,
// to tell a plain-text message from a page or a stream.
type seenType struct {
	rt   http.RoundTripper
	last string
}

func (c *seenType) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := c.rt.RoundTrip(r)
	if err == nil {
		c.last = res.Header.Get("Content-Type")
	}
	return res, err
}

// subject is the conversation a fuzz target sends its requests about, in
// the state setup puts it: ref names what the requests are about there (a
// question, a message). nodes is the size of its record then.
type subject struct {
	app   *testApp
	b     *browser
	types *seenType
	setup func(b *browser) (conv, ref string)
	conv  string
	ref   string
	nodes int
}

func newSubject(f *testing.F, setup func(b *browser) (conv, ref string)) *subject {
	a := newTestApp(f)
	b := a.browser(nil) // each input gives it its own *testing.T
	types := &seenType{rt: http.DefaultTransport}
	b.c.Transport = types
	return &subject{app: a, b: b, types: types, setup: setup}
}

// ready makes t the browser's test and sets the conversation up when an
// accepted request used it up (or on the first input).
func (s *subject) ready(t *testing.T) {
	s.b.t = t
	if s.conv == "" {
		s.conv, s.ref = s.setup(s.b)
		s.nodes = s.app.nodeCount(t, s.conv)
	}
}

// used marks the conversation used up: the next input sets up another. A
// target calls it as soon as a request is taken, before checking anything
// more, so that one failure does not fail every input after it.
func (s *subject) used() { s.conv = "" }

// send makes a request and checks its answer; it reports whether the
// request was taken (2xx). A Content-Type with control characters cannot be
// sent (net/http refuses it on both ends), so that input is skipped.
func (s *subject) send(t *testing.T, method, path, contentType, body string) bool {
	t.Helper()
	if strings.ContainsFunc(contentType, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		t.Skip("no client can send this Content-Type")
	}
	code, msg := s.b.do(method, path, contentType, body)
	switch {
	case code >= 200 && code < 300:
		return true
	case code >= 400 && code < 500:
		if !strings.HasPrefix(s.types.last, "text/plain") || strings.TrimSpace(msg) == "" {
			t.Fatalf("%s %s (%q) %q = %d %s %q, want a plain-text message", method, path, contentType, body, code, s.types.last, msg)
		}
		if got := s.app.nodeCount(t, s.conv); got != s.nodes {
			t.Fatalf("%s %s (%q) %q was refused (%d %q), yet the record changed: %d nodes, was %d",
				method, path, contentType, body, code, msg, got, s.nodes)
		}
		return false
	}
	t.Fatalf("%s %s (%q) %q = %d %q, want 2xx, or 4xx with a message", method, path, contentType, body, code, msg)
	return false
}

// waitingForm starts a conversation whose concierge waits on its trip form:
// text, a number, a choice and a yes/no. ref is the question.
func waitingForm(b *browser) (conv, eid string) {
	conv = b.newConversation("concierge")
	return conv, b.pendingElicit(conv, "a trip")
}

// answeredSurvey starts a conversation whose survey asked one question,
// had it answered and replied. ref is the question.
func answeredSurvey(b *browser) (conv, eid string) {
	conv = b.newConversation("survey")
	eid = b.pendingElicit(conv, "1")
	if code, body := b.do(http.MethodPost, "/c/"+conv+"/elicits/"+eid, "application/json", `{"action":"accept","content":{"answer":"first"}}`); code != http.StatusNoContent {
		b.t.Fatalf("answer the survey = %d %q", code, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !hasNode(b.app.nodes(b.t, conv), tree.AssistantMessage) {
		if time.Now().After(deadline) {
			b.t.Fatalf("the survey did not reply")
		}
		time.Sleep(5 * time.Millisecond) // polling the database for a condition, with a deadline
	}
	return conv, eid
}

// sentMessage is answeredSurvey with ref its message's node.
func sentMessage(b *browser) (conv, node string) {
	conv, _ = answeredSurvey(b)
	for _, n := range b.app.nodes(b.t, conv) {
		if n.Kind == tree.UserMessage {
			return conv, strconv.FormatInt(n.ID, 10)
		}
	}
	b.t.Fatalf("the survey's record has no message")
	return "", ""
}

// newSurvey starts a conversation with the survey that has no message yet.
func newSurvey(b *browser) (conv, ref string) { return b.newConversation("survey"), "" }

func (a *testApp) nodes(t *testing.T, conv string) []tree.Node {
	t.Helper()
	nodes, err := a.db.Nodes(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

func hasNode(nodes []tree.Node, kind tree.Kind) bool {
	for _, n := range nodes {
		if n.Kind == kind {
			return true
		}
	}
	return false
}

// answersDecode checks every answer recorded to question eid, once taken:
// it passes the question's check and decodes into the agent's type T.
func answersDecode[T any](t *testing.T, a *testApp, conv, eid string) {
	t.Helper()
	nodes := a.nodes(t, conv)
	var req elicit.Request
	for _, n := range nodes {
		if n.Kind == tree.ElicitRequest && n.Ref == eid {
			if err := json.Unmarshal(n.Payload, &req); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range nodes {
		if n.Kind != tree.ElicitResponse || n.Ref != eid {
			continue
		}
		var resp elicit.Response
		if err := json.Unmarshal(n.Payload, &resp); err != nil {
			t.Fatal(err)
		}
		if err := kindset.New(demo.Kinds()...).Check(req, resp); err != nil {
			t.Fatalf("recorded answer %s breaks the question's rules: %v", n.Payload, err)
		}
		if _, err := elicit.Form[T]().Decode(resp); err != nil {
			t.Fatalf("recorded answer %s does not decode for the agent: %v", n.Payload, err)
		}
	}
}

// answerSeeds are answers to the concierge's trip form, as JSON and as
// forms, well and badly made.
var answerSeeds = []struct{ contentType, body string }{
	{"application/json", `{"action":"accept","content":{"destination":"Rome","travellers":2,"cabin":"economy","hotel":true}}`},
	{"application/json; charset=utf-8", `{"action":"decline"}`},
	{"APPLICATION/JSON", `{"action":"cancel"}`},
	{"application/json", `{"action":"denied"}`},
	{"application/json", `{"action":"other","text":"make it 3 travellers"}`},
	{"application/json", `{"action":"other","text":" \r\n "}`},
	{"application/json", `{"action":"other","text":"x\r\nevent: datastar-patch-signals\r\ndata: signals {}"}`},
	{"application/json", `{"action":"accept","content":{"destination":"Rome","travellers":2.0,"cabin":"economy","hotel":true}}`},
	{"application/json", `{"action":"accept","content":{"destination":"Rome","travellers":1e999,"cabin":"economy","hotel":true}}`},
	{"application/json", `{"action":"accept","content":{"destination":7,"destination":"Rome","travellers":2,"cabin":"economy","hotel":true}}`},
	{"application/json", `{"action":"accept","action":"decline"}`},
	{"application/json", `{"action":"accept","content":{"destination":"R\u0000m\ud800","travellers":9,"cabin":"business","hotel":false}}`},
	{"application/json", `{"action":"accept","content":null}`},
	{"application/json", `{"action":"accept","content":"Rome"}`},
	{"application/json", `{"action":"accept","content":{}} trailing`},
	{"application/json", `{"action":"accept","content":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`},
	{"application/json", `{"action":1}`},
	{"application/json", `{"Action":"decline"}`},
	{"application/json", `null`},
	{"application/json", `[]`},
	{"application/json", ``},
	{"application/json", `{"action":"accept","content":{"destination":"` + strings.Repeat("x", 5000) + `"}}`},
	{"application/x-www-form-urlencoded", "_action=accept&destination=Rome&travellers=2&cabin=economy&hotel=on"},
	{"application/x-www-form-urlencoded", "_action=accept&destination=Rome&travellers=NaN&cabin=economy&hotel=on"},
	{"application/x-www-form-urlencoded", "_action=accept&destination=R&travellers=ten&cabin=first&hotel=maybe&admin=1"},
	{"application/x-www-form-urlencoded", "_action=accept&_action=decline&destination=%zz"},
	{"application/x-www-form-urlencoded", "_action=other&_text=%00%0D%0A"},
	{"application/x-www-form-urlencoded", "_action=maybe"},
	{"application/x-www-form-urlencoded", "destination=Rome;travellers=2"},
	{"application/x-www-form-urlencoded", ""},
	{"multipart/form-data; boundary=X", "--X\r\nContent-Disposition: form-data; name=\"_action\"\r\n\r\naccept\r\n" +
		"--X\r\nContent-Disposition: form-data; name=\"destination\"\r\n\r\nRome\r\n" +
		"--X\r\nContent-Disposition: form-data; name=\"travellers\"\r\n\r\n3\r\n" +
		"--X\r\nContent-Disposition: form-data; name=\"cabin\"\r\n\r\npremium\r\n" +
		"--X\r\nContent-Disposition: form-data; name=\"hotel\"; filename=\"h.txt\"\r\n\r\non\r\n--X--\r\n"},
	{"multipart/form-data; boundary=X", "--X\r\nContent-Disposition: form-data; name=\"_action\"\r\n\r\ndecline"},
	{"multipart/form-data", "_action=decline"},
	{"text/plain", "accept"},
	{"", `{"action":"decline"}`},
	{"application/json;;", `{"action":"decline"}`},
}

// FuzzAnswerElicit answers the concierge's waiting form with any body: it
// is taken, and then what is recorded passes the form's rules and decodes
// into the agent's TripDetails, or refused with a message, recording
// nothing.
func FuzzAnswerElicit(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s.contentType, []byte(s.body))
	}
	s := newSubject(f, waitingForm)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		s.ready(t)
		if conv, eid := s.conv, s.ref; s.send(t, http.MethodPost, "/c/"+conv+"/elicits/"+eid, contentType, string(body)) {
			s.used()
			answersDecode[demo.TripDetails](t, s.app, conv, eid)
		}
	})
}

// FuzzChangeAnswer changes the answer to a survey's question with any body:
// the new answer is taken, and then passes the question's rules and decodes
// into the agent's SurveyAnswer, or refused with a message, recording
// nothing.
func FuzzChangeAnswer(f *testing.F) {
	f.Add("application/json", []byte(`{"action":"accept","content":{"answer":"second"}}`))
	f.Add("application/x-www-form-urlencoded", []byte("_action=accept&answer=second%0D%0Athoughts"))
	f.Add("application/x-www-form-urlencoded", []byte("_action=accept&answer="+strings.Repeat("%C3%A9", 600)))
	f.Add("application/json", []byte(`{"action":"accept","content":{"answer":["second"]}}`))
	f.Add("application/json", []byte(`{"action":"accept","content":{"answer":"a","answer":7}}`))
	for _, s := range answerSeeds {
		f.Add(s.contentType, []byte(s.body))
	}
	s := newSubject(f, answeredSurvey)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		s.ready(t)
		if conv, eid := s.conv, s.ref; s.send(t, http.MethodPost, "/c/"+conv+"/elicits/"+eid+"/change", contentType, string(body)) {
			s.used()
			answersDecode[demo.SurveyAnswer](t, s.app, conv, eid)
		}
	})
}

// FuzzElicitProgress reports any progress on the concierge's waiting form:
// taken or refused, with a message, it is never recorded.
func FuzzElicitProgress(f *testing.F) {
	for _, seed := range []string{
		`{"stage":"acquiring"}`, `{"stage":"requesting-permission","message":"Asking…"}`, `{"stage":""}`,
		`{"stage":1}`, `{"stage":"x","extra":true}`, `{"stage":"a","stage":"b"}`, `{"stage":"\r\nevent: x"}`,
		`{}`, `null`, `[]`, ``, `{"stage":"` + strings.Repeat("\u00e9", 3000) + `"}`, `{"stage":"x"} {"stage":"y"}`,
	} {
		f.Add("application/json", []byte(seed))
	}
	f.Add("text/plain", []byte(`{"stage":"acquiring"}`))
	s := newSubject(f, waitingForm)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		s.ready(t)
		s.send(t, http.MethodPost, "/c/"+s.conv+"/elicits/"+s.ref+"/progress", contentType, string(body))
		if got := s.app.nodeCount(t, s.conv); got != s.nodes {
			t.Fatalf("progress %q was recorded: %d nodes, was %d", body, got, s.nodes)
		}
	})
}

// FuzzSendMessage sends any Datastar signals as a message to a survey: the
// message is taken and recorded, or refused with a message, recording
// nothing.
func FuzzSendMessage(f *testing.F) {
	for _, seed := range []string{
		`{"message":"hi"}`, `{"message":"2"}`, `{"message":""}`, `{"message":" \r\n\t "}`, `{"message":"\u0000"}`,
		`{"message":7}`, `{"message":null}`, `{"message":["hi"]}`, `{"message":"a","message":"b"}`, `{"message":"a","other":1}`,
		`{"message":"x\r\nevent: datastar-patch-signals\r\ndata: signals {\"admin\":true}"}`, `{"message":"Zoë 🚀 \u202e"}`,
		`{"message":"` + strings.Repeat("x", 5000) + `"}`, `{}`, `null`, `[]`, ``, `{"message":"hi"}}`,
		`{"message":"hi","messageId":"0b7e5c1a-2f4d-4e8a-9c61-3d2f8a7b6c50"}`, `{"message":"hi","messageId":"../x"}`,
		`{"message":"hi","messageId":7}`, `{"message":"hi","messageId":"` + strings.Repeat("x", 65) + `"}`,
		`{"nested":` + strings.Repeat(`{"a":`, 500) + `1` + strings.Repeat(`}`, 500) + `}`,
	} {
		f.Add("application/json", []byte(seed))
	}
	f.Add("application/x-www-form-urlencoded", []byte("message=hi"))
	f.Add("", []byte(`{"message":"hi"}`))
	s := newSubject(f, newSurvey)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		s.ready(t)
		if conv := s.conv; s.send(t, http.MethodPost, "/c/"+conv+"/messages", contentType, string(body)) {
			s.used()
			if !hasNode(s.app.nodes(t, conv), tree.UserMessage) {
				t.Fatalf("message %q was taken but not recorded", body)
			}
		}
	})
}

// FuzzEditMessage edits a survey's message with any body: the edit is
// taken, or refused with a message, recording nothing.
func FuzzEditMessage(f *testing.F) {
	for _, seed := range []struct{ contentType, body string }{
		{"application/x-www-form-urlencoded", "message=again"},
		{"application/x-www-form-urlencoded", "message="},
		{"application/x-www-form-urlencoded", "message=%0D%0A%00"},
		{"application/x-www-form-urlencoded", "message=a&message=b"},
		{"application/x-www-form-urlencoded", "message=%zz"},
		{"application/x-www-form-urlencoded", "text=again"},
		{"application/x-www-form-urlencoded", "message=" + strings.Repeat("x", 5000)},
		{"application/x-www-form-urlencoded; charset=utf-8", "message=Zo%C3%AB"},
		{"multipart/form-data; boundary=X", "--X\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nagain\r\n--X--\r\n"},
		{"multipart/form-data; boundary=X", "--X\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nagain"},
		{"multipart/form-data", "message=again"},
		{"application/json", `{"message":"again"}`},
		{"", "message=again"},
	} {
		f.Add(seed.contentType, []byte(seed.body))
	}
	s := newSubject(f, sentMessage)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		s.ready(t)
		if s.send(t, http.MethodPost, "/c/"+s.conv+"/messages/"+s.ref+"/edit", contentType, string(body)) {
			s.used()
		}
	})
}

// FuzzPathParams names nodes and reflog entries of a survey with any text,
// in the path and in ?at=: the request is taken, or refused with a message,
// recording nothing.
func FuzzPathParams(f *testing.F) {
	for _, seed := range []string{
		"1", "2", "0", "-1", "+1", "01", "1e3", "0x10", " 1", "1 ", "١", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "", ".", "..", "/", "1/2", "%00", "\x00", "\r\n", "?at=1", "#",
	} {
		f.Add(seed)
	}
	s := newSubject(f, answeredSurvey)
	f.Fuzz(func(t *testing.T, param string) {
		s.ready(t)
		c, p := "/c/"+s.conv, url.PathEscape(param)
		s.send(t, http.MethodGet, c+"/tree?at="+url.QueryEscape(param), "", "")
		for _, path := range []string{c + "/nodes/" + p + "/switch", c + "/replies/" + p + "/retry", c + "/reflog/" + p + "/recover"} {
			if s.send(t, http.MethodPost, path, "", "") {
				s.used() // the conversation moved: the next input starts another
				return
			}
		}
	})
}

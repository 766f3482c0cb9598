package transport

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
	"github.com/sweatpants-go/sweatpants/llm"
)

// A model call recorded as what was new in its request is shown in the
// inspector with its whole request, in its line and its payload, and says
// how it was recorded; so is one recorded whole, as before. The debug page
// lists every message each call sent.
func TestTheInspectorAndTheDebugPageShowACallsWholeRequest(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("survey")
	ctx := context.Background()
	add := func(n tree.Node) tree.Node {
		n.Conversation = conv
		n, err := a.db.Append(ctx, n, tree.AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	tools := []llm.ToolSpec{{Name: "look", Parameters: []byte(`{"type":"object"}`)}}
	first := llm.Request{Messages: []llm.Message{{Role: llm.System, Content: "You are the survey agent."}, {Role: llm.User, Content: "go"}}, Tools: tools}
	second := first
	second.Messages = append(first.Messages[:2:2], llm.Message{Role: llm.Assistant, Content: "looking"}, llm.Message{Role: llm.User, Content: "and then?"})
	msg := add(tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "go"})})
	s1 := add(tree.Node{Parent: msg.ID, Kind: tree.Sample, Ref: "1-1", Payload: tree.MustEncode(tree.SampleRecord{Request: first, Response: &llm.Response{Content: "looking"}})})
	rec := tree.Prior{Node: s1.ID, Request: first}.Record(second)
	rec.Response = &llm.Response{Content: "done"}
	s2 := add(tree.Node{Parent: s1.ID, Kind: tree.Sample, Ref: "1-2", Payload: tree.MustEncode(rec)})

	code, body := b.do(http.MethodGet, "/c/"+conv+"/tree", "", "")
	if code != http.StatusOK {
		t.Fatalf("GET tree = %d", code)
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		node           int64
		line, recorded string
		payload        []string
	}{
		{s1.ID, "2 messages, 1 tool", "whole", []string{"You are the survey agent."}},
		{s2.ID, "4 messages, 1 tool", "as what is new: 2 messages after the first 2 messages of #" + strconv.FormatInt(s1.ID, 10) + "'s request, and the same tools",
			[]string{"You are the survey agent.", "and then?", `"look"`}},
	} {
		li := domByID(doc, templates.NodeElementID(tt.node))
		if li == nil {
			t.Fatalf("node %d is not drawn", tt.node)
		}
		if got := domText(byTestID(li, "sample-line")); !strings.Contains(got, tt.line) {
			t.Errorf("node %d's line %q, want %q in it", tt.node, got, tt.line)
		}
		if got := domText(byTestID(li, "sample-recorded")); got != tt.recorded {
			t.Errorf("node %d recorded %q, want %q", tt.node, got, tt.recorded)
		}
		payload := domText(byTestID(li, "node-payload"))
		for _, want := range tt.payload {
			if !strings.Contains(payload, want) {
				t.Errorf("node %d's payload lacks %s:\n%s", tt.node, want, payload)
			}
		}
	}

	// The debug page lists both calls with every message they sent.
	code, body = b.do(http.MethodGet, "/c/"+conv+"/debug", "", "")
	if code != http.StatusOK {
		t.Fatalf("GET debug = %d", code)
	}
	if doc, err = html.Parse(strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		node int64
		sent string
	}{{s1.ID, "Messages sent (2)"}, {s2.ID, "Messages sent (4)"}} {
		li := domByID(doc, templates.DebugEntryID(tt.node))
		if li == nil {
			t.Fatalf("call %d is not on the debug page", tt.node)
		}
		msgs := byTestID(li, "call-messages")
		if got := domText(msgs.Parent); !strings.Contains(got, tt.sent) || !strings.Contains(got, "You are the survey agent.") {
			t.Errorf("call %d's messages read %q, want %q and the system prompt", tt.node, got, tt.sent)
		}
	}
}

// byTestID is the first node under n with the data-testid id, or nil.
func byTestID(n *html.Node, id string) *html.Node {
	if domAttr(n, "data-testid") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := byTestID(c, id); m != nil {
			return m
		}
	}
	return nil
}

package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

// endless is a streamed reply of 5 MB that the endpoint then holds open,
// as a model gone wrong would: a call that read it to the end would never
// finish.
func endless() llmtest.Reply {
	chunks := make([]string, 5<<20/(4<<10))
	for i := range chunks {
		chunks[i] = strings.Repeat("all work and no play ", 4<<10/21) + "\n\n"
	}
	return llmtest.Reply{Chunks: chunks, Hold: true}
}

// A reply longer than Config.MaxReply is cut there, with a note that says
// so: the model's stream is stopped, not read to the end, and neither the
// call's record, nor the reply, nor the page's view holds more than the
// bound, then or on any later load.
func TestAReplyLongerThanTheBoundIsCutThere(t *testing.T) {
	const limit = 64 << 10
	fake := llmtest.NewServer(t, endless(), llmtest.Text("Four."))
	model := openai.New(openai.Config{APIKey: "sk-test", BaseURL: fake.URL, Model: "m"})
	svc, db := newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: model, MaxReply: limit})
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "write forever"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	it := lastItem(v)
	if it.Kind != tree.AssistantMessage || !strings.HasPrefix(it.Text, "all work and no play") ||
		!strings.HasSuffix(it.Text, "*The model's reply was cut here: it was longer than the 64 KiB a reply may be.*") {
		t.Fatalf("last item = %.200q…, want the reply cut, with the note", it.Text)
	}
	if len(it.Text) > limit {
		t.Errorf("the reply holds %d bytes, want no more than %d", len(it.Text), limit)
	}

	// The record holds the reply once more, bounded too, and the next
	// turn goes on as usual, given the cut reply.
	if err := svc.Send(t.Context(), "s", conv.ID, "what is 2+2?"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the next reply", func(v pageview.View) bool { return lastItem(v).Text == "Four." })
	nodes, err := db.Nodes(t.Context(), conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range nodes {
		total += len(n.Payload)
	}
	// The reply is in its call's record, in the reply itself and in the
	// next call's request: three copies, and the prompts around them.
	if total > 4*limit {
		t.Errorf("the conversation's record holds %d bytes, want no more than three bounded copies of the reply and the prompts", total)
	}
	samples := nodesOf(t, db, conv.ID, tree.Sample)
	first, _ := tree.Decode[tree.SampleRecord](samples[0])
	if r := first.Response; r == nil || r.FinishReason != "length" || r.Content != it.Text {
		t.Errorf("the call's record = %+v, want the cut reply, finished for length", r)
	}
	if reqs := fake.Requests(); len(reqs) != 2 {
		t.Errorf("the model was asked %d times, want twice", len(reqs))
	}
}

// A reply an agent makes without a model (from a tool's result, say) is
// bounded as a model's is.
func TestAnAgentsOwnLongReplyIsCutToo(t *testing.T) {
	const limit = 4 << 10
	long := agents.Assistant{Name: "long", Turn: func(context.Context, string) (string, error) {
		return strings.Repeat("row, ", 10<<10), nil
	}}
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(long), Model: offline.New(), MaxReply: limit})
	conv, _ := svc.Create(t.Context(), "s", "long")
	if err := svc.Send(t.Context(), "s", conv.ID, "list it all"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.AssistantMessage || len(it.Text) > limit || !strings.HasSuffix(it.Text, "the 4 KiB a reply may be.*") {
		t.Errorf("last item = %d bytes ending %q, want no more than %d ending with the note", len(it.Text), it.Text[max(0, len(it.Text)-60):], limit)
	}
}

// An unstreamed model call's reply is bounded too, once it has come.
func TestAnUnstreamedReplyIsCut(t *testing.T) {
	const limit = 4 << 10
	fake := llmtest.NewServer(t, llmtest.Text(strings.Repeat("all work and no play ", 1000)))
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		resp, err := turn.Sample(primitive.Aside.With(ctx, true), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		return resp.Content, err
	}}
	model := openai.New(openai.Config{APIKey: "sk-test", BaseURL: fake.URL, Model: "m"})
	svc, db := newServiceWith(t, chat.Config{Assistants: registry.New(asker), Model: model, MaxReply: limit})
	conv, _ := svc.Create(t.Context(), "s", "asker")
	if err := svc.Send(t.Context(), "s", conv.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if fake.Requests()[0].Stream {
		t.Fatal("the call was streamed; want it unstreamed")
	}
	rec, _ := tree.Decode[tree.SampleRecord](nodesOf(t, db, conv.ID, tree.Sample)[0])
	if r := rec.Response; r == nil || len(r.Content) > limit || r.FinishReason != "length" || !strings.HasSuffix(r.Content, "a reply may be.*") {
		t.Errorf("the call's record = %+v, want its reply cut at %d bytes", r, limit)
	}
}

package telemetry_test

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/telemetry"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// observed is a chat service observed by telemetry whose spans a recorder
// keeps, on the database file at path.
type observed struct {
	svc   *chat.Service
	db    *store.DB
	tel   *telemetry.Telemetry
	spans *tracetest.SpanRecorder
}

func newObserved(t *testing.T, path string, fake *llmtest.Server, configure ...func(*chat.Config)) *observed {
	t.Helper()
	o := &observed{spans: tracetest.NewSpanRecorder()}
	o.tel = telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(o.spans)))
	o.db = storetest.OpenAt(t, path, store.Options{Committed: o.tel.Committed})
	cfg := chat.Config{Store: o.db, Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...),
		Model: openai.New(openai.Config{APIKey: "test", BaseURL: fake.URL, Model: "gpt-test"}), Scope: o.tel.Scope, Observer: o.tel}
	for _, f := range configure {
		f(&cfg)
	}
	o.svc = chat.New(cfg)
	o.tel.CountLive(o.svc.Loaded)
	t.Cleanup(o.svc.Close)
	return o
}

// waitView waits until the conversation's view satisfies cond.
func (o *observed) waitView(t *testing.T, session, id, what string, cond func(pageview.View) bool) pageview.View {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := o.svc.View(t.Context(), session, id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func pending(v pageview.View) *pageview.ElicitView {
	for i := range v.Items {
		if e := v.Items[i].Elicit; e != nil && e.State == pageview.Pending {
			return e
		}
	}
	return nil
}

// scrape returns what /metrics shows.
func (o *observed) scrape(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	o.tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	if err != nil || rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %v", rec.Code, err)
	}
	return string(body)
}

// waitMetric waits until /metrics shows the line want.
func (o *observed) waitMetric(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(o.scrape(t), want+"\n") {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics did not come to show %s:\n%s", want, o.scrape(t))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// named returns the ended spans named name.
func named(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func one(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	got := named(spans, name)
	if len(got) != 1 {
		t.Fatalf("%d spans named %q, want 1; spans: %v", len(got), name, names(spans))
	}
	return got[0]
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// wantAttrs checks that span s has the attributes want (as their Emit text).
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if g, ok := got[attribute.Key(k)]; !ok || g.Emit() != v {
			t.Errorf("span %q: %s = %q (set: %v), want %q", s.Name(), k, g.Emit(), ok, v)
		}
	}
}

func childOf(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("span %q is not a child of %q", child.Name(), parent.Name())
	}
}

var tripAnswer = chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"destination":"Nice","travellers":2,"cabin":"economy","hotel":false}`)}

// TestATurnIsTraced: a turn of the concierge (a model call choosing the
// trip tool, the tool asking a form and calling the model for the plan)
// makes a span for the turn, for each model call with the GenAI
// attributes and the tokens the provider counted, for the tool call and
// for the form's wait, nested as the calls were made; no span holds what
// the user or the model wrote; and /metrics counts the same.
func TestATurnIsTraced(t *testing.T) {
	choose := llmtest.Call("plan-trip", `{"request":"a trip"}`)
	choose.Usage = &llmtest.Usage{PromptTokens: 40, CompletionTokens: 5, TotalTokens: 45}
	plan := llmtest.Text("Day 1: ", "the sea of Nice.")
	plan.Usage = &llmtest.Usage{PromptTokens: 60, CompletionTokens: 12, TotalTokens: 72}
	fake := llmtest.NewServer(t, choose, plan)
	o := newObserved(t, filepath.Join(t.TempDir(), "test.db"), fake)
	const session = "s1"
	conv, err := o.svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.svc.Send(t.Context(), session, conv.ID, "plan me a secret trip"); err != nil {
		t.Fatal(err)
	}
	v := o.waitView(t, session, conv.ID, "the form", func(v pageview.View) bool { return pending(v) != nil })
	// While the form waits, the turn runs and its conversation is in memory.
	waiting := o.scrape(t)
	for _, want := range []string{"sweatpants_turns_running 1", "sweatpants_conversations_live 1"} {
		if !strings.Contains(waiting, want+"\n") {
			t.Errorf("/metrics while the form waits lacks %s", want)
		}
	}
	if err := o.svc.Answer(t.Context(), session, conv.ID, pending(v).Request.ID, tripAnswer); err != nil {
		t.Fatal(err)
	}
	o.waitView(t, session, conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })

	spans := o.spans.Ended()
	turn := one(t, spans, "invoke_agent concierge")
	wantAttrs(t, turn, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "concierge",
		"gen_ai.conversation.id": conv.ID, "sweatpants.turn.resumed": "false", "sweatpants.turn.outcome": "replied"})
	if turn.Parent().IsValid() {
		t.Errorf("the turn's span has a parent: %v", turn.Parent())
	}
	calls := named(spans, "chat gpt-test")
	if len(calls) != 2 {
		t.Fatalf("%d model call spans, want 2; spans: %v", len(calls), names(spans))
	}
	tool := one(t, spans, "execute_tool plan-trip")
	// A read-only tool with no rule of its own: allowed by the default.
	wantAttrs(t, tool, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "plan-trip",
		"sweatpants.tool.decision": "allow", "sweatpants.tool.decided_by": "default"})
	wait := one(t, spans, "elicit form")
	wantAttrs(t, wait, map[string]string{"sweatpants.elicit.kind": "form", "sweatpants.elicit.outcome": "accept"})
	for i, want := range []struct {
		in, out string
		parent  sdktrace.ReadOnlySpan
	}{{"40", "5", turn}, {"60", "12", tool}} {
		c := calls[i]
		if c.SpanKind() != trace.SpanKindClient {
			t.Errorf("model call %d is a %v span, want client", i, c.SpanKind())
		}
		wantAttrs(t, c, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
			"gen_ai.request.model": "gpt-test", "gen_ai.response.model": "gpt-test",
			"gen_ai.usage.input_tokens": want.in, "gen_ai.usage.output_tokens": want.out})
		if _, failed := attrs(c)["error.type"]; failed {
			t.Errorf("model call %d has an error.type", i)
		}
		childOf(t, c, want.parent)
	}
	childOf(t, tool, turn)
	childOf(t, wait, tool)
	if !wait.StartTime().After(calls[0].EndTime()) || !wait.EndTime().Before(calls[1].StartTime()) {
		t.Errorf("the wait ran %v–%v, want it between the first model call's end %v and the second's start %v",
			wait.StartTime(), wait.EndTime(), calls[0].EndTime(), calls[1].StartTime())
	}
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if v := kv.Value.Emit(); strings.Contains(v, "secret") || strings.Contains(v, "Nice") || strings.Contains(v, "sea") {
				t.Errorf("span %q: %s = %q holds what a user or the model wrote", s.Name(), kv.Key, v)
			}
		}
	}

	metrics := o.scrape(t)
	for _, want := range []string{
		// The tool's calls are its agent's.
		`sweatpants_model_tokens_total{agent="concierge",model="gpt-test",provider="openai",type="input"} 40`,
		`sweatpants_model_tokens_total{agent="concierge",model="gpt-test",provider="openai",type="output"} 5`,
		`sweatpants_model_tokens_total{agent="travel",model="gpt-test",provider="openai",type="input"} 60`,
		`sweatpants_model_tokens_total{agent="travel",model="gpt-test",provider="openai",type="output"} 12`,
		`sweatpants_model_call_duration_seconds_count{agent="concierge",model="gpt-test",outcome="ok",provider="openai"} 1`,
		`sweatpants_model_call_duration_seconds_count{agent="travel",model="gpt-test",outcome="ok",provider="openai"} 1`,
		`sweatpants_tool_call_duration_seconds_count{agent="travel",decision="allow",outcome="ok",tool="plan-trip"} 1`,
		`sweatpants_elicit_wait_seconds_count{agent="travel",kind="form",outcome="accept"} 1`,
		`sweatpants_turns_total{agent="concierge",outcome="replied"} 1`,
		"sweatpants_turns_running 0",
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, "sweatpants_store_commit_duration_seconds_count 0\n") || !strings.Contains(metrics, "sweatpants_store_commit_duration_seconds_count") {
		t.Errorf("/metrics counts no commit")
	}
	if strings.Contains(metrics, "secret") || strings.Contains(metrics, "Nice") {
		t.Errorf("/metrics holds what the user wrote:\n%s", metrics)
	}
}

// TestAResumedTurnTracesOnlyWhatItDoesAnew: a turn interrupted by a
// restart while its form waits is resumed by the next process, which
// replays the model call it recorded without calling the model: that
// process makes no span for it and counts no tokens of it. The form's wait
// is one span, from when the first process asked to when the second got
// the answer; the first process made none for it.
func TestAResumedTurnTracesOnlyWhatItDoesAnew(t *testing.T) {
	choose := llmtest.Call("plan-trip", `{"request":"a trip"}`)
	choose.Usage = &llmtest.Usage{PromptTokens: 40, CompletionTokens: 5, TotalTokens: 45}
	plan := llmtest.Text("Day 1.")
	plan.Usage = &llmtest.Usage{PromptTokens: 60, CompletionTokens: 12, TotalTokens: 72}
	fake := llmtest.NewServer(t, choose, plan)
	path := filepath.Join(t.TempDir(), "test.db")
	const session = "s1"

	first := newObserved(t, path, fake)
	conv, err := first.svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.svc.Send(t.Context(), session, conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	v := first.waitView(t, session, conv.ID, "the form", func(v pageview.View) bool { return pending(v) != nil })
	eid := pending(v).Request.ID
	first.svc.Close() // the restart
	first.db.Close()
	spans := first.spans.Ended()
	wantAttrs(t, one(t, spans, "invoke_agent concierge"), map[string]string{"sweatpants.turn.outcome": "shutdown"})
	one(t, spans, "chat gpt-test")
	if got := named(spans, "elicit form"); len(got) != 0 {
		t.Errorf("the first process made %d spans for a wait it did not see end", len(got))
	}

	second := newObserved(t, path, fake)
	if err := second.svc.Answer(t.Context(), session, conv.ID, eid, tripAnswer); err != nil {
		t.Fatal(err)
	}
	second.waitView(t, session, conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("the model was called %d times, want 2: the resumed turn replays the first call", n)
	}
	spans = second.spans.Ended()
	turn := one(t, spans, "invoke_agent concierge")
	wantAttrs(t, turn, map[string]string{"sweatpants.turn.resumed": "true", "sweatpants.turn.outcome": "replied"})
	call := one(t, spans, "chat gpt-test") // the plan's; the choice of tool was replayed
	wantAttrs(t, call, map[string]string{"gen_ai.usage.input_tokens": "60", "gen_ai.usage.output_tokens": "12"})
	wait := one(t, spans, "elicit form")
	if !wait.StartTime().Before(turn.StartTime()) {
		t.Errorf("the wait starts at %v, after the resumed turn's start %v: it should start when the first process asked", wait.StartTime(), turn.StartTime())
	}
	metrics := second.scrape(t)
	if strings.Contains(metrics, `agent="concierge",model="gpt-test",provider="openai",type="input"`) {
		t.Errorf("the second process counts tokens of the replayed call:\n%s", metrics)
	}
	if !strings.Contains(metrics, `sweatpants_model_tokens_total{agent="travel",model="gpt-test",provider="openai",type="input"} 60`+"\n") {
		t.Errorf("the second process does not count the plan's tokens")
	}
}

// TestASuspendedConversationIsCounted: a turn that waits unwatched is
// suspended out of memory, and counted as suspended until it is loaded.
func TestASuspendedConversationIsCounted(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"a trip"}`))
	now := time.Duration(0)
	o := newObserved(t, filepath.Join(t.TempDir(), "test.db"), fake, func(c *chat.Config) { c.SuspendAfter = &now })
	const session = "s1"
	conv, err := o.svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.svc.Send(t.Context(), session, conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	o.waitMetric(t, "sweatpants_conversations_suspended 1")
	metrics := o.scrape(t)
	for _, want := range []string{"sweatpants_conversations_live 0", "sweatpants_turns_running 0",
		`sweatpants_turns_total{agent="concierge",outcome="suspended"} 1`} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics of a suspended conversation lacks %s", want)
		}
	}
	// An open page loads it again, and keeps it in memory.
	sub, _, err := o.svc.Subscribe(t.Context(), session, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	o.waitMetric(t, "sweatpants_turns_running 1") // its turn resumes in a goroutine of its own
	metrics = o.scrape(t)
	for _, want := range []string{"sweatpants_conversations_suspended 0", "sweatpants_conversations_live 1"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics of a conversation loaded again lacks %s", want)
		}
	}
}

// TestAFailedModelCallSaysItsErrorType: a model call the provider refuses
// has error.type (the HTTP status) and an error status, never the
// provider's words; the turn it fails is marked failed.
func TestAFailedModelCallSaysItsErrorType(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Fail(400, "the model refused the request"))
	o := newObserved(t, filepath.Join(t.TempDir(), "test.db"), fake)
	const session = "s1"
	conv, err := o.svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.svc.Send(t.Context(), session, conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	o.waitView(t, session, conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	spans := o.spans.Ended()
	call := one(t, spans, "chat gpt-test")
	wantAttrs(t, call, map[string]string{"error.type": "400"})
	if call.Status().Code != codes.Error || strings.Contains(call.Status().Description, "refused") {
		t.Errorf("the failed call's status is %+v, want an error that does not quote the provider", call.Status())
	}
	if _, ok := attrs(call)["gen_ai.usage.input_tokens"]; ok {
		t.Errorf("a failed call has token counts")
	}
	turn := one(t, spans, "invoke_agent concierge")
	wantAttrs(t, turn, map[string]string{"sweatpants.turn.outcome": "failed"})
	if turn.Status().Code != codes.Error {
		t.Errorf("the failed turn's status is %+v, want an error", turn.Status())
	}
	o.waitMetric(t, `sweatpants_model_call_duration_seconds_count{agent="concierge",model="gpt-test",outcome="error",provider="openai"} 1`)
}

// TestAStoppedQuestionEndsItsWait: a stop withdraws the waiting form; its
// wait ends then, as stopped, and so does the turn.
func TestAStoppedQuestionEndsItsWait(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"a trip"}`))
	o := newObserved(t, filepath.Join(t.TempDir(), "test.db"), fake)
	const session = "s1"
	conv, err := o.svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.svc.Send(t.Context(), session, conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	o.waitView(t, session, conv.ID, "the form", func(v pageview.View) bool { return pending(v) != nil })
	if err := o.svc.Stop(t.Context(), session, conv.ID); err != nil {
		t.Fatal(err)
	}
	o.waitView(t, session, conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	spans := o.spans.Ended()
	wantAttrs(t, one(t, spans, "elicit form"), map[string]string{"sweatpants.elicit.outcome": "stopped"})
	wantAttrs(t, one(t, spans, "invoke_agent concierge"), map[string]string{"sweatpants.turn.outcome": "stopped"})
	o.waitMetric(t, `sweatpants_elicit_wait_seconds_count{agent="travel",kind="form",outcome="stopped"} 1`)
}

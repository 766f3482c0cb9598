package e2e

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// collector is an OTLP/HTTP trace collector's double: it keeps the
// ExportTraceServiceRequests the binary sends to /v1/traces.
type collector struct {
	t   *testing.T
	URL string

	mu       sync.Mutex
	requests []*coltrace.ExportTraceServiceRequest
	paths    []string
}

// newCollector serves a collector on ln, or on a free loopback port when
// ln is nil.
func newCollector(t *testing.T, ln net.Listener) *collector {
	c := &collector{t: t}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(c.serve))
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

func (c *collector) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := &coltrace.ExportTraceServiceRequest{}
	if err == nil {
		err = proto.Unmarshal(body, req)
	}
	c.mu.Lock()
	c.paths = append(c.paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
	if err == nil {
		c.requests = append(c.requests, req)
	}
	c.mu.Unlock()
	if err != nil {
		c.t.Errorf("collector: a request that is no ExportTraceServiceRequest: %v", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Write(out)
}

// exported is one span as the collector received it.
type exported struct {
	service, name string
	attrs         map[string]string
}

func (c *collector) spans() []exported {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []exported
	for _, req := range c.requests {
		for _, rs := range req.ResourceSpans {
			service := value(rs.GetResource().GetAttributes(), "service.name")
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					e := exported{service: service, name: s.Name, attrs: map[string]string{}}
					for _, kv := range s.Attributes {
						e.attrs[kv.Key] = anyValue(kv.Value)
					}
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func value(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return anyValue(kv.Value)
		}
	}
	return ""
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	}
	return v.String()
}

// planTrip runs a concierge turn in Chromium against a scripted model that
// counts tokens: a call choosing the trip tool, the form, the plan.
func planTrip(t *testing.T, env ...string) *app {
	t.Helper()
	choose := llmtest.Call("plan-trip", `{"request":"Plan a secret trip to Nice"}`)
	choose.Usage = &llmtest.Usage{PromptTokens: 40, CompletionTokens: 5, TotalTokens: 45}
	plan := llmtest.Text("Day 1: ", "the sea.")
	plan.Usage = &llmtest.Usage{PromptTokens: 60, CompletionTokens: 12, TotalTokens: 72}
	model := llmtest.NewServer(t, choose, plan)
	a := startApp(t, append([]string{"SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + model.URL,
		"SWEATPANTS_MODEL=gpt-test"}, env...)...)
	p := openAgent(t, a, "concierge")
	p.send("Plan a secret trip to Nice")
	p.fillTrip("Nice", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Day 1: the sea."))
	return a
}

// With a collector configured, by --otlp-endpoint's variable or by the
// standard ones, the binary sends a turn's spans to it over OTLP/HTTP: the
// turn, its model calls with their GenAI attributes and tokens, the tool
// call and the form's wait, under the service name sweatpants; none holds
// what the user wrote.
func TestTheBinaryExportsSpansToTheConfiguredCollector(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ variable, suffix string }{
		{"SWEATPANTS_OTLP_ENDPOINT", ""},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", ""},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces"}, // the whole URL
	} {
		t.Run(tc.variable, func(t *testing.T) {
			col := newCollector(t, nil)
			a := planTrip(t, tc.variable+"="+col.URL+tc.suffix)
			checkExported(t, a, col)
		})
	}
}

func checkExported(t *testing.T, a *app, col *collector) {
	t.Helper()
	if !strings.Contains(a.log(), "traces="+col.URL+"/v1/traces") {
		t.Errorf("the server does not say where its traces go:\n%s", a.log())
	}
	a.stop(syscall.SIGTERM) // shutting down sends what is buffered

	spans := col.spans()
	byName := map[string][]exported{}
	for _, s := range spans {
		byName[s.name] = append(byName[s.name], s)
		if s.service != "sweatpants" {
			t.Errorf("span %q comes from service %q, want sweatpants", s.name, s.service)
		}
		for k, v := range s.attrs {
			if strings.Contains(v, "secret") || strings.Contains(v, "Nice") || strings.Contains(v, "the sea") {
				t.Errorf("span %q: %s = %q holds what the user or the model wrote", s.name, k, v)
			}
		}
	}
	col.mu.Lock()
	for _, p := range col.paths {
		if p != "POST /v1/traces application/x-protobuf" {
			t.Errorf("the collector got %s, want POST /v1/traces of protobuf", p)
		}
	}
	col.mu.Unlock()
	for name, n := range map[string]int{"invoke_agent concierge": 1, "chat gpt-test": 2, "execute_tool plan-trip": 1, "elicit form": 1} {
		if len(byName[name]) != n {
			t.Errorf("%d spans named %q, want %d; got %d spans in all", len(byName[name]), name, n, len(spans))
		}
	}
	var in, out int
	for _, s := range byName["chat gpt-test"] {
		if s.attrs["gen_ai.operation.name"] != "chat" || s.attrs["gen_ai.provider.name"] != "openai" ||
			s.attrs["gen_ai.request.model"] != "gpt-test" || s.attrs["gen_ai.response.model"] != "gpt-test" {
			t.Errorf("a model call's span has %v, want the GenAI attributes", s.attrs)
		}
		n, _ := strconv.Atoi(s.attrs["gen_ai.usage.input_tokens"])
		m, _ := strconv.Atoi(s.attrs["gen_ai.usage.output_tokens"])
		in, out = in+n, out+m
	}
	if in != 100 || out != 17 {
		t.Errorf("the model calls' spans count %d tokens in and %d out, want 100 and 17", in, out)
	}
	if s := byName["execute_tool plan-trip"]; len(s) == 1 && s[0].attrs["gen_ai.tool.name"] != "plan-trip" {
		t.Errorf("the tool call's span has %v", s[0].attrs)
	}
}

// With no collector configured, the binary sends nothing, not even to the
// standard OTLP/HTTP port on this machine, and says traces are off.
func TestTheBinaryExportsNothingWhenNoCollectorIsConfigured(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		t.Skipf("the standard OTLP/HTTP port is taken, so a stray export could not be seen there: %v", err)
	}
	col := newCollector(t, ln)
	// Variables that tune an exporter, without one naming a collector (an
	// empty one is unset).
	a := planTrip(t, "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=", "SWEATPANTS_OTLP_ENDPOINT=",
		"OTEL_SERVICE_NAME=sweatpants-e2e", "OTEL_BSP_SCHEDULE_DELAY=10")
	if !strings.Contains(a.log(), "traces=off") {
		t.Errorf("the server does not say its traces are off:\n%s", a.log())
	}
	a.stop(syscall.SIGTERM)
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.paths) != 0 {
		t.Errorf("the binary sent %d requests with no collector configured: %v", len(col.paths), col.paths)
	}
}

// GET /metrics on the binary after a turn shows the turn, its model
// calls' latency and tokens, the form's wait and the database's commits,
// with plausible values, and nothing the user or the model wrote.
func TestMetricsShowATurnAndNoUserText(t *testing.T) {
	t.Parallel()
	a := planTrip(t)
	var metrics string
	waitFor(t, 10*time.Second, "the turn to end in /metrics", func() bool {
		res, err := http.Get(a.URL + "/metrics")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		metrics = string(body)
		return res.StatusCode == http.StatusOK && strings.Contains(metrics, `sweatpants_turns_total{agent="concierge",outcome="replied"} 1`)
	})
	sample := func(name string) float64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(metrics)
		if m == nil {
			t.Errorf("/metrics lacks %s", name)
			return -1
		}
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Errorf("%s = %q", name, m[1])
		}
		return f
	}
	exact := map[string]float64{
		`sweatpants_model_tokens_total{agent="concierge",model="gpt-test",provider="openai",type="input"}`:                40,
		`sweatpants_model_tokens_total{agent="concierge",model="gpt-test",provider="openai",type="output"}`:               5,
		`sweatpants_model_tokens_total{agent="travel",model="gpt-test",provider="openai",type="input"}`:                   60,
		`sweatpants_model_tokens_total{agent="travel",model="gpt-test",provider="openai",type="output"}`:                  12,
		`sweatpants_model_call_duration_seconds_count{agent="concierge",model="gpt-test",outcome="ok",provider="openai"}`: 1,
		`sweatpants_model_call_duration_seconds_count{agent="travel",model="gpt-test",outcome="ok",provider="openai"}`:    1,
		`sweatpants_elicit_wait_seconds_count{agent="travel",kind="form",outcome="accept"}`:                               1,
		`sweatpants_tool_call_duration_seconds_count{agent="travel",decision="allow",outcome="ok",tool="plan-trip"}`:      1,
		`sweatpants_turns_running`:           0,
		`sweatpants_conversations_suspended`: 0,
	}
	for name, want := range exact {
		if got := sample(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// The page is still open: its conversation is in memory.
	if got := sample("sweatpants_conversations_live"); got != 1 {
		t.Errorf("sweatpants_conversations_live = %v with the page open, want 1", got)
	}
	// The form was filled in by a browser: it waited, for less than the test's length.
	if got := sample(`sweatpants_elicit_wait_seconds_sum{agent="travel",kind="form",outcome="accept"}`); got <= 0 || got > 60 {
		t.Errorf("the form waited %v s, want a plausible wait", got)
	}
	if got := sample(`sweatpants_model_call_duration_seconds_sum{agent="concierge",model="gpt-test",outcome="ok",provider="openai"}`); got <= 0 || got > 30 {
		t.Errorf("the model call took %v s, want a plausible latency", got)
	}
	// Each record of the turn was committed: the message, the calls, the answer, the reply.
	if got := sample("sweatpants_store_commit_duration_seconds_count"); got < 5 {
		t.Errorf("%v commits counted, want at least the turn's records", got)
	}
	for _, words := range []string{"secret", "Nice", "the sea", "Day 1"} {
		if strings.Contains(metrics, words) {
			t.Errorf("/metrics holds %q, which the user or the model wrote", words)
		}
	}
}

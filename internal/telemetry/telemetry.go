// Package telemetry observes the app's own middleware for operators:
// OpenTelemetry spans for turns, model calls, tool calls and elicit waits,
// named and attributed by the GenAI semantic conventions, and Prometheus
// metrics served at /metrics. It hooks in at three places: package primitive's
// APIs (primitive.CompleteAPI and agents.ToolAPI, through Scope), the chat
// service (as its chat.Observer) and the store (Committed).
//
// Both see only work done in this process. A turn resumed after a restart
// replays its record without calling the model or its tools again, and the
// middleware sits beneath the record, so nothing already recorded is
// counted or traced twice.
//
// Nothing a user or a model wrote reaches a span or a metric: no titles,
// no messages, no answers. Metric labels take bounded values only: a
// provider's and a model's names, an agent's, a tool's or an elicit kind's
// name (all set by code or configuration), and an outcome.
package telemetry

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Telemetry holds the app's tracer and metrics. Its zero value is not
// ready; use New.
type Telemetry struct {
	tracer trace.Tracer
	traced bool // false: spans are not even started

	registry      *prometheus.Registry
	turnsRunning  prometheus.Gauge
	turns         *prometheus.CounterVec
	modelSeconds  *prometheus.HistogramVec
	modelTokens   *prometheus.CounterVec
	toolSeconds   *prometheus.HistogramVec
	toolDecisions *prometheus.CounterVec
	elicitSeconds *prometheus.HistogramVec
	commitSeconds prometheus.Histogram

	mu        sync.Mutex
	suspended map[string]struct{} // conversations suspended and not loaded since
}

// tracerName names the spans' instrumentation scope.
const tracerName = "github.com/sweatpants-go/sweatpants/internal/telemetry"

// New returns telemetry whose spans go to tp; with tp nil, no span is
// made. Its metrics are in a registry of their own, served by Handler.
func New(tp trace.TracerProvider) *Telemetry {
	t := &Telemetry{traced: tp != nil, registry: prometheus.NewRegistry(), suspended: map[string]struct{}{}}
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	t.tracer = tp.Tracer(tracerName)
	// Model calls take seconds, sometimes a minute; elicit waits take from
	// seconds to days; commits take a millisecond or so.
	modelBuckets := []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80}
	waitBuckets := []float64{1, 5, 15, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 7 * 24 * 3600}
	t.turnsRunning = prometheus.NewGauge(prometheus.GaugeOpts{Name: "sweatpants_turns_running",
		Help: "Turns whose code runs in this process: working, or waiting for an answer before they are suspended."})
	t.turns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sweatpants_turns_total",
		Help: "Turn runs that ended in this process, by agent and outcome (replied, stopped, failed, parked, suspended, interrupted, shutdown)."},
		[]string{"agent", "outcome"})
	t.modelSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sweatpants_model_call_duration_seconds",
		Help: "Model calls answered by a provider in this process (not those replayed from a record), by provider, model, agent and outcome (ok or error).", Buckets: modelBuckets},
		[]string{"provider", "model", "agent", "outcome"})
	t.modelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sweatpants_model_tokens_total",
		Help: "Tokens of the model calls answered in this process, by provider, model, agent and type (input or output)."},
		[]string{"provider", "model", "agent", "type"})
	t.toolSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sweatpants_tool_call_duration_seconds",
		Help: "Tool calls run in this process, by agent, tool, the permission policy's decision (allow, or ask: the user allowed it) and outcome (ok or error).", Buckets: modelBuckets},
		[]string{"agent", "tool", "decision", "outcome"})
	t.toolDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sweatpants_tool_decisions_total",
		Help: "Tool calls the permission policy decided in this process, by agent, tool, decision (allow, ask, deny, finalDeny), who decided (rule, user, remembered, default, unattended, resumed) and outcome (ok, error, denied, cancelled)."},
		[]string{"agent", "tool", "decision", "decided_by", "outcome"})
	t.elicitSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sweatpants_elicit_wait_seconds",
		Help: "How long questions waited for their answer, from asked to answered (across restarts), by agent, kind and outcome (the answer's action, or stopped).", Buckets: waitBuckets},
		[]string{"agent", "kind", "outcome"})
	t.commitSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sweatpants_store_commit_duration_seconds",
		Help:    "How long each write to the database took to commit, as its caller waited (queueing behind other writes included).",
		Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}})
	suspended := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sweatpants_conversations_suspended",
		Help: "Conversations whose turn waits for an answer out of memory: suspended by this process and not loaded since."},
		func() float64 {
			t.mu.Lock()
			defer t.mu.Unlock()
			return float64(len(t.suspended))
		})
	t.registry.MustRegister(t.turnsRunning, t.turns, t.modelSeconds, t.modelTokens, t.toolSeconds, t.toolDecisions, t.elicitSeconds,
		t.commitSeconds, suspended, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return t
}

// CountLive registers the gauge of conversations in memory, read from live
// (the chat service's Loaded) at each scrape. Call it once.
func (t *Telemetry) CountLive(live func() int) {
	t.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sweatpants_conversations_live",
		Help: "Conversations in memory: with an open page, a request in flight or a turn that runs."},
		func() float64 { return float64(live()) }))
}

// Handler serves the metrics in the Prometheus text format (GET /metrics).
func (t *Telemetry) Handler() http.Handler {
	return promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{})
}

// Scope installs the middleware that observes model and tool calls: the
// program's root scope for every turn wraps it (chat.Config.Scope). Both
// sit beneath the turn's record: a call answered from it is not seen.
func (t *Telemetry) Scope(ctx context.Context) context.Context {
	ctx = primitive.CompleteAPI.Around(ctx, t.complete, middleware.Max)
	// Min, from the root scope: nearest the tool itself, inside the turn's
	// own recording middleware, which calls it only for a tool that runs.
	return agents.ToolAPI.Around(ctx, t.tool, middleware.Min)
}

// Committed observes a database write's commit latency (store.Options).
func (t *Telemetry) Committed(d time.Duration) { t.commitSeconds.Observe(d.Seconds()) }

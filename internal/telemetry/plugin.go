package telemetry

import (
	"context"
	"flag"
	"net/http"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/pluginhost"
	"github.com/sweatpants-go/sweatpants/plugin"
)

// Plugin is telemetry as the program's built-in plugin, for serve: the
// --otlp-endpoint flag, spans exported to the collector it or the
// standard OTEL_EXPORTER_OTLP_* variables name (none otherwise), the
// metrics at GET /metrics, and the observer of the service's turns, of
// their model and tool calls and of the store's commits. What it needs of
// the engine it takes through pluginhost.Extension.
type Plugin struct {
	version  string
	endpoint string
	tel      *Telemetry
	target   string
	shutdown func(context.Context) error
}

var _ pluginhost.Extension = (*Plugin)(nil)

// NewPlugin returns telemetry whose spans say the service's version.
func NewPlugin(version string) *Plugin { return &Plugin{version: version} }

// Name implements plugin.Plugin.
func (p *Plugin) Name() string { return "telemetry" }

// Parts implements plugin.Plugin.
func (p *Plugin) Parts() plugin.Parts {
	return plugin.Parts{
		Flags: func(fs *flag.FlagSet) {
			if fs.Name() != "serve" {
				return
			}
			fs.Var(endpointFlag{&p.endpoint}, "otlp-endpoint",
				"OTLP/HTTP collector to send traces to, as its base URL (http://localhost:4318); default: OTEL_EXPORTER_OTLP_ENDPOINT, else no traces")
		},
		// The metrics hold nothing users wrote: no session is asked.
		Routes: []plugin.Route{{Method: http.MethodGet, Path: "/metrics", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p.tel == nil {
				http.NotFound(w, r)
				return
			}
			p.tel.Handler().ServeHTTP(w, r)
		})}},
		// After the service has closed: the spans still buffered, those of
		// the turns Close ended among them, are sent.
		Stop: func(ctx context.Context) error {
			if p.shutdown == nil {
				return nil
			}
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			p.shutdown(ctx) // a collector that is away loses these spans; the server stops anyway
			return nil
		},
	}
}

// Opening makes serve's telemetry and has it hear the store's commits.
func (p *Plugin) Opening(ctx context.Context, o *pluginhost.Opening) error {
	if o.Command != "serve" {
		return nil
	}
	exp := Export{Endpoint: p.endpoint, Getenv: o.Getenv, Version: p.version}
	tp, shutdown, err := exp.TracerProvider(ctx)
	if err != nil {
		return err
	}
	p.tel, p.target, p.shutdown = New(tp), exp.Target(), shutdown
	o.Store.Committed = p.tel.Committed
	return nil
}

// Configure has the service's turns observed: their model and tool calls
// through the root scope, the rest as the service's observer.
func (p *Plugin) Configure(_ context.Context, cfg *chat.Config) error {
	if p.tel == nil {
		return nil
	}
	root := cfg.Scope
	cfg.Scope = func(ctx context.Context) context.Context { return p.tel.Scope(root(ctx)) }
	cfg.Observer = p.tel
	return nil
}

// Serving counts the conversations the service holds, and says where
// spans go.
func (p *Plugin) Serving(_ context.Context, s *pluginhost.Serving) error {
	if p.tel == nil {
		return nil
	}
	p.tel.CountLive(s.Service.Loaded)
	target := p.target
	if target == "" {
		target = "off"
	}
	s.Logged = append(s.Logged, "traces", target)
	return nil
}

// endpointFlag is an OTLP/HTTP collector's base URL, or empty for none.
type endpointFlag struct{ p *string }

func (f endpointFlag) Set(s string) error {
	if s != "" {
		if err := CheckEndpoint(s); err != nil {
			return err
		}
	}
	*f.p = s
	return nil
}

func (f endpointFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

package app

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/telemetry"
)

// endpointFlag is an OTLP/HTTP collector's base URL, or empty for none.
type endpointFlag struct{ p *string }

func (f endpointFlag) Set(s string) error {
	if s != "" {
		if err := telemetry.CheckEndpoint(s); err != nil {
			return err
		}
	}
	*f.p = s
	return nil
}

func (f endpointFlag) String() string { return deref(f.p) }

// startTelemetry makes the server's telemetry: spans exported to the
// collector that --otlp-endpoint or the standard OTEL_EXPORTER_OTLP_*
// variables name (none made otherwise), and the metrics of /metrics. It
// returns where spans go ("" for nowhere) and a stop that sends the spans
// still buffered, to call once the service has closed.
func startTelemetry(ctx context.Context, endpoint string, getenv func(string) string) (tel *telemetry.Telemetry, target string, stop func(), err error) {
	exp := telemetry.Export{Endpoint: endpoint, Getenv: getenv, Version: moduleVersion()}
	tp, shutdown, err := exp.TracerProvider(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	stop = func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		shutdown(ctx) // a collector that is away loses these spans; the server stops anyway
	}
	return telemetry.New(tp), exp.Target(), stop, nil
}

// observe has the service's turns observed by tel: their model and tool
// calls through the root scope, the rest as the service's observer.
func observe(app *chat.Config, tel *telemetry.Telemetry) {
	root := app.Scope
	app.Scope = func(ctx context.Context) context.Context { return tel.Scope(root(ctx)) }
	app.Observer = tel
}

// moduleVersion is the module's version the binary was built from, for
// the spans' service.version.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return ""
}

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Export says where spans go. With no endpoint, and neither of the
// standard variables OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
// OTEL_EXPORTER_OTLP_ENDPOINT set, nothing is exported and no span is made.
type Export struct {
	// Endpoint is an OTLP/HTTP collector's base URL, as in
	// OTEL_EXPORTER_OTLP_ENDPOINT (http://localhost:4318): spans are sent
	// to its /v1/traces. It wins over the standard variables.
	Endpoint string
	// Getenv reads the standard variables; the exporter reads the rest of
	// the OTEL_EXPORTER_OTLP_* and OTEL_BSP_* ones itself.
	Getenv func(string) string
	// Version is the program's, for the service.version resource.
	Version string
}

// CheckEndpoint reports why endpoint is no collector's base URL, if it is
// not: it must be an http or https URL with a host.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an http or https URL such as http://localhost:4318")
	}
	return nil
}

// Target returns where spans are sent to, or "" when they are not.
func (e Export) Target() string {
	if e.Endpoint != "" {
		return tracesURL(e.Endpoint)
	}
	if v := e.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); v != "" {
		return v
	}
	if v := e.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); v != "" {
		return tracesURL(v)
	}
	return ""
}

// tracesURL is the traces path of a collector's base URL.
func tracesURL(base string) string {
	return strings.TrimSuffix(base, "/") + "/v1/traces"
}

// TracerProvider returns the provider spans are made with, and its
// shutdown, which sends what is still buffered: nil and a no-op when
// nothing is exported.
func (e Export) TracerProvider(ctx context.Context) (trace.TracerProvider, func(context.Context) error, error) {
	if e.Target() == "" {
		return nil, func(context.Context) error { return nil }, nil
	}
	var opts []otlptracehttp.Option
	if e.Endpoint != "" {
		if err := CheckEndpoint(e.Endpoint); err != nil {
			return nil, nil, fmt.Errorf("otlp endpoint %q: %w", e.Endpoint, err)
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(tracesURL(e.Endpoint)))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("otlp exporter: %w", err)
	}
	// The service's name first, so that OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES, read after, may rename it.
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName("sweatpants"), semconv.ServiceVersion(e.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, nil, fmt.Errorf("otlp resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

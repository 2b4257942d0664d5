package otelserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/runcode-go/runcode/contrib/otel"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// DefaultServiceName is service.name when neither OTEL_SERVICE_NAME nor
// OTEL_RESOURCE_ATTRIBUTES names the service.
const DefaultServiceName = "runcode"

// Options configures [Start]. Nil means every default.
type Options struct {
	// Getenv reads the OTEL_* variables this package interprets (OTEL_TRACES_EXPORTER,
	// OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL). Nil reads none,
	// as if none were set. The SDK and the OTLP exporter read the variables they
	// document themselves (the endpoint, headers, timeout, sampler, resource
	// attributes).
	Getenv func(string) string
	// Console receives the spans of the console exporter, one JSON object each. Nil
	// discards them. (`runcode serve` gives its stderr: its stdout may carry MCP.)
	Console io.Writer
	// Telemetry configures the spans (recording arguments and results, the
	// propagator); its TracerProvider is set to the one Start makes.
	Telemetry *otel.Options
}

// Tracing is a started tracer provider and the telemetry on it. Its methods apply
// the telemetry to the options a runcode server is built from. It is safe for
// concurrent use; Shutdown ends it.
type Tracing struct {
	// Provider is the tracer provider, exporting as the environment said.
	Provider *sdktrace.TracerProvider
	// Telemetry makes the spans, on Provider.
	Telemetry *otel.Telemetry
	// Exporter names the exporter chosen: "otlp", "console" or "none".
	Exporter string
}

// Start makes the tracer provider, with the exporter OTEL_TRACES_EXPORTER names:
// "otlp" (the default) sends OTLP over HTTP (OTEL_EXPORTER_OTLP_PROTOCOL, or its
// _TRACES_ form, must be unset or http/protobuf: this build has no gRPC exporter),
// to OTEL_EXPORTER_OTLP_ENDPOINT or its default, http://localhost:4318; "console"
// writes each span as JSON to Options.Console; "none" exports nothing. Only the first
// of a comma-separated list is used. The resource has service.name runcode unless the
// environment names the service. It fails on an exporter or protocol it does not
// know.
func Start(ctx context.Context, opts *Options) (*Tracing, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	name := strings.TrimSpace(strings.Split(getenv("OTEL_TRACES_EXPORTER"), ",")[0])
	if name == "" {
		name = "otlp"
	}
	var exp sdktrace.SpanExporter
	switch name {
	case "otlp":
		proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
		if proto == "" {
			proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		if proto != "" && proto != "http/protobuf" {
			return nil, fmt.Errorf("OTLP protocol %q is not supported: this build exports OTLP over HTTP (http/protobuf)", proto)
		}
		e, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP exporter: %w", err)
		}
		exp = e
	case "console":
		w := o.Console
		if w == nil {
			w = io.Discard
		}
		e, err := stdouttrace.New(stdouttrace.WithWriter(w))
		if err != nil {
			return nil, fmt.Errorf("the console exporter: %w", err)
		}
		exp = e
	case "none":
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER %q is not supported: want otlp, console or none", name)
	}
	res, err := resource.Merge(
		resource.NewSchemaless(semconv.ServiceName(DefaultServiceName)),
		resource.Environment(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("the resource: %w", err)
	}
	popts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if exp != nil {
		popts = append(popts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(popts...)
	var to otel.Options
	if o.Telemetry != nil {
		to = *o.Telemetry
	}
	to.TracerProvider = tp
	tel, err := otel.New(&to)
	if err != nil {
		_ = tp.Shutdown(ctx)
		return nil, err
	}
	return &Tracing{Provider: tp, Telemetry: tel, Exporter: name}, nil
}

// Shutdown exports the spans still buffered and stops the provider.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.Provider.Shutdown(ctx) }

// Pipeline puts the execute_tool middleware first in o.Wrappers, so that its spans
// include the other wrappers.
func (t *Tracing) Pipeline(o *pipeline.Options) {
	o.Wrappers = append([]pipeline.Middleware{t.Telemetry.Middleware()}, o.Wrappers...)
}

// PTC adds the run's figures to the run_code span, after o.OnReport if there is one.
func (t *Tracing) PTC(o *ptc.Options) {
	prev := o.OnReport
	o.OnReport = func(ctx context.Context, call registry.Call, rep *ptc.Report) {
		if prev != nil {
			prev(ctx, call, rep)
		}
		t.Telemetry.Report(ctx, call, rep)
	}
}

// Server adds the MCP server spans (otel.Telemetry.ServerMiddleware) to o, and
// leaves o.Propagator unset: the middleware extracts the client's trace context.
func (t *Tracing) Server(o *mcpbridge.ServerOptions) {
	o.Middleware = append(o.Middleware, t.Telemetry.ServerMiddleware())
	o.Propagator = nil
}

// Client adds the MCP client spans (otel.Telemetry.ClientMiddleware) to o, and leaves
// o.Propagator unset: the middleware injects the client span's trace context.
func (t *Tracing) Client(o *mcpbridge.ClientOptions) {
	o.Middleware = append(o.Middleware, t.Telemetry.ClientMiddleware())
	o.Propagator = nil
}

// Tracer returns a tracer of the provider, for a host's own spans.
func (t *Tracing) Tracer(name string) trace.Tracer { return t.Provider.Tracer(name) }

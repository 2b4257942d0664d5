package otel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// ScopeName names the tracer and the meter.
const ScopeName = "github.com/runcode-go/runcode/contrib/otel"

// The attribute keys, of the OpenTelemetry GenAI semantic conventions and runcode's
// own.
const (
	KeyOperationName = attribute.Key("gen_ai.operation.name")
	KeyToolName      = attribute.Key("gen_ai.tool.name")
	KeyToolCallID    = attribute.Key("gen_ai.tool.call.id")
	KeyToolArguments = attribute.Key("gen_ai.tool.call.arguments")
	KeyToolResult    = attribute.Key("gen_ai.tool.call.result")
	KeyErrorType     = attribute.Key("error.type")

	// KeyRootID and KeyParentID place a call in its run: the model-direct call it
	// descends from, and the run_code call that issued it (sub-calls only).
	KeyRootID   = attribute.Key("runcode.call.root_id")
	KeyParentID = attribute.Key("runcode.call.parent_id")
	// The run_code span's figures (see [Telemetry.Report]).
	KeyFailureKind = attribute.Key("runcode.run.failure_kind")
	KeyComputeMs   = attribute.Key("runcode.run.compute_ms")
	KeySubCalls    = attribute.Key("runcode.run.sub_calls")
	KeyOutputBytes = attribute.Key("runcode.run.output_bytes")
	// KeyFromToolsBytes and KeyToModelBytes say what stayed in the sandbox: the bytes
	// the run's tools handed the program, and the bytes that went back to the model.
	KeyFromToolsBytes = attribute.Key("runcode.run.from_tools_bytes")
	KeyToModelBytes   = attribute.Key("runcode.run.to_model_bytes")
)

// OperationExecuteTool is gen_ai.operation.name of every span and measurement.
const OperationExecuteTool = "execute_tool"

// MetricDuration is the name of the duration histogram, in seconds.
const MetricDuration = "runcode.tool.duration"

// OtherTool stands for the name of a tool the call's set does not have, in span names
// and metric attributes: a model may call any name, and those must stay few.
const OtherTool = "_OTHER"

// maxIDBytes bounds the tool name and call id recorded as attributes: both may come
// from the model.
const maxIDBytes = 256

// DefaultMaxContentBytes bounds recorded arguments and results when
// Options.MaxContentBytes is zero.
const DefaultMaxContentBytes = 16 << 10

// Options configures a [Telemetry]. A nil *Options means the defaults.
type Options struct {
	// TracerProvider makes the tracer. If nil, the global one (otel.GetTracerProvider).
	TracerProvider trace.TracerProvider
	// MeterProvider makes the duration histogram (MetricDuration). If nil, the global
	// one (otel.GetMeterProvider), which records nothing until a host sets it.
	MeterProvider metric.MeterProvider
	// RecordArguments adds gen_ai.tool.call.arguments, the call's arguments as JSON,
	// to every span. Arguments may hold what a user would not want in traces (a
	// run_code call's are the program), so false means none.
	RecordArguments bool
	// RecordResults adds gen_ai.tool.call.result to the span of a successful call: its
	// canonical value as JSON. False means none.
	RecordResults bool
	// Propagator carries trace context in MCP's _meta for [Telemetry.ServerMiddleware]
	// and [Telemetry.ClientMiddleware]. Nil means W3C trace context
	// (propagation.TraceContext).
	Propagator propagation.TextMapPropagator
	// MaxContentBytes bounds each recorded argument and result text; longer text is
	// cut at a character boundary and ends with "…(N more bytes)". Zero means
	// DefaultMaxContentBytes; negative is an error.
	MaxContentBytes int
}

// Telemetry traces and measures tool calls: its [Telemetry.Middleware] wraps a
// pipeline's dispatch, and its [Telemetry.Report] is a ptc.Options.OnReport that adds
// a run's figures to the run_code span. A Telemetry is immutable and safe for
// concurrent use.
type Telemetry struct {
	tracer   trace.Tracer
	duration metric.Float64Histogram
	o        Options
}

// New returns a Telemetry. opts may be nil.
func New(opts *Options) (*Telemetry, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxContentBytes < 0 {
		return nil, fmt.Errorf("otel: MaxContentBytes must not be negative, got %d", o.MaxContentBytes)
	}
	if o.MaxContentBytes == 0 {
		o.MaxContentBytes = DefaultMaxContentBytes
	}
	tp, mp := o.TracerProvider, o.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	h, err := mp.Meter(ScopeName).Float64Histogram(MetricDuration,
		metric.WithDescription("Duration of tool calls, from dispatch to result."),
		metric.WithUnit("s"),
		// The GenAI semantic conventions' boundaries for operation durations.
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	if err != nil {
		return nil, fmt.Errorf("otel: the duration histogram: %w", err)
	}
	return &Telemetry{tracer: tp.Tracer(ScopeName), duration: h, o: o}, nil
}

// spanKey marks a context as the one Middleware gave a call's dispatch, with the
// call's id, so that Report adds figures to that call's span and no other.
type spanKey struct{}

// Middleware returns the execute wrapper that opens a span "execute_tool {tool}"
// around each call's dispatch and records its duration. Put it first in
// pipeline.Options.Wrappers, so that its span and measurement include the other
// wrappers (the timeout's outcome among them).
//
// The span is a child of the span in the call's context: a run_code sub-call's
// parent is its run_code call's span, in process or in a worker process (sub-calls
// run on the host with the run's context). A failed call (a result with an error,
// or a wrapper's error) gets error.type, its runcode error code (TOOL_FAILED for a
// wrapper's error or a panic), and status Error with the message. Calls that end
// before dispatch (denied, aborted before dispatch) get none; what post-execute
// hooks do to a result afterwards is not on the span.
func (t *Telemetry) Middleware() pipeline.Middleware {
	return func(next pipeline.Handler) pipeline.Handler {
		return func(ctx context.Context, call *pipeline.Call) (res *pipeline.Result, err error) {
			name, metricName := clip(call.Name, maxIDBytes), call.Name
			if call.Tool == nil {
				metricName = OtherTool
			}
			attrs := []attribute.KeyValue{
				KeyOperationName.String(OperationExecuteTool),
				KeyToolName.String(name),
				KeyToolCallID.String(clip(call.ID, maxIDBytes)),
				KeyRootID.String(clip(call.RootID, maxIDBytes)),
			}
			if call.ParentID != "" {
				attrs = append(attrs, KeyParentID.String(clip(call.ParentID, maxIDBytes)))
			}
			if t.o.RecordArguments {
				attrs = append(attrs, KeyToolArguments.String(t.content(call.Args.String())))
			}
			ctx, span := t.tracer.Start(ctx, OperationExecuteTool+" "+metricName,
				trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
			ctx = context.WithValue(ctx, spanKey{}, call.ID)
			start := time.Now()
			defer func() {
				code := ""
				if x := recover(); x != nil {
					code = string(pipeline.CodeToolFailed)
					span.SetStatus(codes.Error, fmt.Sprint("panic: ", x))
					t.end(ctx, span, start, metricName, code)
					panic(x) // the pipeline contains it
				}
				switch {
				case err != nil:
					te := &pipeline.ToolError{Code: pipeline.CodeToolFailed}
					errors.As(err, &te)
					code = string(te.Code)
					span.SetStatus(codes.Error, err.Error())
				case res != nil && res.Error != nil:
					code = string(res.Error.Code)
					span.SetStatus(codes.Error, res.Error.Message)
				case res != nil && t.o.RecordResults && !res.Value.IsZero():
					span.SetAttributes(KeyToolResult.String(t.content(res.Value.String())))
				}
				t.end(ctx, span, start, metricName, code)
			}()
			return next(ctx, call)
		}
	}
}

// end closes span with error.type if code is set, and records the duration.
func (t *Telemetry) end(ctx context.Context, span trace.Span, start time.Time, tool, code string) {
	attrs := []attribute.KeyValue{KeyOperationName.String(OperationExecuteTool), KeyToolName.String(clip(tool, maxIDBytes))}
	if code != "" {
		span.SetAttributes(KeyErrorType.String(code))
		attrs = append(attrs, KeyErrorType.String(code))
	}
	span.End()
	t.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
}

// Report adds a run's figures to its run_code span: the failure kind (failed runs
// only), the VM's compute time, the number of sub-calls, the output's size, and the
// bytes the tools handed the program and the bytes that went back to the model. Set it
// as ptc.Options.OnReport. It does nothing unless ctx is the one Middleware gave
// call's dispatch.
func (t *Telemetry) Report(ctx context.Context, call registry.Call, rep *ptc.Report) {
	if id, _ := ctx.Value(spanKey{}).(string); id != call.ID || rep == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	if rep.Failure != nil {
		span.SetAttributes(KeyFailureKind.String(string(rep.Failure.Kind)))
	}
	span.SetAttributes(
		KeyComputeMs.Float64(float64(rep.Compute)/float64(time.Millisecond)),
		KeySubCalls.Int(len(rep.Calls)),
		KeyOutputBytes.Int(rep.OutputBytes),
		KeyFromToolsBytes.Int(rep.FromTools),
		KeyToModelBytes.Int(rep.ToModel),
	)
}

// content returns s within MaxContentBytes.
func (t *Telemetry) content(s string) string {
	if len(s) <= t.o.MaxContentBytes {
		return s
	}
	cut := clip(s, t.o.MaxContentBytes)
	return cut + fmt.Sprintf("…(%d more bytes)", len(s)-len(cut))
}

// clip cuts s to at most n bytes at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

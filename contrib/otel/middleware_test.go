package otel

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// attrs returns a span's attributes as strings, by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// direct runs one model-direct call (mode native) through a pipeline wrapped by a
// Telemetry made with opts, and returns the one span it made.
func direct(t *testing.T, opts *Options, call registry.Call, wrappers ...pipeline.Middleware) (*pipeline.Result, sdktrace.ReadOnlySpan) {
	t.Helper()
	tel, _, rec := traced(t, opts)
	p := pipeline.New(&pipeline.Options{Wrappers: append([]pipeline.Middleware{tel.Middleware()}, wrappers...)})
	res := p.Run(context.Background(), resolved(t, registry.ModeNative), call)
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("got %d spans, want 1", len(spans))
	}
	return res, spans[0]
}

func TestSpanPerCall(t *testing.T) {
	tests := []struct {
		name       string
		opts       *Options
		call       registry.Call
		wantName   string
		wantStatus codes.Code
		wantDesc   string
		want       map[string]string
	}{
		{
			name: "a success", call: registry.Call{ID: "c1", Name: "echo", Args: registry.MustParseValue(`{"text":"hi"}`)},
			wantName: "execute_tool echo",
			want:     map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1", "runcode.call.root_id": "c1"},
		},
		{
			name: "content on opt-in", opts: &Options{RecordArguments: true, RecordResults: true},
			call:     registry.Call{ID: "c1", Name: "echo", Args: registry.MustParseValue(`{"text":"hi"}`)},
			wantName: "execute_tool echo",
			want: map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1", "runcode.call.root_id": "c1",
				"gen_ai.tool.call.arguments": `{"text":"hi"}`, "gen_ai.tool.call.result": `"hi"`},
		},
		{
			name: "content is cut at a character boundary", opts: &Options{RecordArguments: true, RecordResults: true, MaxContentBytes: 11},
			call:     registry.Call{ID: "c1", Name: "echo", Args: registry.MustParseValue(`{"text":"héllo wörld"}`)},
			wantName: "execute_tool echo",
			want: map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1", "runcode.call.root_id": "c1",
				"gen_ai.tool.call.arguments": `{"text":"h…(14 more bytes)`, "gen_ai.tool.call.result": `"héllo wö…(4 more bytes)`},
		},
		{
			name: "a tool failure", opts: &Options{RecordResults: true},
			call:       registry.Call{ID: "c2", Name: "fail", Args: registry.MustParseValue(`{}`)},
			wantName:   "execute_tool fail",
			wantStatus: codes.Error, wantDesc: "it broke",
			want: map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fail", "gen_ai.tool.call.id": "c2", "runcode.call.root_id": "c2", "error.type": "TOOL_FAILED"},
		},
		{
			name:       "invalid arguments",
			call:       registry.Call{ID: "c3", Name: "echo", Args: registry.MustParseValue(`{}`)},
			wantName:   "execute_tool echo",
			wantStatus: codes.Error, wantDesc: `invalid arguments: missing required property "text"`,
			want: map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c3", "runcode.call.root_id": "c3", "error.type": "INVALID_ARGS"},
		},
		{
			name:       "an unknown tool keeps its name out of the span name",
			call:       registry.Call{ID: strings.Repeat("i", 300), Name: "no_such_tool", Args: registry.MustParseValue(`{}`)},
			wantName:   "execute_tool _OTHER",
			wantStatus: codes.Error, wantDesc: `unknown tool "no_such_tool"`,
			want: map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "no_such_tool", "gen_ai.tool.call.id": strings.Repeat("i", 256),
				"runcode.call.root_id": strings.Repeat("i", 256), "error.type": "UNKNOWN_TOOL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, span := direct(t, tt.opts, tt.call)
			if span.Name() != tt.wantName {
				t.Errorf("span name %q, want %q", span.Name(), tt.wantName)
			}
			if st := span.Status(); st.Code != tt.wantStatus || !strings.HasPrefix(st.Description, tt.wantDesc) {
				t.Errorf("status %v %q, want %v %q", st.Code, st.Description, tt.wantStatus, tt.wantDesc)
			}
			if diff := cmp.Diff(tt.want, attrs(span)); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
		})
	}
}

// A wrapper's error and a panic under the span are TOOL_FAILED on it, and the span
// ends either way.
func TestSpanOnWrapperFailure(t *testing.T) {
	wrappers := map[string]pipeline.Middleware{
		"error": func(pipeline.Handler) pipeline.Handler {
			return func(context.Context, *pipeline.Call) (*pipeline.Result, error) {
				return nil, &pipeline.ToolError{Code: pipeline.CodeDenied, Message: "not now"}
			}
		},
		"panic": func(pipeline.Handler) pipeline.Handler {
			return func(context.Context, *pipeline.Call) (*pipeline.Result, error) { panic("wrapper bug") }
		},
	}
	want := map[string][2]string{"error": {"DENIED", "not now"}, "panic": {"TOOL_FAILED", "panic: wrapper bug"}}
	for name, w := range wrappers {
		t.Run(name, func(t *testing.T) {
			res, span := direct(t, nil, registry.Call{ID: "c", Name: "echo", Args: registry.MustParseValue(`{"text":"x"}`)}, w)
			got := [2]string{attrs(span)["error.type"], span.Status().Description}
			if got != want[name] || !res.IsError() {
				t.Errorf("error.type and status %q (result error %v), want %q", got, res.Error, want[name])
			}
		})
	}
}

func TestDurationMetric(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	tel, _, _ := traced(t, &Options{MeterProvider: mp})
	p := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware()}})
	set := resolved(t, registry.ModeNative)
	for _, c := range []registry.Call{
		{ID: "1", Name: "echo", Args: registry.MustParseValue(`{"text":"a"}`)},
		{ID: "2", Name: "echo", Args: registry.MustParseValue(`{"text":"b"}`)},
		{ID: "3", Name: "fail", Args: registry.MustParseValue(`{}`)},
		{ID: "4", Name: "made_up_by_the_model", Args: registry.MustParseValue(`{}`)},
	} {
		p.Run(context.Background(), set, c)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != MetricDuration || m.Unit != "s" {
				t.Errorf("metric %q in %q", m.Name, m.Unit)
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				var parts []string
				for _, kv := range dp.Attributes.ToSlice() {
					parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
				}
				got[strings.Join(parts, " ")] += dp.Count
			}
		}
	}
	want := map[string]uint64{
		"gen_ai.operation.name=execute_tool gen_ai.tool.name=echo":                           2,
		"error.type=TOOL_FAILED gen_ai.operation.name=execute_tool gen_ai.tool.name=fail":    1,
		"error.type=UNKNOWN_TOOL gen_ai.operation.name=execute_tool gen_ai.tool.name=_OTHER": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("data points by attributes (-want +got):\n%s", diff)
	}
}

// Report adds figures only to the span Middleware opened for that very call.
func TestReportFindsItsSpan(t *testing.T) {
	tel, tp, rec := traced(t, nil)
	rep := &ptc.Report{Failure: &runtime.Failure{Kind: runtime.KindTimeout}, OutputBytes: 7, FromTools: 120, ToModel: 9, Calls: nil}
	ctx, span := tp.Tracer("test").Start(context.Background(), "someone else's")
	tel.Report(ctx, registry.Call{ID: "c1"}, rep) // not a context Middleware made
	var inner sdktrace.ReadOnlySpan
	mw := tel.Middleware()(func(ctx context.Context, call *pipeline.Call) (*pipeline.Result, error) {
		tel.Report(ctx, registry.Call{ID: "another call"}, rep)
		tel.Report(ctx, call.Call, nil)
		tel.Report(ctx, call.Call, rep)
		return &pipeline.Result{Value: registry.MustParseValue(`1`)}, nil
	})
	if _, err := mw(ctx, &pipeline.Call{Call: registry.Call{ID: "c1", Name: "run_code"}}); err != nil {
		t.Fatal(err)
	}
	span.End()
	for _, s := range rec.Ended() {
		if s.Name() == "execute_tool _OTHER" {
			inner = s
		} else if len(attrs(s)) != 0 {
			t.Errorf("the outer span got attributes: %v", attrs(s))
		}
	}
	got := attrs(inner)
	want := map[string]string{"runcode.run.failure_kind": "timeout", "runcode.run.compute_ms": "0", "runcode.run.sub_calls": "0", "runcode.run.output_bytes": "7",
		"runcode.run.from_tools_bytes": "120", "runcode.run.to_model_bytes": "9"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

func TestNewRejectsNegativeContentBound(t *testing.T) {
	_, err := New(&Options{MaxContentBytes: -1})
	if err == nil || err.Error() != "otel: MaxContentBytes must not be negative, got -1" {
		t.Errorf("got %v", err)
	}
}

package otel

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/runtime/worker"
)

// TestMain doubles as the worker executable of process isolation: the test binary
// re-executed with "__worker" serves programs.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__worker" {
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	testleak.VerifyTestMain(m)
}

// traced returns a Telemetry made with opts (nil: defaults) on a fresh recorder's
// tracer provider.
func traced(t *testing.T, opts *Options) (*Telemetry, *sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	tp, rec := recorder(t)
	var o Options
	if opts != nil {
		o = *opts
	}
	o.TracerProvider = tp
	tel, err := New(&o)
	if err != nil {
		t.Fatal(err)
	}
	return tel, tp, rec
}

// recorder returns a tracer provider whose ended spans rec holds.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	return tp, rec
}

// treeKeys are the attributes spanTree prints, in this order. The compute time is
// printed as whether it is positive: its value is a measurement.
var treeKeys = []attribute.Key{KeyToolCallID, KeyParentID, KeyErrorType, KeyFailureKind, KeySubCalls, KeyOutputBytes}

// spanTree prints spans as a tree: each span's name, status and key attributes,
// its children indented under it, siblings in call-id order. A span whose parent is
// not among spans is a root; a span whose parent came from another process (through
// a propagator) says so. It fails the test
// if the spans are not all of one trace.
func spanTree(t *testing.T, spans []sdktrace.ReadOnlySpan) string {
	t.Helper()
	children := map[string][]sdktrace.ReadOnlySpan{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
		if s.SpanContext().TraceID() != spans[0].SpanContext().TraceID() {
			t.Errorf("span %q is in trace %s, not %s", s.Name(), s.SpanContext().TraceID(), spans[0].SpanContext().TraceID())
		}
	}
	for _, s := range spans {
		p := s.Parent().SpanID().String()
		if !s.Parent().IsValid() || !ids[p] {
			p = ""
		}
		children[p] = append(children[p], s)
	}
	var b strings.Builder
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := children[parent]
		sort.SliceStable(kids, func(i, j int) bool { return callID(kids[i]) < callID(kids[j]) })
		for _, s := range kids {
			fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), s.Name())
			if s.Parent().IsRemote() {
				b.WriteString(" (remote parent)")
			}
			if s.Status().Code.String() != "Unset" {
				fmt.Fprintf(&b, " [%s %q]", s.Status().Code, s.Status().Description)
			}
			attrs := map[attribute.Key]attribute.Value{}
			for _, kv := range s.Attributes() {
				attrs[kv.Key] = kv.Value
			}
			for _, k := range treeKeys {
				if v, ok := attrs[k]; ok {
					fmt.Fprintf(&b, " %s=%s", k, v.Emit())
				}
			}
			if v, ok := attrs[KeyComputeMs]; ok {
				fmt.Fprintf(&b, " %s>0=%v", KeyComputeMs, v.AsFloat64() > 0)
			}
			b.WriteByte('\n')
			walk(s.SpanContext().SpanID().String(), depth+1)
		}
	}
	walk("", 0)
	return b.String()
}

func callID(s sdktrace.ReadOnlySpan) string {
	for _, kv := range s.Attributes() {
		if kv.Key == KeyToolCallID {
			return kv.Value.AsString()
		}
	}
	return ""
}

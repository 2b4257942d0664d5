package pipeline

import (
	"context"
	"fmt"
	"testing"

	"github.com/runcode-go/runcode/registry"
)

// trivialTool is the benchmark's tool: a small object schema and a body that does
// almost nothing, so that the figures are the pipeline's own cost.
func trivialTool() *registry.Tool {
	return &registry.Tool{
		Name:        "stat",
		Description: "Stat a path.",
		Parameters: registry.Object(
			registry.Required("path", registry.String()),
			registry.Optional("follow", registry.Boolean()),
		).Closed(),
		Output:            registry.Output{Schema: registry.String()},
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(context.Context, *registry.Call) (any, error) {
			return "ok", nil
		},
	}
}

// BenchmarkRun is one call through the whole pipeline, with the timeout wrapper, a
// pre-execute hook, a post-execute hook and an observer installed (the realistic
// case), for a trivial tool with a small object schema.
func BenchmarkRun(b *testing.B) {
	set := resolve(b, trivialTool())
	p := New(&Options{
		PreExecute:  []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{}, nil }},
		Wrappers:    []Middleware{Timeout()},
		PostExecute: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) { return PostAction{}, nil }},
		Observers:   []ObserverFunc{func(*Call, Result) {}},
	})
	c := registry.Call{ID: "c1", Name: "stat", Args: registry.MustParseValue(`{"path":"/tmp/x","follow":true}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := p.Run(ctx, set, c); r.IsError() {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkSchedule100 submits 100 parallel-safe calls to one scheduler and waits for
// all of them, per iteration.
func BenchmarkSchedule100(b *testing.B) {
	for _, max := range []int{10, 100} {
		b.Run(fmt.Sprintf("max=%d", max), func(b *testing.B) {
			set := resolve(b, trivialTool())
			p := New(&Options{Wrappers: []Middleware{Timeout()}})
			calls := make([]registry.Call, 100)
			for i := range calls {
				calls[i] = registry.Call{ID: fmt.Sprintf("c%d", i), Name: "stat", Args: registry.MustParseValue(fmt.Sprintf(`{"path":"/p/%d"}`, i))}
			}
			pending := make([]*Pending, len(calls))
			b.ReportAllocs()
			for b.Loop() {
				s, err := p.NewScheduler(context.Background(), set, &SchedulerOptions{MaxParallel: max})
				if err != nil {
					b.Fatal(err)
				}
				for i, c := range calls {
					pending[i] = s.Submit(c)
				}
				for _, pd := range pending {
					if r := pd.Wait(); r.IsError() {
						b.Fatal(r.Error)
					}
				}
				s.Close()
			}
		})
	}
}

// FuzzRun drives arbitrary argument text through the native path's snapshot and the
// whole pipeline: it must never panic and always produce exactly one content block
// for a failure, or a value for a success.
func FuzzRun(f *testing.F) {
	for _, s := range []string{`{"path":"/a"}`, `{"path":1}`, ``, `{`, `{"path":"a","follow":"x","extra":[1,{}]}`, `"str"`, `[]`, `{"path":"\ud800"}`} {
		f.Add(s)
	}
	set := resolve(f, trivialTool())
	p := New(&Options{Wrappers: []Middleware{Timeout()}})
	f.Fuzz(func(t *testing.T, args string) {
		r := p.Run(context.Background(), set, registry.Call{ID: "f", Name: "stat", Args: ParseArguments(args)})
		if r.IsError() {
			if len(r.Content) != 1 || r.Content[0].Text != "Error: "+r.Error.Message || r.Error.Code != CodeInvalidArgs {
				t.Fatalf("failure result malformed: %+v", r)
			}
			return
		}
		if r.Value.String() != `"ok"` {
			t.Fatalf("success without the value: %+v", r)
		}
	})
}

package ptc

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/sqlite"
)

func benchExecutor(b *testing.B, maxParallel int, tools ...*registry.Tool) (*Executor, *registry.ResolvedToolSet) {
	b.Helper()
	set := testreg.ResolveIn(b, testreg.Scope(b, registry.ModePTC), tools...)
	ex, err := New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}),
		&Options{Pool: newPool(b, 4), MaxParallelSubCalls: maxParallel})
	if err != nil {
		b.Fatal(err)
	}
	return ex, set
}

func runCall(code string) pipeline.RawCall {
	args, _ := json.Marshal(map[string]string{"code": code, "description": "benchmark"})
	return pipeline.RawCall{ID: "call-1", Name: "run_code", Arguments: string(args)}
}

// BenchmarkRunCode10Sequential is one whole run_code call: the pipeline for run_code,
// a pooled VM, and 10 sequential sub-calls each through the pipeline (validation, a
// small object schema, rendering).
func BenchmarkRunCode10Sequential(b *testing.B) {
	ex, set := benchExecutor(b, 0, &registry.Tool{
		Name:       "lookup",
		Parameters: registry.Object(registry.Required("i", registry.Integer())).Closed(),
		Output:     registry.Output{Schema: registry.Object(registry.Required("i", registry.Integer()))},
		Execute:    func(_ context.Context, c *registry.Call) (any, error) { return c.Args, nil },
	})
	call := runCall(`let sum = 0; for (let i = 0; i < 10; i++) { sum += (await tools.lookup({ i })).i; } return sum;`)
	b.ReportAllocs()
	for b.Loop() {
		res, _ := ex.Run(context.Background(), set, call)
		if res.IsError() || res.Value.String() != `{"logs":[],"result":45}` {
			b.Fatalf("%s %v", res.Value, res.Error)
		}
	}
}

// BenchmarkRunCode100Parallel is one run_code call fanning out 100 sub-calls under
// Promise.all to a concurrency-safe tool that answers after a 10 ms timer, with
// maxParallelSubCalls at 100 (the bench scenario S3's setting).
func BenchmarkRunCode100Parallel(b *testing.B) {
	ex, set := benchExecutor(b, 100, &registry.Tool{
		Name:              "slow_lookup",
		Parameters:        registry.Object(registry.Required("i", registry.Integer())),
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(ctx context.Context, c *registry.Call) (any, error) {
			t := time.NewTimer(10 * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
				return c.Args, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	call := runCall(`const p = []; for (let i = 0; i < 100; i++) p.push(tools.slow_lookup({ i })); const a = await Promise.all(p); let s = 0; for (const x of a) s += x.i; return s;`)
	b.ReportAllocs()
	for b.Loop() {
		res, _ := ex.Run(context.Background(), set, call)
		if res.IsError() || res.Value.String() != `{"logs":[],"result":4950}` {
			b.Fatalf("%s %v", res.Value, res.Error)
		}
	}
}

// BenchmarkRecording is BenchmarkRunCode10Sequential with each kind of store: none
// (the executor's own memory store, written only when a run pauses), a memory store
// given in Options.Store and a SQLite file (every sub-call recorded as it starts and
// ends, for crash recovery), and with the learning of output types on and off.
func BenchmarkRecording(b *testing.B) {
	lookup := &registry.Tool{
		Name:       "lookup",
		Parameters: registry.Object(registry.Required("i", registry.Integer())).Closed(),
		Execute:    func(_ context.Context, c *registry.Call) (any, error) { return c.Args, nil },
	}
	call := runCall(`let sum = 0; for (let i = 0; i < 10; i++) { sum += (await tools.lookup({ i })).i; } return sum;`)
	for _, bc := range []struct {
		name    string
		store   func(b *testing.B) store.Store
		noTypes bool
	}{
		{name: "no store, no types", noTypes: true},
		{name: "no store"},
		{name: "memory", store: func(*testing.B) store.Store { return store.NewMemory() }},
		{name: "sqlite", store: func(b *testing.B) store.Store {
			st, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "s.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			set := testreg.ResolveIn(b, testreg.Scope(b, registry.ModePTC), lookup)
			o := &Options{Pool: newPool(b, 4), NoInferredTypes: bc.noTypes}
			if bc.store != nil {
				o.Store = bc.store(b)
			}
			ex, err := New(pipeline.New(nil), o)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				res, _ := ex.Run(context.Background(), set, call)
				if res.IsError() || res.Value.String() != `{"logs":[],"result":45}` {
					b.Fatalf("%s %v", res.Value, res.Error)
				}
			}
		})
	}
}

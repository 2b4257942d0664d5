package bindings

import (
	"context"
	goruntime "runtime"
	"testing"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// BenchmarkRecordHeld reports what the host holds per sub-call record of a run of
// sequential calls with tiny arguments and results (B/record): the fixed cost that
// recordOverhead charges to the record budget.
func BenchmarkRecordHeld(b *testing.B) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	set := testreg.Resolve(b, &registry.Tool{Name: "t", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }})
	tools, err := New(set)
	if err != nil {
		b.Fatal(err)
	}
	p := pipeline.New(nil)
	const calls = 20000
	var perRecord float64
	for b.Loop() {
		run, err := Begin(context.Background(), p, set, &Options{Parent: registry.Call{ID: "call-1"}})
		if err != nil {
			b.Fatal(err)
		}
		before := heapLive()
		res, err := pool.Run(context.Background(), `for (let i = 0; i < 20000; i++) await tools.t({})`, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(run)}})
		run.End("")
		if err != nil || res.Failure != nil {
			b.Fatal(err, res.Failure)
		}
		if n := len(run.Calls()); n != calls {
			b.Fatalf("%d records", n)
		}
		perRecord = float64(heapLive()-before) / calls
		goruntime.KeepAlive(run)
	}
	b.ReportMetric(perRecord, "B/record")
}

func heapLive() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

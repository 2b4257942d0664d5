package bindings

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

func TestBeginValidatesOptions(t *testing.T) {
	p := pipeline.New(nil)
	set := testreg.Resolve(t)
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{MaxParallel: -1}, "maxParallelSubCalls must be a positive integer, got -1"},
		{Options{MaxCalls: -1}, "the sub-call budget must not be negative, got -1"},
		{Options{RecordBytes: -1}, "the sub-call record budget must not be negative, got -1"},
	} {
		if _, err := Begin(context.Background(), p, set, &tt.opts); err == nil || err.Error() != tt.want {
			t.Errorf("Begin(%+v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

// TestNamespace runs real programs against a namespace built from a set: exotic names
// are ordinary keys, run_code is never bound, the sub-call budget holds, and a call
// made outside Begin's context is rejected rather than dispatched.
func TestNamespace(t *testing.T) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ran := 0
	body := func(context.Context, *registry.Call) (any, error) { ran++; return "ok", nil }
	set := testreg.Resolve(t,
		&registry.Tool{Name: "__proto__", Execute: body},
		&registry.Tool{Name: "my-tool", Execute: body},
		&registry.Tool{Name: "constructor", Execute: body},
	)
	tools, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(nil)
	code := `return [await tools["__proto__"]({}), await tools["my-tool"]({}), await tools.constructor({}), typeof tools.run_code, Object.keys(tools).sort().join(",")]`
	ctx := context.Background()
	run, err := Begin(ctx, p, set, &Options{Parent: registry.Call{ID: "call-9"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.Run(ctx, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(run)}})
	run.End("")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Value); got != `["ok","ok","ok","undefined","$describe,$result,$search,__proto__,constructor,my-tool"]` || res.Failure != nil {
		t.Errorf("got %s (%v)", got, res.Failure)
	}
	if calls := run.Calls(); len(calls) != 3 || calls[2].ID != "call-9:code:3" || calls[0].Name != "__proto__" {
		t.Errorf("calls = %+v", calls)
	}

	run, _ = Begin(ctx, p, set, &Options{Parent: registry.Call{ID: "c"}, MaxCalls: 1})
	res, _ = pool.Run(ctx, `await tools["my-tool"]({}); try { await tools["my-tool"]({}) } catch (e) { return [e.code, e.message] }`, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(run)}})
	run.End("")
	if got := string(res.Value); got != `["ABORTED_BEFORE_DISPATCH","sub-call budget of 1 calls exhausted"]` {
		t.Errorf("budget: %s (%v)", got, res.Failure)
	}

	before := ran
	res, _ = pool.Run(context.Background(), `try { await tools["my-tool"]({}) } catch (e) { return e.message }`, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Namespace()}})
	if got := string(res.Value); !strings.Contains(got, "only be called inside a run_code run") || ran != before {
		t.Errorf("outside a run: %s, body ran %d times", got, ran-before)
	}
}

// TestRecordBudget: the records the host keeps of a run's sub-calls are bounded. With a
// 1 MiB budget, 300 KB arguments end the run before the fourth call is dispatched,
// 100 KB results (held as the value and as its text) end it at the sixth result, and
// tiny calls (1 KiB a record and 8 bytes of payload) before the 1017th; the program
// cannot catch it, and the records then hold no more than the budget and one result.
func TestRecordBudget(t *testing.T) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var sank, made atomic.Int32
	set := testreg.Resolve(t,
		&registry.Tool{Name: "sink", Execute: func(context.Context, *registry.Call) (any, error) { sank.Add(1); return "ok", nil }},
		&registry.Tool{Name: "big", Execute: func(context.Context, *registry.Call) (any, error) {
			made.Add(1)
			return strings.Repeat("x", 100_000), nil
		}},
	)
	tools, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(nil)
	const budget = 1 << 20
	for _, tt := range []struct {
		name  string
		code  string
		count *atomic.Int32
		want  int32
	}{
		{"arguments", `const s = 'x'.repeat(300000); for (let i = 0; i < 10; i++) try { await tools.sink({s}) } catch {}`, &sank, 3},
		{"results", `for (let i = 0; i < 10; i++) try { await tools.big({}) } catch {}`, &made, 6},
		{"many calls", `for (let i = 0; i < 5000; i++) try { await tools.sink({}) } catch {}`, &sank, 1016},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.count.Store(0)
			run, err := Begin(context.Background(), p, set, &Options{Parent: registry.Call{ID: "c"}, RecordBytes: budget})
			if err != nil {
				t.Fatal(err)
			}
			res, err := pool.Run(context.Background(), tt.code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(run)}})
			run.End("")
			if err != nil {
				t.Fatal(err)
			}
			want := runtime.Failure{Kind: runtime.KindMemoryLimit, Message: "heap limit of 1 MiB exceeded by the arguments and results of its tool calls"}
			if res.Failure == nil || *res.Failure != want {
				t.Errorf("result %q, want %v", res.Text(), want)
			}
			if n := tt.count.Load(); n != tt.want {
				t.Errorf("the tool ran %d times, want %d", n, tt.want)
			}
			var held, last int64
			for _, c := range run.Calls() {
				last = recordSize(c.Result)
				held += recordOverhead + int64(len(c.Args.String())) + last
			}
			if held-last > budget {
				t.Errorf("the records hold %d bytes, %d before the last result", held, held-last)
			}
		})
	}
}

// TestStuckCallAbandoned: a sub-call whose body ignores cancellation is abandoned a
// grace after the run ended at its wall clock. End returns without it, the record says
// so, and when the body returns later its value reaches neither the program (whose log
// stream stays silent) nor the record.
func TestStuckCallAbandoned(t *testing.T) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	entered, release, late := make(chan struct{}), make(chan struct{}), make(chan struct{})
	set := testreg.Resolve(t, &registry.Tool{Name: "hang", Execute: func(context.Context, *registry.Call) (any, error) {
		close(entered)
		<-release
		return "late value", nil
	}})
	var events []string
	var mu sync.Mutex
	p := pipeline.New(&pipeline.Options{
		Events: pipeline.SinkFunc(func(e pipeline.Event) {
			mu.Lock()
			events = append(events, e.Type+" "+e.CallID)
			mu.Unlock()
		}),
		Observers: []pipeline.ObserverFunc{func(*pipeline.Call, pipeline.Result) { close(late) }},
	})
	defer func() { <-late }() // runs after the release below, before the pool closes
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	tools, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run, err := Begin(ctx, p, set, &Options{Parent: registry.Call{ID: "call-1"}, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	res, err := pool.Run(ctx, `try { console.log("got " + await tools.hang({})) } catch (e) { console.log("caught " + e.message) }`, &runtime.RunOptions{
		Namespaces: []*runtime.Namespace{tools.Bind(run)},
		Limits:     &runtime.Limits{WallClock: 200 * time.Millisecond},
		OnLog:      func(s string) { logs = append(logs, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	run.End("")
	testwait.Receive(t, entered, "the stuck sub-call to start")
	if res.Failure == nil || res.Failure.Kind != runtime.KindTimeout {
		t.Errorf("failure %+v, want a timeout", res.Failure)
	}
	calls := run.Calls()
	want := "Error: run_code run is over (run_code settled); hang tool call abandoned: still running 50ms after it was cancelled"
	if len(calls) != 1 || !calls[0].AbandonedRunning || calls[0].NeverStarted || calls[0].Result.Content[0].Text != want {
		t.Fatalf("calls: %+v", calls)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"tool/code-dispatch-start call-1:code:1", "tool/code-dispatch-abandoned call-1:code:1"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	mu.Unlock()

	free()
	testwait.Receive(t, late, "the late result")
	if again := run.Calls(); !again[0].AbandonedRunning || again[0].Result.Content[0].Text != want {
		t.Errorf("the late outcome reached the record: %+v", again[0])
	}
	if len(logs) != 0 {
		t.Errorf("the program saw the call settle: %q", logs)
	}
}

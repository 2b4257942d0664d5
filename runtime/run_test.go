package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testwait"
)

// TestFailureKinds pins every failure kind the in-process pool reports, with its exact
// message.
func TestFailureKinds(t *testing.T) {
	tests := []struct {
		kind        Kind
		about, code string
		limits      *Limits
		message     string
	}{
		{KindException, "a thrown Error reports its stack", "throw new Error('boom')", nil, "Error: boom\n    at program.js:1:7"},
		{KindException, "a thrown non-Error reports String(value)", "throw 'raw-nope'", nil, "raw-nope"},
		{KindException, "a thrown symbol reports String(value)", "throw Symbol('boom')", nil, "Symbol(boom)"},
		{KindException, "a rejection with a symbol without description", "await Promise.reject(Symbol())", nil, "Symbol()"},
		{KindException, "an unrenderable thrown value", "throw { toString() { throw 1 } }", nil, "program threw an unrenderable value"},
		{KindException, "a rejected main promise", "await Promise.reject(new TypeError('no'))", nil, "TypeError: no\n    at program.js:1:22"},
		{KindException, "a never-settling program ends at once", "await new Promise(() => {})", nil, "program never settled: it awaited a promise that nothing left to run can settle"},
		{KindException, "runaway recursion", "function r() {\n  return r() + 1\n}\nreturn r()", nil, "RangeError: Maximum call stack size exceeded\n    at r (program.js:2:11)\n    at r (program.js:2:11)\n    at r (program.js:2:11)\n    at r (program.js:2:11)\n    at r (program.js:2:11)"},
		{KindException, "a missing global lists the real ones", "return require('fs')", nil, "ReferenceError: require is not defined\n    at program.js:1:15\nAvailable globals: the ECMAScript built-ins, console, setTimeout, clearTimeout, URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone (no require, import, process, fetch, filesystem or network)"},
		{KindTimeout, "compute budget", "while (true) {}", &Limits{Compute: 50 * time.Millisecond}, "compute budget exhausted (50ms busy)"},
		{KindInvalidOutput, "a Date completion", "return new Date(0)", nil, "program completion must be lossless JSON"},
		{KindOutputLimit, "logs over the budget", "console.log('12345678')", &Limits{OutputBytes: 8}, "outer output exceeded 8 bytes"},
		{KindMemoryLimit, "the heap sampler", "const a = []; while (true) a.push('x'.repeat(1e5) + a.length)", &Limits{HeapBytes: 32 << 20, Compute: 30 * time.Second}, "heap limit of 32 MiB exceeded"},
		{KindException, "a timer callback that throws", "setTimeout(() => { throw new Error('in timer') }, 0); await new Promise(r => setTimeout(r, 5))", nil, "Error: in timer\n    at program.js:1:26"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+": "+tt.about, func(t *testing.T) {
			p := newTestPool(t, nil)
			res := runCode(t, p, tt.code, &RunOptions{Limits: tt.limits})
			if res.Failure == nil {
				t.Fatalf("run succeeded with %s, want a failure", res.Text())
			}
			if diff := cmp.Diff(Failure{Kind: tt.kind, Message: tt.message}, *res.Failure); diff != "" {
				t.Errorf("failure mismatch (-want +got):\n%s", diff)
			}
			if res.Value != nil {
				t.Errorf("a failed run has a value: %s", res.Value)
			}
		})
	}
}

func TestWallClockAndAbort(t *testing.T) {
	t.Run("wall clock ends a run waiting on host work", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := newTestPool(t, &Limits{WallClock: 2 * time.Second})
			var ft fakeTools
			res := runCode(t, p, "await tools.hang({})", &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}})
			checkFailure(t, res, KindTimeout, "wall-clock ceiling reached (2000ms)")
		})
	})
	t.Run("wall clock bounds timers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := newTestPool(t, &Limits{WallClock: time.Second})
			res := runCode(t, p, "await new Promise(r => setTimeout(r, 1e9))", nil)
			checkFailure(t, res, KindTimeout, "wall-clock ceiling reached (1000ms)")
		})
	})
	t.Run("timers fire in deadline order", func(t *testing.T) {
		// In a bubble time moves only when every goroutine waits, so each deadline is
		// exactly the delay after the call, however slow the machine.
		synctest.Test(t, func(t *testing.T) {
			p := newTestPool(t, nil)
			code := `const out = [];
				for (const [name, ms] of [['d', 30], ['b', 10], ['e', 40], ['a', 0], ['c', 20], ['b2', 10]]) setTimeout(() => out.push(name), ms);
				setTimeout(() => setTimeout(() => out.push('f'), 1), 40);
				await new Promise(r => setTimeout(r, 100)); return out.join()`
			if got := runCode(t, p, code, nil).Text(); got != "a,b,b2,c,d,e,f" {
				t.Errorf("got %q, want a,b,b2,c,d,e,f", got)
			}
		})
	})
	t.Run("time awaiting host work is not compute", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := newTestPool(t, &Limits{Compute: 100 * time.Millisecond})
			var ft fakeTools
			res := runCode(t, p, "return await tools.sleep({ms: 500})", &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}})
			if diff := cmp.Diff("slept", res.Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	})
	t.Run("cancelling the context aborts with the cause", func(t *testing.T) {
		p := newTestPool(t, nil)
		ft := fakeTools{inWait: make(chan struct{})}
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			<-ft.inWait
			cancel(errors.New("user-cancel"))
		}()
		res, err := p.Run(ctx, "console.log('before'); await tools.hang({})", &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}})
		if err != nil {
			t.Fatal(err)
		}
		want := &Result{Logs: []string{"before"}, Failure: &Failure{Kind: KindAbort, Message: "user-cancel"}}
		if diff := cmp.Diff(want, res, ignoreCompute); diff != "" {
			t.Errorf("result mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a pre-cancelled context never takes a VM", func(t *testing.T) {
		p := newTestPool(t, nil)
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("gone before start"))
		res, err := p.Run(ctx, "return 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFailure(t, res, KindAbort, "gone before start")
	})
}

func TestLoop(t *testing.T) {
	tests := []textCase{
		{"return value", "return 1 + 1", "2"},
		{"top-level await", "const v = await Promise.resolve(41); return v + 1", "42"},
		{"no return means no result", "const x = 1", "(run_code completed with no output)"},
		{"clearTimeout cancels", "const id = setTimeout(() => { throw new Error('ran') }, 0); clearTimeout(id); return 'ok'", "ok"},
		{"timer arguments", "return await new Promise(r => setTimeout(r, 0, 'arg'))", "arg"},
		{"a pending timer does not count as never settling", "await new Promise(r => setTimeout(r, 1)); return 'done'", "done"},
		{"unhandled rejections are reported in the logs", "Promise.reject(new Error('dropped')); return 1", "Uncaught (in promise) Error: dropped\n    at program.js:1:16\n1"},
		{"handled rejections are not reported", "const p = Promise.reject(new Error('x')); await p.catch(() => {}); return 1", "1"},
		{"many rejections handled in order", "const ps = []; for (let i = 0; i < 20000; i++) ps.push(Promise.reject(i)); for (const p of ps) p.catch(() => {}); Promise.reject('last'); return 'ok'", "Uncaught (in promise) last\nok"},
		{"strict mode", "undeclared = 1", "Error: code run failed (exception): ReferenceError: undeclared is not defined\n    at program.js:1:1\nAvailable globals: the ECMAScript built-ins, console, setTimeout, clearTimeout, URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone (no require, import, process, fetch, filesystem or network)"},
	}
	runTextCases(t, newTestPool(t, nil), tests, nil)
}

// TestNoStateSurvives runs a polluting program and then a checking one on a one-VM pool:
// every run gets a VM no program ran on.
func TestNoStateSurvives(t *testing.T) {
	p, err := NewPool(&PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pollute := `globalThis.leak = 'A'; const secret = 'A-token'; Array.prototype.map = () => ['pwned'];
Object.prototype.isAdmin = true; JSON.stringify = () => 'fake'; console.log = () => {}; return 1`
	if res := runCode(t, p, pollute, nil); res.Failure != nil {
		t.Fatalf("polluting run failed: %s", res.Text())
	}
	// ({}).isAdmin would be undefined, which is lossy inside an array: compare strings.
	check := `const s = [typeof leak, typeof secret, [1, 2].map(x => x * 2).join(), String(({}).isAdmin), JSON.stringify({a: 1})];
console.log('visible');
return s`
	res := runCode(t, p, check, nil)
	want := "visible\n[\n  \"undefined\",\n  \"undefined\",\n  \"2,4\",\n  \"undefined\",\n  \"{\\\"a\\\":1}\"\n]"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("text mismatch (-want +got):\n%s", diff)
	}
}

// TestStaleInterrupt pins goja's stale interrupt flag case: an interrupt that lands inside a
// promise job stays set on that VM, so the next run must not see it.
func TestStaleInterrupt(t *testing.T) {
	p, err := NewPool(&PoolOptions{Size: 1, Limits: &Limits{Compute: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res := runCode(t, p, "await null; while (true) {}", nil)
	if res.Failure == nil || res.Failure.Kind != KindTimeout {
		t.Fatalf("first run = %s, want a timeout", res.Text())
	}
	for i := 0; i < 3; i++ {
		if got := runCode(t, p, "await null; return 'clean'", nil).Text(); got != "clean" {
			t.Errorf("run %d after the interrupt = %q, want clean", i, got)
		}
	}
}

func TestPoolMisuse(t *testing.T) {
	if _, err := NewPool(&PoolOptions{Size: -1}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewPool(Size: -1) error = %v, want ErrInvalidOptions", err)
	}
	if _, err := NewPool(&PoolOptions{Limits: &Limits{Compute: -1}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewPool(Compute: -1) error = %v, want ErrInvalidOptions", err)
	}
	p := newTestPool(t, nil)
	var ft fakeTools
	ns := ft.namespace(t)
	if _, err := p.Run(context.Background(), "1", &RunOptions{Namespaces: []*Namespace{ns, ns}}); !errors.Is(err, ErrInvalidNamespace) {
		t.Errorf("duplicate namespace error = %v, want ErrInvalidNamespace", err)
	}
	var oe *OptionError
	if _, err := p.Run(context.Background(), "1", &RunOptions{Limits: &Limits{OutputBytes: -1}}); !errors.As(err, &oe) || oe.Field != "Limits.OutputBytes" {
		t.Errorf("bad limits error = %v, want an *OptionError for Limits.OutputBytes", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), "1", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close error = %v, want ErrClosed", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func TestCloseAbortsRunsInFlight(t *testing.T) {
	p, err := NewPool(nil)
	if err != nil {
		t.Fatal(err)
	}
	ft := fakeTools{inWait: make(chan struct{})}
	done := make(chan *Result)
	go func() {
		res, _ := p.Run(context.Background(), "await tools.hang({})", &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}})
		done <- res
	}()
	testwait.Receive(t, ft.inWait, "the hanging call to start")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	checkFailure(t, <-done, KindAbort, "runtime pool closed")
}

// TestConcurrentRuns runs one prepared Program more times than the pool holds VMs, from
// several goroutines; with -race this checks the pool's hand-offs and Program sharing.
func TestConcurrentRuns(t *testing.T) {
	p := newTestPool(t, nil)
	prg, err := Prepare("await null; return [1, 2, 3].map(x => x * 2).join()", nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 16)
	for i := 0; i < 16; i++ {
		go func() {
			res, err := p.RunProgram(context.Background(), prg, nil) // one Program, many VMs
			switch {
			case err != nil:
				errs <- err.Error()
			default:
				errs <- res.Text()
			}
		}()
	}
	for i := 0; i < 16; i++ {
		if got := <-errs; got != "2,4,6" {
			t.Errorf("run = %q, want 2,4,6", got)
		}
	}
}

// TestMaxRuns checks that a run waits for a slot when MaxRuns programs are running, and
// that its context still ends the wait.
func TestMaxRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := NewPool(&PoolOptions{MaxRuns: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ft := fakeTools{inWait: make(chan struct{})}
		opts := &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}}
		first := make(chan *Result)
		go func() {
			res, _ := p.Run(context.Background(), "await tools.hang({})", opts)
			first <- res
		}()
		<-ft.inWait
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		res, err := p.Run(ctx, "return 'second'", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFailure(t, res, KindAbort, "context deadline exceeded")
		p.Close()
		if got := (<-first).Failure; got == nil || got.Kind != KindAbort {
			t.Errorf("first run failure = %v, want an abort", got)
		}
	})
}

// TestUndefinedOrNull: goja says "of undefined" for null too; the model reads "of
// undefined or null".
func TestUndefinedOrNull(t *testing.T) {
	p := newTestPool(t, nil)
	for _, code := range []string{"const x = null; return x.foo", "let x; return x.foo"} {
		got, _, _ := strings.Cut(runCode(t, p, code, nil).Failure.Message, "\n")
		if want := "TypeError: Cannot read property 'foo' of undefined or null"; got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}

package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/runtime"
)

// TestSameAsInProcess runs programs on a runtime.Pool and on a worker Pool and wants the
// same Result from both: logs, value, failure kind and message, and the same host calls.
func TestSameAsInProcess(t *testing.T) {
	programs := []string{
		`return 1 + 1`,
		`console.log('a', {b: [1, 2]}); console.warn('w'); return {x: 'y'}`,
		`return await tools.echo({n: 1, s: "é\u2028"})`,
		`const [a, b] = await Promise.all([tools.echo({i: 1}), tools.echo({i: 2})]); return [a, b]`,
		`try { await tools.fail({}) } catch (e) { return [e instanceof ToolCallError, e.name, e.message, e.toolName, e.code] }`,
		`try { await tools.plain({}) } catch (e) { return [e.name, e.message, e.toolName, Object.keys(e)] }`,
		`try { await tools.bad({}) } catch (e) { return e.message }`,
		// A result's value crosses the channel as the tool gave it, JSON or not, and the
		// worker's runtime decodes it as in process.
		`const out = [];
		 for (const text of ['null', ' {"a":[1,{}]} \n', '1,"error":{"message":"x"}', '"\\ud800"', '[1]x', '', '{"t":"result"}}', '\u00e9"']) {
		   try { out.push(String(JSON.stringify(await tools.raw({text})))) } catch (e) { out.push(e.message) }
		 }
		 return out`,
		`return [await tools.none({}), await tools.__proto__({p: 1})]`,
		`await tools.boom({})`,
		`tools.hang({}); return 'left it hanging'`,
		`try { await tools.echo() } catch (e) { return e.message }`,
		`throw new Error('bad')`,
		`return undefined`,
		`return () => 1`,
		`syntax error here`,
		`const x: number = 1; return x`,
		`return Object.keys(tools).length`,
		`await tools.nope({})`,
	}
	in, err := runtime.NewPool(&runtime.PoolOptions{Size: 1, Limits: testLimits, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out := newTestPool(t, 1)
	for _, code := range programs {
		var fi, fo fakeTools
		want := runCode(t, in, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{fi.namespace(t)}})
		got := runCode(t, out, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{fo.namespace(t)}})
		// Compute is the VM time of each run, measured on each side.
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(runtime.Result{}, "Compute")); diff != "" {
			t.Errorf("%s: result (-in-process +process):\n%s", code, diff)
		}
		if diff := cmp.Diff(fi.calls(), fo.calls()); diff != "" {
			t.Errorf("%s: host calls (-in-process +process):\n%s", code, diff)
		}
	}
	if n := out.spawned.Load(); n != 1 {
		t.Errorf("%d workers started for well-behaved programs, want 1 (reused)", n)
	}
}

// TestLosslessEdges: values JSON cannot carry without loss (symbol keys, extra
// properties on arrays, lone surrogates) fail a worker's completion as invalid-output,
// as in process, instead of being dropped or replaced on their way out.
func TestLosslessEdges(t *testing.T) {
	p := newTestPool(t, 1)
	for _, code := range []string{
		`return {a: 1, [Symbol('s')]: 2}`,
		`const a = [1, 2]; a.total = 3; return {a}`,
		`return ['x\ud800']`,
		`return {'k\udc00': 1}`,
	} {
		res := runCode(t, p, code, nil)
		want := &runtime.Failure{Kind: runtime.KindInvalidOutput, Message: "program completion must be lossless JSON"}
		if diff := cmp.Diff(want, res.Failure); diff != "" {
			t.Errorf("%s: failure mismatch (-want +got):\n%s\nvalue %s", code, diff, res.Value)
		}
	}
}

// TestHostilePrograms runs the runtime's hostile table, and the programs that defeat the
// in-process guards, in worker processes: each fails only its own run, and the next run on
// the pool succeeds.
func TestHostilePrograms(t *testing.T) {
	tests := []struct {
		name  string
		code  string
		kinds []runtime.Kind // any of these
		limit *runtime.Limits
	}{
		{name: "busy loop", code: "while (true) {}", kinds: []runtime.Kind{runtime.KindTimeout}},
		{name: "busy loop swallowing exceptions", code: "for (;;) { try { while (true) {} } catch {} }", kinds: []runtime.Kind{runtime.KindTimeout}},
		{name: "giant repeat", code: "'x'.repeat(1e9)", kinds: []runtime.Kind{runtime.KindException}},
		{name: "giant fill", code: "new Array(1e9).fill(0)", kinds: []runtime.Kind{runtime.KindException}},
		{name: "runaway recursion", code: "function r() { return r() + 1 }; r()", kinds: []runtime.Kind{runtime.KindException, runtime.KindTimeout}},
		{name: "string doubling", code: "let s = 'x'; while (true) s += s", kinds: []runtime.Kind{runtime.KindMemoryLimit, runtime.KindTimeout, runtime.KindException}},
		// On a busy machine the 300 ms compute budget can come before the 64 KiB of output.
		{name: "log flood", code: "while (true) console.log('flood')", kinds: []runtime.Kind{runtime.KindOutputLimit, runtime.KindTimeout}},
		{name: "never-settling promise", code: "await new Promise(() => {})", kinds: []runtime.Kind{runtime.KindException}},
		{name: "accumulating objects", code: "const a = []; while (true) a.push({k: 'v', n: a.length})", kinds: []runtime.Kind{runtime.KindMemoryLimit, runtime.KindTimeout}},
		{name: "catastrophic backtracking", code: "return /(a+)+(?=b)/.test('a'.repeat(22))", kinds: []runtime.Kind{runtime.KindTimeout}, limit: &runtime.Limits{Compute: 20 * time.Millisecond}},
		// One native call that would allocate gigabytes: the guard throws its RangeError, as
		// in process; by a name the guard does not see, the worker's limit ends the run.
		{name: "30 GB array buffer", code: "const a = new ArrayBuffer(3e10); return a.byteLength", kinds: []runtime.Kind{runtime.KindException}},
		{name: "2 GB typed array", code: "const a = new Uint8Array(2e9); return a.length", kinds: []runtime.Kind{runtime.KindException}},
		{name: "30 GB array buffer by a computed name", code: "const a = new globalThis['Array' + 'Buffer'](3e10); return a.byteLength", kinds: []runtime.Kind{runtime.KindMemoryLimit}},
		// Buffers each within the budget, accumulating past it faster than a sampler looks.
		{name: "accumulating buffers", code: "const a = []; for (;;) a.push(new ArrayBuffer(48 << 20))", kinds: []runtime.Kind{runtime.KindMemoryLimit}},
		// Past the heap budget's element count: refused before the native call, as in process.
		{name: "map over a huge sparse array", code: "return Array(3e8).map(x => 1).length", kinds: []runtime.Kind{runtime.KindMemoryLimit, runtime.KindTimeout}},
		{name: "spread of a huge sparse array", code: "const a = [...Array(3e8)]; return a.length", kinds: []runtime.Kind{runtime.KindMemoryLimit, runtime.KindTimeout}},
	}
	p := newTestPool(t, 1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCode(t, p, tt.code, &runtime.RunOptions{Limits: tt.limit})
			if res.Failure == nil || !slices.Contains(tt.kinds, res.Failure.Kind) {
				t.Errorf("result = %.300s, want a failure of kind %v", res.Text(), tt.kinds)
			}
			if got := runCode(t, p, "return 'healthy'", nil).Text(); got != "healthy" {
				t.Errorf("the next run = %q, want healthy", got)
			}
			// The host's memory stayed bounded: none of it was spent on the program.
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			if ms.HeapAlloc > 256<<20 {
				t.Errorf("the host's heap holds %d MiB", ms.HeapAlloc>>20)
			}
		})
	}
}

// TestMemoryLimitMessage pins the text of a run over its heap budget in a worker: buffers
// each within the budget, accumulating past it (the worker's own accounting or its hard
// limit ends it, whichever comes first; if the worker dies, the log entries it streamed as
// they were captured survive, as they would in-process).
func TestMemoryLimitMessage(t *testing.T) {
	p := newTestPool(t, 1)
	res := runCode(t, p, "console.log('before'); console.log({ n: 1 }); const a = []; for (;;) a.push(new ArrayBuffer(48 << 20))", nil)
	want := "Error: code run failed (memory-limit): heap limit of 64 MiB exceeded\nCaptured output:\nbefore\n{ n: 1 }"
	if got := res.Text(); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

// TestHeldArguments: the arguments of a run's calls in flight, which the host holds for
// the worker, count against the run's heap budget: calls that never end, each with 1 MiB
// of arguments, fail the run with memory-limit once they hold more than its 64 MiB (the
// host would otherwise hold all 200 MiB), and the log entries streamed before survive.
// (Results waiting to be written count too: TestHeldResults.)
func TestHeldArguments(t *testing.T) {
	p := newTestPool(t, 1)
	var f fakeTools
	res := runCode(t, p, "console.log('queued'); const s = 'x'.repeat(1 << 20); const ps = []; for (let i = 0; i < 200; i++) ps.push(tools.hang({ s })); await Promise.all(ps)",
		&runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}, Limits: &runtime.Limits{HeapBytes: 64 << 20, Compute: 2 * time.Minute, WallClock: 3 * time.Minute}})
	want := "Error: code run failed (memory-limit): heap limit of 64 MiB exceeded by the arguments and results of calls in flight\nCaptured output:\nqueued"
	if got := res.Text(); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if n := len(f.calls()); n > 64 {
		t.Errorf("%d calls started, want at most the 64 whose arguments fit the budget", n)
	}
}

// TestHeldResults: results the host has not yet written back to a worker that does not
// read them count against the run's heap budget too, from a worker that makes calls with
// small arguments and 1 MiB results: the run fails with memory-limit once they hold more
// than its 64 MiB, rather than at its wall clock with a writer and a result held for each
// of the 200.
func TestHeldResults(t *testing.T) {
	p := newTestPool(t, 1, "__fake", "unread-results")
	var f fakeTools
	// A wall clock of its own: filling the budget with results takes seconds on a busy
	// machine, and the outcome asserted is the memory one.
	res := runCode(t, p, "return 1", &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}, Limits: &runtime.Limits{WallClock: time.Minute, Compute: 20 * time.Second}})
	want := runtime.Failure{Kind: runtime.KindMemoryLimit, Message: "heap limit of 64 MiB exceeded by the arguments and results of calls in flight"}
	if res.Failure == nil || *res.Failure != want {
		t.Errorf("result = %q, want %v", res.Text(), want)
	}
}

// TestHostEndsRun: a call whose outcome is a *runtime.Failure ends its run with that
// failure in both modes, uncatchable, keeping the logs before it.
func TestHostEndsRun(t *testing.T) {
	code := `console.log('before'); try { await tools.stop({}) } catch (e) { return 'caught' }`
	in, err := runtime.NewPool(&runtime.PoolOptions{Size: 1, Limits: testLimits, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	want := "Error: code run failed (memory-limit): the host ended the run\nCaptured output:\nbefore"
	for _, p := range []ptcRunner{in, newTestPool(t, 1)} {
		var f fakeTools
		res := runCode(t, p, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}})
		if got := res.Text(); got != want {
			t.Errorf("%T: text = %q, want %q", p, got, want)
		}
	}
}

// TestWorkerDeaths: a worker that exits, is killed by a signal or dies of the Go runtime's
// out-of-memory error fails its run with the mapped kind and message, and is replaced.
func TestWorkerDeaths(t *testing.T) {
	tests := []struct {
		mode string
		want runtime.Failure
	}{
		{"exit7", runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker exited with code 7 before completing"}},
		{"sigterm", runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker killed by signal SIGTERM"}},
		{"oom", runtime.Failure{Kind: runtime.KindMemoryLimit, Message: "heap limit of 64 MiB exceeded"}},
		{"silent-exit", runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker exited with code 0 before completing"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			p := newTestPool(t, 1, "__fake", tt.mode)
			for i := range 2 { // the second run gets a fresh worker
				res := runCode(t, p, "return 1", nil)
				if res.Failure == nil || *res.Failure != tt.want {
					t.Errorf("run %d: result = %q, want failure %v", i, res.Text(), tt.want)
				}
			}
			if n := p.spawned.Load(); n < 2 {
				t.Errorf("%d workers started, want the dead one replaced", n)
			}
		})
	}
}

// TestSignalName pins the names of the signals a worker death reports: the common ones,
// the ones only Unix has, and a number for any other.
func TestSignalName(t *testing.T) {
	want := map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGPIPE: "SIGPIPE", syscall.Signal(99): "99 (signal 99)"}
	for s, name := range osSignalNames {
		want[s] = name
	}
	for s, name := range want {
		if got := signalName(s); got != name {
			t.Errorf("signalName(%d) = %q, want %q", int(s), got, name)
		}
	}
}

// TestProtocolViolations: a worker that sends garbage, an oversized frame, an unknown field,
// a call it may not make or a result out of protocol is killed, and its run fails as
// worker-exit with a message that says so.
func TestProtocolViolations(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"garbage", "a frame that is not a message"},
		{"oversize", "over the 75497472-byte limit"},
		{"unknown-field", `unknown field "evil"`},
		{"bad-id", "call id 5, want 1"},
		{"bad-member", `names "rm_rf", not a member of tools`},
		{"bad-ns", "names namespace 3 of 1"},
		{"no-left", "call 1 does not say what its run has left"},
		{"bad-kind", `a failure of kind "worker-exit"`},
		{"negative-compute", "a done frame with a negative compute time"},
		{"ready-again", `an unexpected "ready" frame during a run`},
		{"log-bad-id", "a log frame for run 8 during run 1"},
		{"log-flood", "-byte output budget"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var f fakeTools
			p := newTestPool(t, 1, "__fake", tt.mode)
			res := runCode(t, p, "return 1", &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}})
			const prefix = "worker broke the protocol and was killed: protocol violation: "
			if len(res.Logs) != 0 {
				t.Errorf("logs from a worker that broke the protocol were kept: %d entries", len(res.Logs))
			}
			if res.Failure == nil || res.Failure.Kind != runtime.KindWorkerExit ||
				!strings.HasPrefix(res.Failure.Message, prefix) || !strings.Contains(res.Failure.Message, tt.want) {
				t.Errorf("result = %q, want a worker-exit naming %q", res.Text(), tt.want)
			}
			if calls := f.calls(); len(calls) > 0 {
				t.Errorf("host calls started for a forged call: %q", calls)
			}
		})
	}
}

// TestBadStart: a worker that never says ready, or dies at start, fails New.
func TestBadStart(t *testing.T) {
	for _, mode := range []string{"no-ready", "die-at-start"} {
		_, err := New(&Options{Command: []string{os.Args[0], "__fake", mode}, Size: 1})
		if err == nil {
			t.Errorf("%s: New succeeded", mode)
		}
	}
	if _, err := New(&Options{Command: []string{"/no/such/worker"}}); err == nil {
		t.Error("New with a missing executable succeeded")
	}
	if _, err := New(nil); !errors.Is(err, runtime.ErrInvalidOptions) {
		t.Errorf("New(nil) = %v, want ErrInvalidOptions", err)
	}
}

// TestUnsolicitedFrame: a worker that speaks unasked (a second done for a run that is over)
// is not trusted: the extra frame never passes as the result of the next run.
func TestUnsolicitedFrame(t *testing.T) {
	p := newTestPool(t, 1, "__fake", "unsolicited")
	if got := runCode(t, p, "return 1", nil); string(got.Value) != "1" {
		t.Fatalf("first run = %q, want 1", got.Text())
	}
	res := runCode(t, p, "return 3", nil)
	// The stale frame is never taken for the second run's own. Read between the runs, it got
	// the worker killed: the run has a fresh one (which answers 1), or fails with the killed
	// one if it was bound already; read during the run, it is a done of another run.
	want := map[string]bool{
		`worker broke the protocol and was killed: a "done" frame while no run was in flight`:               true,
		"worker broke the protocol and was killed: protocol violation: a done frame for run 1 during run 2": true,
	}
	if f := res.Failure; string(res.Value) != "1" && (f == nil || f.Kind != runtime.KindWorkerExit || !want[f.Message]) {
		t.Errorf("second run = %q, want 1 from a fresh worker or a worker-exit for the stale frame", res.Text())
	}
}

// TestHungWorker: a worker that never answers is killed at the wall clock plus grace, and
// the run fails as the wall-clock timeout it would have reported itself.
func TestHungWorker(t *testing.T) {
	p := newTestPool(t, 1, "__fake", "hang")
	res := runCode(t, p, "return 1", &runtime.RunOptions{Limits: &runtime.Limits{WallClock: 50 * time.Millisecond}})
	want := runtime.Failure{Kind: runtime.KindTimeout, Message: "wall-clock ceiling reached (50ms)"}
	if res.Failure == nil || *res.Failure != want {
		t.Errorf("result = %q, want %v", res.Text(), want)
	}
}

// TestSpinningWorker: a worker that burns CPU without answering is killed once its CPU time
// passes the compute ceiling (twice the budget plus grace), long before the wall clock.
func TestSpinningWorker(t *testing.T) {
	p := newTestPool(t, 1, "__fake", "spin")
	res := runCode(t, p, "return 1", &runtime.RunOptions{Limits: &runtime.Limits{Compute: 50 * time.Millisecond, WallClock: 10 * time.Minute}})
	want := runtime.Failure{Kind: runtime.KindTimeout, Message: "compute budget exhausted (50ms busy)"}
	if res.Failure == nil || *res.Failure != want {
		t.Errorf("result = %q, want %v", res.Text(), want)
	}
}

// TestCancel: cancelling the context aborts the run with the cause, as in process; a worker
// that ignores the cancellation is killed.
func TestCancel(t *testing.T) {
	for _, argv := range [][]string{{"__worker"}, {"__fake", "hang"}} {
		t.Run(argv[len(argv)-1], func(t *testing.T) {
			p := newTestPool(t, 1, argv...)
			var f fakeTools
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(50*time.Millisecond, func() { cancel(errors.New("user pressed stop")) })
			res, err := p.Run(ctx, "await tools.hang({})", &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}})
			if err != nil {
				t.Fatal(err)
			}
			want := runtime.Failure{Kind: runtime.KindAbort, Message: "user pressed stop"}
			if res.Failure == nil || *res.Failure != want {
				t.Errorf("result = %q, want %v", res.Text(), want)
			}
		})
	}
}

// TestIsolationOfTheProcess: the worker gets no environment but GOMAXPROCS=1, "/" as its
// directory, a process group of its own and only stdin, stdout and stderr.
func TestIsolationOfTheProcess(t *testing.T) {
	t.Setenv("RUNCODE_SECRET", "s3cret")
	p := newTestPool(t, 1, "__fake", "probe")
	res := runCode(t, p, "return 1", nil)
	var got struct {
		Env      []string
		WD       string
		FDs      []string
		OwnGroup bool
	}
	if err := json.Unmarshal(res.Value, &got); err != nil {
		t.Fatalf("%q: %v", res.Text(), err)
	}
	if !slices.Equal(got.Env, []string{"GOMAXPROCS=1"}) || got.WD != "/" || !got.OwnGroup {
		t.Errorf("worker saw %+v, want no environment but GOMAXPROCS=1, / and its own process group", got)
	}
	// Beyond stdin, stdout and stderr, only what the Go runtime opened itself (cgroup files
	// it reads for GOMAXPROCS, the directory being listed, an epoll descriptor): no pipe,
	// socket or file of the host's.
	for _, fd := range got.FDs {
		n, target, _ := strings.Cut(fd, "=")
		if n == "0" || n == "1" || n == "2" {
			continue
		}
		if strings.HasPrefix(target, "pipe:") || strings.HasPrefix(target, "socket:") ||
			strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "/sys/fs/cgroup/") && !strings.HasPrefix(target, "/proc/") && target != "/dev/null" {
			t.Errorf("worker has descriptor %s", fd)
		}
	}
}

// TestClose: Close aborts runs in flight, kills every worker and leaves no child process;
// Run after Close is ErrClosed.
func TestClose(t *testing.T) {
	before := openFDs(t)
	p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 2, Limits: testLimits, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *runtime.Result)
	go func() {
		res, _ := p.Run(context.Background(), "while (true) {}", &runtime.RunOptions{Limits: &runtime.Limits{Compute: time.Minute, WallClock: time.Minute}})
		done <- res
	}()
	time.Sleep(50 * time.Millisecond)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	res := testwait.Receive(t, done, "Run to return after Close")
	if res == nil || res.Failure == nil || res.Failure.Kind != runtime.KindAbort {
		t.Errorf("run in flight = %v, want an abort", res)
	}
	if _, err := p.Run(context.Background(), "1", nil); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("Run after Close = %v, want ErrClosed", err)
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left after Close: %q", c)
	}
	if after := openFDs(t); after > before {
		t.Errorf("%d descriptors open after Close, %d before", after, before)
	}
}

// TestLargeFrames: frames far larger than a pipe's buffer cross in both directions (the
// writer waits in the poller when the pipe is full and goes on where it stopped).
func TestLargeFrames(t *testing.T) {
	p := newTestPool(t, 1)
	var f fakeTools
	opts := &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}, Limits: &runtime.Limits{Compute: 5 * time.Second, OutputBytes: 4 << 20}}
	code := "const s = 'ab'.repeat(1 << 20); const r = await tools.echo({s}); return [r.s.length, r.s === s, s.slice(0, 3)]"
	if res := runCode(t, p, code, opts); string(res.Value) != `[2097152,true,"aba"]` {
		t.Errorf("a 2 MiB round trip = %.300q", res.Text())
	}
}

// TestResultOverFrameLimit: a tool result too large for one frame fails its call with a
// message that says so, instead of leaving the program waiting until its wall clock; one
// that fits still arrives. A program too large for one frame fails its run at once, and
// the worker serves the next.
func TestResultOverFrameLimit(t *testing.T) {
	p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 1, Limits: testLimits, Grace: 100 * time.Millisecond, MaxFrame: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var f fakeTools
	opts := &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}, Limits: &runtime.Limits{Compute: 5 * time.Second, WallClock: time.Minute}}
	code := `const out = [];
	  for (const n of [1000, 2000000]) {
	    try { out.push((await tools.repeat({n})).length) } catch (e) { out.push(e.message) }
	  }
	  return out`
	res := runCode(t, p, code, opts)
	const want = `[1000,"the tool's result is too large to pass to the worker process: 2000032 bytes framed, over the 1048576-byte limit"]`
	if res.Failure != nil || string(res.Value) != want {
		t.Errorf("result = %.300s, want %s", res.Text(), want)
	}

	big := "return 1 //" + strings.Repeat("x", 2<<20)
	res = runCode(t, p, big, &runtime.RunOptions{ProgramBytes: 4 << 20})
	if f := res.Failure; f == nil || f.Kind != runtime.KindException ||
		!strings.HasPrefix(f.Message, "the program is too large to pass to the worker process: ") || !strings.HasSuffix(f.Message, " bytes framed, over the 1048576-byte limit") {
		t.Errorf("a 2 MiB program = %.300s, want an exception naming the frame limit", res.Text())
	}
	if res := runCode(t, p, "return 2", nil); string(res.Value) != "2" {
		t.Errorf("the run after = %.300s, want 2", res.Text())
	}
	if n := p.spawned.Load(); n != 1 {
		t.Errorf("%d workers started, want 1 (the worker stays)", n)
	}
}

// TestWarmAfterDeath: a pool keeps Warm workers started after a run kills one (here a
// timeout), not one fewer: the killed worker, which stays tracked until it has exited,
// does not count against its replacement.
func TestWarmAfterDeath(t *testing.T) {
	p := newTestPool(t, 2)
	if res := runCode(t, p, "while (true) {}", nil); res.Failure == nil || res.Failure.Kind != runtime.KindTimeout {
		t.Fatalf("result %q, want a timeout", res.Text())
	}
	var serving int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if serving = p.serving(); serving == 2 {
			return
		}
	}
	t.Errorf("%d workers serving after the timeout (%d started), want the pool's 2", serving, p.spawned.Load())
}

// serving counts the pool's workers that are alive and not retired.
func (p *Pool) serving() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.servingLocked()
}

// TestOutputOverFrameLimit: a run's result or log entry too large for one frame fails that
// run with a message that says so; the worker does not exit.
func TestOutputOverFrameLimit(t *testing.T) {
	p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 1, Limits: testLimits, Grace: 100 * time.Millisecond, MaxFrame: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	opts := &runtime.RunOptions{Limits: &runtime.Limits{Compute: 5 * time.Second, OutputBytes: 4 << 20}}
	res := runCode(t, p, "return 'x'.repeat(2 << 20)", opts)
	if f := res.Failure; f == nil || f.Kind != runtime.KindException || !strings.Contains(f.Message, "the run's output is too large to pass to the host process") {
		t.Errorf("a 2 MiB result = %.300s, want an exception naming the frame limit", res.Text())
	}
	if n := p.spawned.Load(); n != 1 {
		t.Errorf("%d workers started, want 1 (the worker stays)", n)
	}
	res = runCode(t, p, "console.log('x'.repeat(2 << 20)); await new Promise(r => setTimeout(r, 60000))", opts)
	// The run ends as a cancelled one does (kind abort), so the host retires its worker.
	if f := res.Failure; f == nil || f.Kind != runtime.KindAbort || !strings.Contains(f.Message, "log entries too large to pass to the host process") {
		t.Errorf("a 2 MiB log entry = %.300s (kind %v), want a failure naming the frame limit", res.Text(), f)
	}
	if res := runCode(t, p, "return 2", nil); string(res.Value) != "2" {
		t.Errorf("the run after = %.300s, want 2", res.Text())
	}
}

// The worker reports its run's VM time in the done frame; the host passes it on.
func TestComputeCrossesTheProcess(t *testing.T) {
	p := newTestPool(t, 1)
	res := runCode(t, p, "let n = 0; for (let i = 0; i < 1000; i++) n += i; return n", nil)
	if res.Failure != nil || res.Compute <= 0 {
		t.Errorf("got failure %v, compute %v; want a value and a positive compute time", res.Failure, res.Compute)
	}
}

// A run that records draws gets them back from its worker, each call's StartFunc sees
// the draws made before it, and a replay in another run gives the same values back.
func TestDrawsCrossTheProcess(t *testing.T) {
	p := newTestPool(t, 1)
	var mu sync.Mutex
	var seen []*runtime.Draws
	ns, err := runtime.NewNamespace("tools", []string{"mark"}, func(ctx context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		mu.Lock()
		seen = append(seen, runtime.CallDraws(ctx))
		mu.Unlock()
		done(json.RawMessage("{}"), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const code = "const a = Date.now(); await tools.mark({}); const b = Math.random(); await tools.mark({}); console.log(a, b, new Date().toISOString())"
	first := runCode(t, p, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}, Draws: &runtime.Draws{}})
	if first.Failure != nil || first.Draws == nil || len(first.Draws.Clock) != 2 || len(first.Draws.Random) != 1 {
		t.Fatalf("first run: %s; draws %+v", first.Text(), first.Draws)
	}
	want := []*runtime.Draws{{Clock: first.Draws.Clock[:1]}, {Clock: first.Draws.Clock[:1], Random: first.Draws.Random}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("CallDraws on the host (-want +got):\n%s", diff)
	}
	again := runCode(t, p, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}, Draws: first.Draws})
	if diff := cmp.Diff(first.Logs, again.Logs); diff != "" {
		t.Errorf("the replay's logs differ (-first +again):\n%s", diff)
	}
	seen = nil
	if res := runCode(t, p, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}}); res.Draws != nil || seen[0] != nil {
		t.Errorf("a run without Draws: Result.Draws %+v, CallDraws %v; want nil", res.Draws, seen[0])
	}
}

// Each call's StartFunc sees what the run had left of its budgets: the compute its worker
// counted, the wall clock the host counts.
func TestCallLeftCrossesTheProcess(t *testing.T) {
	p := newTestPool(t, 1)
	var seen []runtime.Left
	ns, err := runtime.NewNamespace("tools", []string{"mark"}, func(ctx context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		l, ok := runtime.CallLeft(ctx)
		if !ok {
			t.Error("a call's context carries no budgets left")
		}
		seen = append(seen, l) // the program's calls are sequential
		done(json.RawMessage("{}"), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 50ms of compute, a call, 100ms of waiting, a call.
	const code = "const t0 = Date.now(); while (Date.now() - t0 < 50) {}; await tools.mark({}); await new Promise(r => setTimeout(r, 100)); await tools.mark({})"
	res := runCode(t, p, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}, Limits: &runtime.Limits{Compute: 10 * time.Second, WallClock: 20 * time.Second}})
	if res.Failure != nil || len(seen) != 2 {
		t.Fatalf("%s; %d calls seen", res.Text(), len(seen))
	}
	a, b := seen[0], seen[1]
	if a.Compute <= 0 || a.Compute > 10*time.Second-45*time.Millisecond || a.WallClock > 20*time.Second-45*time.Millisecond {
		t.Errorf("first call: %+v, want compute in (0, 9.955s] and wall clock at most 19.955s (Date.now counts whole milliseconds)", a)
	}
	if b.Compute <= 0 || b.Compute > a.Compute || b.WallClock > a.WallClock-99*time.Millisecond {
		t.Errorf("second call: %+v after %+v, want compute no more than before and 100ms less wall clock", b, a)
	}
}

// A program that reads the clock in a loop records only runtime.MaxDraws readings, so
// its done frame stays small (it was over the frame limit at a few seconds of busy wait).
func TestBusyWaitDrawsBounded(t *testing.T) {
	p := newTestPool(t, 1)
	code := fmt.Sprintf("let n = 0; for (let i = 0; i < %d; i++) n += Date.now() > 0 ? 1 : 0; return n", runtime.MaxDraws+5000)
	res := runCode(t, p, code, &runtime.RunOptions{Draws: &runtime.Draws{}, Limits: &runtime.Limits{Compute: time.Minute, WallClock: 2 * time.Minute}})
	if res.Failure != nil || string(res.Value) != fmt.Sprint(runtime.MaxDraws+5000) || res.Draws == nil {
		t.Fatalf("%s; draws recorded: %v", res.Text(), res.Draws != nil)
	}
	if n := len(res.Draws.Clock); n != runtime.MaxDraws {
		t.Errorf("%d clock readings recorded, want %d", n, runtime.MaxDraws)
	}
}

// A completion that truncation cuts comes back whole too when the run asks to keep it.
func TestKeepFullValueCrossesTheProcess(t *testing.T) {
	p := newTestPool(t, 1)
	code := `return Array.from({length: 500}, (_, i) => i)`
	res := runCode(t, p, code, &runtime.RunOptions{Limits: &runtime.Limits{OutputBytes: 1024}, TruncateOutput: true, KeepFullValue: true})
	var full []int
	if res.Failure != nil || json.Unmarshal(res.FullValue, &full) != nil || len(full) != 500 || len(res.Value) >= len(res.FullValue) {
		t.Fatalf("failure %v, value %d bytes, full %d bytes", res.Failure, len(res.Value), len(res.FullValue))
	}
	if res := runCode(t, p, code, &runtime.RunOptions{Limits: &runtime.Limits{OutputBytes: 1024}, TruncateOutput: true}); res.FullValue != nil {
		t.Error("a run that did not ask for it got the full value")
	}
}

// The session state crosses to the worker and its changes come back.
func TestStateCrossesTheProcess(t *testing.T) {
	p := newTestPool(t, 1)
	st := &runtime.State{Values: map[string]json.RawMessage{"a": json.RawMessage(`1`)}, MaxValue: 1 << 10, MaxTotal: 1 << 12}
	res := runCode(t, p, `state.set("b", state.get("a") + 1)`, &runtime.RunOptions{State: st})
	if diff := cmp.Diff(map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`2`)}, res.State); res.Failure != nil || diff != "" {
		t.Errorf("failure %v, state (-want +got):\n%s", res.Failure, diff)
	}
}

// A nested run (a call of a run that runs a program of its own on the same pool and
// waits for it) does not wait for a worker its caller holds: on a pool of one, a run
// whose call runs another program gets that program's value. Without Nested it would
// wait until its context ended.
func TestNestedRunOnAFullPool(t *testing.T) {
	p := newTestPool(t, 1)
	ns, err := runtime.NewNamespace("tools", []string{"inner"}, func(ctx context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		go func() {
			res, err := p.Run(ctx, "return 6 * 7", &runtime.RunOptions{Nested: true})
			if err != nil || res.Failure != nil {
				done(nil, fmt.Errorf("nested run: %v %v", err, res.Failure))
				return
			}
			done(res.Value, nil)
		}()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Run(ctx, "return await tools.inner({})", &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}})
	if err != nil || res.Failure != nil || string(res.Value) != "42" {
		t.Fatalf("run = %v, %v; want 42", res.Text(), err)
	}
}

// TestRunFrameSame: a run whose limits and namespaces repeat the last run's on its worker
// (sent as message.Same) runs with them, and a run that changes either runs with its own.
func TestRunFrameSame(t *testing.T) {
	var f fakeTools
	p := newTestPool(t, 1)
	tools := []*runtime.Namespace{f.namespace(t)}
	small := &runtime.Limits{OutputBytes: 64}
	for i, step := range []struct {
		nss    []*runtime.Namespace
		limits *runtime.Limits
		code   string
		want   string // the value, or the failure kind
	}{
		{tools, nil, `return typeof tools.echo`, `"function"`},
		{tools, nil, `return typeof tools.echo`, `"function"`},
		{nil, nil, `return typeof tools`, `"undefined"`},
		{nil, nil, `return typeof tools`, `"undefined"`},
		{nil, small, `return "x".repeat(100)`, string(runtime.KindOutputLimit)},
		{nil, small, `return "x".repeat(100)`, string(runtime.KindOutputLimit)},
		{nil, nil, `return "x".repeat(100).length`, `100`},
		{tools, nil, `return (await tools.echo({i: 1})).i`, `1`},
	} {
		res := runCode(t, p, step.code, &runtime.RunOptions{Namespaces: step.nss, Limits: step.limits})
		got := string(res.Value)
		if res.Failure != nil {
			got = string(res.Failure.Kind)
		}
		if got != step.want {
			t.Errorf("run %d: %q, want %s", i, res.Text(), step.want)
		}
	}
	if n := p.spawned.Load(); n != 1 {
		t.Errorf("%d workers started, want all runs on one", n)
	}
}

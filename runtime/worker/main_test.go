package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/procfd"
	"github.com/runcode-go/runcode/internal/testproc"
	"github.com/runcode-go/runcode/runtime"
	"go.uber.org/goleak"
)

// writeFrame encodes m and writes it as one frame with a single Write.
func writeFrame(w io.Writer, m *message, max int) error {
	b, err := appendFrame(nil, m, max)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// readFrame reads one frame from r, unbuffered, and decodes it strictly. io.EOF means the
// channel closed cleanly between frames.
func readFrame(r io.Reader, max int) (*message, error) {
	var hdr [4]byte
	return readFrameFrom(r, max, hdr[:])
}

// TestMain doubles as the worker executable: the test binary re-executed with "__worker"
// serves programs, with "__fake <mode>" plays a forged or crashing worker, and with
// "__echo <mode>" is the other end of BenchmarkPipeRoundTrip.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case RoleArg:
			code, _ := Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			os.Exit(code)
		case "__fake":
			fakeWorker(os.Args[2])
			os.Exit(0)
		case "__echo":
			echo(os.Args[2])
			os.Exit(0)
		}
	}
	goleak.VerifyTestMain(m)
}

// testLimits are small budgets so that hostile programs end fast.
var testLimits = &runtime.Limits{
	Compute: 300 * time.Millisecond, WallClock: 5 * time.Second, HeapBytes: 64 << 20, OutputBytes: 64 << 10, StackDepth: 1000,
}

func newTestPool(t testing.TB, size int, argv ...string) *Pool {
	t.Helper()
	if len(argv) == 0 {
		argv = []string{RoleArg}
	}
	p, err := New(&Options{Command: append([]string{os.Args[0]}, argv...), Size: size, Limits: testLimits, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// ptcRunner is what runs programs: a runtime.Pool or a worker Pool.
type ptcRunner interface {
	Run(context.Context, string, *runtime.RunOptions) (*runtime.Result, error)
}

func runCode(t testing.TB, p ptcRunner, code string, opts *runtime.RunOptions) *runtime.Result {
	t.Helper()
	res, err := p.Run(context.Background(), code, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// fakeTools is a tools namespace for tests. Members:
//   - echo: resolves with its arguments;
//   - fail: rejects with a CallError carrying code TOOL_FAILED;
//   - plain: rejects with a plain Go error;
//   - hang: blocks until the run ends;
//   - bad: resolves with invalid JSON;
//   - raw: resolves with its argument "text", as it is, JSON or not;
//   - repeat: resolves with a JSON string of its argument "n" x's;
//   - none: resolves with no value (undefined);
//   - boom: its wait function panics;
//   - stop: ends the run with a memory-limit Failure (a budget the host enforces).
type fakeTools struct {
	mu      sync.Mutex
	started []string
}

func (f *fakeTools) namespace(t testing.TB) *runtime.Namespace {
	t.Helper()
	ns, err := runtime.NewNamespace("tools", []string{"echo", "fail", "plain", "hang", "bad", "raw", "repeat", "none", "boom", "stop", "__proto__"}, f.start, &runtime.NamespaceOptions{
		ErrorClass: "ToolCallError", MemberProperty: "toolName", Noun: "tool",
	})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// start records the call in call order, then runs it on a goroutine of its own.
func (f *fakeTools) start(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	f.mu.Lock()
	f.started = append(f.started, member+" "+string(args))
	f.mu.Unlock()
	runtime.Async(f.call)(ctx, member, args, done)
}

func (f *fakeTools) call(ctx context.Context, member string, args json.RawMessage) (json.RawMessage, error) {
	switch member {
	case "fail":
		return nil, &runtime.CallError{Message: "deliberate failure", Fields: map[string]string{"code": "TOOL_FAILED"}}
	case "plain":
		return nil, errors.New("plain failure")
	case "hang":
		<-ctx.Done()
		return nil, context.Cause(ctx)
	case "bad":
		return json.RawMessage(`{not json`), nil
	case "raw":
		var a struct{ Text string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return json.RawMessage(a.Text), nil
	case "repeat":
		var a struct{ N int }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return json.RawMessage(`"` + strings.Repeat("x", a.N) + `"`), nil
	case "none":
		return nil, nil
	case "boom":
		panic("wait exploded")
	case "stop":
		return nil, &runtime.Failure{Kind: runtime.KindMemoryLimit, Message: "the host ended the run"}
	}
	return args, nil
}

func (f *fakeTools) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.started...)
}

// fakeWorker plays a worker that breaks the protocol in the given way once it is asked to
// run a program (or, for some modes, before).
func fakeWorker(mode string) {
	in, out := os.Stdin, os.Stdout
	send := func(m *message) { _ = writeFrame(out, m, DefaultMaxFrame) }
	init, err := readFrame(in, DefaultMaxFrame)
	if err != nil {
		os.Exit(5)
	}
	switch mode {
	case "no-ready":
		send(&message{T: tDone})
		return
	case "die-at-start":
		fmt.Fprintln(os.Stderr, "cannot start")
		os.Exit(9)
	case "wrong-gc":
		send(&message{T: tReady, PID: os.Getpid(), GCPercent: init.GCPercent + 1})
		time.Sleep(time.Minute)
	}
	send(&message{T: tReady, PID: os.Getpid(), GCPercent: init.GCPercent})
	run, err := readFrame(in, DefaultMaxFrame)
	if err != nil {
		os.Exit(5)
	}
	switch mode {
	case "unsolicited":
		// Answer the run, then answer it again: the second done must not pass as the
		// result of the next run.
		send(&message{T: tDone, ID: run.ID, Value: json.RawMessage(`1`)})
		send(&message{T: tDone, ID: run.ID, Value: json.RawMessage(`2`)})
		_, _ = readFrame(in, DefaultMaxFrame)
		send(&message{T: tDone, ID: run.ID + 1, Value: json.RawMessage(`3`)})
	case "probe":
		// Report what the worker was given: environment, directory, descriptors.
		procfd.CloseInherited() // as runcode's worker role does first
		fds, _ := os.ReadDir("/proc/self/fd")
		var names []string
		for _, fd := range fds {
			l, _ := os.Readlink("/proc/self/fd/" + fd.Name())
			names = append(names, fd.Name()+"="+l)
		}
		wd, _ := os.Getwd()
		v, _ := json.Marshal(map[string]any{"env": os.Environ(), "wd": wd, "fds": names, "ownGroup": ownGroup()})
		send(&message{T: tDone, ID: run.ID, Value: v})
		_, _ = readFrame(in, DefaultMaxFrame) // until the host closes the channel
	case "exit7":
		os.Exit(7)
	case "sigterm":
		terminate()
		time.Sleep(time.Minute)
	case "oom":
		fmt.Fprintln(os.Stderr, "fatal error: out of memory")
		os.Exit(2)
	case "garbage":
		_, _ = out.Write([]byte("\x00\x00\x00\x05hello"))
	case "oversize":
		_, _ = out.Write([]byte("\x7f\xff\xff\xff"))
	case "unknown-field":
		_, _ = out.Write(append([]byte("\x00\x00\x00\x16"), `{"t":"done","evil":1}`+" "...))
	case "bad-id":
		send(&message{T: tCall, ID: 5, Member: "echo", Args: json.RawMessage(`{}`)})
	case "bad-member":
		send(&message{T: tCall, ID: 1, Member: "rm_rf", Args: json.RawMessage(`{}`)})
	case "no-left":
		send(&message{T: tCall, ID: 1, Member: "echo", Args: json.RawMessage(`{}`)})
	case "bad-ns":
		send(&message{T: tCall, ID: 1, NSI: 3, Member: "echo", Args: json.RawMessage(`{}`)})
	case "bad-kind":
		send(&message{T: tDone, ID: run.ID, Failure: &failure{Kind: runtime.KindWorkerExit, Message: "forged"}})
	case "negative-compute":
		send(&message{T: tDone, ID: run.ID, Compute: -1})
	case "ready-again":
		send(&message{T: tReady})
	case "log-bad-id":
		send(&message{T: tLog, ID: run.ID + 7, Logs: []string{"x"}})
	case "log-flood":
		// More log text than the run's output budget allows: the host must not hold it.
		for i := 0; i < 2000; i++ {
			send(&message{T: tLog, ID: run.ID, Logs: []string{strings.Repeat("x", 1024)}})
		}
	case "unread-results":
		// Calls with small arguments and 1 MiB results, and never a read of a result: the
		// host must not hold more of them than the run's heap budget.
		for i := 1; i <= 200; i++ {
			send(&message{T: tCall, Left: 1, ID: uint64(i), Member: "repeat", Args: json.RawMessage(`{"n": 1048576}`)})
		}
	case "spin":
		// Burn CPU and never answer, like a worker whose runtime no longer stops programs.
		for x := 0; ; x++ {
			if x < 0 {
				break
			}
		}
	case "hang":
	case "silent-exit":
		return
	}
	time.Sleep(time.Minute) // killed by the host long before
}

// children lists the live child processes of this test process ("pid state").
func children(t *testing.T) []string {
	t.Helper()
	cs, ok := testproc.Children(0)
	if !ok {
		t.Skip("no /proc")
	}
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprint(c.PID, " ", c.State))
	}
	return out
}

func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(fds)
}

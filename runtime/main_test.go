package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testleak"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// newTestPool returns a pool closed at the end of the test, with small budgets so hostile
// programs end fast.
func newTestPool(t testing.TB, limits *Limits) *Pool {
	t.Helper()
	if limits == nil {
		limits = &Limits{}
	}
	p, err := NewPool(&PoolOptions{Size: 2, Limits: limits, Grace: 100e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// runCode runs code and fails the test on a seam error.
func runCode(t testing.TB, p *Pool, code string, opts *RunOptions) *Result {
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
//   - meet: blocks until two meet calls are in flight at once (or the run ends);
//   - bad: resolves with invalid JSON;
//   - boom: its wait function panics;
//   - sleep: sleeps the number of milliseconds in args.ms (use under synctest).
type fakeTools struct {
	mu      sync.Mutex
	started []string
	meeting int
	met     chan struct{}
	inWait  chan struct{} // closed on the first hang call, if set
}

func (f *fakeTools) namespace(t testing.TB, extra ...string) *Namespace {
	t.Helper()
	f.met = make(chan struct{})
	members := append([]string{"echo", "fail", "plain", "hang", "meet", "bad", "boom", "sleep"}, extra...)
	ns, err := NewNamespace("tools", members, f.start, &NamespaceOptions{
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
	Async(f.call)(ctx, member, args, done)
}

func (f *fakeTools) call(ctx context.Context, member string, args json.RawMessage) (json.RawMessage, error) {
	switch member {
	case "fail":
		return nil, &CallError{Message: "deliberate failure", Fields: map[string]string{"code": "TOOL_FAILED"}}
	case "plain":
		return nil, errors.New("plain failure")
	case "hang":
		if f.inWait != nil {
			close(f.inWait)
		}
		<-ctx.Done()
		return nil, context.Cause(ctx)
	case "meet":
		f.mu.Lock()
		f.meeting++
		if f.meeting == 2 {
			close(f.met)
		}
		f.mu.Unlock()
		select {
		case <-f.met:
			return json.RawMessage(`"met"`), nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	case "bad":
		return json.RawMessage(`{not json`), nil
	case "boom":
		panic("wait exploded")
	case "sleep":
		var a struct{ Ms int }
		_ = json.Unmarshal(args, &a)
		time.Sleep(time.Duration(a.Ms) * time.Millisecond) // only called inside synctest bubbles
		return json.RawMessage(`"slept"`), nil
	}
	return args, nil
}

func (f *fakeTools) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.started...)
}

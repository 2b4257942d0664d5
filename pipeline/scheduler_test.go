package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

// gate is a tool whose calls block until the test releases them by argument n, and
// which records starts and the peak number of bodies running at once.
type gate struct {
	mu       sync.Mutex
	release  map[int]chan struct{}
	started  []int
	active   int
	peak     int
	safe     func(registry.Value) bool
	trace    *trace
	finished []int
}

func newGate(n int, safe bool) *gate {
	g := &gate{release: map[int]chan struct{}{}, trace: &trace{}}
	for i := 1; i <= n; i++ {
		g.release[i] = make(chan struct{})
	}
	if safe {
		g.safe = func(registry.Value) bool { return true }
	}
	return g
}

func (g *gate) tool(name string) *registry.Tool {
	return &registry.Tool{
		Name:              name,
		Parameters:        registry.Object(registry.Required("n", registry.Integer())),
		IsConcurrencySafe: g.safe,
		Execute: func(ctx context.Context, c *registry.Call) (any, error) {
			var in struct{ N int }
			if err := c.Args.Decode(&in); err != nil {
				return nil, err
			}
			g.mu.Lock()
			g.started = append(g.started, in.N)
			g.active++
			g.peak = max(g.peak, g.active)
			ch := g.release[in.N]
			g.mu.Unlock()
			g.trace.add(fmt.Sprintf("start %d", in.N))
			select {
			case <-ch:
			case <-ctx.Done():
			}
			g.mu.Lock()
			g.active--
			g.mu.Unlock()
			g.trace.add(fmt.Sprintf("end %d", in.N))
			return in.N, nil
		},
	}
}

// startedCalls returns the calls whose bodies started, sorted: bodies of overlapping
// calls start in any order.
func (g *gate) startedCalls() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Sorted(slices.Values(g.started))
}

// waitAll waits for every pending result, then closes s.
func waitAll(s *Scheduler, pending ...*Pending) []*Result {
	out := make([]*Result, len(pending))
	for i, p := range pending {
		out[i] = p.Wait()
	}
	s.Close()
	return out
}

func (g *gate) open(n int) { close(g.release[n]) }

func gateCall(name string, n int) registry.Call {
	return registry.Call{ID: fmt.Sprintf("call-%d", n), Name: name, Args: registry.MustParseValue(fmt.Sprintf(`{"n":%d}`, n))}
}

// postTrace is a post-execute hook that records commit order.
func postTrace(tr *trace) []PostExecuteFunc {
	return []PostExecuteFunc{func(_ context.Context, c *Call, _ *Result) (PostAction, error) {
		tr.add("commit " + c.ID)
		return PostAction{}, nil
	}}
}

func TestSchedulerSafeCallsOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(3, true)
		s, err := New(nil).NewScheduler(context.Background(), resolve(t, g.tool("read")), nil)
		if err != nil {
			t.Fatal(err)
		}
		var pending []*Pending
		for n := 1; n <= 3; n++ {
			pending = append(pending, s.Submit(gateCall("read", n)))
		}
		synctest.Wait()
		if diff := cmp.Diff([]int{1, 2, 3}, g.startedCalls()); diff != "" {
			t.Errorf("all safe calls should be running (-want +got):\n%s", diff)
		}
		for n := 3; n >= 1; n-- { // finish in reverse order
			g.open(n)
		}
		for i, p := range pending {
			if r := p.Wait(); r.Value.String() != fmt.Sprint(i+1) || r.CallID != fmt.Sprintf("call-%d", i+1) {
				t.Errorf("result %d = %s (%s)", i, r.Value, r.CallID)
			}
		}
		s.Close()
		if g.peak != 3 {
			t.Errorf("peak = %d, want 3", g.peak)
		}
	})
}

func TestSchedulerMaxParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(5, true)
		var tr trace
		s, err := New(&Options{PostExecute: postTrace(&tr)}).NewScheduler(context.Background(), resolve(t, g.tool("read")), &SchedulerOptions{MaxParallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		var pending []*Pending
		for n := 1; n <= 5; n++ {
			pending = append(pending, s.Submit(gateCall("read", n)))
		}
		synctest.Wait()
		if diff := cmp.Diff([]int{1, 2}, g.startedCalls()); diff != "" {
			t.Errorf("cap of 2 (-want +got):\n%s", diff)
		}
		// Call 2 finishes first, but its slot is held until it commits, after call 1.
		g.open(2)
		synctest.Wait()
		if diff := cmp.Diff([]int{1, 2}, g.startedCalls()); diff != "" {
			t.Errorf("slot freed before commit (-want +got):\n%s", diff)
		}
		g.open(1)
		synctest.Wait()
		if diff := cmp.Diff([]int{1, 2, 3, 4}, g.startedCalls()); diff != "" {
			t.Errorf("after two commits (-want +got):\n%s", diff)
		}
		g.open(3)
		g.open(4)
		g.open(5)
		waitAll(s, pending...)
		if g.peak != 2 {
			t.Errorf("peak = %d, want 2", g.peak)
		}
		want := []string{"commit call-1", "commit call-2", "commit call-3", "commit call-4", "commit call-5"}
		if diff := cmp.Diff(want, tr.get()); diff != "" {
			t.Errorf("commit order (-want +got):\n%s", diff)
		}
	})
}

func TestSchedulerExclusiveBarrier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		safe := newGate(4, true)
		excl := newGate(4, false)
		excl.trace = safe.trace // one ordered log for both tools
		excl.mu = sync.Mutex{}
		s, err := New(nil).NewScheduler(context.Background(), resolve(t, safe.tool("read"), excl.tool("write")), nil)
		if err != nil {
			t.Fatal(err)
		}
		pending := []*Pending{
			s.Submit(gateCall("read", 1)),
			s.Submit(gateCall("read", 2)),
			s.Submit(gateCall("write", 3)),
			s.Submit(gateCall("read", 4)),
		}
		synctest.Wait()
		if got := safe.trace.get(); !cmp.Equal(slices.Sorted(slices.Values(got)), []string{"start 1", "start 2"}) {
			t.Errorf("before the barrier: %v", got)
		}
		safe.open(1)
		safe.open(2)
		synctest.Wait()
		if got := safe.trace.get(); !cmp.Equal(got[2:], []string{"end 1", "end 2", "start 3"}) && !cmp.Equal(got[2:], []string{"end 2", "end 1", "start 3"}) {
			t.Errorf("exclusive call must start alone after the pool drained: %v", got)
		}
		synctest.Wait()
		if n := len(safe.startedCalls()); n != 2 {
			t.Errorf("a later safe call started while the exclusive one runs: %v", safe.trace.get())
		}
		excl.open(3)
		synctest.Wait()
		if got := safe.trace.get(); got[len(got)-1] != "start 4" || got[len(got)-2] != "end 3" {
			t.Errorf("after the exclusive call: %v", got)
		}
		safe.open(4)
		waitAll(s, pending...)
		if excl.peak != 1 {
			t.Errorf("exclusive peak = %d", excl.peak)
		}
	})
}

func TestSchedulerClassifierMustBeExactlyTrue(t *testing.T) {
	for _, tt := range []struct {
		name string
		safe func(registry.Value) bool
	}{
		{"missing", nil},
		{"false", func(registry.Value) bool { return false }},
		{"panics", func(registry.Value) bool { panic("x") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate(2, false)
				g.safe = tt.safe
				s, _ := New(nil).NewScheduler(context.Background(), resolve(t, g.tool("t")), nil)
				p1 := s.Submit(gateCall("t", 1))
				p2 := s.Submit(gateCall("t", 2))
				synctest.Wait()
				if got := g.startedCalls(); !cmp.Equal(got, []int{1}) {
					t.Errorf("started %v, want only call 1", got)
				}
				g.open(1)
				g.open(2)
				waitAll(s, p1, p2)
			})
		})
	}
	// Invalid arguments make a call exclusive even when the classifier says true.
	synctest.Test(t, func(t *testing.T) {
		g := newGate(2, true)
		s, _ := New(nil).NewScheduler(context.Background(), resolve(t, g.tool("t")), nil)
		s.Submit(gateCall("t", 1))
		bad := s.Submit(registry.Call{ID: "bad", Name: "t", Args: registry.MustParseValue(`{"n":"x"}`)})
		synctest.Wait()
		select {
		case <-bad.Done():
			t.Error("a call with invalid arguments overlapped a running call")
		default:
		}
		g.open(1)
		if r := bad.Wait(); r.Error.Code != CodeInvalidArgs {
			t.Errorf("bad call: %q", text(r))
		}
		s.Close()
	})
}

func TestSchedulerOrderedPrepare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr trace
		unblock := make(chan struct{})
		p := New(&Options{PreExecute: []PreExecuteFunc{func(_ context.Context, c *Call) (Decision, error) {
			tr.add("pre " + c.ID)
			if c.ID == "call-1" {
				<-unblock
			}
			return Decision{}, nil
		}}})
		g := newGate(2, true)
		s, _ := p.NewScheduler(context.Background(), resolve(t, g.tool("read")), nil)
		p1 := s.Submit(gateCall("read", 1))
		p2 := s.Submit(gateCall("read", 2))
		synctest.Wait()
		if got := tr.get(); !cmp.Equal(got, []string{"pre call-1"}) {
			t.Errorf("a slow pre-execute must delay the next call's: %v", got)
		}
		close(unblock)
		g.open(1)
		g.open(2)
		waitAll(s, p1, p2)
		if got := tr.get(); !cmp.Equal(got, []string{"pre call-1", "pre call-2"}) {
			t.Errorf("prepare order: %v", got)
		}
	})
}

func TestSchedulerCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr trace
		ctx, cancel := context.WithCancel(context.Background())
		g := newGate(3, false)
		p := New(&Options{PreExecute: []PreExecuteFunc{func(_ context.Context, c *Call) (Decision, error) {
			tr.add("pre " + c.ID)
			return Decision{}, nil
		}}})
		s, _ := p.NewScheduler(ctx, resolve(t, g.tool("write")), nil)
		var pending []*Pending
		for n := 1; n <= 3; n++ {
			pending = append(pending, s.Submit(gateCall("write", n)))
		}
		synctest.Wait()
		cancel()
		var got []string
		for _, p := range pending {
			got = append(got, text(p.Wait()))
		}
		s.Close()
		want := []string{"Error: tool call aborted", "Error: tool call aborted before dispatch", "Error: tool call aborted before dispatch"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"pre call-1"}, tr.get()); diff != "" {
			t.Errorf("unstarted calls must not enter the pipeline (-want +got):\n%s", diff)
		}
		if r := s.Submit(gateCall("write", 1)).Wait(); r.Error.Code != CodeAbortedBeforeDispatch {
			t.Errorf("submit after cancellation: %q", text(r))
		}
	})
}

// A context that ends while the lane is between two calls (here: in the first call's
// prepare stage, on the lane) still settles every queued call before Close, so a caller
// that waits for its results first does not wait forever.
func TestSchedulerCancelledBetweenStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		g := newGate(3, false)
		p := New(&Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) {
			cancel()
			return Decision{}, nil
		}}})
		s, _ := p.NewScheduler(ctx, resolve(t, g.tool("write")), nil)
		var pending []*Pending
		for n := 1; n <= 3; n++ {
			pending = append(pending, s.Submit(gateCall("write", n)))
		}
		var got []string
		for _, p := range pending[1:] {
			got = append(got, text(p.Wait()))
		}
		g.open(1)
		s.Close()
		want := []string{"Error: tool call aborted before dispatch", "Error: tool call aborted before dispatch"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("queued calls (-want +got):\n%s", diff)
		}
		if !pending[0].Started() {
			t.Error("the first call did not start")
		}
	})
}

func TestSchedulerCloseAbandons(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(2, false)
		var observed []string
		p := New(&Options{Observers: []ObserverFunc{func(c *Call, _ Result) { observed = append(observed, c.ID) }}})
		s, _ := p.NewScheduler(context.Background(), resolve(t, g.tool("writer")), &SchedulerOptions{
			Abandon: func(c registry.Call, _ bool) *ToolError {
				return &ToolError{Code: CodeAborted, Message: fmt.Sprintf("run_code run is over (run_code settled); %s tool call abandoned", c.Name)}
			},
		})
		first := s.Submit(gateCall("writer", 1))
		queued := s.Submit(gateCall("writer", 2))
		synctest.Wait()
		go func() { synctest.Wait(); g.open(1) }()
		s.Close() // waits for call 1, abandons call 2
		if r := queued.Wait(); text(r) != "Error: run_code run is over (run_code settled); writer tool call abandoned" {
			t.Errorf("abandoned: %q", text(r))
		}
		if r := first.Wait(); r.IsError() {
			t.Errorf("started call must drain normally: %q", text(r))
		}
		if !cmp.Equal(observed, []string{"call-1"}) {
			t.Errorf("observers saw %v; abandoned calls must not be observed", observed)
		}
		if r := s.Submit(gateCall("writer", 2)).Wait(); !strings.Contains(text(r), "abandoned") {
			t.Errorf("submit after Close: %q", text(r))
		}
	})
}

func TestSchedulerOptions(t *testing.T) {
	if _, err := New(nil).NewScheduler(context.Background(), resolve(t), &SchedulerOptions{MaxParallel: -1}); err == nil ||
		err.Error() != "max parallel calls must be a positive integer, got -1" {
		t.Errorf("negative MaxParallel: %v", err)
	}
	if _, err := New(nil).NewScheduler(context.Background(), resolve(t), &SchedulerOptions{Grace: -1}); err == nil ||
		err.Error() != "the scheduler's grace must not be negative, got -1ns" {
		t.Errorf("negative Grace: %v", err)
	}
}

// TestSchedulerSubmitThen pins that SubmitThen's function gets each call's result exactly
// once, the same one Wait returns, for finished and abandoned calls alike.
func TestSchedulerSubmitThen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(3, false)
		s, _ := New(nil).NewScheduler(context.Background(), resolve(t, g.tool("writer")), nil)
		var mu sync.Mutex
		got := map[string][]*Result{}
		then := func(id string) func(*Result) {
			return func(r *Result) {
				mu.Lock()
				got[id] = append(got[id], r)
				mu.Unlock()
			}
		}
		first := s.SubmitThen(gateCall("writer", 1), then("call-1"))
		queued := s.SubmitThen(gateCall("writer", 2), then("call-2"))
		synctest.Wait()
		go func() { synctest.Wait(); g.open(1) }()
		s.Close()
		late := s.SubmitThen(gateCall("writer", 3), then("call-3"))
		synctest.Wait() // abandoned calls report on a goroutine of their own
		for id, p := range map[string]*Pending{"call-1": first, "call-2": queued, "call-3": late} {
			if r := got[id]; len(r) != 1 || r[0] != p.Wait() {
				t.Errorf("%s: then got %d results, want exactly Wait's", id, len(r))
			}
		}
		if first.Wait().IsError() || !queued.Wait().IsError() || !late.Wait().IsError() {
			t.Errorf("results: %q, %q, %q", text(first.Wait()), text(queued.Wait()), text(late.Wait()))
		}
	})
}

// TestPendingForgetsCallback: once a call's callback has run, its Pending no longer
// holds it, whether the call committed or was abandoned before it started, so a Pending
// kept after its call (run_code's sub-call records) does not keep what the callback
// reaches.
func TestPendingForgetsCallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(1, false)
		s, _ := New(nil).NewScheduler(context.Background(), resolve(t, g.tool("t")), nil)
		called := make(chan struct{}, 2)
		then := func(*Result) { called <- struct{}{} }
		committed := s.SubmitThen(gateCall("t", 1), then)
		g.open(1)
		<-called
		s.Close()
		abandoned := s.SubmitThen(gateCall("t", 2), then)
		<-called
		for name, j := range map[string]*Pending{"committed": committed, "abandoned": abandoned} {
			if j.then != nil {
				t.Errorf("the %s call's Pending still holds its callback", name)
			}
		}
	})
}

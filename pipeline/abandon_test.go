package pipeline

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/registry"
)

// stuck is a tool whose body ignores its context: it returns only when the test
// releases it.
type stuck struct {
	release chan struct{}
	started chan struct{}
}

func newStuck() *stuck { return &stuck{release: make(chan struct{}), started: make(chan struct{})} }

func (s *stuck) tool(name string) *registry.Tool {
	return &registry.Tool{Name: name, Execute: func(context.Context, *registry.Call) (any, error) {
		close(s.started)
		<-s.release
		return "late", nil
	}}
}

// recorder collects events, observed calls and finalizeContent calls.
type recorder struct {
	mu        sync.Mutex
	events    []string
	observed  []string
	finalized []string
}

func (r *recorder) add(list *[]string, s string) {
	r.mu.Lock()
	*list = append(*list, s)
	r.mu.Unlock()
}

func (r *recorder) get(list *[]string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), *list...)
}

func (r *recorder) options() *Options {
	return &Options{
		Events: SinkFunc(func(e Event) {
			r.add(&r.events, fmt.Sprintf("%s %s parent=%q root=%q %s error=%v %v", e.Type, e.CallID, e.ParentID, e.RootID, e.Name, e.IsError, e.Content))
		}),
		Observers: []ObserverFunc{func(c *Call, res Result) { r.add(&r.observed, c.ID+" "+text(&res)) }},
	}
}

func (r *recorder) finalize(t *registry.Tool) *registry.Tool {
	t.FinalizeContent = func(c *registry.Call, content []registry.Content, _ bool) []registry.Content {
		r.add(&r.finalized, c.ID)
		return content
	}
	return t
}

// TestSchedulerGraceAbandonsRunning: a started call whose body ignores cancellation is
// abandoned Grace after the scheduler's context ended: Close returns then, the Pending
// is done with the abandonment (once, SubmitThen's function too), and the abandoned
// event is emitted once. When the body returns later, its commit stages still run
// exactly once, but its outcome reaches no Pending.
func TestSchedulerGraceAbandonsRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		body := newStuck()
		ctx, cancel := context.WithCancel(context.Background())
		s, err := New(rec.options()).NewScheduler(ctx, resolve(t, rec.finalize(body.tool("hang"))), &SchedulerOptions{Grace: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		var thens []*Result
		var mu sync.Mutex
		j := s.SubmitThen(registry.Call{ID: "p:code:1", ParentID: "p", RootID: "p", Name: "hang", Args: registry.MustParseValue(`{}`)}, func(r *Result) {
			mu.Lock()
			thens = append(thens, r)
			mu.Unlock()
		})
		testwait.Receive(t, body.started, "the body to start")
		stopped := time.Now()
		cancel()
		time.Sleep(30 * time.Millisecond) // the grace counts from the context's end, not from Close
		s.Close()
		if waited := time.Since(stopped); waited != 100*time.Millisecond {
			t.Errorf("Close returned %v after the context ended, want the grace (100ms)", waited)
		}
		select {
		case <-j.Done():
		default:
			t.Fatal("the abandoned call's Pending is not done")
		}
		res := j.Wait()
		if !j.Started() || !j.Abandoned() || res.Error.Code != CodeAborted || text(res) != "Error: tool call abandoned: still running 100ms after it was cancelled" {
			t.Errorf("started %v, abandoned %v, result %q", j.Started(), j.Abandoned(), text(res))
		}
		want := []string{
			`tool/code-dispatch-start p:code:1 parent="p" root="p" hang error=false []`,
			`tool/code-dispatch-abandoned p:code:1 parent="p" root="p" hang error=true [{text Error: tool call abandoned: still running 100ms after it was cancelled   }]`,
		}
		if diff := cmp.Diff(want, rec.get(&rec.events)); diff != "" {
			t.Errorf("events at abandonment (-want +got):\n%s", diff)
		}
		if got := rec.get(&rec.observed); len(got) != 0 {
			t.Errorf("observers ran before the body returned: %v", got)
		}

		close(body.release)
		synctest.Wait()
		want = append(want, `tool/code-dispatch p:code:1 parent="p" root="p" hang error=true [{text Error: tool call aborted   }]`)
		if diff := cmp.Diff(want, rec.get(&rec.events)); diff != "" {
			t.Errorf("events after the late return (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"p:code:1 Error: tool call aborted"}, rec.get(&rec.observed)); diff != "" {
			t.Errorf("observers (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"p:code:1"}, rec.get(&rec.finalized)); diff != "" {
			t.Errorf("finalizeContent (-want +got):\n%s", diff)
		}
		if j.Wait() != res || len(thens) != 1 || thens[0] != res {
			t.Errorf("the late outcome reached the Pending: %q; then called %d times", text(j.Wait()), len(thens))
		}
	})
}

// TestSchedulerGraceBlockedApproval: a call stuck in its prepare stages (an approval
// hook that never answers) is abandoned the same way, and so is the call queued behind
// it, which never starts.
func TestSchedulerGraceBlockedApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		asked, answer := make(chan struct{}), make(chan struct{})
		opts := rec.options()
		opts.PreExecute = []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Ask}, nil }}
		opts.Approve = func(context.Context, *Call, string) (Approval, error) {
			close(asked)
			<-answer
			return AllowedOnce, nil
		}
		s, _ := New(opts).NewScheduler(context.Background(), resolve(t, echoTool("echo")), &SchedulerOptions{
			Grace: 50 * time.Millisecond,
			Abandon: func(c registry.Call, started bool) *ToolError {
				return &ToolError{Code: CodeAborted, Message: fmt.Sprintf("%s abandoned (started %v)", c.ID, started)}
			},
		})
		first := s.Submit(registry.Call{ID: "c1", Name: "echo", Args: registry.MustParseValue(`{"text":"a"}`)})
		second := s.Submit(registry.Call{ID: "c2", Name: "echo", Args: registry.MustParseValue(`{"text":"b"}`)})
		testwait.Receive(t, asked, "the approval to be asked")
		s.Close()
		if got := []string{text(first.Wait()), text(second.Wait())}; !cmp.Equal(got, []string{"Error: c1 abandoned (started true)", "Error: c2 abandoned (started false)"}) {
			t.Errorf("results: %q", got)
		}
		if !first.Abandoned() || second.Started() || second.Abandoned() {
			t.Errorf("first abandoned %v; second started %v, abandoned %v", first.Abandoned(), second.Started(), second.Abandoned())
		}
		close(answer)
		synctest.Wait()
		// Allowed late, the call still ran: its result went to its observers only.
		if diff := cmp.Diff([]string{"c1 a"}, rec.get(&rec.observed)); diff != "" {
			t.Errorf("observers (-want +got):\n%s", diff)
		}
		if got := rec.get(&rec.events); len(got) != 3 || got[1] != `tool/abandoned c1 parent="" root="c1" echo error=true [{text Error: c1 abandoned (started true)   }]` {
			t.Errorf("events: %q", got)
		}
	})
}

// TestSchedulerGraceDrains: calls that stop when cancelled are awaited, not abandoned,
// and Close returns as soon as they committed.
func TestSchedulerGraceDrains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(1, false)
		ctx, cancel := context.WithCancel(context.Background())
		s, _ := New(nil).NewScheduler(ctx, resolve(t, g.tool("t")), &SchedulerOptions{Grace: time.Second})
		j := s.Submit(gateCall("t", 1))
		synctest.Wait()
		start := time.Now()
		cancel()
		s.Close()
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Close waited %v for a call that stopped at once", waited)
		}
		if j.Abandoned() || text(j.Wait()) != "Error: tool call aborted" {
			t.Errorf("abandoned %v, result %q", j.Abandoned(), text(j.Wait()))
		}
	})
}

// TestSchedulerGraceEveryPendingDone: when Close returns after its grace, every call it
// was given is done, abandoned or finished, including calls whose bodies return at the
// very moment the grace runs out (a report read right after Close found one that was
// neither: finish had taken it off the live list but not yet closed its Pending).
func TestSchedulerGraceEveryPendingDone(t *testing.T) {
	for round := range 20 {
		synctest.Test(t, func(t *testing.T) {
			tool := &registry.Tool{Name: "nap", IsConcurrencySafe: func(registry.Value) bool { return true },
				Execute: func(_ context.Context, c *registry.Call) (any, error) {
					var a struct{ Ms int }
					_ = c.Args.Decode(&a)
					time.Sleep(time.Duration(a.Ms) * time.Millisecond) // ignores cancellation
					return "slept", nil
				}}
			ctx, cancel := context.WithCancel(context.Background())
			s, err := New(nil).NewScheduler(ctx, resolve(t, tool), &SchedulerOptions{Grace: 20 * time.Millisecond, MaxParallel: 100})
			if err != nil {
				t.Fatal(err)
			}
			var calls []*Pending
			for i := range 60 {
				ms := 10 + (i*7+round)%20 // around the grace, which ends at 20ms
				calls = append(calls, s.Submit(registry.Call{ID: fmt.Sprintf("c%d", i), Name: "nap", Args: registry.MustParseValue(fmt.Sprintf(`{"ms":%d}`, ms))}))
			}
			cancel()
			s.Close()
			for _, c := range calls {
				select {
				case <-c.Done():
					if c.Wait() == nil {
						t.Fatalf("round %d: a done call without a result", round)
					}
				default:
					t.Fatalf("round %d: Close returned with a call neither finished nor abandoned", round)
				}
			}
			time.Sleep(time.Second) // the abandoned bodies wake and return (virtual time)
			synctest.Wait()
		})
	}
}

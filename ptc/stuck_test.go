package ptc

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// TestStuckSubCallAbandoned: a sub-call that ignores cancellation, in its body or in an
// approval hook that never answers, does not hold run_code past its wall clock: the run
// fails as a timeout, the sub-call is reported abandoned while running (and announced
// once by tool/code-dispatch-abandoned), and when it finally returns its observers run
// once but nothing of it reaches the report.
func TestStuckSubCallAbandoned(t *testing.T) {
	for _, where := range []string{"body", "approval"} {
		t.Run(where, func(t *testing.T) {
			e := newEnv(t)
			entered, release, late := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			var lateRes pipeline.Result
			e.register(&registry.Tool{Name: "hang", Execute: func(context.Context, *registry.Call) (any, error) {
				if where == "body" {
					close(entered)
					<-release
				}
				return "late value", nil
			}})
			if where == "approval" {
				e.opts.PreExecute = []pipeline.PreExecuteFunc{func(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
					if c.Name == "hang" {
						return pipeline.Decision{Action: pipeline.Ask, Reason: "hang?"}, nil
					}
					return pipeline.Decision{}, nil
				}}
				e.opts.Approve = func(context.Context, *pipeline.Call, string) (pipeline.Approval, error) {
					close(entered)
					<-release
					return pipeline.AllowedOnce, nil
				}
			}
			e.opts.Observers = []pipeline.ObserverFunc{func(c *pipeline.Call, res pipeline.Result) {
				if c.Name == "hang" {
					lateRes = res
					close(late)
				}
			}}
			// Registered after newEnv's, so it runs first: the stuck call returns before
			// the pool closes, and goleak sees its goroutines gone.
			t.Cleanup(func() {
				free()
				<-late
			})
			e.ptc.Limits = &runtime.Limits{WallClock: 300 * time.Millisecond}

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a regression fails, not hangs
			defer cancel()
			done := make(chan struct{})
			var res *pipeline.Result
			var rep *Report
			go func() {
				defer close(done)
				res, rep = e.run(context.Background(), `console.log("asking"); const v = await tools.hang({}); console.log("got " + v); return v`)
			}()
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("run_code did not return after its wall clock with a sub-call stuck")
			}
			testwait.Receive(t, entered, "the stuck sub-call to start")

			if got, want := resultText(res), "Error: code run failed (timeout): wall-clock ceiling reached (300ms)\nCaptured output:\nasking"; got != want {
				t.Errorf("result %q, want %q", got, want)
			}
			if len(rep.Calls) != 1 {
				t.Fatalf("calls: %+v", rep.Calls)
			}
			c := rep.Calls[0]
			wantMsg := "run_code run is over (wall-clock ceiling reached (300ms)); hang tool call abandoned: still running 100ms after it was cancelled"
			if !c.AbandonedRunning || c.NeverStarted || c.Result.Error.Code != pipeline.CodeAborted || c.Result.Error.Message != wantMsg {
				t.Errorf("sub-call: abandoned %v, never started %v, result %q", c.AbandonedRunning, c.NeverStarted, resultText(c.Result))
			}
			e.mu.Lock()
			var abandoned []pipeline.Event
			for _, ev := range e.events {
				if ev.Type == pipeline.EventDispatchAbandoned {
					abandoned = append(abandoned, ev)
				}
			}
			e.mu.Unlock()
			if len(abandoned) != 1 || abandoned[0].CallID != "call-1:code:1" || abandoned[0].ParentID != "call-1" ||
				abandoned[0].RootID != "call-1" || abandoned[0].Name != "hang" || abandoned[0].Content[0].Text != "Error: "+wantMsg {
				t.Errorf("abandoned events: %+v", abandoned)
			}

			free()
			<-late
			if lateRes.CallID != "call-1:code:1" {
				t.Errorf("observers saw %+v", lateRes)
			}
			if rep.Calls[0].Result != c.Result || resultText(rep.Calls[0].Result) != "Error: "+wantMsg {
				t.Errorf("the late outcome reached the report: %q", resultText(rep.Calls[0].Result))
			}
		})
	}
}

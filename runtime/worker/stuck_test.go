package worker

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/runtime"
)

// TestStuckHostCall: a host call that ignores cancellation holds neither Run, which
// returns the worker's wall-clock failure a grace after the deadline, nor Close, which
// stops waiting for it a grace later and leaves it behind; no worker process is left.
func TestStuckHostCall(t *testing.T) {
	p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 1, Limits: testLimits, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	entered, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	ns, err := runtime.NewNamespace("host", []string{"hang"}, runtime.Async(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		defer close(returned)
		close(entered)
		<-release
		return json.RawMessage(`"late"`), nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { <-returned }() // goleak: the call's goroutines are gone before TestMain looks
	defer close(release)

	type outcome struct {
		res *runtime.Result
		err error
	}
	ran := testwait.Go(func() outcome {
		res, err := p.Run(context.Background(), `console.log("asking"); console.log("got " + await host.hang({}))`, &runtime.RunOptions{
			Namespaces: []*runtime.Namespace{ns},
			Limits:     &runtime.Limits{WallClock: 200 * time.Millisecond},
		})
		return outcome{res, err}
	})
	o := testwait.MustReceive(t, ran, "Run to return after its wall clock, with a host call stuck")
	testwait.Receive(t, entered, "the stuck host call to start")
	want := runtime.Failure{Kind: runtime.KindTimeout, Message: "wall-clock ceiling reached (200ms)"}
	if o.err != nil || o.res.Failure == nil || *o.res.Failure != want || len(o.res.Logs) != 1 {
		t.Errorf("Run = %q, %v; want %v after one log entry", o.res.Text(), o.err, want)
	}
	if err := testwait.MustReceive(t, testwait.Go(p.Close), "Close to return, with a host call that never does"); err != nil {
		t.Errorf("Close: %v", err)
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left after Close: %q", c)
	}
}

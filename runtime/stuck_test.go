package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testwait"
)

// TestStuckHostCall: a host call that ignores cancellation holds neither Run, which
// returns its wall-clock failure a grace after the deadline, nor Close, which stops
// waiting for it a grace later and leaves it behind. Its late outcome is dropped.
func TestStuckHostCall(t *testing.T) {
	p, err := NewPool(&PoolOptions{Size: 1, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	entered, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	ns, err := NewNamespace("host", []string{"hang"}, Async(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		defer close(returned)
		close(entered)
		<-release
		return json.RawMessage(`"late"`), nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { <-returned }() // goleak: the call's goroutine is gone before TestMain looks
	defer close(release)

	var logs []string
	type outcome struct {
		res *Result
		err error
	}
	ran := testwait.Go(func() outcome {
		res, err := p.Run(context.Background(), `console.log("got " + await host.hang({}))`, &RunOptions{
			Namespaces: []*Namespace{ns},
			Limits:     &Limits{WallClock: 100 * time.Millisecond},
			OnLog:      func(s string) { logs = append(logs, s) },
		})
		return outcome{res, err}
	})
	o := testwait.MustReceive(t, ran, "Run to return after its wall clock, with a host call stuck")
	testwait.Receive(t, entered, "the stuck host call to start")
	if o.err != nil || o.res.Failure == nil || o.res.Failure.Kind != KindTimeout {
		t.Fatalf("Run = %+v, %v; want a timeout", o.res, o.err)
	}
	if err := testwait.MustReceive(t, testwait.Go(p.Close), "Close to return, with a host call that never does"); err != nil {
		t.Errorf("Close: %v", err)
	}
	if len(logs) != 0 {
		t.Errorf("the program saw the stuck call settle: %q", logs)
	}
}

package runtime

import (
	"context"
	"encoding/json"
	"github.com/runcode-go/runcode/internal/testwait"
	"testing"
	"time"
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
	ran := make(chan outcome, 1)
	go func() {
		res, err := p.Run(context.Background(), `console.log("got " + await host.hang({}))`, &RunOptions{
			Namespaces: []*Namespace{ns},
			Limits:     &Limits{WallClock: 100 * time.Millisecond},
			OnLog:      func(s string) { logs = append(logs, s) },
		})
		ran <- outcome{res, err}
	}()
	// Generous bounds: a regression fails the test instead of hanging it.
	var o outcome
	select {
	case o = <-ran:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after its wall clock with a host call stuck")
	}
	testwait.Receive(t, entered, "the stuck host call to start")
	if o.err != nil || o.res.Failure == nil || o.res.Failure.Kind != KindTimeout {
		t.Fatalf("Run = %+v, %v; want a timeout", o.res, o.err)
	}
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close blocked on a host call that never returns")
	}
	if len(logs) != 0 {
		t.Errorf("the program saw the stuck call settle: %q", logs)
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/store"
)

// scriptPoll is how often serve looks for scripts saved or deleted by other processes
// sharing its store (runcode scripts, another replica).
const scriptPoll = 5 * time.Second

// syncScripts registers the scripts st keeps as tools of scope, and keeps them in step:
// at once after a program of this server saved one (the returned saved, for
// ptc.Options.OnScriptSaved) and every scriptPoll. A change updates the clients' tool
// list. stop ends the syncing and waits for it.
func syncScripts(ctx context.Context, st store.Store, scope *servedScope, ex func() *ptc.Executor, stderr io.Writer) (saved func(ptc.Script), stop func(), err error) {
	y := ptc.NewScriptSync(st, scope.scope, ex)
	if _, err := y.Sync(ctx); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	kick := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(scriptPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			case <-kick:
			}
			changed, err := y.Sync(ctx)
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(stderr, "runcode serve: reading the saved scripts: %v\n", err)
			}
			if changed {
				scope.changed()
			}
		}
	})
	saved = func(ptc.Script) {
		select {
		case kick <- struct{}{}:
		default: // a sync is due already
		}
	}
	return saved, func() { cancel(); wg.Wait() }, nil
}

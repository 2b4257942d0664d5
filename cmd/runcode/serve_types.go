package main

import (
	"sync"
	"time"
)

// typesSyncDelay is how long serve waits, after a run changed an output type learned
// from results, before it offers the tools again: the SDK in run_code's description
// declares learned types, so clients are sent tools/list_changed when that text
// changed (mcpbridge.Server.Sync compares it), and the changes of a burst of runs go
// out as one.
const typesSyncDelay = time.Second

// coalescer calls f delay after the first trigger since f was last called: a burst of
// triggers makes one call, and f runs at most once per delay. It is safe for
// concurrent use; stop ends it.
type coalescer struct {
	delay time.Duration
	f     func()

	mu      sync.Mutex
	timer   *time.Timer // the call to come; nil: none
	stopped bool
	calls   sync.WaitGroup // the call to come, or running
}

// trigger asks for a call of f, unless one is to come or the coalescer stopped.
func (c *coalescer) trigger() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.timer != nil {
		return
	}
	c.calls.Add(1)
	c.timer = time.AfterFunc(c.delay, c.fire)
}

func (c *coalescer) fire() {
	defer c.calls.Done()
	c.mu.Lock()
	c.timer = nil
	stopped := c.stopped
	c.mu.Unlock()
	if !stopped {
		c.f()
	}
}

// stop cancels the call to come and waits for one running: f is not called after it
// returns.
func (c *coalescer) stop() {
	c.mu.Lock()
	c.stopped = true
	t := c.timer
	c.timer = nil
	c.mu.Unlock()
	if t != nil && t.Stop() {
		c.calls.Done()
	}
	c.calls.Wait()
}

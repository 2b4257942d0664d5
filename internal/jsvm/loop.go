package jsvm

import (
	"container/heap"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// loop is the per-run event loop, k6 style. Host work is reserved on the VM goroutine before
// it starts, and its settle callback is enqueued once, from any goroutine, to run on the VM
// goroutine; the run keeps going while callbacks are queued or reservations outstanding.
// reserve, take and close are for the VM goroutine; what reserve returns is for any.
type loop struct {
	mu      sync.Mutex
	queue   []func() error
	pending int  // reservations whose callback is not enqueued yet
	closed  bool // after close, enqueues are dropped
	wake    chan struct{}
}

func newLoop() *loop { return &loop{wake: make(chan struct{}, 1)} }

// reserve records outstanding host work and returns the function that settles it by
// enqueueing cb; only its first call counts, and calls after close are dropped.
func (l *loop) reserve() func(cb func() error) {
	l.mu.Lock()
	l.pending++
	l.mu.Unlock()
	var once sync.Once
	return func(cb func() error) {
		once.Do(func() {
			l.mu.Lock()
			l.pending--
			if !l.closed && cb != nil {
				l.queue = append(l.queue, cb)
			}
			l.mu.Unlock()
			l.signal()
		})
	}
}

func (l *loop) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// take returns the queued callbacks and whether any reservation is still outstanding.
func (l *loop) take() (batch []func() error, pending bool) {
	l.mu.Lock()
	batch, l.queue = l.queue, nil
	pending = l.pending > 0
	l.mu.Unlock()
	return batch, pending
}

// close drops every later enqueue.
func (l *loop) close() {
	l.mu.Lock()
	l.closed = true
	l.queue = nil
	l.mu.Unlock()
}

// timers implements setTimeout and clearTimeout for one run. Each armed timer holds a loop
// reservation, so a pending timer keeps the run alive; the run's wall clock bounds it.
// Methods are called on the VM goroutine.
type timers struct {
	r     *VM
	next  int64
	live  map[int64]*timer
	armed timerHeap // armed timers by due time; cleared ones stay until popped
}

type timer struct {
	id     int64
	t      *time.Timer
	settle func(func() error)
	due    time.Time
	fn     goja.Callable
	args   []goja.Value
}

// timerHeap orders timers by due time, then by the order they were set.
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if c := h[i].due.Compare(h[j].due); c != 0 {
		return c < 0
	}
	return h[i].id < h[j].id
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

func (ts *timers) setTimeout(call goja.FunctionCall) goja.Value {
	vm := ts.r.vm
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		panic(vm.NewTypeError("setTimeout: the callback must be a function"))
	}
	delay := call.Argument(1).ToFloat()
	if !(delay >= 1) { // NaN, negative and sub-millisecond delays run on the next turn
		delay = 0
	}
	var args []goja.Value
	if len(call.Arguments) > 2 {
		args = append(args, call.Arguments[2:]...)
	}
	if ts.live == nil {
		ts.live = map[int64]*timer{}
	}
	ts.next++
	id := ts.next
	d := time.Duration(delay * float64(time.Millisecond))
	t := &timer{id: id, settle: ts.r.loop.reserve(), due: time.Now().Add(d), fn: fn, args: args}
	ts.live[id] = t
	if d >= time.Until(ts.r.deadline) {
		// It could only fire after the wall clock ends the run: it keeps the run alive but
		// is not armed (clamped to the deadline, it raced the wall clock and could win).
		return vm.ToValue(id)
	}
	heap.Push(&ts.armed, t)
	t.t = time.AfterFunc(d, func() { t.settle(ts.runDue) })
	return vm.ToValue(id)
}

// runDue runs every due timer, earliest first (ties in the order set), as Node does:
// timer goroutines may fire out of order on a loaded machine. A timer run here finds
// nothing to do when its own goroutine settles it later.
func (ts *timers) runDue() error {
	now := time.Now()
	for len(ts.armed) > 0 && !ts.armed[0].due.After(now) {
		t := heap.Pop(&ts.armed).(*timer)
		if ts.live[t.id] != t {
			continue // cleared
		}
		delete(ts.live, t.id)
		if _, err := t.fn(goja.Undefined(), t.args...); err != nil {
			return err // an exception thrown by a timer callback fails the run, as in Node
		}
	}
	return nil
}

func (ts *timers) clearTimeout(call goja.FunctionCall) goja.Value {
	id := call.Argument(0).ToInteger()
	if t, ok := ts.live[id]; ok {
		delete(ts.live, id)
		if t.t == nil || t.t.Stop() {
			t.settle(nil)
		}
	}
	return goja.Undefined()
}

// stopAll stops every armed timer; called when the run ends.
func (ts *timers) stopAll() {
	for id, t := range ts.live {
		if t.t != nil {
			t.t.Stop()
		}
		t.settle(nil)
		delete(ts.live, id)
	}
}

// finish ends the run on the VM goroutine: late host results and timers are dropped, host
// work is cancelled and awaited (up to Grace), and the VM is left for the garbage collector.
func (r *VM) finish() {
	r.loop.close()
	r.timers.stopAll()
	r.cancel(ErrRunOver)
	if r.compute != nil {
		r.compute.Stop()
	}
	if r.started == 0 {
		return
	}
	waitGroupAtMost(&r.pending, r.host.grace)
}

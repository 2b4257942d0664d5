package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// DefaultMaxParallel is the default bound on overlapping parallel-safe calls.
const DefaultMaxParallel = 10

// SchedulerOptions configures a Scheduler.
type SchedulerOptions struct {
	// MaxParallel bounds how many parallel-safe calls are in flight at once (started
	// and not yet committed). If zero, [DefaultMaxParallel]; negative is an error.
	MaxParallel int
	// Abandon makes the result of a call that was submitted but never started (the
	// scheduler was closed or its context ended first). No stage, event or observer
	// runs for such a call. If nil, the result is
	// `Error: tool call aborted before dispatch` (ABORTED_BEFORE_DISPATCH).
	Abandon func(call registry.Call) *ToolError
}

// Scheduler runs calls through a Pipeline in submission order, the way both executors
// need: a call starts only after every earlier call started; consecutive calls whose
// tool classifies them as parallel-safe (exactly true) overlap up to MaxParallel; any
// other call is exclusive: it waits until nothing is in flight and runs alone until
// it has committed. Prepare stages (pre-execute, approval, guards) run one at a time
// in submission order, and so do commit stages (post-execute, finalizeContent,
// observers), even when bodies finish out of order; only wrappers and bodies overlap.
//
// When its context ends or it is closed, a Scheduler starts nothing more: queued calls
// are abandoned and started ones drain. A Scheduler is safe for concurrent use.
type Scheduler struct {
	p       *Pipeline
	ctx     context.Context
	set     *registry.ResolvedToolSet
	max     int
	abandon func(registry.Call) *ToolError

	mu         sync.Mutex
	cond       sync.Cond
	queue      []*Pending
	running    bool // the lane goroutine is active
	closed     bool
	inflight   int  // started and not committed
	exclusive  bool // the call in flight is exclusive
	lastCommit chan struct{}
	wg         sync.WaitGroup
	stopWake   func() bool
}

// Pending is a submitted call. Its result is available once Done is closed.
type Pending struct {
	call    registry.Call
	done    chan struct{}
	res     *Result
	commit  chan struct{} // closed when this call has committed
	then    func(*Result)
	started bool
	// submitted and settled time the call, from Submit to its result.
	submitted, settled time.Time
}

// Elapsed is the time from Submit to the result. It is meaningful once Done is closed.
func (p *Pending) Elapsed() time.Duration { return p.settled.Sub(p.submitted) }

// Started reports whether the call entered the pipeline (false for an abandoned
// call). It is meaningful once Done is closed.
func (p *Pending) Started() bool { return p.started }

// Done is closed when the call has a result.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Wait blocks until the call has a result and returns it.
func (p *Pending) Wait() *Result {
	<-p.done
	return p.res
}

// NewScheduler returns a Scheduler for calls against set, cancelled by ctx.
func (p *Pipeline) NewScheduler(ctx context.Context, set *registry.ResolvedToolSet, opts *SchedulerOptions) (*Scheduler, error) {
	s := &Scheduler{p: p, ctx: ctx, set: set, max: DefaultMaxParallel}
	if opts != nil {
		if opts.MaxParallel < 0 {
			return nil, fmt.Errorf("max parallel calls must be a positive integer, got %d", opts.MaxParallel)
		}
		if opts.MaxParallel > 0 {
			s.max = opts.MaxParallel
		}
		s.abandon = opts.Abandon
	}
	s.cond.L = &s.mu
	done := make(chan struct{})
	close(done)
	s.lastCommit = done
	s.stopWake = context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	return s, nil
}

// Submit queues a call and returns at once. A call submitted after Close, or after the
// context ended, is abandoned.
func (s *Scheduler) Submit(call registry.Call) *Pending { return s.SubmitThen(call, nil) }

// SubmitThen is Submit with a function called with the call's result once it has one
// (after Done is closed), on the goroutine that finished or abandoned the call. It must
// not block. It lets a caller act on a result without a goroutine waiting for it.
func (s *Scheduler) SubmitThen(call registry.Call, then func(*Result)) *Pending {
	j := &Pending{call: call, done: make(chan struct{}), submitted: time.Now(), then: then}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		s.abandonLocked(j)
		return j
	}
	s.queue = append(s.queue, j)
	if !s.running {
		s.running = true
		s.wg.Add(1)
		go s.lane()
	}
	return j
}

// Close stops starting calls, abandons the queued ones and waits until every started
// call has committed. It is idempotent.
func (s *Scheduler) Close() {
	s.mu.Lock()
	s.closed = true
	for _, j := range s.queue {
		s.abandonLocked(j)
	}
	s.queue = nil
	s.cond.Broadcast()
	s.mu.Unlock()
	s.wg.Wait()
	s.stopWake()
}

func (s *Scheduler) abandonLocked(j *Pending) {
	var err *ToolError
	if s.abandon != nil {
		err = s.abandon(j.call)
	}
	if err == nil {
		err = abortedBeforeDispatch()
	}
	j.res = &Result{CallID: j.call.ID, Name: j.call.Name, Error: err, Content: errorContent(err)}
	j.settled = time.Now()
	close(j.done)
	if j.then != nil {
		go j.then(j.res) // not under the scheduler's lock; abandonment is rare
	}
}

// lane starts queued calls one at a time, in submission order, and exits when the
// queue is empty (Submit starts it again).
func (s *Scheduler) lane() {
	defer s.wg.Done()
	growStack()
	for {
		s.mu.Lock()
		if len(s.queue) == 0 || s.stoppedLocked() {
			s.running = false
			s.mu.Unlock()
			return
		}
		j := s.queue[0]
		s.mu.Unlock()

		// Classify just before the start: only an exact true is parallel.
		x := s.p.start(s.ctx, s.set, j.call)
		safe := x.classify()

		s.mu.Lock()
		for !s.stoppedLocked() && !s.fitsLocked(safe) {
			s.cond.Wait()
		}
		if s.stoppedLocked() {
			for _, q := range s.queue {
				s.abandonLocked(q)
			}
			s.queue = nil
			s.running = false
			s.mu.Unlock()
			return
		}
		s.queue = s.queue[1:]
		j.started = true
		s.inflight++
		s.exclusive = !safe
		prev := s.lastCommit
		j.commit = make(chan struct{})
		s.lastCommit = j.commit
		s.wg.Add(1)
		s.mu.Unlock()

		s.p.prepare(x) // ordered: on the lane
		s.mu.Lock()
		if len(s.queue) == 0 {
			// Nothing else to start: the lane becomes this call's goroutine instead of
			// starting one, and a later Submit starts a new lane. Sequential calls (a
			// program awaiting one call at a time) thus cost one goroutine each, not
			// two, and the body runs on a stack the classifier and prepare stages have
			// already grown (stack growth was about 4 µs per sub-call in the S2 bench
			// scenario's CPU profile).
			s.running = false
			s.mu.Unlock()
			s.finish(j, x, prev, safe)
			return
		}
		s.mu.Unlock()
		go s.finish(j, x, prev, safe)
	}
}

func (s *Scheduler) stoppedLocked() bool { return s.closed || s.ctx.Err() != nil }

func (s *Scheduler) fitsLocked(safe bool) bool {
	if !safe {
		return s.inflight == 0
	}
	return !s.exclusive && s.inflight < s.max
}

// finish runs the body, then commits after the previous call committed.
func (s *Scheduler) finish(j *Pending, x *execution, prev chan struct{}, safe bool) {
	defer s.wg.Done()
	s.p.execute(x)
	<-prev
	j.res = s.p.commit(x)
	close(j.commit)
	s.mu.Lock()
	s.inflight--
	if !safe {
		s.exclusive = false
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	j.settled = time.Now()
	close(j.done)
	if j.then != nil {
		j.then(j.res)
	}
}

// growStack grows the calling goroutine's stack to 32 KB in one step, while it is still
// shallow. A lane classifies, prepares and (for the last queued call) runs a call, which
// otherwise doubles a fresh goroutine's 8 KB stack more than once, copying every frame
// each time (Go's copystack looks up each frame's PC tables): about 3 µs per sequential
// sub-call in the S2 bench scenario's CPU profile, against well under one for this.
//
//go:noinline
func growStack() {
	var pad [20 << 10]byte
	touchStack(pad[:])
}

//go:noinline
func touchStack(b []byte) { b[len(b)-1] = 1 }

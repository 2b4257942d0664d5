package pipeline

import (
	"context"
	"fmt"
	"slices"
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
	// Abandon makes the result of a call the scheduler gives up on: one submitted but
	// never started (started false: the scheduler was closed or its context ended
	// first; no stage, event or observer runs for it), or one started but still not
	// committed when Close's Grace ran out (started true). If nil, or if it returns
	// nil, the result is `Error: tool call aborted before dispatch`
	// (ABORTED_BEFORE_DISPATCH) for the first and `Error: tool call abandoned: still
	// running <grace> after it was cancelled` (ABORTED) for the second.
	Abandon func(call registry.Call, started bool) *ToolError
	// Grace bounds how long Close waits for the calls already started, counted from
	// when the scheduler stopped: its context ended or Close was first called,
	// whichever came first. Calls still running then are abandoned: their Pending is
	// done with Abandon's result (and reports Abandoned), the abandoned event is
	// emitted for each, and Close returns without them. Their late outcome still goes
	// through the commit stages (post-execute, finalizeContent, observers, the settle
	// event) exactly once when the body returns, but reaches no Pending. Zero means
	// Close waits for them however long they take; negative is an error.
	Grace time.Duration
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
// are abandoned and started ones drain (up to Grace, if set). A Scheduler is safe for
// concurrent use.
type Scheduler struct {
	p       *Pipeline
	ctx     context.Context
	set     *registry.ResolvedToolSet
	max     int
	abandon func(registry.Call, bool) *ToolError
	grace   time.Duration

	mu         sync.Mutex
	cond       sync.Cond
	queue      []*Pending
	live       []*Pending // started and not committed, in start order
	running    bool       // the lane goroutine is active
	closed     bool
	stoppedAt  time.Time // when the context ended or Close was first called
	exclusive  bool      // the call in flight is exclusive
	lastCommit chan struct{}
	busy       int           // lane and finish goroutines not yet done
	idle       chan struct{} // closed once the scheduler is closed and busy is zero
	idleClosed bool
	stopWake   func() bool
}

// Pending is a submitted call. Its result is available once Done is closed.
type Pending struct {
	call      registry.Call
	done      chan struct{}
	res       *Result
	commit    chan struct{} // closed when this call has committed
	then      func(*Result)
	started   bool
	abandoned bool
	// submitted and settled time the call, from Submit to its result.
	submitted, settled time.Time
}

// Elapsed is the time from Submit to the result. It is meaningful once Done is closed.
func (p *Pending) Elapsed() time.Duration { return p.settled.Sub(p.submitted) }

// Started reports whether the call entered the pipeline (false for a call abandoned
// before it started). It is meaningful once Done is closed.
func (p *Pending) Started() bool { return p.started }

// Abandoned reports whether the call started but was given up on before it committed
// (see [SchedulerOptions.Grace]): its result is the abandonment's, not the call's own.
// It is meaningful once Done is closed.
func (p *Pending) Abandoned() bool { return p.abandoned }

// Done is closed when the call has a result.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Wait blocks until the call has a result and returns it.
func (p *Pending) Wait() *Result {
	<-p.done
	return p.res
}

// NewScheduler returns a Scheduler for calls against set, cancelled by ctx.
func (p *Pipeline) NewScheduler(ctx context.Context, set *registry.ResolvedToolSet, opts *SchedulerOptions) (*Scheduler, error) {
	s := &Scheduler{p: p, ctx: ctx, set: set, max: DefaultMaxParallel, idle: make(chan struct{})}
	if opts != nil {
		if opts.MaxParallel < 0 {
			return nil, fmt.Errorf("max parallel calls must be a positive integer, got %d", opts.MaxParallel)
		}
		if opts.Grace < 0 {
			return nil, fmt.Errorf("the scheduler's grace must not be negative, got %v", opts.Grace)
		}
		if opts.MaxParallel > 0 {
			s.max = opts.MaxParallel
		}
		s.abandon = opts.Abandon
		s.grace = opts.Grace
	}
	s.cond.L = &s.mu
	done := make(chan struct{})
	close(done)
	s.lastCommit = done
	s.stopWake = context.AfterFunc(ctx, func() {
		s.mu.Lock()
		if s.stoppedAt.IsZero() {
			s.stoppedAt = time.Now()
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	return s, nil
}

// Submit queues a call and returns at once. A call submitted after Close, or after the
// context ended, is abandoned.
func (s *Scheduler) Submit(call registry.Call) *Pending { return s.SubmitThen(call, nil) }

// SubmitThen is Submit with a function called with the call's result once it has one
// (after Done is closed): the call's own, or the abandonment's. It is called exactly
// once, on the goroutine that finished or abandoned the call (one of its own for a
// call abandoned before it started), and must not block. It lets a caller act on a
// result without a goroutine waiting for it.
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
		s.busy++
		go s.lane()
	}
	return j
}

// Close stops starting calls, abandons the queued ones and waits until every started
// call has committed, or with a Grace until it runs out, abandoning the calls still
// running then. It is idempotent.
func (s *Scheduler) Close() {
	s.mu.Lock()
	s.closed = true
	if s.stoppedAt.IsZero() {
		s.stoppedAt = time.Now()
	}
	for _, j := range s.queue {
		s.abandonLocked(j)
	}
	s.queue = nil
	s.cond.Broadcast()
	s.idleLocked()
	deadline := s.stoppedAt.Add(s.grace)
	s.mu.Unlock()
	if s.grace == 0 {
		<-s.idle
	} else {
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-s.idle:
		case <-t.C:
			s.abandonLive()
		}
		t.Stop()
	}
	s.stopWake()
}

// idleLocked closes idle once the scheduler is closed and none of its goroutines is busy.
func (s *Scheduler) idleLocked() {
	if s.closed && s.busy == 0 && !s.idleClosed {
		s.idleClosed = true
		close(s.idle)
	}
}

// release ends one busy goroutine's work.
func (s *Scheduler) release() {
	s.mu.Lock()
	s.busy--
	s.idleLocked()
	s.mu.Unlock()
}

// abandonError is the error of a call given up on.
func (s *Scheduler) abandonError(c registry.Call, started bool) *ToolError {
	var err *ToolError
	if s.abandon != nil {
		err = s.abandon(c, started)
	}
	switch {
	case err != nil:
		return err
	case started:
		return abandonedRunning(s.grace)
	default:
		return abortedBeforeDispatch()
	}
}

func (s *Scheduler) abandonLocked(j *Pending) {
	err := s.abandonError(j.call, false)
	j.res = &Result{CallID: j.call.ID, Name: j.call.Name, Error: err, Content: errorContent(err)}
	j.settled = time.Now()
	close(j.done)
	if then := j.takeThen(); then != nil {
		go then(j.res) // not under the scheduler's lock; abandonment is rare
	}
}

// takeThen returns the call's callback and forgets it, so that a Pending kept after its
// call (a run's sub-call records) does not keep what the callback reaches (the run's
// VM, in run_code). Each call settles through exactly one path, which calls it.
func (j *Pending) takeThen() func(*Result) {
	then := j.then
	j.then = nil
	return then
}

// abandonLive gives up on the calls started and not committed: each Pending is done
// with the abandonment's result, and the abandoned event is emitted for each.
func (s *Scheduler) abandonLive() {
	s.mu.Lock()
	late := s.live
	s.live = nil
	now := time.Now()
	for _, j := range late {
		err := s.abandonError(j.call, true)
		j.res = &Result{CallID: j.call.ID, Name: j.call.Name, Error: err, Content: errorContent(err)}
		j.abandoned = true
		j.settled = now
	}
	s.mu.Unlock()
	for _, j := range late {
		close(j.done)
		s.p.abandoned(j.call, j.res)
		if then := j.takeThen(); then != nil {
			then(j.res)
		}
	}
}

// lane starts queued calls one at a time, in submission order, and exits when the
// queue is empty (Submit starts it again).
func (s *Scheduler) lane() {
	growStack()
	for {
		s.mu.Lock()
		if len(s.queue) == 0 || s.stoppedLocked() {
			s.exitLaneLocked()
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
			s.exitLaneLocked()
			s.mu.Unlock()
			return
		}
		s.queue = s.queue[1:]
		j.started = true
		s.live = append(s.live, j)
		s.exclusive = !safe
		prev := s.lastCommit
		j.commit = make(chan struct{})
		s.lastCommit = j.commit
		s.busy++ // the call's own goroutine (finish)
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
			s.busy-- // the lane's own; the call's count stays until finish is done
			s.mu.Unlock()
			s.finish(j, x, prev, safe)
			return
		}
		s.mu.Unlock()
		go s.finish(j, x, prev, safe)
	}
}

// exitLaneLocked ends the lane. Once the scheduler has stopped, the calls still queued
// are abandoned here: nothing else would settle them before Close, and a caller
// waiting on them before it closes (as the native executor does) would wait forever.
func (s *Scheduler) exitLaneLocked() {
	if s.stoppedLocked() {
		for _, q := range s.queue {
			s.abandonLocked(q)
		}
		s.queue = nil
	}
	s.running = false
	s.busy--
	s.idleLocked()
}

func (s *Scheduler) stoppedLocked() bool { return s.closed || s.ctx.Err() != nil }

func (s *Scheduler) fitsLocked(safe bool) bool {
	if !safe {
		return len(s.live) == 0
	}
	return !s.exclusive && len(s.live) < s.max
}

// finish runs the body, then commits after the previous call committed. A call
// abandoned meanwhile still commits (finalizeContent and observers run once), but its
// outcome is dropped.
func (s *Scheduler) finish(j *Pending, x *execution, prev chan struct{}, safe bool) {
	defer s.release()
	s.p.execute(x)
	<-prev
	res := s.p.commit(x)
	close(j.commit)
	s.mu.Lock()
	i := slices.Index(s.live, j)
	if i >= 0 {
		// Settled under the lock, with its removal from live: a Close whose grace runs
		// out now either abandons it or finds it done, never neither.
		s.live = slices.Delete(s.live, i, i+1)
		j.res = res
		j.settled = time.Now()
		close(j.done)
	}
	if !safe {
		s.exclusive = false
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	if i < 0 {
		return // abandoned: its Pending already holds the abandonment
	}
	if then := j.takeThen(); then != nil {
		then(j.res)
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

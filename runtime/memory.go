package runtime

import (
	"context"
	"fmt"
	"math"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The heap budget of a run. goja has no allocation accounting, so a run is judged by
// the growth of the process's live heap (as of the last collection) since it started, as
// if it were alone. In a worker process (runtime/worker) one run is alone, and this is
// exact; the worker's address-space limit is the hard bound behind it. In process,
// concurrent runs share the process's heap, so a run can be charged for what another
// allocated at the same time: the in-process runtime is for trusted programs, and its
// budget is a guard against mistakes, not a boundary. A process-wide ceiling
// (PoolOptions.MemoryCeiling) bounds what all runs together may hold.

// governor judges the memory of every in-process run of the process. Its methods are safe
// for concurrent use.
type governor struct {
	mu    sync.Mutex
	runs  map[*run]bool   // in flight
	pools map[*Pool]int64 // the ceiling of every open pool (0: none)
	// lastSample is when a run's sampler last sampled the heap, and sampling is set while
	// one does: the others skip their tick then, and until sampleEvery/2 has passed.
	lastSample time.Time
	sampling   bool
	// base is the heap the process holds besides its runs, as of the last attribution
	// (or the first run's start).
	base int64
	// lastLook is when the profile was last read, and the heap then; the profile is read
	// again only after a pause or further growth.
	lastLook     time.Time
	lastLookHeap int64
	// over is set while the process's live heap is above the ceiling; admission waits
	// for below to be closed.
	over  bool
	below chan struct{}
	// releasing is set while a release (see release) runs; again asks it for one more.
	releasing, again bool
	releases         sync.WaitGroup
}

var gov = &governor{runs: map[*run]bool{}, pools: map[*Pool]int64{}}

// heapSample reads the heap's object bytes (live and not yet collected) and the live heap
// as of the last collection.
func heapSample() (objects, live int64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		objects = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = int64(s[1].Value.Uint64())
	}
	return objects, live
}

// addPool and removePool track the open pools' ceilings; the governor enforces the
// lowest.
func (g *governor) addPool(p *Pool, ceiling int64) {
	g.mu.Lock()
	g.pools[p] = ceiling
	g.mu.Unlock()
}

func (g *governor) removePool(p *Pool) {
	g.mu.Lock()
	delete(g.pools, p)
	g.mu.Unlock()
}

// ceilingLocked is the lowest ceiling of the open pools, or of the Go runtime's memory
// limit when a pool asked for that, or 0 for none.
func (g *governor) ceilingLocked() int64 {
	var c int64
	for _, pc := range g.pools {
		if pc < 0 { // the GOMEMLIMIT, if one is set
			if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
				pc = l
			} else {
				pc = 0
			}
		}
		if pc > 0 && (c == 0 || pc < c) {
			c = pc
		}
	}
	return c
}

// admit waits while the process is over its memory ceiling and runs are in flight (they
// are what can give memory back), or until ctx ends.
func (g *governor) admit(ctx context.Context) error {
	for {
		g.mu.Lock()
		if !g.over {
			g.mu.Unlock()
			return nil
		}
		below := g.below
		g.mu.Unlock()
		select {
		case <-below:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// start registers r for the rest of its run.
func (g *governor) start(r *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, live := heapSample()
	if len(g.runs) == 0 {
		g.base = live
	}
	g.runs[r] = true
	r.memStart = live
	// A sampler of the run's own rather than one for the process: a timer belongs to
	// the synctest bubble it was made in (if any), where it stops when the bubble ends,
	// and may not be touched from outside it. The run's goroutines are in its bubble.
	r.sampler = time.AfterFunc(sampleEvery, func() { g.tick(r) })
}

// release collects the heap and returns free memory to the system, on a goroutine of its
// own. A run that ended at its memory limit or its time budget (a memory bomb can end
// either way) has just dropped its VM: without this the process would keep holding that
// memory, an idle server up to its ceiling, until the Go runtime's next periodic
// collection minutes later. Requests made while a release runs get one more after it
// instead of one each.
func (g *governor) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.releasing {
		g.again = true
		return
	}
	g.releasing = true
	g.releases.Add(1)
	go func() {
		defer g.releases.Done()
		g.mu.Lock()
		for {
			g.again = false
			g.mu.Unlock()
			debug.FreeOSMemory()
			g.mu.Lock()
			if !g.again {
				g.releasing = false
				g.mu.Unlock()
				return
			}
		}
	}()
}

// stop unregisters r.
func (g *governor) stop(r *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.runs[r] {
		delete(g.runs, r)
		r.sampler.Stop()
	}
	if len(g.runs) == 0 {
		g.setOverLocked(false) // nothing in flight can give memory back; let runs start
	}
}

func (g *governor) setOverLocked(over bool) {
	switch {
	case over && !g.over:
		g.below = make(chan struct{})
	case !over && g.over:
		close(g.below)
	}
	g.over = over
}

// tick is run r's sampler: it samples the heap unless another run's sampler just did, and
// re-arms while r is in flight.
func (g *governor) tick(r *run) {
	g.mu.Lock()
	if !g.runs[r] {
		g.mu.Unlock()
		return // stopped
	}
	// Every run's sampler ticks, but one at a time samples the heap, about once per
	// sampleEvery: reading the heap profile is costly, and concurrent reads contend. A time
	// from another bubble's clock is ignored rather than trusted.
	now := time.Now()
	d := now.Sub(g.lastSample)
	sample := !g.sampling && (d < 0 || d >= sampleEvery/2)
	if sample {
		g.lastSample, g.sampling = now, true
	}
	g.mu.Unlock()
	if sample {
		g.sample()
	}
	g.mu.Lock()
	if sample {
		g.sampling = false
	}
	if g.runs[r] {
		r.sampler.Reset(sampleEvery)
	}
	g.mu.Unlock()
}

// sample reads the heap and, when the process holds more than its runs' smallest budget
// beyond its base (or more than the ceiling), attributes the heap to the runs.
func (g *governor) sample() {
	objects, _ := heapSample()
	g.mu.Lock()
	if len(g.runs) == 0 {
		g.mu.Unlock()
		return
	}
	minBudget := int64(math.MaxInt64)
	for r := range g.runs {
		minBudget = min(minBudget, r.limits.HeapBytes)
	}
	ceiling := g.ceilingLocked()
	if g.over && objects < ceiling {
		g.setOverLocked(false) // everything, garbage included, fits again
	}
	look := objects-g.base > minBudget || ceiling > 0 && objects > ceiling
	// Read the profile again only after it could have changed enough to matter: a pause,
	// or growth by a good part of the smallest budget. (A last look timed by another
	// synctest bubble's clock holds nothing back.)
	if since := time.Since(g.lastLook); look && since >= 0 && since < 10*sampleEvery && objects-g.lastLookHeap < minBudget/4 {
		look = false
	}
	g.mu.Unlock()
	if look {
		g.attribute(ceiling)
	}
}

// attribute judges the live heap and fails the run judgeLocked picks. It collects first,
// so a run fails for what the process holds, never for its garbage.
func (g *governor) attribute(ceiling int64) {
	goruntime.GC()
	objects, live := heapSample()
	g.mu.Lock()
	victim, busiest, over := g.judgeLocked(live, ceiling)
	g.lastLook, g.lastLookHeap = time.Now(), objects
	g.setOverLocked(over)
	g.mu.Unlock()
	// A failed run's VM is dropped, and its memory released, once its goroutine has unwound.
	if victim != nil {
		victim.fail(KindMemoryLimit, fmt.Sprintf("heap limit of %d MiB exceeded", victim.limits.HeapBytes>>20))
	}
	if busiest != nil {
		busiest.fail(KindMemoryLimit, fmt.Sprintf("the process's memory ceiling of %d MiB was reached, and this run was the busiest of those in flight",
			ceiling>>20))
	}
}

// judgeLocked picks at most one run to fail, unless a failed run is still unwinding
// (what it frees may bring the heap under). A run's figure is the process's live growth
// since it started, which concurrent runs share; of the runs over their budget, the one
// that has kept its goroutine busiest fails, since a program that grows the heap is busy
// doing it while its neighbours mostly wait for tools. Over the ceiling with no run over
// its budget, the busiest run fails (returned apart). It reports whether the process is
// over its ceiling.
func (g *governor) judgeLocked(live, ceiling int64) (victim, ceilingVictim *run, over bool) {
	var busiest, busiestOver *run
	var most, mostOver time.Duration
	for r := range g.runs {
		if r.failed() {
			return nil, nil, ceiling > 0 && live > ceiling // what it holds goes when it unwinds
		}
		used := r.busyTime()
		if used >= most {
			busiest, most = r, used
		}
		if live-r.memStart > r.limits.HeapBytes && used >= mostOver {
			busiestOver, mostOver = r, used
		}
	}
	over = ceiling > 0 && live > ceiling
	if over && busiestOver == nil {
		ceilingVictim = busiest
	}
	return busiestOver, ceilingVictim, over
}

// busyTime is the compute time r has used so far, the stretch in progress included.
func (r *run) busyTime() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.busy {
		return r.used + time.Since(r.busySince)
	}
	return r.used
}

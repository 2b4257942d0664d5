package jsvm

import (
	"bytes"
	"context"
	"fmt"
	"math"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// The heap budget of in-process runs. goja has no allocation accounting, so a run's
// memory is read from the heap profile: each run's VM goroutine starts under marker
// frames that spell its slot (markSlot), and the live bytes of the sampled stacks that
// carry a slot's markers are what that run holds, garbage excluded. The governor reads
// the profile only when the process holds more than the smallest budget in flight beyond
// its base, so ordinary runs never pay for it.
//
// Blind spots: allocations more than about a hundred frames deep (the profile keeps 128
// frames), what a run makes other goroutines allocate (tools are the host's), and
// everything when heap profiling is off (runtime.MemProfileRate = 0), where a run is
// judged by the live heap's growth since it started. MemoryCeiling bounds all runs together.

// slotDigits is the number of base-4 marker frames; it bounds the slots to 4^slotDigits.
const (
	slotDigits = 5
	slotCount  = 1 << (2 * slotDigits)
)

// markSlot calls f under slotDigits frames of itself, each returning to one of four call
// sites chosen by a base-4 digit of slot: the return addresses on the goroutine's stack
// spell slot, and so does the stack of every allocation f makes. The distinct last
// arguments keep the compiler from merging the four calls.
//
//go:noinline
func markSlot(slot uint, n int, f func(), _ int) {
	switch {
	case n == 0:
		f()
	case slot&3 == 0:
		markSlot(slot>>2, n-1, f, 0)
	case slot&3 == 1:
		markSlot(slot>>2, n-1, f, 1)
	case slot&3 == 2:
		markSlot(slot>>2, n-1, f, 2)
	default:
		markSlot(slot>>2, n-1, f, 3)
	}
}

// markers are the addresses a heap profile gives markSlot's frames: inner is that of its
// call of f, digit[d] that of its call site for base-4 digit d. ok is false if they could
// not be told apart, and then no run is attributed.
var markers = sync.OnceValue(func() (m struct {
	inner uint64
	digit [4]uint64
	ok    bool
}) {
	// runtime/pprof gives a location the PC of the frame its return address expands to.
	addr := func(pc uintptr) uint64 {
		f, _ := goruntime.CallersFrames([]uintptr{pc}).Next()
		return uint64(f.PC)
	}
	for d := range 4 {
		var pcs [8]uintptr
		markSlot(uint(d), 1, func() { goruntime.Callers(0, pcs[:]) }, 0)
		// pcs: Callers, the closure, markSlot(n=0) returning into its call of f,
		// markSlot(n=1) returning into the call site for digit d.
		m.inner, m.digit[d] = addr(pcs[2]), addr(pcs[3])
	}
	seen := map[uint64]bool{m.inner: true}
	for _, a := range m.digit {
		if a == 0 || seen[a] {
			return m
		}
		seen[a] = true
	}
	m.ok = m.inner != 0
	return m
})

// heapSlot is a run's place with the governor while it is in flight.
type heapSlot struct {
	slot     int         // -1 for none
	sampler  *time.Timer // the run's heap sampler
	memStart int64       // the process's live heap besides runs when it started
}

// runOnSlot runs f on the calling goroutine under slot's markers.
func runOnSlot(slot int, f func()) {
	if slot < 0 {
		f()
		return
	}
	markSlot(uint(slot), slotDigits, f, 0)
}

// governor judges the memory of every in-process run of the process. Its methods are safe
// for concurrent use.
type governor struct {
	mu         sync.Mutex
	runs       map[int]*VM     // in flight, by slot
	free       []int           // free slots, least recently released first
	pools      map[*Host]int64 // the ceiling of every open host (0: none)
	lastSample time.Time       // when a sampler last sampled; sampling is set while one does
	sampling   bool
	base       int64 // the heap held besides runs, as of the last attribution
	// lastLook is when the profile was last read, and the heap then.
	lastLook     time.Time
	lastLookHeap int64
	over         bool          // live heap above the ceiling; admission waits for below
	below        chan struct{} // closed when over clears
	releasing    bool          // a release runs; again asks it for one more
	again        bool
	releases     sync.WaitGroup
}

var gov = &governor{runs: map[int]*VM{}, pools: map[*Host]int64{}}

// heapSample reads the object bytes (garbage included) and the last collection's live heap.
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

// addHost and removeHost track the open hosts' ceilings; the lowest applies.
func (g *governor) addHost(p *Host, ceiling int64) {
	g.mu.Lock()
	g.pools[p] = ceiling
	g.mu.Unlock()
}

func (g *governor) removeHost(p *Host) {
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

// start registers r for the rest of its run and returns its slot.
func (g *governor) start(r *VM) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.free == nil {
		g.free = make([]int, slotCount)
		for i := range g.free {
			g.free[i] = i
		}
	}
	slot := -1
	if len(g.free) > 0 {
		slot, g.free = g.free[0], g.free[1:]
	}
	if len(g.runs) == 0 {
		_, live := heapSample()
		g.base = live
	}
	r.slot = slot
	if slot >= 0 {
		g.runs[slot] = r
	}
	r.memStart = g.base
	if slot >= 0 {
		// A sampler per run, not per process: a timer belongs to the synctest bubble it
		// was made in and may not be touched from outside it.
		r.sampler = time.AfterFunc(sampleEvery, func() { g.tick(r) })
	}
	return slot
}

// release collects the heap and returns free memory to the system, on a goroutine of its
// own, after a run that ended at a memory or time budget dropped its VM: otherwise the
// process keeps that memory until Go's periodic collection minutes later. Requests made
// during a release get one more after it, not one each.
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

// stop unregisters r; its slot is reused last.
func (g *governor) stop(r *VM) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.slot >= 0 && g.runs[r.slot] == r {
		delete(g.runs, r.slot)
		g.free = append(g.free, r.slot)
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

// tick is run r's sampler; it re-arms while r is in flight.
func (g *governor) tick(r *VM) {
	g.mu.Lock()
	if g.runs[r.slot] != r {
		g.mu.Unlock()
		return // stopped
	}
	// One sampler at a time samples, about once per sampleEvery: concurrent reads contend.
	// A time from another synctest bubble's clock is ignored.
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
	if g.runs[r.slot] == r {
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
	for _, r := range g.runs {
		minBudget = min(minBudget, r.limits.HeapBytes)
	}
	ceiling := g.ceilingLocked()
	if g.over && objects < ceiling {
		g.setOverLocked(false) // everything, garbage included, fits again
	}
	look := objects-g.base > minBudget || ceiling > 0 && objects > ceiling
	// Read the profile again only after a pause or growth by a good part of the smallest
	// budget (a last look timed by another synctest bubble's clock holds nothing back).
	if since := time.Since(g.lastLook); look && since >= 0 && since < 10*sampleEvery && objects-g.lastLookHeap < minBudget/4 {
		look = false
	}
	g.mu.Unlock()
	if look {
		g.attribute(ceiling)
	}
}

// attribute fails the runs over their budget, and the largest holder while the process
// is over its ceiling. It collects first: the profile is as of a collection up to two
// cycles back, and a run must fail for what it holds now, never for its garbage.
func (g *governor) attribute(ceiling int64) {
	goruntime.GC()
	objects, live := heapSample()
	held, ok := g.held()
	g.mu.Lock()
	victims, largest, over := g.judgeLocked(held, ok, live, ceiling)
	g.lastLook, g.lastLookHeap = time.Now(), objects
	g.setOverLocked(over)
	if ok {
		g.base = max(live-sumOf(held), 0)
	}
	g.mu.Unlock()
	// A failed run's VM is dropped, and its memory released, once its goroutine has unwound.
	for _, r := range victims {
		r.fail(KindMemoryLimit, fmt.Sprintf("heap limit of %d MiB exceeded", r.limits.HeapBytes>>20))
	}
	if largest != nil {
		largest.fail(KindMemoryLimit, fmt.Sprintf("the process's memory ceiling of %d MiB was reached, and this run held the most (%d MiB)",
			ceiling>>20, heldBy(held, ok, live, largest)>>20))
	}
}

// heldBy is what judgeLocked counted for r.
func heldBy(held map[int]int64, ok bool, live int64, r *VM) int64 {
	if !ok {
		return live - r.memStart
	}
	return held[r.slot]
}

// judgeLocked picks the runs over their budget and, over the ceiling with none of those
// and no failed run still unwinding (what it frees may suffice), the largest holder. It
// reports whether the process is over its ceiling.
func (g *governor) judgeLocked(held map[int]int64, ok bool, live, ceiling int64) (victims []*VM, ceilingVictim *VM, over bool) {
	var largest *VM
	var largestHeld int64
	unwinding := false
	for slot, r := range g.runs {
		if r.failed() {
			unwinding = true
			continue // already ending; what it holds goes when its goroutine unwinds
		}
		h := held[slot]
		if !ok { // no profile: the process's live growth since the run started
			h = live - r.memStart
		}
		if h > r.limits.HeapBytes {
			victims = append(victims, r)
		}
		if h > largestHeld {
			largest, largestHeld = r, h
		}
	}
	over = ceiling > 0 && live > ceiling
	if over && len(victims) == 0 && largest != nil && !unwinding {
		ceilingVictim = largest
	}
	return victims, ceilingVictim, over
}

func sumOf(held map[int]int64) int64 {
	var sum int64
	for _, b := range held {
		sum += b
	}
	return sum
}

// held returns the live bytes each slot holds as of the last collection, or false when
// the profile cannot say. It reads the protobuf form, which symbolizes each PC once; the
// text form's cost grows with the process's life.
func (g *governor) held() (map[int]int64, bool) {
	m := markers()
	if !m.ok || goruntime.MemProfileRate <= 0 {
		return nil, false
	}
	var buf bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
		return nil, false
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, false
	}
	return heldBySlot(p, m.inner, m.digit)
}

// heldBySlot sums, per slot, the in-use bytes of the samples whose stacks carry the
// slot's markers; false when the profile has no in-use bytes.
func heldBySlot(p *profile.Profile, inner uint64, digit [4]uint64) (map[int]int64, bool) {
	vi := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "inuse_space" })
	if vi < 0 {
		return nil, false
	}
	held := map[int]int64{}
	for _, s := range p.Sample {
		if vi >= len(s.Value) || s.Value[vi] <= 0 {
			continue
		}
		if slot, ok := slotOf(s.Location, inner, digit); ok {
			held[slot] += s.Value[vi]
		}
	}
	return held, true
}

// slotOf finds markSlot's frames in a stack (innermost first) and decodes the slot.
func slotOf(locs []*profile.Location, inner uint64, digit [4]uint64) (int, bool) {
	i := slices.IndexFunc(locs, func(l *profile.Location) bool { return l.Address == inner })
	if i < 0 || i+slotDigits >= len(locs) {
		return 0, false // not a run's, or truncated: the marker frames did not fit
	}
	slot := 0
	// Frames outward from the inner call: the most significant digit first.
	for _, l := range locs[i+1 : i+1+slotDigits] {
		d := slices.Index(digit[:], l.Address)
		if d < 0 {
			return 0, false
		}
		slot = slot<<2 | d
	}
	return slot, true
}

package runtime

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"

	"github.com/runcode-go/runcode/internal/testwait"
)

// TestMarkersDistinct checks that markSlot's call sites leave distinguishable return
// addresses: without them no run could be attributed.
func TestMarkersDistinct(t *testing.T) {
	if !markers().ok {
		t.Fatalf("markSlot's call sites are not distinguishable: %+v", markers())
	}
}

// TestHeldBySlot reads a synthetic profile: samples under a slot's markers count for
// that slot; samples without markers, with a truncated or broken chain, or holding
// nothing count for nobody.
func TestHeldBySlot(t *testing.T) {
	inner := uint64(0x100)
	digit := [4]uint64{0x200, 0x201, 0x202, 0x203}
	locs := map[uint64]*profile.Location{}
	loc := func(addr uint64) *profile.Location {
		if locs[addr] == nil {
			locs[addr] = &profile.Location{ID: uint64(len(locs) + 1), Address: addr}
		}
		return locs[addr]
	}
	sample := func(inuse int64, addrs ...uint64) *profile.Sample {
		s := &profile.Sample{Value: []int64{1, inuse * 2, 1, inuse}}
		for _, a := range addrs {
			s.Location = append(s.Location, loc(a))
		}
		return s
	}
	// Slot 6 is 0b00_00_00_01_10: digits outward from the inner frame, most significant first.
	slot6 := []uint64{0x10, 0x11, inner, 0x200, 0x200, 0x200, 0x201, 0x202, 0x1000}
	slot1023 := []uint64{0x10, inner, 0x203, 0x203, 0x203, 0x203, 0x203}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects"}, {Type: "alloc_space"}, {Type: "inuse_objects"}, {Type: "inuse_space"}},
		Sample: []*profile.Sample{
			sample(1<<30, slot6...),
			sample(64, append([]uint64{0x12}, slot6...)...),
			sample(0, slot1023...),                                // freed: holds nothing
			sample(500, 0x10, 0x11, 0x1000),                       // not a run's
			sample(100, 0x10, inner, 0x200, 0x201),                // truncated chain
			sample(100, inner, 0x200, 0x999, 0x200, 0x200, 0x200), // not a digit
			sample(7, slot1023...),
		},
	}
	got, ok := heldBySlot(p, inner, digit)
	if diff := cmp.Diff(map[int]int64{6: 1<<30 + 64, 1023: 7}, got); !ok || diff != "" {
		t.Errorf("held (-want +got), ok %v:\n%s", ok, diff)
	}
	p.SampleType = p.SampleType[:2]
	if got, ok := heldBySlot(p, inner, digit); ok {
		t.Errorf("a profile without inuse_space: %v, true", got)
	}
}

// TestHeldRun: a run holding about 19 MiB of strings is found holding that much in the
// heap profile as the governor reads it. The profile samples about one allocation in
// five of this size and scales, so the bounds are wide.
func TestHeldRun(t *testing.T) {
	p := newTestPool(t, nil)
	reached, release := make(chan struct{}), make(chan struct{})
	ns, err := NewNamespace("host", []string{"wait"}, func(_ context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		close(reached)
		go func() {
			<-release
			done(json.RawMessage("1"), nil)
		}()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	finished := testwait.Go(func() *Result {
		return runCode(t, p, "const a = []; for (let i = 0; i < 200; i++) a.push('v'.repeat(1e5) + i); await host.wait({}); return a.length",
			&RunOptions{Namespaces: []*Namespace{ns}})
	})
	testwait.Receive(t, reached, "the run's host call")
	goruntime.GC()
	held, ok := gov.held()
	close(release)
	if res := testwait.Receive(t, finished, "the run's end"); res.Failure != nil || string(res.Value) != "200" {
		t.Errorf("run: %s %v", res.Value, res.Failure)
	}
	most := int64(0)
	for _, b := range held {
		most = max(most, b)
	}
	if !ok || most < 10<<20 || most > 40<<20 {
		t.Errorf("held %v (ok %v): want one slot holding about 19 MiB", held, ok)
	}
}

// TestMemoryAttribution runs a memory bomb next to a busy loop, a run that holds a
// moderate amount of memory, a run that churns garbage and quick runs: only the bomb
// fails with memory-limit, the busy loop with its own kind, the rest succeed.
func TestMemoryAttribution(t *testing.T) {
	p := newTestPool(t, &Limits{HeapBytes: 48 << 20, Compute: 30 * time.Second, WallClock: 60 * time.Second})
	tests := []struct {
		name   string
		code   string
		limits *Limits
		kind   Kind // "" for success
		want   string
	}{
		{name: "bomb", code: "const a = []; while (true) a.push('v'.repeat(1e5) + a.length)", kind: KindMemoryLimit},
		{name: "busy loop", code: "while (true) {}", limits: &Limits{Compute: time.Second}, kind: KindTimeout},
		{name: "holds a little", code: "const a = []; for (let i = 0; i < 2e4; i++) a.push({i}); await new Promise(r => setTimeout(r, 1500)); return a.length", want: "20000"},
		{name: "garbage churner", code: "let n = 0; for (let i = 0; i < 100; i++) { const a = new Array(1e4).fill(i); n += a.length } return n", want: "1000000"},
		{name: "quick", code: "return [1, 2, 3].map(x => x * 2).join()", want: "2,4,6"},
		{name: "quick later", code: "await new Promise(r => setTimeout(r, 500)); return 'ok'", want: "ok"},
	}
	var wg sync.WaitGroup
	results := make([]*Result, len(tests))
	for i, tt := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := p.Run(context.Background(), tt.code, &RunOptions{Limits: tt.limits})
			if err != nil {
				t.Errorf("%s: Run: %v", tt.name, err)
				return
			}
			results[i] = res
		}()
	}
	wg.Wait()
	for i, tt := range tests {
		res := results[i]
		if res == nil {
			continue
		}
		switch {
		case tt.kind == "" && res.Failure != nil:
			t.Errorf("%s: failed with %s, want %s", tt.name, res.Text(), tt.want)
		case tt.kind == "":
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("%s: text mismatch (-want +got):\n%s", tt.name, diff)
			}
		case res.Failure == nil || res.Failure.Kind != tt.kind:
			t.Errorf("%s: result %.200s, want kind %s", tt.name, res.Text(), tt.kind)
		}
	}
}

// TestMemoryJudgesLiveHeap runs a program that allocates many times its heap budget in
// garbage while the collector runs rarely: it succeeds, since only what it holds counts.
func TestMemoryJudgesLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	goruntime.GC()
	p := newTestPool(t, &Limits{HeapBytes: 24 << 20, Compute: 30 * time.Second})
	res := runCode(t, p, "let n = 0; for (let i = 0; i < 100; i++) { const s = 'y'.repeat(1 << 19) + i; n += s.length } return n", nil)
	if res.Failure != nil {
		t.Fatalf("run failed: %s", res.Text())
	}
}

// TestMemoryCeiling holds memory in several runs, each within its own budget, past the
// pool's ceiling: the largest holder fails with memory-limit, and once it is gone a run
// waiting at admission starts.
func TestMemoryCeiling(t *testing.T) {
	goruntime.GC()
	_, live := heapSample()
	p, err := NewPool(&PoolOptions{Size: 2, Grace: 100 * time.Millisecond, MemoryCeiling: live + 120<<20,
		Limits: &Limits{HeapBytes: 1 << 30, Compute: 60 * time.Second, WallClock: 120 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hog := "const a = []; for (let i = 0; i < 1.5e6; i++) a.push({i}); await new Promise(r => setTimeout(r, 20000)); return a.length"
	res, err := p.Run(ctx, hog, nil)
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "the process's memory ceiling of "
	if res.Failure == nil || res.Failure.Kind != KindMemoryLimit || !strings.HasPrefix(res.Failure.Message, prefix) ||
		!strings.Contains(res.Failure.Message, "this run held the most") {
		t.Errorf("a run holding more than the ceiling: %.200s, want memory-limit: %s… this run held the most", res.Text(), prefix)
	}
	if got := runCode(t, p, "return 'next'", nil).Text(); got != "next" {
		t.Errorf("the next run = %q", got)
	}
}

// TestGovernorAdmit pins admission: while the process is over its ceiling, admit waits
// until it is below again or the caller's context ends.
func TestGovernorAdmit(t *testing.T) {
	g := &governor{runs: map[int]*run{}, pools: map[*Pool]int64{}}
	if err := g.admit(context.Background()); err != nil {
		t.Fatalf("admit under the ceiling: %v", err)
	}
	g.mu.Lock()
	g.setOverLocked(true)
	g.mu.Unlock()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(context.DeadlineExceeded)
	if err := g.admit(ctx); err != context.DeadlineExceeded {
		t.Errorf("admit over the ceiling with a done context = %v, want its cause", err)
	}
	admitted := make(chan error)
	go func() { admitted <- g.admit(context.Background()) }()
	g.mu.Lock()
	g.setOverLocked(false)
	g.mu.Unlock()
	if err := <-admitted; err != nil {
		t.Errorf("admit after the heap went below the ceiling: %v", err)
	}
}

// TestGovernorOutlivesABubble: runs inside a synctest bubble (an embedder testing its own
// code with fake time) leave the heap governor working for the runs after the bubble: a
// timer made in a bubble stops for good when the bubble ends, so no sampler may outlive
// the run that made it.
func TestGovernorOutlivesABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newTestPool(t, nil)
		if got := runCode(t, p, "return 1", nil).Text(); got != "1" {
			t.Errorf("a run in the bubble = %q, want 1", got)
		}
	})
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20, Compute: 30 * time.Second, WallClock: time.Minute})
	res := runCode(t, p, "const a = []; const s = 'x'.repeat(100000); while (true) a.push(s + a.length)", nil)
	checkFailure(t, res, KindMemoryLimit, "heap limit of 32 MiB exceeded")
}

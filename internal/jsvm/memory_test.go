package jsvm

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"testing"

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
	h := newTestHost(t, 2)
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
	finished := testwait.Go(func() *Outcome {
		return runJob(t, h, "const a = []; for (let i = 0; i < 200; i++) a.push('v'.repeat(1e5) + i); await host.wait({}); return a.length",
			&Job{Namespaces: []*Namespace{ns}})
	})
	testwait.Receive(t, reached, "the run's host call")
	goruntime.GC()
	held, ok := gov.held()
	close(release)
	if out := testwait.Receive(t, finished, "the run's end"); out.Failure != nil || string(out.Value) != "200" {
		t.Errorf("run: %s %v", out.Value, out.Failure)
	}
	most := int64(0)
	for _, b := range held {
		most = max(most, b)
	}
	if !ok || most < 10<<20 || most > 40<<20 {
		t.Errorf("held %v (ok %v): want one slot holding about 19 MiB", held, ok)
	}
}

// TestGovernorAdmit pins admission: while the process is over its ceiling, admit waits
// until it is below again or the caller's context ends.
func TestGovernorAdmit(t *testing.T) {
	g := &governor{runs: map[int]*VM{}, pools: map[*Host]int64{}}
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

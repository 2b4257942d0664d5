package runtime

import (
	"context"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := int64(s[0].Value.Uint64())
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

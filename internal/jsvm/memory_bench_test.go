package jsvm

import (
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"
)

// ageProfile runs n programs whose allocations come from distinct JavaScript call
// depths, so that the process's heap profile holds many records, as a server's does
// after a long life of varied programs (the profile keeps every stack it has sampled).
func ageProfile(b *testing.B, n int) {
	b.Helper()
	h := newTestHost(b, 16)
	for i := range n {
		code := fmt.Sprintf(`function f%[1]d(n) { if (n == 0) { const o = []; for (let k = 0; k < 50; k++) o.push({k, s: 'x' + k, a: [k, k]}); return o } return f%[1]d(n - 1) }
const r = []; for (let d = 0; d < %[2]d; d++) r.push(f%[1]d(d))
return r.map(x => JSON.stringify(x).length).reduce((a, b) => a + b, 0)`, i, 5+i%40)
		if out := runJob(b, h, code, nil); out.Failure != nil {
			b.Fatalf("aging run %d: %v", i, out.Failure)
		}
	}
}

// BenchmarkHeld times one read of what each run holds (the heap profile, attributed to
// slots), in a fresh process and after 1,500 varied programs. Run it alone: the second
// sub-benchmark ages the process for good.
func BenchmarkHeld(b *testing.B) {
	for _, aged := range []int{0, 1500} {
		b.Run(fmt.Sprintf("after %d programs", aged), func(b *testing.B) {
			ageProfile(b, aged)
			for b.Loop() {
				if _, ok := gov.held(); !ok {
					b.Fatal("no profile")
				}
			}
		})
	}
}

// BenchmarkMemoryBomb runs a program that grows an array of 100 KB strings without
// end under a 32 MiB heap budget, after the process has run 1,500 varied programs, and
// reports how far the process's heap rose above where it started (peak-MiB, garbage
// included) and how long the run took to fail (ms-to-fail): what the budget lets a bomb
// get away with.
func BenchmarkMemoryBomb(b *testing.B) {
	ageProfile(b, 1500)
	h := newTestHost(b, 16)
	limits := Limits{HeapBytes: 32 << 20, Compute: 20 * time.Second, WallClock: 30 * time.Second}
	var took time.Duration
	var peakBytes int64
	for b.Loop() {
		goruntime.GC()
		base, _ := heapSample()
		var top atomic.Int64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				o, _ := heapSample()
				if o-base > top.Load() {
					top.Store(o - base)
				}
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
		}()
		start := time.Now()
		out := runJob(b, h, "const a = []; while (true) a.push('v'.repeat(1e5) + a.length)", &Job{Limits: limits})
		took += time.Since(start)
		close(stop)
		<-sampled
		if out.Failure == nil || out.Failure.Kind != KindMemoryLimit {
			b.Fatalf("bomb: %+v", out.Failure)
		}
		peakBytes += top.Load()
	}
	b.ReportMetric(float64(peakBytes)/float64(b.N)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms-to-fail")
}

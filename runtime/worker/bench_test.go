package worker

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/runtime"
)

// runner is what both pools implement.
type runner interface {
	Run(context.Context, string, *runtime.RunOptions) (*runtime.Result, error)
}

// benchPools runs f on each pool as it is configured in use: in process with every CPU, the
// worker pool with the host sharing the CPUs with its worker (ShareCPUs, as the CLI does).
func benchPools(b *testing.B, f func(b *testing.B, p runner)) {
	b.Run("in-process", func(b *testing.B) {
		p, err := runtime.NewPool(&runtime.PoolOptions{Size: 4})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		f(b, p)
	})
	b.Run("process", func(b *testing.B) {
		defer ShareCPUs(1)()
		p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		f(b, p)
	})
}

// BenchmarkRun is the cost of one trivial run with a warm VM (in process) or a warm worker.
func BenchmarkRun(b *testing.B) {
	benchPools(b, func(b *testing.B, p runner) {
		for b.Loop() {
			res, err := p.Run(context.Background(), "return 1", nil)
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Text())
			}
		}
	})
}

// BenchmarkSubCall is the cost of one sub-call: a run of 100 sequential echo calls, reported
// per call.
//
// In a worker, a sequential sub-call crosses the pipes twice (see BenchmarkPipeRoundTrip
// for that floor) and makes two goroutine hand-offs on the host (the reader, which
// validates the frame and starts the call; the goroutine that waits for it and writes the
// result) and three on the worker's one P (reader, the call's wait goroutine, the VM), plus
// the runtime's own promise machinery, as in process. Measured side by side on the 2-CPU
// VM (medians of 5 alternating 1 s runs): 138 -> 92 µs per call (in process 15-16 µs),
// with the hand-written hot frames, the host dispatching in its reader, one P per worker,
// and raw pipe I/O on the host; then 106 -> 55 µs (medians of 5) with both ends polling
// the pipe for a while before they wait in the poller (spinReader, spin_linux.go); then,
// with the host leaving the worker a CPU (ShareCPUs), the extra over in process went from
// 27-44 µs (median 40) to 18-26 µs (median 25), 6 runs of each alternated, and was 14-22
// µs (median 19) in 10 more. Half a sub-call's cycle is then as fast as in process (a
// median of 16-17 µs, timestamps at each step); the mean is in the tail: cycles that a
// pause of the VM's vCPU hits (a C busy loop pinned to one CPU of the 2-CPU VM loses 5-6%
// of it in about 1,250 gaps a second of 20-100 µs), and the two ends landing on one CPU
// (see spinReader).
func BenchmarkSubCall(b *testing.B) {
	benchPools(b, func(b *testing.B, p runner) {
		var f fakeTools
		opts := &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(b)}}
		const calls = 100
		code := fmt.Sprintf("let n = 0; for (let i = 0; i < %d; i++) n += (await tools.echo({i})).i; return n", calls)
		for b.Loop() {
			res, err := p.Run(context.Background(), code, opts)
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Text())
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
	})
}

// BenchmarkSubCallParallel is the cost of one sub-call when 100 are in flight at once
// (Promise.all): the throughput cost rather than the round-trip latency.
func BenchmarkSubCallParallel(b *testing.B) {
	benchPools(b, func(b *testing.B, p runner) {
		var f fakeTools
		opts := &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(b)}}
		const calls = 100
		code := fmt.Sprintf("const r = await Promise.all(Array.from({length: %d}, (_, i) => tools.echo({i}))); return r.length", calls)
		for b.Loop() {
			res, err := p.Run(context.Background(), code, opts)
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Text())
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
	})
}

// BenchmarkIdleWorker reports the memory of one idle, warm worker process: its resident
// set, and the part of it that is its own (private pages), which is what one more worker
// costs. The rest is the executable's pages, shared with the host and every other worker.
func BenchmarkIdleWorker(b *testing.B) {
	var rss, private int64
	for b.Loop() {
		p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 1})
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // let it settle
		p.mu.Lock()
		for w := range p.live {
			m := memOf(w.cmd.Process.Pid)
			rss += m["Rss:"]
			private += m["Private_Clean:"] + m["Private_Dirty:"]
		}
		p.mu.Unlock()
		p.Close()
	}
	b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "MiB-RSS/worker")
	b.ReportMetric(float64(private)/float64(b.N)/(1<<20), "MiB-private/worker")
}

// memOf reads the process's /proc/PID/smaps_rollup: bytes by field name ("Rss:" and so on).
func memOf(pid int) map[string]int64 {
	m := map[string]int64{}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "kB" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			m[f[0]] = kb << 10
		}
	}
	return m
}

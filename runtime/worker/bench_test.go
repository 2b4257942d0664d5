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
// the runtime's own promise machinery, as in process. What each mechanism of the package
// took off it: BENCHMARKS.md, "runtime/worker design notes".
func BenchmarkSubCall(b *testing.B) {
	benchSubCalls(b, "let n = 0; for (let i = 0; i < %d; i++) n += (await tools.echo({i})).i; return n")
}

// BenchmarkSubCallParallel is the cost of one sub-call when 100 are in flight at once
// (Promise.all): the throughput cost rather than the round-trip latency.
func BenchmarkSubCallParallel(b *testing.B) {
	benchSubCalls(b, "const r = await Promise.all(Array.from({length: %d}, (_, i) => tools.echo({i}))); return r.length")
}

// benchSubCalls runs the program that format makes for 100 sub-calls of tools.echo on
// each pool, and reports the cost of one sub-call.
func benchSubCalls(b *testing.B, format string) {
	benchPools(b, func(b *testing.B, p runner) {
		var f fakeTools
		opts := &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(b)}}
		const calls = 100
		code := fmt.Sprintf(format, calls)
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

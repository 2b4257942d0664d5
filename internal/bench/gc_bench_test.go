package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"

	"github.com/runcode-go/runcode/internal/procstat"
	"github.com/runcode-go/runcode/internal/testproc"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/runtime/worker"
)

// workerArg starts this test binary in the worker role (see TestMain).
const workerArg = "__worker"

// gcHeapBudget is a run's default heap budget, which sizes the collector's memory limit in
// both modes: a worker's, and the one runcode bench --gc-percent sets in process.
const gcHeapBudget = 512 << 20

// BenchmarkGCPercent runs scenarios S5 (pure compute: sorting, a JSON round trip, and
// string building that makes garbage fast) and S4 (a 1.1 MB tool result, filtered) from
// bench/scenarios at GOGC 100, 200, 400 and 800, in process and in a worker process, as
// runcode bench --gc-percent N configures each: in process GOGC and a memory limit of the
// heap budget over what the process maps, in a worker worker.Options.GCPercent (the worker
// sets its own limit). ns/op is one run (create, exec, dispose); peak-RSS-MB is the peak
// resident set of the process the programs ran in: this one (reset before the runs), or
// the worker (started for the sub-benchmark). S5 takes seconds a run:
//
//	go test -run '^$' -bench GCPercent -benchtime 3x -count 3 ./internal/bench/
func BenchmarkGCPercent(b *testing.B) {
	var scs []*scenario
	for _, file := range []string{"s5-cpu.json", "s4-data.json"} {
		sc, err := readScenario(filepath.Join("..", "..", defaultScenarios, file))
		if err != nil {
			b.Fatal(err)
		}
		scs = append(scs, sc)
	}
	for _, isolation := range []string{benchInProcess, benchProcess} {
		for _, sc := range scs {
			for _, percent := range []int{100, 200, 400, 800} {
				b.Run(isolation+"/"+sc.ID+"/"+strconv.Itoa(percent), func(b *testing.B) {
					f := &Options{Isolation: isolation, MaxParallel: 1000, GCPercent: percent}
					var peak func() float64
					if isolation == benchProcess {
						defer worker.ShareCPUs(1)() // as the CLI runs its workers
						f.NewWorkers = func() (ptc.Runner, func() error, error) {
							p, err := worker.New(&worker.Options{Command: []string{os.Args[0], workerArg}, Size: 1, GCPercent: percent})
							if err != nil {
								return nil, nil, err
							}
							return p, p.Close, nil
						}
						peak = childrenPeakRSSMB
					} else {
						resetMemory()
						defer debug.SetGCPercent(debug.SetGCPercent(percent))
						defer debug.SetMemoryLimit(debug.SetMemoryLimit(mappedBytes() + gcHeapBudget))
						peak = peakRSSMB
					}
					env, err := newBenchEnv(context.Background(), sc, f)
					if err != nil {
						b.Fatal(err)
					}
					defer env.close()
					benchRuns(b, sc, env)
					b.ReportMetric(peak(), "peak-RSS-MB")
				})
			}
		}
	}
}

// mappedBytes is the memory the Go runtime has mapped for this process, as its memory
// limit counts it.
func mappedBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// childrenPeakRSSMB is the largest peak resident set (VmHWM) of this process's live child
// processes (its workers), or 0 without /proc.
func childrenPeakRSSMB() float64 {
	children, _ := testproc.Children(0)
	var kb int64
	for _, c := range children {
		if n, ok := procstat.Status(c.PID, "VmHWM"); ok {
			kb = max(kb, n)
		}
	}
	return round3(float64(kb) * 1024 / mb)
}

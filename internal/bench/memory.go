package bench

import (
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/debug"
)

// memoryReport is the report line of a memory scenario.
type memoryReport struct {
	lineHead
	SetupMs          float64        `json:"setupMs"`
	Sandboxes        int            `json:"sandboxes"`
	Before           memSnapshot    `json:"before"`
	After            memSnapshot    `json:"after"`
	RSSPerSandboxMB  float64        `json:"rssPerSandboxMB"`
	HeapPerSandboxMB float64        `json:"heapPerSandboxMB"`
	HostCalls        int64          `json:"hostCalls"`
	PeakRSSMB        float64        `json:"peakRssMB"`
	Extra            map[string]any `json:"extra"`
}

// benchMemory holds sc.Sandboxes sandboxes, each after one run of the program, and reports
// what they cost: set up, create and discard one sandbox (warm-up), GC and read RSS,
// create and run the sandboxes and keep them, GC and read RSS again.
func benchMemory(ctx context.Context, sc *scenario, f *Options) any {
	if f.Isolation == benchProcess {
		extra := benchExtra(f)
		return &skippedMemory{lineHead: passed(sc), Skipped: true,
			Reason: "--isolation process runs each program in a worker process that holds its own warm VM pool; runcode gives no idle sandbox in a worker to hold, so there is nothing to count per sandbox", Extra: extra}
	}
	env, err := newBenchEnv(ctx, sc, f)
	if err != nil {
		return fail(sc, err)
	}
	defer env.close()

	run := func(n int) (func(), error) {
		call := env.call(n)
		dispose, err := env.create()
		if err != nil {
			return nil, err
		}
		value, logs, err := env.exec(ctx, call)
		if err != nil {
			return nil, err
		}
		if n == 1 || n == 2 { // the warm-up run and the first measured one
			if err := sc.check(value, logs); err != nil {
				return nil, fmt.Errorf("run %d: %v", n, err)
			}
		}
		return dispose, nil
	}
	dispose, err := run(1)
	if err != nil {
		return fail(sc, err)
	}
	dispose()
	dispose = nil

	// FreeOSMemory collects and returns freed pages to the OS, so RSS reflects live memory.
	debug.FreeOSMemory()
	before := readMem()
	held := make([]func(), sc.Sandboxes) // each holds its sandbox until called
	for i := range held {
		if held[i], err = run(i + 2); err != nil {
			return fail(sc, err)
		}
	}
	debug.FreeOSMemory()
	after := readMem()
	goruntime.KeepAlive(held)
	for _, dispose := range held {
		dispose()
	}
	n := float64(sc.Sandboxes)
	extra := benchExtra(f)
	extra["memory"] = "each sandbox is a goja VM after its one run (runcode never reuses a VM), kept alive; RSS after debug.FreeOSMemory (GC plus returning freed pages to the OS); heapPerSandboxMB from the Go heap (HeapAlloc)"
	return &memoryReport{
		lineHead: passed(sc), SetupMs: round3(ms(env.setup)), Sandboxes: sc.Sandboxes, Before: before, After: after,
		RSSPerSandboxMB:  round4((after.RSSMB - before.RSSMB) / n),
		HeapPerSandboxMB: round4((after.HeapUsedMB - before.HeapUsedMB) / n),
		HostCalls:        env.tools.calls.Load(), PeakRSSMB: peakRSSMB(), Extra: extra,
	}
}

type skippedMemory struct {
	lineHead
	Skipped bool           `json:"skipped"`
	Reason  string         `json:"reason"`
	Extra   map[string]any `json:"extra"`
}

func round4(v float64) float64 { return float64(int64(v*10000+0.5*sign(v))) / 10000 }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

package worker

import (
	goruntime "runtime"
	"sync"
)

// ShareCPUs leaves a CPU to each of the size workers of a Pool: the calling process (the
// host) runs on the CPUs left over, at least one, until every release is called. It does
// not look at the environment: a command that leaves a GOMAXPROCS the user set alone does
// not call it (runcode does not).
//
// Why: a worker runs its program on one P (see Serve), and a sequential sub-call
// alternates between the worker and the host. A host with a P for every CPU wakes an idle
// thread for each goroutine a sub-call starts (the scheduler's lane, the result's writer;
// Go's wakep), which spins looking for work and sleeps again; on a machine with no CPU to
// spare it takes the worker's, and the two processes' polling for each other's frames then
// runs out more often (spin_linux.go). On the 2-CPU VM, bench scenario S2
// (ten sequential sub-calls through the whole pipeline) in process isolation, GOMAXPROCS
// 1 against 2 run alternately: medians 0.71-0.86 against 1.18-1.42 ms a run in one quiet
// stretch, 1.21-1.35 against 1.71-1.92 in a busy one; futex calls of both processes per
// 11,000 sub-calls 3,300 against 18,000 (perf stat). S1, S3 (100 parallel sub-calls) and S4
// stayed within their noise. In process there is no such trade: the program runs on the
// host's Ps (S2 in process, GOMAXPROCS 1: 0.33-0.46 ms; 2: 0.30-0.34 ms).
//
// Setting GOMAXPROCS stops the Go runtime from following changes of the CPU quota, and the
// release puts back the number it found, not the runtime's default: a command's pool lives
// as long as its process.
func ShareCPUs(size int) (release func()) {
	cpuShare.Lock()
	defer cpuShare.Unlock()
	if cpuShare.users == 0 {
		cpuShare.saved = goruntime.GOMAXPROCS(0)
		goruntime.GOMAXPROCS(max(1, cpuShare.saved-size))
	}
	cpuShare.users++
	var once sync.Once
	return func() {
		once.Do(func() {
			cpuShare.Lock()
			defer cpuShare.Unlock()
			if cpuShare.users--; cpuShare.users == 0 {
				goruntime.GOMAXPROCS(cpuShare.saved)
			}
		})
	}
}

// cpuShare counts the pools sharing the CPUs, and keeps the GOMAXPROCS to restore after
// the last.
var cpuShare struct {
	sync.Mutex
	users int
	saved int
}

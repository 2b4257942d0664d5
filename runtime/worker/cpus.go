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
// thread for each goroutine a sub-call starts, and on a machine with no CPU to spare that
// thread takes the worker's. In process there is no such trade: the program runs on the
// host's Ps.
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

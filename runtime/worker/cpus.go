package worker

import (
	goruntime "runtime"
	"sync"
)

// ShareCPUs leaves a CPU to each of the size workers of a Pool: the calling process (the
// host) runs on the CPUs left over, at least one, until every release is called. It does
// not look at the environment; a command that honours a GOMAXPROCS the user set does not
// call it then.
//
// Why: a host with a P for every CPU wakes an idle thread for each goroutine a sub-call
// starts, and with no CPU to spare that thread takes the worker's. Setting GOMAXPROCS stops
// Go from following changes of the CPU quota; release puts back the number it found.
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

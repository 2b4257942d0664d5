package worker

import (
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"

	"github.com/runcode-go/runcode/internal/procstat"
)

// applyLimits sets the worker's own hard limits, once it is warm, for runs whose heap budget
// is at most heap, and returns what it measured and set.
//
// The memory limit is RLIMIT_AS, relative to what the warm worker has mapped (a Go process
// reserves address space up front, a race-enabled one terabytes), plus heapAllowance(heap).
// Past it Go's mmap fails and the worker dies with "fatal error: out of memory", reported
// as memory-limit. It covers everything the process maps, not kernel memory or the host's.
// The hard limit cannot be raised again: a larger budget needs a worker of its own
// (Pool.Run); a smaller one gets a lower soft limit (memLimits.forRun).
//
// debug.SetMemoryLimit keeps the collector under the same budget first; RLIMIT_CORE 0
// forbids core files, RLIMIT_FSIZE 0 growing files, RLIMIT_NOFILE more than a few descriptors.
func applyLimits(heap int64) *memLimits {
	l := &memLimits{vm: vmBytes(), heap: heap, runHeap: heap, gcBase: heapInUse()}
	_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	_ = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{})
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64})
	debug.SetMemoryLimit(l.gcBase + heap)
	if l.vm > 0 {
		l.as = l.vm + heapAllowance(heap)
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: uint64(l.as), Max: uint64(l.as)}); err != nil {
			l.as = 0
		}
	}
	return l
}

// forRun fits the soft address-space limit and the collector's limit to the next run's heap
// budget. A smaller budget gets the worker's current size (at least its warm size) plus
// heapAllowance(heap), never above the hard limit: relative to the current size, because
// Go keeps the address space earlier runs reserved, and a lower limit would fail the run's
// first allocation rather than its excess. The worker's own budget gets the hard limit.
func (l *memLimits) forRun(heap int64) {
	if heap <= 0 {
		heap = l.heap
	}
	if heap == l.runHeap {
		return
	}
	l.runHeap = heap
	debug.SetMemoryLimit(l.gcBase + heap)
	if l.as == 0 {
		return
	}
	soft := l.as
	if heap < l.heap {
		soft = min(max(vmBytes(), l.vm)+heapAllowance(heap), l.as)
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: uint64(soft), Max: uint64(l.as)})
}

// heapAllowance is the address space a worker may map beyond its warm size: twice the heap
// budget (the collector lags behind), plus room for the runtime's own arenas and stacks.
func heapAllowance(heap int64) int64 { return 2*heap + 256<<20 }

// vmBytes is this process's VmSize (0 if it cannot be read).
func vmBytes() int64 {
	kb, _ := procstat.Status(0, "VmSize")
	return kb << 10
}

// waitExit blocks until process pid has exited, without reaping it (waitid with WNOWAIT):
// while it is a zombie its process group cannot be reused, so the group can still be killed.
func waitExit(pid int) {
	const pPID, wExited, wNoWait = 1, 4, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}

// cpuTime returns the CPU time process pid has used (all its threads), or -1 if it cannot
// be read: one clock_gettime(2) of the process's CPU-time clock (MAKE_PROCESS_CPUCLOCK(pid,
// CPUCLOCK_SCHED)), cheaper and finer than /proc/<pid>/stat.
func cpuTime(pid int) time.Duration {
	if pid <= 0 || pid >= 1<<28 { // 0 would be this process; pids stay under 2^22
		return -1
	}
	clock := int32(^pid)<<3 | 2 // sign-extended below; the kernel takes the low 32 bits
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, uintptr(clock), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return time.Duration(ts.Nano())
}

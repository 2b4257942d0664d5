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
// The hard memory limit is RLIMIT_AS (address space), set relative to what the warm worker
// has already mapped: a Go process reserves address space up front (and a race-enabled one
// maps terabytes of shadow memory), so an absolute limit would either fail at once or mean
// nothing. The headroom is heapAllowance(heap). When a goja built-in then asks for more, the
// Go runtime's mmap fails and it dies with "fatal error: out of memory" (exit status 2),
// which the host reports as memory-limit. RLIMIT_AS covers everything the process maps:
// the Go heap, goroutine and thread stacks, and the runtime's own metadata; it does not
// cover kernel memory (page tables, pipe buffers) or memory in the host.
//
// debug.SetMemoryLimit makes the garbage collector work to stay under the same budget
// before the hard limit is reached. RLIMIT_CORE 0 keeps a crash from writing a core file,
// RLIMIT_FSIZE 0 forbids growing files, and RLIMIT_NOFILE keeps descriptors to a few.
//
// The address-space limit set here is the hard one (and the soft one, until a run asks for
// less): the worker cannot raise it again, so a run with a larger heap budget than heap
// needs a worker started for it (Pool.Run does that); a run with a smaller one gets a lower
// soft limit (memLimits.forRun), which is what the kernel enforces.
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

// forRun fits the soft address-space limit and the collector's memory limit to the heap
// budget of the next run. A run with the worker's own budget (the common case) gets the hard
// limit back, at the cost of a system call only when the run before had less. A smaller
// budget gets a soft limit of the worker's current size (at least its warm size) plus
// heapAllowance(heap), never above the hard limit: relative to the current size because
// the Go runtime keeps the address space earlier runs made it reserve, and a limit below
// that would fail the run's first allocation, not its excess. A larger budget than the
// worker's keeps the hard limit; the host does not send such a run (Pool.Run).
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
// budget (the collector needs room to copy and to lag behind), plus room for the arenas and
// stacks of the runtime itself.
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

// cpuTime returns the CPU time process pid has used (all its threads, living and exited),
// or -1 if it cannot be read. It reads the process's CPU-time clock: clock_gettime(2) with
// the clock id clock_getcpuclockid(3) makes for a process (MAKE_PROCESS_CPUCLOCK(pid,
// CPUCLOCK_SCHED)), one system call, in nanoseconds, where /proc/<pid>/stat would cost an
// open, read, close and parse per sample, at 10 ms resolution.
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

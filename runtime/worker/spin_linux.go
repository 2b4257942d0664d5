package worker

import (
	"io"
	"os"
	goruntime "runtime"
	"syscall"
	"unsafe"
)

// spinReader reads one end of a pipe registered with Go's network poller. While its spin
// allows (a run in flight, shortly after this end wrote), a read that finds the pipe empty
// polls the non-blocking descriptor with read(2), yielding the P between tries
// (runtime.Gosched), before it leaves the wait to next, which waits in the poller.
//
// Why: a sequential sub-call is a ping-pong between two processes, and most of a pipe round
// trip on a shared VM is waking the reader: a thread parked in epoll_wait whose vCPU went
// idle halts in the hypervisor, and the write that wakes it costs a wake-up, an IPI and a
// vCPU resume (BenchmarkPipeRoundTrip). A reader still polling when the frame lands sees it
// at its next try (a try is one read(2), about 1.3 µs on the 2-CPU VM).
//
// Bounds: it never spins while no run is in flight; one wait spins at most spinWindow past
// the later of its start and this end's last write, and never more than spinMax; it yields
// between tries, so the goroutines it waits for (the VM, a call's) run on the same P
// meanwhile: on the worker's one P that is how the VM makes the next call while the reader
// polls for its answer, and timers and the garbage collector still get the P.
//
// Back-off: when a spin runs out, the next waits do not spin (2, 4, ... up to spinBackoff of
// them, doubling with each spin in a row that runs out; one that gets its frame resets it).
// A spin that runs out most often means the two ends share one CPU: a pipe write wakes its
// reader on the writer's CPU when the other CPU is busy (another of their threads, anyone's),
// and a writer that goes on spinning there keeps the reader it woke from running until its
// spin ends. Both ends spinning that way cost two whole windows per sub-call
// (BenchmarkSubCall/process 230-240 µs with 100 µs windows, in about one run in four);
// with the back-off such a run costs what it did without spinning (100-115 µs).
//
// The numbers (the 2-CPU VM, alternating binaries of the same commit with and without):
// BenchmarkSubCall/process went from 101-128 µs per sub-call to 50-68 µs (5 runs of 1 s;
// in process 14-21 µs either way), and from 86-90 to 45-47 µs in runs of 150x; a per-run
// histogram put the median at 39-63 µs. The CPU time of both processes (/usr/bin/time)
// went down, from about 111 to 75 µs per sub-call: the spin costs less than the wake-ups
// it replaces (futex, epoll and nanosleep system calls; most of the old CPU time was the
// kernel's). With a tool that takes 1 ms the back-off keeps the cost in the noise (0.66-0.70
// s -> 0.67-0.73 s of CPU for 2,000 sub-calls, same latency); two or four sequential
// programs at once on as many workers: 63-70 -> 50-53 µs and 60-68 -> 54-61 µs per
// sub-call. BenchmarkSubCallParallel, BenchmarkRun and bench scenario S3 in process mode
// stayed within their noise; S2 (ten sequential calls through the whole pipeline, whose
// host takes longer per call, so that more spins run out) came out no faster, its median
// of 15 alternating runs 1.97 -> 2.10 ms a run (each 1.66-3.28 and 1.89-2.61 ms).
//
// Under load it gains nothing and loses little: with one CPU taken by a busy process,
// BenchmarkSubCall/process was 85-120 µs before and 93-119 after, S2 1.6-2.7 and 1.9-2.6
// ms a run; with both taken, 168-238 and 162-191 µs, S2 3.7-5.8 and 3.9-6.9 ms. The back-off
// is what keeps it so: spins that run out stop being tried.
//
// Why the two ends share a CPU so often: a pipe write wakes its reader with a sync wake-up
// (the kernel assumes the writer is about to sleep), and a sync wake-up from a CPU running
// only the writer puts the reader on the writer's CPU, unless the reader's previous CPU is
// idle and shares a cache with it, which the 2-CPU VM's CPUs (no cache topology shown)
// likely do not count as. So a wait that went to the poller often ends on the other end's
// CPU, behind a writer that now spins: in a perf sched trace of S2, 64% of the host's
// wake-ups of the worker's threads, and 47% the other way, ran on the waker's CPU. Without
// the back-off, bench scenario S2 in process isolation (host at one P) took 2.7-2.9 ms a
// run against 1.2-1.35 ms with it (4 alternated runs each). Tried and dropped (2026-11-30,
// same method, no gain beyond the noise): giving the CPU away (sched_yield(2)) between
// tries once a spin had run 30 µs; spinning with sched_yield(2) instead of waiting in the
// poller while backing off, up to spinMax; raw writes in the worker; the host's reader not
// spinning at all. What did help was the host leaving the worker its CPU (ShareCPUs).
//
// How the bounds were chosen: shorter windows miss more often, and every miss risks the
// shared CPU above: 20-50 µs windows gave medians of 49-129 µs, 70 µs 55-80 µs; 150 µs was
// no better than 100. Spinning on one end only gained nothing (83-102 µs): the end it wakes
// lands behind it. Giving the CPU away between tries or after each write (sched_yield(2))
// made it worse (medians 70-160 µs); so did a longer window on S2, whose host takes longer
// per call (1 ms: 1.9-2.2 -> 3.3-3.8 ms a run).
//
// The tries are raw system calls (RawSyscall), on both ends. In the worker that is safe
// where rawPipe is not (see pollable) because of when they happen: a spin runs only right
// after the reader handled a frame, and its P stays busy from then on (the reader yields to
// the VM and is run again, the P never goes idle), so sysmon, which parks only when every
// P is idle or the world is stopped (and is woken when it starts again), has been awake
// since the ordinary read that followed the last wait in the poller; a frame a try reads
// starts no busy program behind a sleeping sysmon (a program that computes right after a
// sub-call still ends at its own compute budget, 0.33 s with a 300 ms budget, as before).
// Raw tries also keep sysmon from handing the P to another thread when a try's thread is
// descheduled inside its system call: a new thread, if none is idle, adds its stack (and,
// with cgo, a malloc arena) to the address space the worker's hard memory limit counts.
type spinReader struct {
	f    *os.File
	rc   syscall.RawConn
	next io.Reader
	sp   *spin

	// The rest is touched only by the reading goroutine. The back-off: misses is the number
	// of spins in a row that ran out, skip the number of waits left that do not spin. One
	// try: try is r.read1 bound once, and buf, n, errno and got its argument and results,
	// so that a try allocates nothing.
	misses, skip int
	try          func(fd uintptr) bool
	buf          []byte
	n            int
	errno        syscall.Errno
	got          bool
}

// newSpinReader returns a spinReader for f, falling back to next, or next itself if f is not
// in the poller (a blocking descriptor, whose read(2) would block rather than poll).
func newSpinReader(f *os.File, next io.Reader, sp *spin) io.Reader {
	rc, ok := pollerConn(f)
	if !ok {
		return next
	}
	r := &spinReader{f: f, rc: rc, next: next, sp: sp}
	r.try = r.read1
	return r
}

func (r *spinReader) Read(b []byte) (int, error) {
	if len(b) == 0 || !r.sp.on.Load() {
		return r.next.Read(b)
	}
	if r.skip > 0 {
		r.skip--
		return r.next.Read(b)
	}
	start := spinClock()
	r.buf = b
	defer func() { r.buf = nil }()
	for {
		// One try per RawConn.Read, whose function never asks to wait: the descriptor stays
		// referenced only for the one read(2), so a Close does not wait for a spin.
		r.got = false
		err := r.rc.Read(r.try)
		switch {
		case err != nil:
			return 0, err
		case !r.got:
		case r.errno != 0:
			return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: r.errno}
		case r.n == 0:
			return 0, io.EOF
		default:
			r.misses = 0
			return r.n, nil
		}
		if !r.sp.on.Load() {
			return r.next.Read(b)
		}
		if spinClock() >= r.sp.deadline(start) {
			r.misses = min(r.misses+1, 16)
			r.skip = min(1<<r.misses, spinBackoff)
			return r.next.Read(b)
		}
		goruntime.Gosched()
	}
}

// read1 is one try: one read(2) into buf that never waits.
func (r *spinReader) read1(fd uintptr) bool {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.buf[0])), uintptr(len(r.buf)))
	if e != syscall.EAGAIN && e != syscall.EINTR {
		r.n, r.errno, r.got = int(n), e, true
	}
	return true
}

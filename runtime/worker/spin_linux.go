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
// trip is waking a reader parked in epoll_wait (BenchmarkPipeRoundTrip); a reader still
// polling sees the frame at its next try. Figures: BENCHMARKS.md, "runtime/worker design notes".
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
// reader with a sync wake-up, often on the writer's CPU, and a writer that goes on spinning
// there keeps the reader it woke from running until its spin ends.
//
// The tries are raw system calls (RawSyscall), on both ends. In the worker that is safe
// where raw reads in general are not (see pollable): a spin runs only right after the
// reader handled a frame, and its P stays busy from then on, so sysmon (which parks only
// when every P is idle) has been awake since the ordinary read that followed the last wait
// in the poller, and still preempts a program that computes right after a sub-call. Raw tries also keep
// sysmon from handing the P to another thread when a try's thread is descheduled inside its
// system call: a new thread adds its stack to the address space the worker's hard memory
// limit counts.
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

// pollerConn returns f's RawConn if f is a non-blocking descriptor in Go's poller, where a
// raw read(2) or write(2) returns EAGAIN instead of holding its thread.
func pollerConn(f *os.File) (syscall.RawConn, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) {
		fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblock = e == 0 && fl&syscall.O_NONBLOCK != 0
	}); err != nil || !nonblock {
		return nil, false
	}
	return rc, true
}

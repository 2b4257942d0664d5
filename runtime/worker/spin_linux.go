package worker

import (
	"io"
	"os"
	goruntime "runtime"
	"syscall"
	"unsafe"
)

// spinReader reads one end of a pipe registered with Go's poller. While its spin allows, a
// read that finds the pipe empty polls the non-blocking descriptor with read(2), yielding
// the P between tries, before it leaves the wait to next (the poller). Most of a sub-call's
// pipe round trip is waking a reader parked in epoll_wait; a polling reader skips that
// (BENCHMARKS.md, "runtime/worker design notes"). Yielding lets the VM and timers run on
// the worker's one P meanwhile.
//
// Back-off: after a spin runs out, the next 2, 4, ... up to spinBackoff waits do not spin;
// a spin that gets its frame resets it. Running out most often means both ends share a
// CPU, where a spinning writer keeps the reader it woke (on its own CPU) from running.
//
// The tries are raw system calls. That is safe in the worker, unlike raw reads in general
// (see pollable): a spin follows an ordinary read and its P stays busy, so sysmon is awake
// to preempt a busy program. Raw tries also keep sysmon from handing the P to a new thread,
// whose stack would count against the worker's hard memory limit.
type spinReader struct {
	f    *os.File
	rc   syscall.RawConn
	next io.Reader
	sp   *spin

	// The rest is the reading goroutine's: the back-off (misses, spins in a row that ran
	// out; skip, waits left that do not spin), and one try's function, argument and
	// results, bound once so that a try allocates nothing.
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
		// One try per RawConn.Read, so that a Close does not wait for a spin.
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

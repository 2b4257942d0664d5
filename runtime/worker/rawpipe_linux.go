package worker

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// rawPipe reads and writes one end of a pipe registered with Go's network poller, issuing
// read(2) and write(2) as raw system calls: the descriptor is non-blocking, so they never
// block (EAGAIN waits in the poller, through the RawConn). Why: a process whose every P went
// idle (the host between a call frame and the next, in a sequential run) has its sysmon
// thread parked, and the runtime's bookkeeping around the next ordinary system call wakes
// it, a futex wake on the round trip's critical path. Figures: BENCHMARKS.md,
// "runtime/worker design notes".
//
// The host uses it; the worker does not (see pollable): with one P, its sysmon is what
// preempts a busy VM goroutine so that the compute watchdog's timer can fire, and only
// ordinary system calls wake it. In the host, sysmon sleeps at most until the next timer
// (the run's CPU sampling tick, every 100 ms) or the next ordinary system call anywhere in
// the process, and with more than one P idle Ps run timers without it.
type rawPipe struct {
	f  *os.File
	rc syscall.RawConn
}

// newRawPipe returns a rawPipe for f, or nil if f is not in the poller (a blocking
// descriptor, where a raw read would hold its thread and P without the runtime knowing).
func newRawPipe(f *os.File) *rawPipe {
	rc, ok := pollerConn(f)
	if !ok {
		return nil
	}
	return &rawPipe{f: f, rc: rc}
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

func (p *rawPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller, then again
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (p *rawPipe) Write(b []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := p.rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n))
			switch e {
			case 0:
				n += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the pipe is full: wait in the poller, then go on
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: p.f.Name(), Err: errno}
	}
	return n, nil
}

// rawOrFile returns a rawPipe for f if it can, else f.
func rawOrFile(f *os.File) io.ReadWriter {
	if p := newRawPipe(f); p != nil {
		return p
	}
	return f
}

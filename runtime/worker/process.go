package worker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/runcode-go/runcode/runtime"
)

// proc is one worker process.
type proc struct {
	p       *Pool
	cmd     *exec.Cmd
	in, out *os.File   // the host's ends of stdin and stdout
	wmu     sync.Mutex // held while writing a frame: one frame is one write
	fw      frameWriter
	rmu     sync.Mutex    // held while a frame of the bound run is handled
	run     *hostRun      // the run the reader hands frames to; guarded by rmu
	spoke   bool          // it sent a frame while no run was bound, and was killed; guarded by rmu
	hello   chan *message // the worker's first frame, which must be ready
	readErr chan error    // the reader's last error
	exited  chan struct{}
	stderr  *headBuffer
	sp      spin          // on while a run is bound; see spinReader
	gone    chan struct{} // closed when the host is done with the worker
	retired sync.Once
	runs    uint64   // runs sent so far; only the run holding the worker touches it, and sent
	sent    *message // the limits and ns of the last run frame that carried them (message.Same)

	mu       sync.Mutex
	why      *runtime.Failure // why the host killed it, if it did
	killedCh chan struct{}    // closed when the host kills it with a reason
}

// spawn starts a worker (no environment but GOMAXPROCS=1, "/" as its directory, a process
// group of its own, no descriptors but the channel and stderr) whose hard memory limit fits
// runs with a heap budget up to heap, and returns once it said ready.
func (p *Pool) spawn(heap int64) (*proc, error) {
	if err := p.enter(&p.spawns); err != nil {
		return nil, err
	}
	defer p.spawns.Done()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	w := &proc{
		p: p, in: inW, out: outR, fw: frameWriter{w: inW, max: p.maxFrame}, hello: make(chan *message), readErr: make(chan error, 1),
		exited: make(chan struct{}), gone: make(chan struct{}), stderr: &headBuffer{max: 8 << 10}, killedCh: make(chan struct{}),
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	// A worker runs on one P (see Serve): started so, the Go runtime never resizes, which
	// in a fresh process costs milliseconds of page faults.
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Dir = "/"
	// stderr is a pipe of our own, not a Writer, so that Wait never waits for it to end: a
	// process the worker left behind (the race runtime's symbolizer) could hold it open.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	newGroup(cmd)
	w.cmd = cmd
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p.spawned.Add(1)
	p.mu.Lock()
	p.live[w] = struct{}{}
	p.bg.Add(3)
	p.mu.Unlock()
	errDone := make(chan struct{})
	go func() {
		defer p.bg.Done()
		defer close(errDone)
		_, _ = io.Copy(w.stderr, errR)
	}()
	go func() {
		defer p.bg.Done()
		pid := cmd.Process.Pid
		// Kill the group before reaping, while its id cannot have been reused.
		waitExit(pid)
		killGroup(pid)
		_ = cmd.Wait()
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-errDone:
		case <-t.C:
			errR.Close() // unblocks the copy
			<-errDone
		}
		t.Stop()
		errR.Close()
		close(w.exited)
	}()
	go func() {
		defer p.bg.Done()
		w.read(newFrameReader(newSpinReader(w.out, w.out, &w.sp), p.maxFrame))
	}()

	fail := func(err error) (*proc, error) {
		p.retire(w)
		return nil, err
	}
	init := p.limits
	init.HeapBytes = heap
	if err := w.send(&message{T: tInit, Limits: &init, Grace: int64(p.grace), MaxFrame: p.maxFrame, GCPercent: p.gcPercent}); err != nil {
		<-w.exited
		return fail(errors.New(w.exitFailure(p.limits).Message))
	}
	t := time.NewTimer(p.startTimeout)
	defer t.Stop()
	select {
	case m := <-w.hello:
		if m.T != tReady {
			return fail(fmt.Errorf("worker broke the protocol: a %q frame instead of ready", m.T))
		}
		if m.GCPercent != p.gcPercent {
			// A worker built from other code than the host's.
			return fail(fmt.Errorf("worker broke the protocol: it runs its collector at GOGC %d, not the %d asked", m.GCPercent, p.gcPercent))
		}
		return w, nil
	case err := <-w.readErr:
		if errors.Is(err, errProtocol) {
			return fail(err)
		}
		<-w.exited
		return fail(errors.New(w.exitFailure(p.limits).Message))
	case <-w.exited:
		return fail(errors.New(w.exitFailure(p.limits).Message))
	case <-t.C:
		return fail(fmt.Errorf("worker not ready after %v", p.startTimeout))
	}
}

// read handles the worker's frames until its stdout ends or a frame is bad: the first on
// the hello channel (spawn checks it is ready), every later one itself (dispatch).
func (w *proc) read(fr *frameReader) {
	m, err := fr.read()
	if err != nil {
		w.readErr <- err
		return
	}
	select {
	case w.hello <- m:
	case <-w.gone:
		return
	}
	for {
		m, err := fr.read()
		if err != nil {
			w.readErr <- err
			return
		}
		w.dispatch(m)
	}
}

func (w *proc) send(m *message) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	defer w.sp.wrote()
	return w.fw.write(m)
}

// sendIf sends a frame of run rs unless rs is over; a failed write means the worker is gone.
func (w *proc) sendIf(rs *hostRun, m *message) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if rs.over {
		return nil
	}
	defer w.sp.wrote()
	return w.fw.write(m)
}

// healthy reports whether an idle worker is still alive and has sent nothing unasked.
func (w *proc) healthy() bool {
	select {
	case <-w.exited:
		return false
	case <-w.readErr:
		return false
	default:
	}
	w.rmu.Lock()
	defer w.rmu.Unlock()
	return !w.spoke
}

// kill kills the worker with SIGKILL, remembering the first reason given.
func (w *proc) kill(why *runtime.Failure) {
	w.mu.Lock()
	first := w.why == nil && why != nil
	if first {
		w.why = why
	}
	w.mu.Unlock()
	_ = w.cmd.Process.Kill()
	if first {
		close(w.killedCh) // the run answers now; the kernel may take a while to tear a large worker down
	}
}

// killed reports whether the host has killed the worker with a reason (see kill).
func (w *proc) killed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.why != nil
}

// retire kills the worker and releases it once it has exited.
func (p *Pool) retire(w *proc) {
	w.retired.Do(func() {
		w.kill(nil)
		close(w.gone)
		p.bg.Add(1)
		go func() {
			defer p.bg.Done()
			<-w.exited
			w.in.Close()
			w.out.Close()
			p.mu.Lock()
			delete(p.live, w)
			p.mu.Unlock()
		}()
	})
}

// exitFailure says why an exited worker ended: the reason the host killed it, the hard
// memory limit (Go's "out of memory" death, reported with the run's HeapBytes), or its
// exit status.
func (w *proc) exitFailure(limits runtime.Limits) *runtime.Failure {
	w.mu.Lock()
	why := w.why
	w.mu.Unlock()
	if why != nil {
		return why
	}
	st := w.cmd.ProcessState
	if st == nil {
		return &runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker exited before completing"}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker killed by signal " + signalName(ws.Signal())}
	}
	code := st.ExitCode()
	if code != 0 && w.stderr.outOfMemory() {
		return &runtime.Failure{Kind: runtime.KindMemoryLimit, Message: fmt.Sprintf("heap limit of %d MiB exceeded", limits.HeapBytes>>20)}
	}
	return &runtime.Failure{Kind: runtime.KindWorkerExit, Message: fmt.Sprintf("worker exited with code %d before completing", code)}
}

// signalNames names the signals a worker may die of; osSignalNames adds Unix's own.
var signalNames = map[syscall.Signal]string{
	syscall.SIGKILL: "SIGKILL",
	syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGABRT: "SIGABRT",
	syscall.SIGTERM: "SIGTERM",
	syscall.SIGBUS:  "SIGBUS",
	syscall.SIGILL:  "SIGILL",
	syscall.SIGPIPE: "SIGPIPE",
}

func signalName(s syscall.Signal) string {
	if name, ok := signalNames[s]; ok {
		return name
	}
	if name, ok := osSignalNames[s]; ok {
		return name
	}
	return fmt.Sprintf("%d (%v)", int(s), s)
}

// headBuffer keeps the first max bytes written to it (a crash's first lines say why).
type headBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *headBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// outOfMemory reports whether the worker died of Go's out-of-memory error: how the hard
// address-space limit shows.
func (b *headBuffer) outOfMemory() bool {
	s := b.String()
	for _, sig := range []string{
		"out of memory",                      // fatal error: out of memory; runtime: out of memory: cannot allocate
		"cannot allocate memory",             // a failed mmap (ENOMEM)
		"too many address space collisions",  // the same failure in a -race build
		"ThreadSanitizer failed to allocate", // the race runtime's own mmap failing (exit 66)
	} {
		if strings.Contains(s, sig) {
			return true
		}
	}
	return false
}

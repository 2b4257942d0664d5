package worker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/runcode-go/runcode/internal/jsprep"
	"github.com/runcode-go/runcode/internal/jsvm"
	"github.com/runcode-go/runcode/runtime"
)

// Serve is the worker role: it reads the host's frames from r and writes its own to w until
// r ends (it then returns nil), the host breaks the protocol, or writing to w fails (it
// returns the error, and the process should exit). After the init frame it builds a warm
// VM, sets its hard limits (limits_linux.go) and answers ready; then it runs one program per
// run frame, forwarding namespace calls to the host.
//
// Serve is meant to be the whole life of a process started by Pool: it changes
// process-wide settings (resource limits, GC limit and percent, GOMAXPROCS). It neither
// exits nor touches descriptors other than r and w.
func Serve(r io.Reader, w io.Writer) error {
	// One P while a run is short: with a second, idle P every hand-off between the
	// worker's goroutines wakes another thread. A run past wideAfter gets every CPU, so it
	// does not share its P with the collector (BENCHMARKS.md, "runtime/worker design notes").
	if goruntime.GOMAXPROCS(0) != 1 { // Pool starts workers with GOMAXPROCS=1
		goruntime.GOMAXPROCS(1)
	}
	s := &server{fw: frameWriter{w: w, max: DefaultMaxFrame}}
	in := pollable(r)
	if f, ok := in.(*os.File); ok {
		in = newSpinReader(f, f, &s.sp)
	}
	fr := newFrameReader(in, DefaultMaxFrame)
	m, err := fr.read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	if m.T != tInit || m.Limits == nil || m.Grace < 0 || m.MaxFrame < 0 || m.GCPercent < 0 {
		return protocolError("the first frame must be a valid init, got %q", m.T)
	}
	if m.MaxFrame > 0 {
		fr.max, s.fw.max = m.MaxFrame, m.MaxFrame
	}
	if s.limits, err = m.Limits.WithDefaults(nil); err != nil {
		return err
	}
	// One warm VM: a worker runs one program at a time.
	if s.host, err = jsvm.NewHost(1, cmp.Or(time.Duration(m.Grace), runtime.DefaultGrace), 0); err != nil {
		return err
	}
	defer s.host.Close()
	// Warm the process before measuring it: the hard limits are relative to its size.
	s.run(context.Background(), &message{Code: "return 1", Limits: &runtime.Limits{}}, nil, nil)
	s.mem = applyLimits(s.limits.HeapBytes)
	// The memory limit bounds the heap, so a long run may collect less often (the wide
	// percent, see widenLater). Short runs keep Go's default or lower: at 400 the smallest
	// heap goal is 16 MB, which a fresh worker would fault in page by page.
	wideGC = cmp.Or(m.GCPercent, DefaultGCPercent)
	narrowGC = min(wideGC, 100)
	debug.SetGCPercent(narrowGC)
	if err := s.send(&message{T: tReady, PID: os.Getpid(), VMBytes: s.mem.vm, ASLimit: s.mem.as, GCPercent: wideGC}); err != nil {
		return err
	}
	defer s.stop()
	for {
		m, err := fr.read()
		if ferr := s.failed(); ferr != nil {
			return ferr
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := s.handle(m); err != nil {
			return err
		}
	}
}

type server struct {
	wmu    sync.Mutex // held while writing a frame: one frame is one write
	fw     frameWriter
	host   *jsvm.Host     // the warm VM
	limits runtime.Limits // the init frame's, every field set
	mem    *memLimits
	// The limits and proxy namespaces of the last run frame that carried them (message.Same).
	lastLimits *runtime.Limits
	lastNS     []*jsvm.Namespace
	sp         spin // on while a run is in flight; see spinReader

	mu    sync.Mutex
	cur   *wrun // the run in progress, if any
	fatal error // the first failed write to the host; Serve returns it
	wg    sync.WaitGroup
}

// fail records that writing to the host failed (no later frame can be trusted to arrive)
// and ends the run in progress. Serve returns err once its read returns.
func (s *server) fail(err error) {
	s.mu.Lock()
	if s.fatal == nil {
		s.fatal = err
	}
	cur := s.cur
	s.mu.Unlock()
	if cur != nil {
		cur.cancel(err)
	}
}

// failed returns the error fail recorded, or nil.
func (s *server) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fatal
}

// wrun is one run in the worker.
type wrun struct {
	s       *server
	cancel  context.CancelCauseFunc
	mu      sync.Mutex
	next    uint64 // the last call id handed out
	pending map[uint64]func(json.RawMessage, error)
	watch   sync.Once
	done    chan struct{}
}

func (s *server) send(m *message) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	defer s.sp.wrote()
	return s.fw.write(m)
}

func (s *server) handle(m *message) error {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	switch m.T {
	case tRun:
		if cur != nil {
			select {
			case <-cur.done:
			default:
				return protocolError("a run frame while a run is in progress")
			}
		}
		if m.Same && (m.Limits != nil || m.NS != nil || s.lastLimits == nil) {
			return protocolError("a run frame that repeats no earlier run's limits")
		} else if m.Same {
			m.Limits = s.lastLimits
		}
		if m.Limits == nil {
			return protocolError("a run frame without limits")
		}
		return s.start(m)
	case tResult:
		if cur == nil {
			return protocolError("a result frame before any run")
		}
		return cur.deliver(m)
	case tCancel:
		if cur != nil {
			cur.cancel(errors.New(m.Reason))
		}
		return nil
	}
	return protocolError("an unexpected %q frame", m.T)
}

func (s *server) start(m *message) error {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &wrun{s: s, cancel: cancel, pending: map[uint64]func(json.RawMessage, error){}, done: make(chan struct{})}
	if !m.Same {
		proxies := make([]*jsvm.Namespace, len(m.NS))
		for i, spec := range m.NS {
			ns, err := s.proxy(i, spec)
			if err != nil {
				cancel(nil)
				return err
			}
			proxies[i] = ns
		}
		s.lastLimits, s.lastNS = m.Limits, proxies
	}
	nss := make([]*jsvm.Namespace, len(s.lastNS))
	for i, ns := range s.lastNS {
		// The cached namespace, bound to this run's call frames.
		nss[i] = ns.WithStart(func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
			r.call(ctx, i, member, args, done)
		})
	}
	s.mem.forRun(m.Limits.HeapBytes)
	s.mu.Lock()
	s.cur = r
	s.mu.Unlock()
	s.sp.on.Store(true)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		narrow := widenLater()
		logs := &logStream{s: s, id: m.ID, run: r}
		out := s.run(ctx, m, nss, logs.add)
		narrow()
		s.sp.on.Store(false)
		logs.flush() // every streamed entry reaches the host before done
		cancel(nil)
		close(r.done) // before done is sent: the host may send the next run at once
		err := s.send(out)
		var fse *frameSizeError
		if errors.As(err, &fse) {
			// The host is waiting: send the failure without the output, or say why.
			f := out.Failure
			if f == nil {
				f = &failure{Kind: runtime.KindException,
					Message: fmt.Sprintf("internal error: the run's output is too large to pass to the host process: %d bytes framed, over the %d-byte limit", fse.n, fse.max)}
			}
			err = s.send(&message{T: tDone, ID: m.ID, Failure: f})
		}
		if err != nil {
			s.fail(fmt.Errorf("worker: sending the result: %w", err))
		}
	}()
	return nil
}

// run runs run frame m on the warm VM, as runtime.Pool.Run would, and returns its done frame.
func (s *server) run(ctx context.Context, m *message, nss []*jsvm.Namespace, onLog func(string)) *message {
	out := &message{T: tDone, ID: m.ID}
	fail := func(kind runtime.Kind, msg string) *message {
		out.Failure = &failure{Kind: kind, Message: msg}
		return out
	}
	if f := jsprep.CheckSize(m.Code, m.ProgramBytes); f != nil {
		return fail(runtime.KindException, f.Message)
	}
	limits, err := m.Limits.WithDefaults(&s.limits)
	if err == nil {
		err = jsvm.CheckNamespaces(nss)
	}
	var vm *jsvm.VM
	if err == nil && ctx.Err() == nil {
		vm, err = s.host.Take()
	}
	switch {
	case err != nil: // misuse the host did not catch: the run's failure
		return fail(runtime.KindException, "internal error: "+err.Error())
	case ctx.Err() != nil:
		return fail(runtime.KindAbort, context.Cause(ctx).Error())
	}
	o := s.host.Run(ctx, vm, &jsvm.Job{Code: m.Code, ProgramBytes: m.ProgramBytes, Limits: jsvm.Limits(limits),
		Namespaces: nss, OnLog: onLog, ArgBytes: s.argBytes(), FileName: m.File, Truncate: m.Truncate, Draws: (*jsvm.Draws)(m.Draws), KeepFull: m.KeepFull, State: (*jsvm.State)(m.State), Globals: m.Globals})
	out.Logs, out.Value, out.Compute, out.Draws, out.Full = o.Logs, o.Value, int64(o.Compute), (*runtime.Draws)(o.Draws), o.Full
	out.StateOut = o.State
	if o.Failure != nil {
		return fail(runtime.Kind(o.Failure.Kind), o.Failure.Message)
	}
	return out
}

// argBytes bounds a call's arguments as in process, or lower when the frames are too small
// to carry that much: the call is then refused in the same way, naming the lower limit.
func (s *server) argBytes() int {
	return max(1, min(runtime.MaxArgBytes, s.fw.max-callFrameRoom))
}

// callFrameRoom is what a call frame needs besides its arguments.
const callFrameRoom = 64 << 10

// A run keeps the narrow GC percent for gcAfter and one P for wideAfter (see widenLater).
const (
	gcAfter   = 2 * time.Millisecond
	wideAfter = 20 * time.Millisecond
)

// wideGC is the init frame's GC percent, for runs past gcAfter; narrowGC for shorter ones.
// A run past wideAfter gets the GOMAXPROCS the Go runtime would choose (the CPUs the
// process may use, cgroup quota included).
var wideGC, narrowGC = DefaultGCPercent, 100

// widenLater gives the process the wide GC percent once gcAfter has passed and every CPU
// once wideAfter has, unless the returned narrow is called first; narrow puts back the
// narrow percent and one P either way.
func widenLater() (narrow func()) {
	var (
		mu    sync.Mutex
		ended bool
		stage int // 1 once the GC percent is wide, 2 once the CPUs are too
		timer *time.Timer
	)
	mu.Lock()
	defer mu.Unlock()
	timer = time.AfterFunc(gcAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		if stage++; stage == 1 {
			debug.SetGCPercent(wideGC)
			timer.Reset(wideAfter - gcAfter)
			return
		}
		goruntime.SetDefaultGOMAXPROCS()
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
		timer.Stop()
		if stage >= 1 {
			debug.SetGCPercent(narrowGC)
		}
		if stage >= 2 {
			goruntime.GOMAXPROCS(1)
		}
	}
}

// stop cancels the run in progress and waits for it.
func (s *server) stop() {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if cur != nil {
		cur.cancel(errors.New("worker channel closed"))
	}
	s.wg.Wait()
}

// pollable returns a pipe given as an *os.File (stdin) as a new *os.File in non-blocking
// mode, so that a read waits in Go's poller rather than holding a thread (with one P, the
// whole worker). Anything else is returned as is.
//
// Trap: these reads must be ordinary system calls. With one P, an ordinary system call is
// what wakes sysmon, which preempts a VM goroutine in a busy loop so the compute watchdog
// can fire; with raw reads, a program busy right after a frame ran on until the host's CPU
// ceiling killed its worker (a spin's raw tries are safe: see spinReader).
func pollable(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	fd := f.Fd() // puts the descriptor in blocking mode
	if err := setNonblock(fd); err != nil {
		return r
	}
	return os.NewFile(fd, f.Name())
}

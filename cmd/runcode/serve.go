package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/native"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/workspace"
)

// serveFlags are the flags of `runcode serve`.
type serveFlags struct {
	tools, root, mode, addr, isolation, debugAddr string
	store                                         string
	saveScripts                                   bool
	budgets                                       budgetFlags
	workers                                       int
	memoryCeiling                                 byteSize
	gc                                            gcPercent
	http                                          httpFlags
	log                                           logFlags
	// set names the flags given on the command line.
	set map[string]bool
}

// defaultMemoryCeiling is serve's --memory-ceiling when neither it nor GOMEMLIMIT is set.
const defaultMemoryCeiling = 1 << 30

// minMemoryCeiling is the smallest --memory-ceiling other than 0 (off): below it no
// run would get far.
const minMemoryCeiling = 64 << 20

// maxWorkers bounds --workers by isolation: each worker process is a process of its
// own with a heap of its own; in process it bounds concurrent runs.
var maxWorkers = map[string]int{isolationProcess: 256, isolationInProcess: 1 << 16}

// serveCommand is `runcode serve`: an MCP server over stdio (until stdin ends) or
// streamable HTTP, offering run_code (ptc), the tools (native) or both. It stops on
// SIGINT or SIGTERM, and then stops the upstream servers it started. Stopping cancels
// the calls in flight and waits for them at most stopGrace.
func serveCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "[--tools F] [--root DIR] [--mode M] [--http ADDR [--http-token T] [--http-allow-origin O]…] [--isolation I] [budget flags] [--workers N] [--memory-ceiling BYTES] [--gc-percent N] [--store S] [--debug-addr ADDR] [--log-level L] [--log-format F]", stdout, stderr)
	var f serveFlags
	fs.StringVar(&f.tools, "tools", "", toolsHelp)
	fs.StringVar(&f.root, "root", ".", rootHelp)
	fs.StringVar(&f.mode, "mode", string(registry.ModePTC), "`MODE` to serve: ptc (only run_code, with the SDK in its description), native (every tool) or both")
	fs.StringVar(&f.addr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	// A server runs programs from whatever client connects, so it isolates them in worker
	// processes with a hard memory limit unless told otherwise.
	fs.StringVar(&f.isolation, "isolation", isolationProcess, "where programs run: process (worker processes with a hard memory limit) or in-process")
	f.budgets.register(fs)
	fs.IntVar(&f.workers, "workers", 0, "`N` programs that run at once, from 1 to 256 worker processes with --isolation process or 65536 runs in process; more calls wait for one to end (default 2 worker processes with --isolation process, 64 runs per CPU in process)")
	fs.Var(&f.memoryCeiling, "memory-ceiling", "live heap in `BYTES` all runs together may hold, e.g. 1GiB, at least 64MiB, with --isolation in-process only: above it new runs wait and the run holding the most fails with memory-limit, and serve sets the Go runtime's memory limit to it unless GOMEMLIMIT is set; 0 turns it off (default 1GiB, or GOMEMLIMIT's limit when that is set)")
	f.gc.register(fs)
	f.http.register(fs)
	fs.StringVar(&f.store, "store", "", storeFlagHelp+"; replicas on one postgres:// store resume each other's runs (default: paused runs are kept in memory, until serve stops)")
	fs.BoolVar(&f.saveScripts, "save-scripts", false, "let programs save scripts into --store with scripts.$save: each becomes the tool script__NAME of every client (docs/run_code.md)")
	fs.StringVar(&f.debugAddr, "debug-addr", "", "serve Go's goroutine and heap profiles as text at http://`ADDR`/debug/pprof/goroutine and /debug/pprof/heap, on a listener of their own (for operators: keep ADDR on a loopback address)")
	f.log.register(fs)
	exts := registerServeExtensions(fs)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	msg := f.check()
	if msg == "" {
		msg = f.http.check(&f, os.Getenv)
	}
	if msg != "" {
		fmt.Fprintf(stderr, "runcode serve: %s\n", msg)
		return exitUsage
	}
	m := registry.Mode(f.mode)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := f.log.logger(stderr)

	if f.debugAddr != "" {
		stopDebug, err := serveDebug(f.debugAddr, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "runcode serve: --debug-addr: %v\n", err)
			return exitUsage
		}
		defer stopDebug()
	}

	stopExts, err := exts.start(ctx, stderr)
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	defer stopExts()

	scope, release, err := serveScope(ctx, f.tools, f.root, m, stderr, logger, exts)
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	defer release()

	// Progress notifications come from the pipeline's sub-call events and the runs'
	// console lines; approvals from the manifest's policy, asked by elicitation. Every
	// event is also logged.
	prog := mcpbridge.NewProgress(nil)
	logEvents := pipeline.SlogSink(logger)
	var mem memoryReturner
	defer mem.wait()
	events := pipeline.SinkFunc(func(e pipeline.Event) { prog.Event(e); logEvents.Event(e); mem.Event(e) })
	popts := &pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()},
		Events: events, Logger: logger,
		PreExecute: scope.preExecute(), Approve: mcpbridge.Approve}
	exts.pipeline(popts)
	p := pipeline.New(popts)
	var ex pipeline.Executor
	if m == registry.ModeNative {
		ex, err = native.New(p, nil)
	} else {
		ceiling := f.ceiling(os.Getenv("GOMEMLIMIT") != "")
		if ceiling > 0 && os.Getenv("GOMEMLIMIT") == "" {
			// The collector then works harder as the process nears the ceiling, and
			// the scavenger returns freed memory to the system, instead of the heap
			// doubling between collections.
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(ceiling))
		}
		pool, closePool, perr := newRunner(runnerOptions{isolation: f.isolation, workers: f.workers, warm: 2, memoryCeiling: ceiling, gcPercent: f.gc.n})
		if perr != nil {
			return usageError(stderr, "serve", perr)
		}
		defer closePool()
		if f.isolation == isolationInProcess {
			// Runs at once share this process: its memory limit is the ceiling's (above)
			// or GOMEMLIMIT's, not one run's budget.
			defer f.gc.inProcess(0)()
		}
		po := f.budgets.options(pool)
		po.OnLog = prog.Log
		po.Sessions = true // every MCP session is one
		var pex *ptc.Executor
		if f.store != "" {
			st, serr := openStore(ctx, f.store)
			if serr != nil {
				return usageError(stderr, "serve", fmt.Errorf("--store: %v", serr))
			}
			defer st.Close()
			po.Store = st
			po.SaveScripts = f.saveScripts
			saved, stopSync, serr := syncScripts(ctx, st, scope, func() *ptc.Executor { return pex }, stderr)
			if serr != nil {
				return usageError(stderr, "serve", fmt.Errorf("--store: reading the saved scripts: %v", serr))
			}
			defer stopSync()
			po.OnScriptSaved = saved
		}
		// Learned output types change the SDK in run_code's description.
		types := &coalescer{delay: typesSyncDelay, f: scope.changed}
		defer types.stop()
		po.OnTypes = types.trigger
		exts.ptc(po)
		pex, err = ptc.New(p, po)
		ex = pex
	}
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	so := &mcpbridge.ServerOptions{Progress: prog, Logger: logger}
	exts.server(so)
	srv, err := mcpbridge.NewServer(scope.scope, ex, so)
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	scope.onChange(func() {
		if err := srv.Sync(ctx); err != nil {
			fmt.Fprintf(stderr, "runcode serve: updating the tool list: %v\n", err)
		}
	})

	if f.addr == "" {
		return serveStdio(ctx, srv, stdin, stdout, stderr)
	}
	return serveHTTP(ctx, srv, f.addr, &f.http, stderr)
}

// check returns what is wrong with the flags, or "".
func (f *serveFlags) check() string {
	if m := registry.Mode(f.mode); m != registry.ModeNative && m != registry.ModePTC && m != registry.ModeBoth {
		return fmt.Sprintf("unknown --mode %q; want native, ptc or both", f.mode)
	}
	if f.isolation != isolationInProcess && f.isolation != isolationProcess {
		return fmt.Sprintf("--isolation must be %s or %s, got %q", isolationInProcess, isolationProcess, f.isolation)
	}
	if msg := f.budgets.check(f.set); msg != "" {
		return msg
	}
	if f.store != "" && registry.Mode(f.mode) == registry.ModeNative {
		return "--store keeps paused run_code runs: it needs --mode ptc or both"
	}
	if f.saveScripts && f.store == "" {
		return "--save-scripts needs --store: saved scripts are kept there"
	}
	if msg := f.log.check(); msg != "" {
		return msg
	}
	if msg := f.gc.check(); msg != "" {
		return msg
	}
	switch {
	case f.set["workers"] && (f.workers < 1 || f.workers > maxWorkers[f.isolation]):
		return fmt.Sprintf("--workers must be between 1 and %d with --isolation %s, got %d", maxWorkers[f.isolation], f.isolation, f.workers)
	case f.memoryCeiling < 0 || (f.memoryCeiling != 0 && f.memoryCeiling < minMemoryCeiling):
		return fmt.Sprintf("--memory-ceiling must be 0 (off) or at least 64MiB, got %v", &f.memoryCeiling)
	case f.set["memory-ceiling"] && f.isolation == isolationProcess:
		// Each worker process has a hard memory limit of its own; a ceiling on the
		// server's heap would bound nothing a program allocates.
		return "--memory-ceiling applies to --isolation in-process only (worker processes each have a hard memory limit)"
	}
	return ""
}

// ceiling returns runtime.PoolOptions.MemoryCeiling for the flags: --memory-ceiling
// when given, else the Go runtime's memory limit (-1) when GOMEMLIMIT sets one, else
// defaultMemoryCeiling. Worker processes need none.
func (f *serveFlags) ceiling(goMemLimit bool) int64 {
	switch {
	case f.isolation == isolationProcess:
		return 0
	case f.set["memory-ceiling"]:
		return int64(f.memoryCeiling)
	case goMemLimit:
		return -1
	}
	return defaultMemoryCeiling
}

// stopGrace bounds how long serve, once it was told to stop (stdin ended, or a signal
// came), waits for the calls in flight to end and their answers to go out. They are
// cancelled at once, and a run_code run ends a grace after that whatever its tools
// do (a worker that no longer answers is killed about a second after), so it is
// only reached by a native tool that ignores cancellation, or a client that keeps an
// HTTP stream open.
const stopGrace = 2 * time.Second

// serveStdio serves one session on stdin and stdout until stdin ends or ctx is done,
// and then at most stopGrace longer.
func serveStdio(ctx context.Context, srv *mcpbridge.Server, stdin io.Reader, stdout, stderr io.Writer) int {
	in := &endReader{r: stdin, ended: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, in, stdout) }()
	ended := func(err error) int {
		if err != nil {
			fmt.Fprintf(stderr, "runcode serve: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	select {
	case err := <-done:
		return ended(err)
	case <-ctx.Done():
	case <-in.ended:
	}
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return ended(err)
	case <-t.C:
		fmt.Fprintf(stderr, "runcode serve: stopping with calls still in flight after %v\n", stopGrace)
		return exitOK
	}
}

// endReader closes ended when a read from r fails (stdin ended).
type endReader struct {
	r     io.Reader
	ended chan struct{}
	once  sync.Once
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.ended) })
	}
	return n, err
}

// serveHTTP serves streamable HTTP on addr until ctx ends, then shuts down.
func serveHTTP(ctx context.Context, srv *mcpbridge.Server, addr string, access *httpFlags, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "runcode serve: --http: %v\n", err)
		return exitUsage
	}
	// The handler's calls are cancelled as soon as serve is told to stop, so that the
	// shutdown below waits for their answers, not for their runs' wall clocks.
	silent := &silentConns{conns: map[net.Conn]struct{}{}}
	hs := &http.Server{Handler: access.guard(addr, srv.HandlerContext(ctx)), ReadHeaderTimeout: 10 * time.Second, ConnState: silent.track}
	// Shutdown waits for every connection to go idle, and a client's stream of server
	// messages never does: end the sessions, and their streams with them.
	hs.RegisterOnShutdown(func() {
		silent.close()
		srv.CloseSessions()
	})
	fmt.Fprintf(stderr, "runcode serve: MCP over streamable HTTP at http://%s/\n", ln.Addr())
	access.warn(ln.Addr(), stderr)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "runcode serve: %v\n", err)
		return exitFail
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "runcode serve: closing connections still busy after %v\n", stopGrace)
		hs.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "runcode serve: %v\n", err)
		return exitFail
	}
	return exitOK
}

// silentConns tracks the connections that have not sent a request yet. Shutdown
// counts such a connection as busy for its first five seconds, so a client that
// dialled ahead, or gave up before sending, would hold serve's stop that long: close
// them, and any that arrive after, once serve stops.
type silentConns struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

// track is the server's ConnState hook.
func (s *silentConns) track(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case state != http.StateNew:
		delete(s.conns, c)
	case s.closing:
		c.Close()
	default:
		s.conns[c] = struct{}{}
	}
}

// close closes the silent connections and those that connect from now on.
func (s *silentConns) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for c := range s.conns {
		c.Close()
	}
	clear(s.conns)
}

// servedScope is serve's scope, whose upstream servers may change its tools.
type servedScope struct {
	scope *registry.Scope
	hook  atomic.Pointer[func()]
	// approval decides each call's approval (see approvalPolicy); nil allows all.
	approval func(tool string) pipeline.Action
}

// onChange sets what runs after an upstream server's tools changed, and runs it
// once for changes that came before.
func (s *servedScope) onChange(f func()) {
	s.hook.Store(&f)
	f()
}

// changed runs what onChange set, if anything.
func (s *servedScope) changed() {
	if f := s.hook.Load(); f != nil {
		(*f)()
	}
}

// serveScope builds serve's scope: the manifest's tools and mcpServers, or the
// workspace tools. Unlike the one-shot commands, a server that does not start is
// reported on stderr and the others are served; logger gets what the client logs.
func serveScope(ctx context.Context, manifestPath, root string, mode registry.Mode, stderr io.Writer, logger *slog.Logger, exts *serveExts) (*servedScope, func(), error) {
	s := &servedScope{scope: registry.New()}
	if _, err := s.scope.SetMode(mode); err != nil {
		return nil, nil, err
	}
	if manifestPath == "" {
		ws, err := workspace.Open(root)
		if err != nil {
			return nil, nil, fmt.Errorf("--root: %v", err)
		}
		for _, t := range ws.Tools() {
			if _, err := s.scope.Register(t); err != nil {
				ws.Close()
				return nil, nil, err
			}
		}
		return s, func() { ws.Close() }, nil
	}
	m, err := readManifest(manifestPath)
	if err != nil {
		return nil, nil, err
	}
	if _, err := m.Register(s.scope); err != nil {
		return nil, nil, err
	}
	co := &mcpbridge.ClientOptions{Logger: logger, OnChange: func(string) { s.changed() }}
	exts.client(co)
	client := mcpbridge.NewClient(s.scope, co)
	s.approval = approvalPolicy(m, client)
	if err := client.ConnectAll(ctx, upstreams(m)); err != nil {
		for _, e := range unjoin(err) {
			fmt.Fprintf(stderr, "runcode serve: %v; serving without its tools\n", e)
		}
	}
	return s, func() { client.Close() }, nil
}

// unjoin splits an errors.Join error.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
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

// serveCommand is `runcode serve`: an MCP server over stdio (until stdin ends) or
// streamable HTTP, offering run_code (ptc), the tools (native) or both. It stops on
// SIGINT or SIGTERM, and then stops the upstream servers it started. Stopping cancels
// the calls in flight and waits for them at most stopGrace.
func serveCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "[--tools F] [--root DIR] [--mode M] [--http ADDR] [--isolation I]", stdout, stderr)
	tools := fs.String("tools", "", toolsHelp)
	root := fs.String("root", ".", rootHelp)
	mode := fs.String("mode", string(registry.ModePTC), "`MODE` to serve: ptc (only run_code, with the SDK in its description), native (every tool) or both")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	// A server runs programs from whatever client connects, so it isolates them in worker
	// processes with a hard memory limit unless told otherwise.
	isolation := fs.String("isolation", isolationProcess, "where programs run: process (worker processes with a hard memory limit) or in-process")
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	m := registry.Mode(*mode)
	if m != registry.ModeNative && m != registry.ModePTC && m != registry.ModeBoth {
		fmt.Fprintf(stderr, "runcode serve: unknown --mode %q; want native, ptc or both\n", *mode)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	scope, release, err := serveScope(ctx, *tools, *root, m, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "runcode serve: %v\n", err)
		return exitUsage
	}
	defer release()

	p := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}})
	var ex pipeline.Executor
	if m == registry.ModeNative {
		ex, err = native.New(p, nil)
	} else {
		pool, closePool, perr := newRunner(*isolation, 2)
		if perr != nil {
			fmt.Fprintf(stderr, "runcode serve: %v\n", perr)
			return exitUsage
		}
		defer closePool()
		ex, err = ptc.New(p, &ptc.Options{Pool: pool})
	}
	if err != nil {
		fmt.Fprintf(stderr, "runcode serve: %v\n", err)
		return exitUsage
	}
	srv, err := mcpbridge.NewServer(scope.scope, ex, &mcpbridge.ServerOptions{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		fmt.Fprintf(stderr, "runcode serve: %v\n", err)
		return exitUsage
	}
	scope.onChange(func() {
		if err := srv.Sync(ctx); err != nil {
			fmt.Fprintf(stderr, "runcode serve: updating the tool list: %v\n", err)
		}
	})

	if *addr == "" {
		return serveStdio(ctx, srv, stdin, stdout, stderr)
	}
	return serveHTTP(ctx, srv, *addr, stderr)
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
func serveHTTP(ctx context.Context, srv *mcpbridge.Server, addr string, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "runcode serve: --http: %v\n", err)
		return exitUsage
	}
	// The handler's calls are cancelled as soon as serve is told to stop, so that the
	// shutdown below waits for their answers, not for their runs' wall clocks.
	hs := &http.Server{Handler: srv.HandlerContext(ctx), ReadHeaderTimeout: 10 * time.Second}
	// Shutdown waits for every connection to go idle, and a client's stream of server
	// messages never does: end the sessions, and their streams with them.
	hs.RegisterOnShutdown(srv.CloseSessions)
	fmt.Fprintf(stderr, "runcode serve: MCP over streamable HTTP at http://%s/\n", ln.Addr())
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

// servedScope is serve's scope, whose upstream servers may change its tools.
type servedScope struct {
	scope *registry.Scope
	hook  atomic.Pointer[func()]
}

// onChange sets what runs after an upstream server's tools changed, and runs it
// once for changes that came before.
func (s *servedScope) onChange(f func()) {
	s.hook.Store(&f)
	f()
}

// serveScope builds serve's scope: the manifest's tools and mcpServers, or the
// workspace tools. Unlike the one-shot commands, a server that does not start is
// reported on stderr and the others are served.
func serveScope(ctx context.Context, manifestPath, root string, mode registry.Mode, stderr io.Writer) (*servedScope, func(), error) {
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
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	client := mcpbridge.NewClient(s.scope, &mcpbridge.Options{Logger: logger, OnChange: func(string) {
		if f := s.hook.Load(); f != nil {
			(*f)()
		}
	}})
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

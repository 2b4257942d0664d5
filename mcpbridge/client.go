package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// Upstream is how to reach one upstream MCP server: a process speaking MCP over its
// stdin and stdout (Command), or a streamable HTTP endpoint (URL). It is a plain
// value.
type Upstream struct {
	// Command is the program to start; Args are its arguments.
	Command string
	Args    []string
	// Env is the process's complete environment, as KEY=value pairs. If nil, it
	// inherits the host process's environment (as os/exec does).
	Env []string
	// Dir is the process's working directory. If empty, the host's.
	Dir string
	// URL is the streamable HTTP endpoint of a remote server, used when Command is
	// empty; Headers are sent with every request to it.
	URL     string
	Headers map[string]string
	// SSE selects the older HTTP+SSE transport (protocol 2024-11-05) for URL instead
	// of streamable HTTP.
	SSE bool
	// StartTimeout bounds starting this server, as ClientOptions.StartTimeout does for
	// every server (a package that npx fetches on first use may need longer). Zero
	// means ClientOptions.StartTimeout.
	StartTimeout time.Duration
	// Approval sets, by the tool's name as the server lists it, what [Client.Approval]
	// reports for it; a tool not named gets the default (see there).
	Approval map[string]pipeline.Action
}

// startTimeout is how long starting the conn's server may take.
func (cn *conn) startTimeout() time.Duration {
	if cn.up.StartTimeout > 0 {
		return cn.up.StartTimeout
	}
	return cn.client.opts.StartTimeout
}

// ClientOptions configures a [Client]. The zero value is ready to use.
type ClientOptions struct {
	// StartTimeout bounds starting a server: the process start (or first request),
	// the initialize handshake and the first tool listing. If zero, 30 seconds.
	StartTimeout time.Duration
	// StopTimeout is how long Close waits for a server process to exit after its
	// stdin is closed before sending SIGTERM (and as long again before SIGKILL).
	// If zero, 2 seconds.
	StopTimeout time.Duration
	// Stderr receives what server processes write on stderr. If nil, it is
	// discarded; either way the last few KiB are kept for error messages.
	Stderr io.Writer
	// Trace, if non-nil, receives every JSON-RPC message exchanged with the servers,
	// one per line, for debugging.
	Trace io.Writer
	// Logger records what cannot be reported to a caller: a tool whose schema does
	// not compile (it is skipped), a failed re-listing after a tools/list_changed
	// notification. If nil, nothing is logged.
	Logger *slog.Logger
	// Propagator, if set, adds its entries for the call's context to the _meta of
	// every tools/call forwarded upstream (see [Propagator]). Nil adds none.
	Propagator Propagator
	// Middleware wraps every request sent to an upstream server (initialize,
	// tools/list, tools/call, …), outermost first: what a tracer needs for a client
	// span per request, and to put its trace context in the params' _meta. Nil means
	// none.
	Middleware []mcp.Middleware
	// OnChange, if set, is called (on its own goroutine) after a server's tools were
	// re-registered following its tools/list_changed notification, with the
	// server's name.
	OnChange func(server string)
}

// Client holds the connections to upstream MCP servers and registers their tools
// in one registry scope. A Client is safe for concurrent use; Close stops every
// server it started.
type Client struct {
	scope *registry.Scope
	opts  ClientOptions

	life    context.Context // ends when Close is called, ending starts underway
	endLife context.CancelFunc
	mu      sync.Mutex
	conns   map[string]*conn
	closed  bool
}

// NewClient returns a Client that registers upstream tools in scope. opts may be
// nil.
func NewClient(scope *registry.Scope, opts *ClientOptions) *Client {
	c := &Client{scope: scope, conns: map[string]*conn{}}
	c.life, c.endLife = context.WithCancel(context.Background())
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.StartTimeout <= 0 {
		c.opts.StartTimeout = 30 * time.Second
	}
	if c.opts.StopTimeout <= 0 {
		c.opts.StopTimeout = 2 * time.Second
	}
	if c.opts.Logger == nil {
		c.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// ErrClosed is returned by Connect after Close.
var ErrClosed = errors.New("mcp client is closed")

// ServerError reports an upstream server that could not be started or used.
// Its message names the server and ends with the tail of the server's stderr,
// if it wrote any. It is a plain value.
type ServerError struct {
	// Server is the server's name.
	Server string
	// Err says what went wrong.
	Err error
	// Stderr is the end of what the server process wrote on stderr, trimmed.
	Stderr string
}

func (e *ServerError) Error() string {
	msg := fmt.Sprintf("mcp server %q: %v", e.Server, e.Err)
	if e.Stderr != "" {
		msg += fmt.Sprintf(" (its stderr ends: %q)", e.Stderr)
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *ServerError) Unwrap() error { return e.Err }

// ConnectAll connects to every server at once (see [Client.Connect]). The servers
// that start keep their tools registered even when others fail; the returned error
// joins one *ServerError per server that failed, in name order.
func (c *Client) ConnectAll(ctx context.Context, servers map[string]*Upstream) error {
	names := slices.Sorted(maps.Keys(servers))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = c.Connect(ctx, name, servers[name]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Connect starts the server, lists its tools and registers them as
// mcp__<name>__<tool>. Starting is bounded by the server's StartTimeout, else
// ClientOptions.StartTimeout (and ctx); on
// failure nothing stays registered or running and the error is a *ServerError.
// Tools whose schemas do not compile are skipped (and logged).
func (c *Client) Connect(ctx context.Context, name string, s *Upstream) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if _, dup := c.conns[name]; dup {
		c.mu.Unlock()
		return &ServerError{Server: name, Err: errors.New("already connected")}
	}
	up := *s // a copy: the caller may reuse s
	cn := &conn{name: name, client: c, up: &up, stderr: &tail{}, refresh: make(chan struct{}, 1)}
	cn.life, cn.stop = context.WithCancel(context.Background())
	c.conns[name] = nil // reserved while it starts
	c.mu.Unlock()

	err := cn.start(ctx)
	c.mu.Lock()
	closed := c.closed
	if err != nil || closed {
		delete(c.conns, name)
	} else {
		c.conns[name] = cn
	}
	c.mu.Unlock()
	switch {
	case err != nil:
		cn.stop()
		return err
	case closed: // Close ran while it started
		cn.close()
		return ErrClosed
	}
	return nil
}

// Close stops every server (closing a process's stdin, then signalling it if it
// does not exit) and removes their tools from the scope. It is idempotent.
func (c *Client) Close() error {
	c.endLife()
	c.mu.Lock()
	c.closed = true
	conns := slices.Collect(maps.Values(c.conns))
	c.conns = map[string]*conn{}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, cn := range conns {
		if cn != nil { // nil: still starting; Connect stops it
			wg.Go(cn.close)
		}
	}
	wg.Wait()
	return nil
}

// conn is one connected server.
type conn struct {
	name    string
	client  *Client
	up      *Upstream
	stderr  *tail
	mcpc    *mcp.Client
	refresh chan struct{}   // a tools/list_changed notification arrived
	life    context.Context // ends when close is called
	stop    context.CancelFunc
	loops   sync.WaitGroup
	restart sync.Mutex // serialises starting the server again

	mu       sync.Mutex
	cur      *link                    // the current session
	restarts int                      // how many times the server was started again
	regs     map[string]*registration // the registered tools, by upstream name
	named    map[string]string        // the upstream name of each, by registered name
	raw      map[string]rawSchemas    // the schemas as listed, by upstream name
	stopping bool
}

// link is one session with a server.
type link struct {
	session *mcp.ClientSession
	ended   chan struct{} // closed when the session has ended
	dead    error         // why it ended, when it was not stopped by us; guarded by conn.mu
}

// maxRestarts bounds how many times a server that stopped is started again on a
// later call.
const maxRestarts = 3

func (cn *conn) start(ctx context.Context) error {
	cn.mcpc = mcp.NewClient(&mcp.Implementation{Name: "runcode", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case cn.refresh <- struct{}{}:
			default: // a refresh is already pending
			}
		},
	})
	cn.mcpc.AddSendingMiddleware(cn.client.opts.Middleware...)
	l, tools, err := cn.connect(ctx)
	if err != nil {
		return cn.fail(err)
	}
	cn.mu.Lock()
	cn.cur = l
	cn.mu.Unlock()
	cn.register(tools)
	cn.loops.Go(func() { cn.watch(l) })
	cn.loops.Go(cn.refreshLoop)
	return nil
}

// connect starts a session and lists the server's tools, within StartTimeout,
// ctx, and the lives of the conn and the client.
func (cn *conn) connect(ctx context.Context) (*link, []*mcp.Tool, error) {
	transport, err := cn.transport(cn.up)
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, cn.startTimeout())
	defer cancel()
	defer context.AfterFunc(cn.client.life, cancel)()
	defer context.AfterFunc(cn.life, cancel)()
	session, err := cn.mcpc.Connect(sctx, transport, nil)
	if err != nil {
		return nil, nil, cn.startError("cannot start", sctx, err)
	}
	tools, err := list(sctx, session)
	if err != nil {
		session.Close()
		return nil, nil, cn.startError("cannot list tools", sctx, err)
	}
	return &link{session: session, ended: make(chan struct{})}, tools, nil
}

// startError words a failure to start, saying so when the bounded wait ran out.
func (cn *conn) startError(what string, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer within %v", what, cn.startTimeout())
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (cn *conn) fail(err error) error {
	return &ServerError{Server: cn.name, Err: err, Stderr: cn.stderr.String()}
}

func (cn *conn) transport(s *Upstream) (mcp.Transport, error) {
	opts := &cn.client.opts
	var t mcp.Transport
	switch {
	case s.Command != "":
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env, cmd.Dir = s.Env, s.Dir
		cmd.Stderr = cn.stderr
		if opts.Stderr != nil {
			cmd.Stderr = io.MultiWriter(cn.stderr, opts.Stderr)
		}
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: opts.StopTimeout}
	case s.URL != "":
		hc := &http.Client{}
		if len(s.Headers) > 0 {
			hc.Transport = headerTransport{headers: s.Headers, base: http.DefaultTransport}
		}
		if s.SSE {
			t = &mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
		} else {
			t = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1}
		}
	default:
		return nil, errors.New(`needs a command or a url`)
	}
	t = schemaTap{Transport: t, cn: cn}
	if opts.Trace != nil {
		t = &mcp.LoggingTransport{Transport: t, Writer: &prefixWriter{prefix: cn.name + ": ", w: opts.Trace}}
	}
	return t, nil
}

// list lists every tool of a session, following pagination.
func list(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// registration is one registered upstream tool.
type registration struct {
	key     string // the tool as listed, to notice changes
	dispose func()
	name    string // the registered name
	// destructive is the tool's destructiveHint annotation (true only when set true).
	destructive bool
}

// register brings the server's registered tools in line with tools: a tool listed
// as before keeps its registration (servers announce changes that change nothing,
// and re-registering would make sets resolved earlier fail their calls), a changed
// one is registered again, a new one is added and a vanished one removed. It
// reports whether anything changed.
func (cn *conn) register(tools []*mcp.Tool) (changed bool) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.stopping {
		return false
	}
	next := map[string]*registration{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if _, dup := next[t.Name]; dup {
			cn.client.opts.Logger.Warn("mcp tool skipped", "server", cn.name, "tool", t.Name, "err", "listed twice")
			continue
		}
		listed, _ := json.Marshal(t)
		raw := cn.raw[t.Name]
		key := string(listed) + "\x00" + string(raw.input) + "\x00" + string(raw.output)
		old := cn.regs[t.Name]
		if old != nil && old.key == key {
			next[t.Name] = old
			continue
		}
		changed = true
		if old != nil {
			old.dispose()
			delete(cn.regs, t.Name)
		}
		rt, err := cn.tool(t)
		var dispose func()
		if err == nil {
			dispose, err = cn.client.scope.Register(rt)
		}
		if err != nil {
			cn.client.opts.Logger.Warn("mcp tool skipped", "server", cn.name, "tool", t.Name, "err", err)
			continue
		}
		next[t.Name] = &registration{key: key, dispose: dispose, name: rt.Name,
			destructive: t.Annotations != nil && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint}
	}
	for name, old := range cn.regs {
		if next[name] != old {
			old.dispose()
			changed = true
		}
	}
	cn.regs = next
	cn.named = make(map[string]string, len(next))
	for upstream, r := range next {
		cn.named[r.name] = upstream
	}
	return changed
}

// tool makes the registry tool of an upstream tool.
func (cn *conn) tool(t *mcp.Tool) (*registry.Tool, error) {
	rt := &registry.Tool{
		Name:        ToolName(cn.name, t.Name),
		Description: t.Description,
		Source:      cn.name,
		Execute:     cn.caller(t.Name),
	}
	if rt.Description == "" {
		rt.Description = t.Title
	}
	raw := cn.raw[t.Name] // the caller holds cn.mu
	if t.InputSchema != nil {
		if !json.Valid(raw.input) {
			var err error
			if raw.input, err = json.Marshal(t.InputSchema); err != nil {
				return nil, fmt.Errorf("input schema: %w", err)
			}
		}
		rt.Parameters = registry.RawSchema(raw.input)
	}
	if t.OutputSchema != nil {
		if !json.Valid(raw.output) {
			var err error
			if raw.output, err = json.Marshal(t.OutputSchema); err != nil {
				return nil, fmt.Errorf("output schema: %w", err)
			}
		}
		rt.Output.Schema = registry.RawSchema(raw.output)
	}
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		rt.IsConcurrencySafe = func(registry.Value) bool { return true }
	}
	return rt, nil
}

// caller returns the body of upstream tool name: the call forwarded with the
// caller's cancellation.
func (cn *conn) caller(name string) func(context.Context, *registry.Call) (any, error) {
	return func(ctx context.Context, call *registry.Call) (any, error) {
		l, err := cn.live(ctx)
		if err != nil {
			return nil, err
		}
		params := &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(call.Args.String())}
		params.Meta = injectMeta(ctx, cn.client.opts.Propagator, nil)
		res, err := l.session.CallTool(ctx, params)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			select {
			case <-l.ended:
			default:
				if !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
					return nil, cn.fail(fmt.Errorf("tool %q: %w", name, err))
				}
				select { // the connection is going: wait for the session to end
				case <-l.ended:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if err := cn.linkErr(l); err != nil {
				return nil, err
			}
			return nil, cn.fail(fmt.Errorf("tool %q: %w", name, err))
		}
		return answer(res)
	}
}

package mcpbridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ServerOptions configures a [Server]. The zero value is ready to use.
type ServerOptions struct {
	// Name and Version identify the server to clients. If empty, "runcode" and "v0".
	Name, Version string
	// Logger records MCP server activity and tools that cannot be served (they are
	// left out). If nil, nothing is logged.
	Logger *slog.Logger
	// Progress, if set, sends progress notifications for calls whose request carries
	// a progressToken; it must also be the pipeline's event sink and the run_code
	// executor's OnLog (see [Progress]). Nil means no notifications.
	Progress *Progress
	// Propagator, if set, extracts the trace context a client put in a tools/call's
	// _meta into the call's context (see [Propagator]). Nil ignores _meta.
	Propagator Propagator
	// Middleware wraps the handling of every request a client sends (initialize,
	// tools/list, tools/call, …), outermost first, around the server's own handling:
	// what a tracer needs for a span per request (the method, the session, the
	// params' _meta) and to give the call's context its span. Nil means none.
	Middleware []mcp.Middleware
}

// Server offers an executor's view of a registry scope over MCP: the tools the
// executor describes for the scope's mode (run_code under ptc, the tools under
// native, both under both). Under ptc and both, run_code's description carries
// the executor's prompt sections (the rule section and the SDK: the instruction
// block and the TypeScript declarations), because MCP clients have no system
// prompt to put them in. Each tools/call is one model step of one call through
// the executor, against the scope's tools as resolved at that moment, whether or
// not the server lists the tool: a call the executor refuses (under ptc, any tool
// but run_code) is an isError result with its text, not a protocol error. A tool
// whose output schema is an object is served with it as its outputSchema, and its
// successful results carry the canonical value as structuredContent.
//
// A Server is safe for concurrent use; it serves any number of sessions.
type Server struct {
	scope *registry.Scope
	ex    pipeline.Executor
	prop  Propagator
	srv   *mcp.Server
	log   *slog.Logger
	calls atomic.Int64
	prog  *Progress

	mu     sync.Mutex
	served map[string]string // name -> the JSON of the tool as served
	// sessions names each client session for the executor (pipeline.WithSession): its
	// MCP session id, or, for transports without ids (stdio, in memory), a random name
	// for as long as the session lives.
	sessions map[*mcp.ServerSession]string
	// structured holds the served tools that declare an output schema, whose
	// successful results carry their value as structuredContent.
	structured map[string]bool
}

// NewServer returns a Server for scope's tools through ex, which must serve the
// scope's mode. opts may be nil. It fails if the scope cannot be resolved or
// described.
func NewServer(scope *registry.Scope, ex pipeline.Executor, opts *ServerOptions) (*Server, error) {
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "runcode"
	}
	if o.Version == "" {
		o.Version = "v0"
	}
	if o.Progress != nil && !o.Progress.owned.CompareAndSwap(false, true) {
		return nil, errors.New("mcpbridge: ServerOptions.Progress already serves another Server")
	}
	s := &Server{scope: scope, ex: ex, prop: o.Propagator, log: o.Logger, prog: o.Progress, served: map[string]string{}, structured: map[string]bool{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{
		Logger:       o.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.srv.AddReceivingMiddleware(s.unlisted)
	s.srv.AddReceivingMiddleware(o.Middleware...) // outside unlisted: they see every call
	if err := s.Sync(context.Background()); err != nil {
		return nil, err
	}
	return s, nil
}

// Sync re-reads the scope's tools and updates what the server offers; connected
// clients get tools/list_changed when something changed. A tool the MCP SDK
// refuses is left out and logged. It fails only if the scope cannot be resolved
// or described. Call it after the scope
// changed (for example from [ClientOptions.OnChange]).
func (s *Server) Sync(ctx context.Context) error {
	set, err := s.scope.Resolve(ctx, registry.Step{})
	if err != nil {
		return err
	}
	desc, err := s.ex.Describe(set)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := map[string]bool{}
	for _, ts := range Offered(desc) {
		t := &mcp.Tool{Name: ts.Name, Description: ts.Description, InputSchema: objectSchema(ts.Parameters)}
		if e, ok := set.Get(ts.Name); ok && ts.Name != registry.RunCodeName {
			if out := outputSchema(e.OutputSchema()); out != nil {
				t.OutputSchema = out
			}
		}
		key, _ := json.Marshal(t)
		keep[ts.Name] = true
		if s.served[ts.Name] == string(key) {
			continue
		}
		if err := s.add(t); err != nil {
			s.log.Warn("tool not served", "tool", ts.Name, "err", err)
			continue
		}
		s.served[ts.Name] = string(key)
		s.structured[ts.Name] = t.OutputSchema != nil
	}
	var gone []string
	for name := range s.served {
		if !keep[name] {
			gone = append(gone, name)
			delete(s.served, name)
			delete(s.structured, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	return nil
}

// add adds a tool to the MCP server, turning the SDK's panics about a tool it
// cannot serve into an error.
func (s *Server) add(t *mcp.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %q cannot be served: %v", t.Name, r)
		}
	}()
	s.srv.AddTool(t, s.handle)
	return nil
}

// objectSchema makes a parameters schema acceptable as an MCP input schema, whose
// root must declare "type": "object": a root without a type gets it; any other
// root (another type, a boolean schema) is wrapped as {"type":"object","allOf":[…]}.
// Arguments are objects whatever the schema says, so this changes nothing a call
// may carry.
func objectSchema(raw json.RawMessage) json.RawMessage {
	var root struct {
		Type any `json:"type"`
	}
	text := bytes.TrimSpace(raw)
	isObject := len(text) >= 2 && text[0] == '{'
	if isObject && json.Unmarshal(text, &root) == nil {
		switch {
		case root.Type == "object":
			return raw
		case root.Type == nil && string(bytes.TrimSpace(text[1:])) == "}":
			return json.RawMessage(`{"type":"object"}`)
		case root.Type == nil:
			return json.RawMessage(`{"type":"object",` + string(text[1:]))
		}
	}
	if len(text) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(`{"type":"object","allOf":[` + string(text) + `]}`)
}

// outputSchema returns a tool's output schema as served, or nil when it is not
// sent: only a schema whose root declares "type": "object" is. MCP clients
// commonly reject other roots (the TypeScript SDK fails the whole tools/list), and
// a tool that declares an output schema must answer with structuredContent, which
// those clients also require to be an object. A tool without one still works: its
// content is what the model reads.
func outputSchema(raw json.RawMessage) json.RawMessage {
	var root struct {
		Type any `json:"type"`
	}
	text := bytes.TrimSpace(raw)
	if len(text) < 2 || text[0] != '{' || json.Unmarshal(text, &root) != nil || root.Type != "object" {
		return nil
	}
	return raw
}

// unlisted is receiving middleware that sends a tools/call naming a tool the
// server does not list to the executor too, instead of the MCP SDK's JSON-RPC
// error: the executor's answer is a tool result the model can read and act on
// (under ptc, the contract's UNKNOWN_TOOL text that routes the call through
// run_code).
func (s *Server) unlisted(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
			s.mu.Lock()
			_, listed := s.served[r.Params.Name]
			s.mu.Unlock()
			if !listed {
				return s.handle(ctx, r)
			}
		}
		return next(ctx, method, req)
	}
}

// stopKey carries, in a session's context, the context whose end cancels the session's
// calls in flight (see ServeStdio and HandlerContext). The MCP SDK keeps a session's
// context values for its handlers but not its cancellation, so that a transport's end
// does not cancel handlers by itself.
type stopKey struct{}

// withStop returns ctx carrying stop as the context whose end cancels calls.
func withStop(ctx, stop context.Context) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

// handle runs one tools/call as a one-call model step through the executor.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if stop, ok := ctx.Value(stopKey{}).(context.Context); ok {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		unwatch := context.AfterFunc(stop, func() { cancel(context.Cause(stop)) })
		defer unwatch()
	}
	ctx = extractMeta(ctx, s.prop, req.Params.Meta)
	set, err := s.scope.Resolve(ctx, registry.Step{})
	if err != nil {
		return nil, err
	}
	call := pipeline.RawCall{ID: fmt.Sprintf("mcp-%d", s.calls.Add(1)), Name: req.Params.Name, Arguments: string(req.Params.Arguments)}
	if req.Session != nil {
		ctx = context.WithValue(ctx, sessionKey{}, req.Session)
		ctx = pipeline.WithSession(ctx, s.sessionName(req.Session))
		if token := req.Params.GetProgressToken(); token != nil && s.prog != nil {
			stop := s.prog.track(ctx, call.ID, req.Session, token)
			defer stop() // before the response goes out
		}
	}
	var res *pipeline.Result
	if req.Params.RequestState != "" || req.Params.InputResponses != nil {
		res = s.resume(ctx, set, req) // a client's retry with its answers
	} else {
		res = s.ex.Execute(ctx, set, []pipeline.RawCall{call})[0]
	}
	if res.Pause != nil {
		return pausedResult(req, res), nil
	}
	out := callResult(res)
	s.mu.Lock()
	structured := s.structured[call.Name]
	s.mu.Unlock()
	if structured && !res.IsError() && !res.Value.IsZero() {
		out.StructuredContent = json.RawMessage(res.Value.Bytes())
	}
	return out, nil
}

// callResult renders a result for MCP: its content, then its contexts
// (pipeline.ContextContent), since an MCP client has no other place for them.
func callResult(res *pipeline.Result) *mcp.CallToolResult {
	content := append(slices.Clone(res.Content), pipeline.ContextContent(res.Contexts)...)
	return &mcp.CallToolResult{Content: fromContent(content), IsError: res.IsError()}
}

// ServeStdio serves one session over r and w (newline-delimited JSON-RPC, as on a
// process's stdin and stdout) until r ends, the client closes the session or ctx
// is done. When r ends, the calls in flight are cancelled (the MCP SDK does it);
// when ctx is done, they are cancelled with ctx's cause. Either way it returns once
// they have returned: a run_code run ends a grace after its cancellation, whatever
// its tools do, but a native tool that ignores cancellation holds it.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.Serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopCloser{w}})
}

// Serve serves one session over any MCP transport until the client closes it or ctx
// is done, as [Server.ServeStdio] does. With one end of the MCP SDK's
// mcp.NewInMemoryTransports it gives an agent in the same process run_code without a
// subprocess or a socket (the client connects to the other end).
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	err := s.srv.Run(withStop(ctx, ctx), t)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Handler returns an http.Handler serving streamable HTTP sessions.
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, nil)
}

// HandlerContext is Handler whose calls in flight, in every session it serves, are
// cancelled with ctx's cause when ctx is done: cancel it before shutting the HTTP
// server down, so that the shutdown is not held by runs going on to their wall clock.
func (s *Server) HandlerContext(ctx context.Context) http.Handler {
	h := s.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(withStop(r.Context(), ctx)))
	})
}

// CloseSessions closes every session the server is serving, once its calls in flight
// have returned: an HTTP client's open streams end with it, which an HTTP server's
// Shutdown otherwise waits for. Cancel the calls first (see HandlerContext), or it
// waits for them.
func (s *Server) CloseSessions() {
	var wg sync.WaitGroup
	for ss := range s.srv.Sessions() {
		wg.Go(func() { ss.Close() })
	}
	wg.Wait()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// sessionName is the name of ss for pipeline.WithSession.
func (s *Server) sessionName(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return "mcp:" + id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if name, ok := s.sessions[ss]; ok {
		return name
	}
	b := make([]byte, 16)
	rand.Read(b)
	name := "mcp:" + hex.EncodeToString(b)
	if s.sessions == nil {
		s.sessions = map[*mcp.ServerSession]string{}
	}
	s.sessions[ss] = name
	go func() { // forget it with the session
		ss.Wait()
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()
	return name
}

package otel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// TestMCPTraceContext: a span around a call to an upstream MCP server parents the
// server's span for it, through the W3C traceparent in the call's _meta. The client
// is an mcpbridge.Client, the upstream an mcpbridge.Server on a loopback streamable
// HTTP endpoint (the Client dials commands and URLs only); both pipelines carry the
// Middleware. The server runs run_code, so its sub-calls hang below
// (testdata/tree-mcp.golden; refresh with -update).
func TestMCPTraceContext(t *testing.T) {
	tel, tp, rec := traced(t, nil)

	// The server: a ptc executor over the test tools.
	served := testScope(t, registry.ModePTC)
	sp := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware(), pipeline.Timeout()}})
	ex, err := ptc.New(sp, &ptc.Options{Pool: runner(t, "in-process"), OnReport: tel.Report})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpbridge.NewServer(served, ex, &mcpbridge.ServerOptions{Propagator: Propagator(nil)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.CloseSessions()

	// The client: the server's run_code as mcp__up__run_code in a native scope.
	scope := testreg.Scope(t, registry.ModeNative)
	client := mcpbridge.NewClient(scope, &mcpbridge.ClientOptions{Propagator: Propagator(nil)})
	defer client.Close()
	if err := client.Connect(context.Background(), "up", &mcpbridge.Upstream{URL: hs.URL}); err != nil {
		t.Fatal(err)
	}
	set := testreg.ResolveIn(t, scope)
	cp := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware()}})
	ctx, step := tp.Tracer("test").Start(context.Background(), "agent step")
	args, _ := json.Marshal(map[string]string{"description": "two echoes", "code": `return (await tools.echo({text: "a"})) + (await tools.echo({text: "b"}))`})
	res := cp.Run(ctx, set, registry.Call{ID: "m1", Name: "mcp__up__run_code", Args: registry.MustParseValue(string(args))})
	step.End()
	if res.IsError() {
		t.Fatalf("mcp__up__run_code: %v", res.Error)
	}
	client.Close()

	got := spanTree(t, rec.Ended())
	t.Logf("span tree:\n%s", got)
	checkGolden(t, "tree-mcp.golden", got)
}

// TestMCPTraceContextInMemory: the server side alone, over an in-memory transport of
// the Go SDK (a session on pipes): a Go SDK client injects its span with the adapter
// into the call's _meta, and the server's span is its child.
func TestMCPTraceContextInMemory(t *testing.T) {
	tel, tp, rec := traced(t, nil)
	served := testScope(t, registry.ModeNative)
	ex := testexec.Native(t, pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware()}}))
	srv, err := mcpbridge.NewServer(served, ex, &mcpbridge.ServerOptions{Propagator: Propagator(nil)})
	if err != nil {
		t.Fatal(err)
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), toServer, fromServer) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}

	ctx, span := tp.Tracer("test").Start(context.Background(), "client call")
	meta := mcp.Meta{}
	for k, v := range Propagator(nil).Inject(ctx) {
		meta[k] = v
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "echo", Arguments: map[string]any{"text": "hi"}})
	span.End()
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %v", err, res)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := "client call\n  execute_tool echo (remote parent) gen_ai.tool.call.id=mcp-1\n"
	if got := spanTree(t, rec.Ended()); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
}

// TestMCPConventionSpans: the same round trip as TestMCPTraceContext with the MCP
// middleware instead of the Propagators: the client span of the forwarded tools/call
// parents the server span, which parents the run_code span and its sub-calls. Every
// request (initialize, tools/list, …) has a span on each side; the server spans of a
// streamable HTTP session carry its id.
func TestMCPConventionSpans(t *testing.T) {
	tel, tp, rec := traced(t, nil)
	served := testScope(t, registry.ModePTC)
	sp := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware(), pipeline.Timeout()}})
	ex, err := ptc.New(sp, &ptc.Options{Pool: runner(t, "in-process"), OnReport: tel.Report})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpbridge.NewServer(served, ex, &mcpbridge.ServerOptions{Middleware: []mcp.Middleware{tel.ServerMiddleware()}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.CloseSessions()
	scope := testreg.Scope(t, registry.ModeNative)
	client := mcpbridge.NewClient(scope, &mcpbridge.ClientOptions{Middleware: []mcp.Middleware{tel.ClientMiddleware()}})
	defer client.Close()
	if err := client.Connect(context.Background(), "up", &mcpbridge.Upstream{URL: hs.URL}); err != nil {
		t.Fatal(err)
	}
	set := testreg.ResolveIn(t, scope)
	cp := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware()}})
	ctx, step := tp.Tracer("test").Start(context.Background(), "agent step")
	args, _ := json.Marshal(map[string]string{"description": "two echoes", "code": `return (await tools.echo({text: "a"})) + (await tools.echo({text: "b"}))`})
	res := cp.Run(ctx, set, registry.Call{ID: "m1", Name: "mcp__up__run_code", Args: registry.MustParseValue(string(args))})
	step.End()
	if res.IsError() {
		t.Fatalf("mcp__up__run_code: %v", res.Error)
	}
	client.Close()

	spans := rec.Ended()
	var inTrace []sdktrace.ReadOnlySpan
	methods := map[string][]string{} // kind -> methods of spans outside the step's trace
	for _, s := range spans {
		if s.SpanContext().TraceID() == step.SpanContext().TraceID() {
			inTrace = append(inTrace, s)
			continue
		}
		methods[s.SpanKind().String()] = append(methods[s.SpanKind().String()], s.Name())
	}
	got := mcpTree(inTrace)
	want := `agent step internal
  execute_tool mcp__up__run_code internal
    tools/call run_code client mcp.method.name=tools/call gen_ai.tool.name=run_code gen_ai.operation.name=execute_tool mcp.session.id=true mcp.protocol.version=true
      tools/call run_code server (remote parent) mcp.method.name=tools/call gen_ai.tool.name=run_code gen_ai.operation.name=execute_tool mcp.session.id=true mcp.protocol.version=true
        execute_tool run_code internal
          execute_tool echo internal
          execute_tool echo internal
`
	if got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	for _, kind := range []string{"client", "server"} {
		if !slices.Contains(methods[kind], "initialize") || !slices.Contains(methods[kind], "tools/list") {
			t.Errorf("%s spans outside the step: %v, want initialize and tools/list among them", kind, methods[kind])
		}
	}
}

// mcpTree prints spans as a tree with their kind and MCP attributes (ids as whether
// they are set), children in start order.
func mcpTree(spans []sdktrace.ReadOnlySpan) string {
	children := map[string][]sdktrace.ReadOnlySpan{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
	}
	for _, s := range spans {
		p := s.Parent().SpanID().String()
		if !ids[p] {
			p = ""
		}
		children[p] = append(children[p], s)
	}
	var b strings.Builder
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := children[parent]
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].StartTime().Before(kids[j].StartTime()) })
		for _, s := range kids {
			fmt.Fprintf(&b, "%s%s %s", strings.Repeat("  ", depth), s.Name(), s.SpanKind())
			if s.Parent().IsRemote() {
				b.WriteString(" (remote parent)")
			}
			attrs := map[attribute.Key]string{}
			for _, kv := range s.Attributes() {
				attrs[kv.Key] = kv.Value.Emit()
			}
			for _, k := range []attribute.Key{KeyMCPMethodName, KeyToolName, KeyOperationName} {
				if v, ok := attrs[k]; ok && (k != KeyOperationName || attrs[KeyMCPMethodName] != "") && (k != KeyToolName || attrs[KeyMCPMethodName] != "") {
					fmt.Fprintf(&b, " %s=%s", k, v)
				}
			}
			for _, k := range []attribute.Key{KeyMCPSessionID, KeyMCPProtocolVersion} {
				if _, ok := attrs[k]; ok {
					fmt.Fprintf(&b, " %s=true", k)
				}
			}
			b.WriteByte('\n')
			walk(s.SpanContext().SpanID().String(), depth+1)
		}
	}
	walk("", 0)
	return b.String()
}

// TestServerSpanErrors: a tools/call answered with isError is a tool_error; a request
// the server refuses carries its JSON-RPC code. Trace context from a client's _meta
// parents the server span over stdio too, where there is no session id.
func TestServerSpanErrors(t *testing.T) {
	tel, tp, rec := traced(t, nil)
	ex := testexec.Native(t, pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware()}}))
	srv, err := mcpbridge.NewServer(testScope(t, registry.ModeNative), ex, &mcpbridge.ServerOptions{Middleware: []mcp.Middleware{tel.ServerMiddleware()}})
	if err != nil {
		t.Fatal(err)
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), toServer, fromServer) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, span := tp.Tracer("test").Start(context.Background(), "client call")
	meta := mcp.Meta{}
	for k, v := range Propagator(nil).Inject(ctx) {
		meta[k] = v
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "nope", Arguments: map[string]any{}}); err != nil || !res.IsError {
		t.Fatalf("nope: %v %v", err, res)
	}
	span.End()
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "x"}); err == nil {
		t.Fatal("prompts/get succeeded on a server without prompts")
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range rec.Ended() {
		if s.SpanKind() != trace.SpanKindServer {
			continue
		}
		attrs := map[attribute.Key]string{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value.Emit()
		}
		if _, ok := attrs[KeyMCPSessionID]; ok {
			t.Errorf("%s: a stdio session has an id: %v", s.Name(), attrs)
		}
		got[s.Name()] = fmt.Sprintf("remote=%v error.type=%s status=%s", s.Parent().IsRemote(), attrs[KeyErrorType], s.Status().Code)
	}
	want := map[string]string{
		"server/discover": "remote=false error.type= status=Unset", // a 2026-07-28 client's opening
		"tools/call nope": "remote=true error.type=tool_error status=Error",
		"prompts/get":     "remote=false error.type=-32602 status=Error",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %s, want %s (all: %v)", name, got[name], w, got)
		}
	}
}

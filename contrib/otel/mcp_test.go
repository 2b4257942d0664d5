package otel

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

package mcpbridge

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// stoppable is a Server in mode ptc whose tool "wait" runs until its context ends,
// and reports why it ended.
func stoppable(t *testing.T) (srv *Server, entered chan struct{}, why chan error) {
	t.Helper()
	scope := servedScope(t, registry.ModePTC)
	entered, why = make(chan struct{}, 1), make(chan error, 1)
	if _, err := scope.Register(&registry.Tool{Name: "wait", Description: "Wait until cancelled.", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
		entered <- struct{}{}
		<-ctx.Done()
		why <- context.Cause(ctx)
		return nil, ctx.Err()
	}}); err != nil {
		t.Fatal(err)
	}
	var err error
	if srv, err = NewServer(scope, testexec.PTC(t, pipeline.New(nil), nil), nil); err != nil {
		t.Fatal(err)
	}
	return srv, entered, why
}

// waitCall returns new params each time: the SDK's client writes its _meta into them.
func waitCall() *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"description": "Wait", "code": `await tools.wait({});`}}
}

// TestServeStdioStop: when ServeStdio's context ends, the calls in flight are
// cancelled with its cause (the MCP SDK itself only waits for them), and ServeStdio
// returns.
func TestServeStdioStop(t *testing.T) {
	srv, entered, why := stoppable(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), waitCall())
		called <- res
	}()
	testwait.MustReceive(t, entered, "the call")
	stop(errors.New("server stopping"))
	testwait.MustReceive(t, why, "the tool's cancellation")
	if err := testwait.MustReceive(t, served, "ServeStdio's return"); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	inW.Close()
	cs.Close()
	testwait.MustReceive(t, called, "the client's call")
}

// TestHandlerContextStop: HandlerContext's context ending cancels the calls in flight
// of its sessions, which then answer.
func TestHandlerContextStop(t *testing.T) {
	srv, entered, why := stoppable(t)
	ctx, stop := context.WithCancelCause(context.Background())
	hs := httptest.NewServer(srv.HandlerContext(ctx))
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), waitCall())
		if err != nil {
			t.Errorf("CallTool: %v", err)
		}
		called <- res
	}()
	testwait.MustReceive(t, entered, "the call")
	stop(errors.New("server stopping"))
	testwait.MustReceive(t, why, "the tool's cancellation")
	res := testwait.MustReceive(t, called, "the answer")
	if res == nil || !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Error: code run failed (abort): server stopping" {
		t.Errorf("answer: %+v", res)
	}
}

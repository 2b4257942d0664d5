package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

func ExampleToolName() {
	fmt.Println(mcpbridge.ToolName("fs", "read_text_file"))
	fmt.Println(mcpbridge.ToolName("every", "get-tiny-image"))
	fmt.Println(mcpbridge.ToolName("my server", "read.file")) // changed: a hash suffix
	// Output:
	// mcp__fs__read_text_file
	// mcp__every__get-tiny-image
	// mcp__my_server__read_file_05aa770bbdaa
}

// A host starts its upstream servers into a scope and serves run_code over stdio.
// (Not run: it needs the servers installed.)
func ExampleClient() {
	ctx := context.Background()
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	client := mcpbridge.NewClient(scope, &mcpbridge.ClientOptions{StartTimeout: 10 * time.Second})
	defer client.Close()
	err := client.ConnectAll(ctx, map[string]*mcpbridge.Upstream{
		"fs": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"}},
	})
	if err != nil {
		log.Print(err) // each failed server as a *ServerError; the others are connected
	}
	pool, _ := runtime.NewPool(nil)
	defer pool.Close()
	ex, _ := ptc.New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), &ptc.Options{Pool: pool})
	srv, err := mcpbridge.NewServer(scope, ex, nil)
	if err != nil {
		log.Fatal(err)
	}
	_ = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
}

// An agent built on the MCP SDK gets run_code in its own process: the server on one end
// of an in-memory transport pair, the agent's client on the other.
func ExampleServer_Serve() {
	ctx := context.Background()
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(&registry.Tool{
		Name:       "add",
		Parameters: registry.Object(registry.Required("a", registry.Number()), registry.Required("b", registry.Number())),
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ A, B float64 }
			err := call.Args.Decode(&in)
			return in.A + in.B, err
		},
	})
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	ex, err := ptc.New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), &ptc.Options{Pool: pool})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcpbridge.NewServer(scope, ex, nil)
	if err != nil {
		log.Fatal(err)
	}

	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, serverEnd) }()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "Add in a loop",
		"code":        "let s = 0; for (const n of [1, 2, 3]) s = await tools.add({ a: s, b: n }); return s",
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	session.Close()
	fmt.Println("served:", <-served)
	// Output:
	// 6
	// served: <nil>
}

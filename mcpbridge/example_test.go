package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

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
	client := mcpbridge.NewClient(scope, &mcpbridge.Options{StartTimeout: 10 * time.Second})
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

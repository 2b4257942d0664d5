package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// npmServer returns the path of an MCP server installed by `npm ci` at the
// repository root. Without node_modules it skips, unless CI is set: then a
// missing server fails the test.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("%s is not installed (run `npm ci` at the repository root); skipping", bin)
		}
		t.Fatalf("%s is not installed, and CI is set: .ci/run must install it with npm ci: %v", bin, err)
	}
	node(t)
	return path
}

// node returns the path of node, skipping (or failing under CI) without it.
func node(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("node is not installed; skipping")
		}
		t.Fatalf("node is not installed, and CI is set: %v", err)
	}
	return path
}

// fixture returns the absolute path of a script in testdata/mcp.
func fixture(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "testdata", "mcp", name))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// bridge is a scope with a Client, closed at the end of the test.
type bridge struct {
	scope  *registry.Scope
	client *Client
}

func newBridge(t *testing.T, mode registry.Mode, opts *ClientOptions) *bridge {
	t.Helper()
	scope := registry.New()
	if _, err := scope.SetMode(mode); err != nil {
		t.Fatal(err)
	}
	c := NewClient(scope, opts)
	t.Cleanup(func() { c.Close() })
	return &bridge{scope: scope, client: c}
}

func (b *bridge) set(t *testing.T) *registry.ResolvedToolSet {
	t.Helper()
	return testreg.ResolveIn(t, b.scope)
}

// runner runs run_code programs against a bridge's tools.
type runner struct {
	ex *ptc.Executor
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	return &runner{ex: testexec.PTC(t, pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), nil)}
}

func (r *runner) run(ctx context.Context, t *testing.T, set *registry.ResolvedToolSet, code string) (*pipeline.Result, *ptc.Report) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"code": code, "description": "test program"})
	return r.ex.Run(ctx, set, pipeline.RawCall{ID: "call-1", Name: registry.RunCodeName, Arguments: string(args)})
}

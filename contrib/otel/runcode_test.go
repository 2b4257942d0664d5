package otel

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/runtime/worker"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testTools are a parallel-safe echo and a tool that always fails.
func testTools() []*registry.Tool {
	return []*registry.Tool{
		{
			Name: "echo", Description: "Echo the text.",
			Parameters:        registry.Object(registry.Required("text", registry.String())),
			Output:            registry.Output{Schema: registry.String()},
			IsConcurrencySafe: func(registry.Value) bool { return true },
			Execute: func(_ context.Context, c *registry.Call) (any, error) {
				return c.Args.Any().(map[string]any)["text"], nil
			},
		},
		{
			Name: "fail", Description: "Always fails.",
			Execute: func(context.Context, *registry.Call) (any, error) { return nil, errors.New("it broke") },
		},
	}
}

// testScope returns a deployment scope in mode with the test tools.
func testScope(t *testing.T, mode registry.Mode) *registry.Scope {
	t.Helper()
	scope := testreg.Scope(t, mode)
	testreg.Register(t, scope, testTools()...)
	return scope
}

func resolved(t *testing.T, mode registry.Mode) *registry.ResolvedToolSet {
	t.Helper()
	return testreg.ResolveIn(t, testScope(t, mode))
}

// checkGolden compares a span tree with testdata/name, which -update rewrites.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("span tree (-want +got):\n%s", diff)
	}
}

// runner returns the program runner of an isolation mode, closed with the test.
func runner(t *testing.T, isolation string) ptc.Runner {
	t.Helper()
	limits := &runtime.Limits{WallClock: 20 * time.Second}
	switch isolation {
	case "in-process":
		p, err := runtime.NewPool(&runtime.PoolOptions{Size: 1, Limits: limits})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	case "process":
		p, err := worker.New(&worker.Options{Command: []string{os.Args[0], "__worker"}, Size: 1, Limits: limits})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	}
	t.Fatalf("no isolation %q", isolation)
	return nil
}

// runProgram runs code as run_code call-1 under an "agent step" span, with tel's
// wrapper first and its Report as OnReport.
func runProgram(t *testing.T, tp *sdktrace.TracerProvider, isolation, code string) *pipeline.Result {
	t.Helper()
	tel, err := New(&Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware(), pipeline.Timeout()}})
	ex, err := ptc.New(p, &ptc.Options{Pool: runner(t, isolation), OnReport: tel.Report})
	if err != nil {
		t.Fatal(err)
	}
	ctx, step := tp.Tracer("test").Start(context.Background(), "agent step")
	defer step.End()
	args, _ := json.Marshal(map[string]string{"code": code, "description": "two sub-calls"})
	res, _ := ex.Run(ctx, resolved(t, registry.ModePTC), pipeline.RawCall{ID: "call-1", Arguments: string(args)})
	return res
}

// TestRunCodeTree: one run_code call with two sub-calls gives the same span tree in
// both isolation modes: the sub-calls are children of the run_code span, which has the
// run's figures (testdata/tree-<isolation>.golden; refresh with -update).
func TestRunCodeTree(t *testing.T) {
	programs := map[string]string{
		"ok":     `const a = await tools.echo({text: "one"}); const b = await tools.echo({text: "two"}); console.log(a); return b`,
		"failed": `await tools.echo({text: "one"}); try { await tools.fail({}) } catch (e) { console.log(e.code) } throw new Error("gave up")`,
	}
	for _, isolation := range []string{"in-process", "process"} {
		t.Run(isolation, func(t *testing.T) {
			var got string
			for _, name := range []string{"ok", "failed"} {
				tp, rec := recorder(t)
				runProgram(t, tp, isolation, programs[name])
				got += "# " + name + "\n" + spanTree(t, rec.Ended())
			}
			t.Logf("span trees:\n%s", got)
			checkGolden(t, "tree-"+isolation+".golden", got)
		})
	}
}

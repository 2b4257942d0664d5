package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/runtime"
)

func newTestSandboxes(t *testing.T) *sandboxRunner {
	t.Helper()
	r, err := newSandboxRunner()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r
}

// A sandbox runs one program with the run's namespaces, whose outcomes (a value, a
// *runtime.CallError with fields) reach the program as they do through runtime.Pool; a
// run without a sandbox created for it is refused.
func TestSandboxRunsOneProgram(t *testing.T) {
	r := newTestSandboxes(t)
	ns, err := runtime.NewNamespace("tools", []string{"echo", "fail"}, runtime.Async(func(_ context.Context, member string, args json.RawMessage) (json.RawMessage, error) {
		if member == "fail" {
			return nil, &runtime.CallError{Message: "no", Fields: map[string]string{"code": "TOOL_FAILED"}}
		}
		return args, nil
	}), &runtime.NamespaceOptions{ErrorClass: "ToolCallError"})
	if err != nil {
		t.Fatal(err)
	}
	dispose, err := r.create()
	if err != nil {
		t.Fatal(err)
	}
	defer dispose()
	code := "const r = await tools.echo({n: 1}); console.log('got', r.n); try { await tools.fail({}) } catch (e) { return [r.n + 1, e.code, e instanceof ToolCallError] }"
	res, err := r.Run(context.Background(), code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil || string(res.Value) != `[2,"TOOL_FAILED",true]` || len(res.Logs) != 1 || res.Logs[0] != "got 1" {
		t.Fatalf("got %+v (failure %v)", res, res.Failure)
	}
	if _, err := r.Run(context.Background(), "return 1", nil); err == nil || !strings.Contains(err.Error(), "no sandbox was created") {
		t.Fatalf("a second run: got %v, want the no-sandbox error", err)
	}
	dispose()
}

func TestSandboxSyntaxError(t *testing.T) {
	r := newTestSandboxes(t)
	if _, err := r.create(); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), "return (", nil)
	if err != nil || res.Failure == nil || res.Failure.Kind != runtime.KindException {
		t.Fatalf("got %+v, %v; want an exception", res, err)
	}
}

// Many sandboxes can be held at once, each after its run (the memory mode of runcode bench).
func TestSandboxesHeldAfterRuns(t *testing.T) {
	r := newTestSandboxes(t)
	var held []func()
	for range 5 {
		dispose, err := r.create()
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, dispose)
		res, err := r.Run(context.Background(), "globalThis.keep = [1, 2, 3]; return keep.length", nil)
		if err != nil || res.Failure != nil || string(res.Value) != "3" {
			t.Fatalf("got %+v, %v", res, err)
		}
	}
	for _, dispose := range held {
		dispose()
	}
}

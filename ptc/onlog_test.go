package ptc

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

// TestOnLog: Options.OnLog sees each console entry as it is logged, in order, with
// the run_code call the run serves.
func TestOnLog(t *testing.T) {
	e := newEnv(t)
	e.register(echoTool())
	var mu sync.Mutex
	var got []string
	e.ptc.OnLog = func(call *registry.Call, entry string) {
		mu.Lock()
		got = append(got, call.ID+" "+call.Name+": "+entry)
		mu.Unlock()
	}
	res, _ := e.run(context.Background(), `console.log("one", 1); await tools.echo({text: "x"}); console.error({two: 2})`)
	if res.IsError() {
		t.Fatalf("run failed: %s", resultText(res))
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"call-1 run_code: one 1", "call-1 run_code: { two: 2 }"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OnLog (-want +got):\n%s", diff)
	}
}

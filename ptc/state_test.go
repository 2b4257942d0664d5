package ptc

import (
	"context"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// TestSessionState: a session's state is read into a run and kept when the run ends
// ok; another session does not see it; a run that throws after state.set keeps
// nothing; two runs that race: the later writer fails with the spec's text.
func TestSessionState(t *testing.T) {
	e := newEnv(t)
	e.ptc.Store = store.NewMemory()
	ex, set := e.executor()
	run := func(session, code string) string {
		ctx := pipeline.WithSession(context.Background(), session)
		res, _ := ex.Run(ctx, set, runCodeCall(code))
		return resultText(res)
	}
	if got := run("a", `state.set("seen", [1, 2])`); got != "(run_code completed with no output)" {
		t.Fatalf("set: %q", got)
	}
	if got := run("a", `return state.get("seen")`); got != "[\n  1,\n  2\n]" {
		t.Errorf("session a reads %q", got)
	}
	if got := run("b", `return typeof state.get("seen")`); got != "undefined" {
		t.Errorf("session b reads %q", got)
	}
	if got := run("a", `state.set("seen", [3]); throw new Error("no")`); !strings.Contains(got, "Error: no") {
		t.Errorf("throwing run: %q", got)
	}
	if got := run("a", `return state.get("seen")`); got != "[\n  1,\n  2\n]" {
		t.Errorf("after a run that threw, session a reads %q", got)
	}
	if got := run("", `return typeof state`); got != "undefined" {
		t.Errorf("without a session: %q", got)
	}

	// Two runs of one session at once: the second to commit fails.
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	e2 := newEnv(t)
	e2.ptc.Store = store.NewMemory()
	e2.register(waitTool(started, release))
	ex2, set2 := e2.executor()
	out := make(chan string, 2)
	for i := range 2 {
		go func() {
			ctx := pipeline.WithSession(context.Background(), "c")
			res, _ := ex2.Run(ctx, set2, runCodeCall(`await tools.wait({}); state.set("n", `+string(rune('1'+i))+`)`))
			out <- resultText(res)
		}()
	}
	<-started
	<-started
	close(release)
	got := []string{<-out, <-out}
	ok, conflict := 0, 0
	for _, g := range got {
		switch g {
		case "(run_code completed with no output)":
			ok++
		case "Error: state changed by another run; run again":
			conflict++
		}
	}
	if ok != 1 || conflict != 1 {
		t.Errorf("two racing runs: %q; want one ok and one conflict", got)
	}
}

// waitTool is a concurrency-safe tool "wait" that says it started, then waits for
// release.
func waitTool(started chan<- struct{}, release <-chan struct{}) *registry.Tool {
	return &registry.Tool{Name: "wait", Description: "Wait.", IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "ok", nil
		}}
}

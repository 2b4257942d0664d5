package mcpbridge

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// policyServer is a Server over scope whose pipeline uses popts, with a Progress and
// the approval hooks wired as runcode serve wires them, and a Go SDK client for it
// speaking version (empty: the SDK's latest).
func policyServer(t *testing.T, scope *registry.Scope, popts pipeline.Options, copts *mcp.ClientOptions, version string) (*Progress, *mcp.ClientSession) {
	t.Helper()
	prog := NewProgress(nil)
	popts.Events = prog
	popts.Approve = Approve
	ex := testexec.For(t, testreg.ResolveIn(t, scope).Mode(), pipeline.New(&popts), &ptc.Options{OnLog: prog.Log})
	srv, err := NewServer(scope, ex, &ServerOptions{Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	return prog, connect(t, srv, copts, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// runCode calls run_code with code, with progressToken token unless it is nil.
func runCode(t *testing.T, ctx context.Context, cs *mcp.ClientSession, code string, token any) (*mcp.CallToolResult, error) {
	t.Helper()
	params := &mcp.CallToolParams{Name: registry.RunCodeName, Arguments: map[string]any{"code": code, "description": "test program"}}
	if token != nil {
		params.SetProgressToken(token)
	}
	return cs.CallTool(ctx, params)
}

func resultString(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestProgress: a run with two sub-calls and a console line sends progress
// notifications under the request's token, whose progress increases with each,
// whose messages say what happened, in order, and whose last one (sent before the
// response) is the final state.
func TestProgress(t *testing.T) {
	scope := servedScope(t, registry.ModePTC)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	last := make(chan struct{})
	_, cs := policyServer(t, scope, pipeline.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
			if req.Params.Progress == 5 {
				close(last)
			}
		},
	}, "")
	res, err := runCode(t, context.Background(), cs, `const a = await tools.add({a: 1, b: 2}); console.log("sum\n", a); return await tools.add({a, b: 1})`, "tok-1")
	if err != nil || res.IsError {
		t.Fatalf("run_code = %v, %v", res, err)
	}
	testwait.Receive(t, last, "the final progress notification")
	mu.Lock()
	defer mu.Unlock()
	want := []string{"tools.add started", "tools.add settled (ok)", "console: sum  3", "tools.add started", "tools.add settled (ok)"}
	prev, at := 0.0, 0
	for _, n := range got {
		if n.ProgressToken != "tok-1" {
			t.Errorf("token %v, want tok-1", n.ProgressToken)
		}
		if n.Progress <= prev {
			t.Errorf("progress %v after %v: it must increase", n.Progress, prev)
		}
		prev = n.Progress
		// Coalescing may skip states, never reorder them: the message is the one of
		// the progress-th thing that happened.
		if i := int(n.Progress) - 1; i < 0 || i >= len(want) || want[i] != n.Message || i < at {
			t.Errorf("notification %v %q does not match the events %q", n.Progress, n.Message, want)
		} else {
			at = i
		}
	}
	if n := got[len(got)-1]; n.Progress != 5 || n.Message != "tools.add settled (ok)" {
		t.Errorf("last notification = %v %q, want 5 %q", n.Progress, n.Message, "tools.add settled (ok)")
	}
}

// TestNoProgressWithoutToken: a call without a progressToken is not tracked, so
// nothing is sent for it; one with a token is tracked while it runs.
func TestNoProgressWithoutToken(t *testing.T) {
	scope := servedScope(t, registry.ModePTC)
	var prog *Progress
	tracked := func() int {
		prog.mu.Lock()
		defer prog.mu.Unlock()
		return len(prog.calls)
	}
	if _, err := scope.Register(&registry.Tool{Name: "tracked", Execute: func(context.Context, *registry.Call) (any, error) {
		return tracked(), nil
	}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notes []any
	prog, cs := policyServer(t, scope, pipeline.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, req.Params.ProgressToken)
			mu.Unlock()
		},
	}, "")
	for _, tc := range []struct {
		token any
		want  string
	}{{nil, "0"}, {"t", "1"}} {
		res, err := runCode(t, context.Background(), cs, `console.log("x"); return await tools.tracked({})`, tc.token)
		if err != nil || resultString(res) != "x\n"+tc.want {
			t.Errorf("token %v: tracked calls during the run = %q, %v; want %s", tc.token, resultString(res), err, tc.want)
		}
	}
	if n := tracked(); n != 0 {
		t.Errorf("%d calls still tracked after their responses", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(notes, nil) {
		t.Errorf("a notification without a token: %v", notes)
	}
}

// TestProgressLogLine pins the message of a console line: control characters
// become spaces, and a long line is cut to 200 bytes with "…".
func TestProgressLogLine(t *testing.T) {
	p := NewProgress(&ProgressOptions{Interval: -1})
	r := &reporter{wake: make(chan struct{}, 1)}
	p.calls["c"] = r
	p.Log(&registry.Call{ID: "c"}, "a\tb\x00c\u2028d")
	if r.msg != "console: a b c d" {
		t.Errorf("message = %q", r.msg)
	}
	p.Log(&registry.Call{ID: "x:code:1", RootID: "c"}, strings.Repeat("é", 150))
	if want := "console: " + strings.Repeat("é", 100) + "…"; r.msg != want {
		t.Errorf("long line = %q, want %q", r.msg, want)
	}
	p.Event(pipeline.Event{Type: pipeline.EventDispatch, CallID: "c:code:2", ParentID: "c", RootID: "c", Name: "t", IsError: true})
	p.Event(pipeline.Event{Type: pipeline.EventResult, CallID: "c", RootID: "c", Name: "run_code"}) // the served call's own: not counted
	p.Event(pipeline.Event{Type: pipeline.EventDispatchAbandoned, CallID: "other:code:1", ParentID: "other", RootID: "other", Name: "t"})
	if diff := cmp.Diff([]any{3, "tools.t settled (error)"}, []any{r.count, r.msg}); diff != "" {
		t.Errorf("after events (-want +got):\n%s", diff)
	}
	p.Event(pipeline.Event{Type: pipeline.EventDispatchAbandoned, CallID: "c:code:3", ParentID: "c", RootID: "c", Name: "t"})
	if r.msg != "tools.t abandoned" {
		t.Errorf("abandoned = %q", r.msg)
	}
}

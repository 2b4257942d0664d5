package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/sdkgen"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// env is a ptc executor over a fresh pool, with a deployment scope in mode ptc.
type env struct {
	t      *testing.T
	scope  *registry.Scope
	pool   *runtime.Pool
	opts   pipeline.Options
	ptc    Options
	events []pipeline.Event
	mu     sync.Mutex
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, scope: testreg.Scope(t, registry.ModePTC), pool: newPool(t, 1)}
	e.opts.Wrappers = []pipeline.Middleware{pipeline.Timeout()}
	e.opts.Events = pipeline.SinkFunc(func(ev pipeline.Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
	})
	return e
}

// newPool returns a pool of size warm VMs, closed at the end of the test.
func newPool(t testing.TB, size int) *runtime.Pool {
	t.Helper()
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

func (e *env) register(tools ...*registry.Tool) {
	e.t.Helper()
	testreg.Register(e.t, e.scope, tools...)
}

func (e *env) executor() (*Executor, *registry.ResolvedToolSet) {
	e.t.Helper()
	set := testreg.ResolveIn(e.t, e.scope)
	o := e.ptc
	o.Pool = e.pool
	ex, err := New(pipeline.New(&e.opts), &o)
	if err != nil {
		e.t.Fatal(err)
	}
	return ex, set
}

// run runs code as one run_code call and returns the result text and report.
func (e *env) run(ctx context.Context, code string) (*pipeline.Result, *Report) {
	e.t.Helper()
	ex, set := e.executor()
	args, _ := json.Marshal(map[string]string{"code": code, "description": "test program"})
	return ex.Run(ctx, set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
}

func resultText(r *pipeline.Result) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "|")
}

func echoTool() *registry.Tool {
	return &registry.Tool{
		Name:              "echo",
		Description:       "Echo the text.",
		Parameters:        registry.Object(registry.Required("text", registry.String())),
		Output:            registry.Output{Schema: registry.String()},
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(_ context.Context, c *registry.Call) (any, error) {
			return c.Args.Any().(map[string]any)["text"], nil
		},
	}
}

func TestOutputText(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"no output", `const x = 1;`, "(run_code completed with no output)"},
		{"string result raw", `return "hello"`, "hello"},
		{"number", `return 42`, "42"},
		{"null", `return null`, "null"},
		{"boolean", `return true`, "true"},
		{"array", `return [1, "a"]`, "[\n  1,\n  \"a\"\n]"},
		{"object", `return {n: 42, ok: true}`, "{\n  \"n\": 42,\n  \"ok\": true\n}"},
		{"logs and result", `console.log("saw", {x: 1}); return "done"`, "saw { x: 1 }\ndone"},
		{"logs only", `console.log("a"); console.error("b")`, "a\nb"},
		{"empty string result", `return ""`, "(run_code completed with no output)"},
		{"sub-call value", `const v = await tools.echo({text: "one"}); return v + "!"`, "one!"},
		{"typescript", "interface P { x: number }\nconst p: P = { x: (await tools.echo({ text: \"7\" })).length };\nreturn p.x as number", "1"},
		{"numbers as JavaScript spells them", `return [1e21, 0.1 + 0.2, 1e-7, 2 ** 53]`, "[\n  1e+21,\n  0.30000000000000004,\n  1e-7,\n  9007199254740992\n]"},
		{"deep and unicode", `return {a: {b: {c: {d: {e: {f: "é\u2028😀\"q"}}}}}}`, "{\n  \"a\": {\n    \"b\": {\n      \"c\": {\n        \"d\": {\n          \"e\": {\"f\":\"é\u2028😀\\\"q\"}\n        }\n      }\n    }\n  }\n}"},
	}
	e := newEnv(t)
	e.register(echoTool())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := e.run(context.Background(), tt.code)
			if res.IsError() || resultText(res) != tt.want {
				t.Errorf("got %q (error %v), want %q", resultText(res), res.Error, tt.want)
			}
			// The text comes from the run; a policy's replacement value is rendered from
			// the value. Both must read the same.
			if content, err := render(registry.Value{}, res.Value); err != nil || len(content) != 1 || content[0].Text != resultText(res) {
				t.Errorf("render(value) = %+v, %v; the run's text is %q", content, err, resultText(res))
			}
		})
	}
}

func TestFailureText(t *testing.T) {
	tests := []struct {
		name   string
		code   string
		limits *runtime.Limits
		prefix string
		suffix string
	}{
		{"exception with captured output", `console.log("before"); throw new Error("boom")`, nil,
			"Error: code run failed (exception): Error: boom", "\nCaptured output:\nbefore"},
		{"non-error thrown", `throw "plain"`, nil, "Error: code run failed (exception): plain", ""},
		{"invalid output", `return () => 1`, nil, "Error: code run failed (invalid-output): program completion must be lossless JSON", ""},
		{"output limit", `console.log("captured before failure"); return "x".repeat(100)`, &runtime.Limits{OutputBytes: 30},
			"Error: code run failed (output-limit): outer output exceeded 30 bytes", "\nCaptured output:\ncaptured before failure"},
		{"compute budget", `for (;;) {}`, &runtime.Limits{Compute: 100 * time.Millisecond},
			"Error: code run failed (timeout): compute budget exhausted (100ms busy)", ""},
		{"syntax error", `return (`, nil, "Error: code run failed (exception): SyntaxError: ", ""},
		{"memory limit", `console.log("allocating"); const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(1024) + i);`, &runtime.Limits{HeapBytes: 64 << 20, Compute: 2 * time.Minute},
			"Error: code run failed (memory-limit): heap limit of 64 MiB exceeded", "\nCaptured output:\nallocating"},
		{"wall clock", `console.log("waiting"); await new Promise((r) => setTimeout(r, 60000))`, &runtime.Limits{WallClock: 150 * time.Millisecond},
			"Error: code run failed (timeout): wall-clock ceiling reached (150ms)", "\nCaptured output:\nwaiting"},
	}
	e := newEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.ptc.Limits = tt.limits
			res, rep := e.run(context.Background(), tt.code)
			got := resultText(res)
			if !res.IsError() || res.Error.Code != pipeline.CodeRunFailed || !strings.HasPrefix(got, tt.prefix) || !strings.HasSuffix(got, tt.suffix) {
				t.Errorf("got %q (%v), want prefix %q and suffix %q", got, res.Error, tt.prefix, tt.suffix)
			}
			if tt.suffix == "" && strings.Contains(got, "Captured output:") {
				t.Errorf("no logs, yet %q", got)
			}
			if rep == nil || rep.Failure == nil {
				t.Errorf("report has no failure: %+v", rep)
			}
		})
	}
	e.ptc.Limits = nil
}

func TestRunCodeArguments(t *testing.T) {
	e := newEnv(t)
	ex, set := e.executor()
	tests := []struct{ args, want string }{
		{`{"description":"x"}`, `Error: invalid arguments: missing required property "code"`},
		{`{"code":"return 1"}`, `Error: invalid arguments: missing required property "description"`},
		{`{"code":"return 1","description":"   "}`, "Error: invalid description: expected a non-empty string"},
		{`{"code":`, `Error: invalid arguments: "arguments" must be an object`},
	}
	for _, tt := range tests {
		res, _ := ex.Run(context.Background(), set, pipeline.RawCall{ID: "c", Arguments: tt.args})
		if resultText(res) != tt.want {
			t.Errorf("args %s: got %q, want %q", tt.args, resultText(res), tt.want)
		}
	}
}

// TestSubCallErrors pins the exact ToolCallError fields a program sees for each way a
// sub-call can fail.
func TestSubCallErrors(t *testing.T) {
	e := newEnv(t)
	var ephemeralUndo func()
	e.register(echoTool(),
		&registry.Tool{Name: "thrower", Execute: func(context.Context, *registry.Call) (any, error) { return nil, errors.New("deliberate failure") }},
		&registry.Tool{Name: "slow", TimeoutMs: 20, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		&registry.Tool{Name: "guarded", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }},
		&registry.Tool{Name: "asker", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }},
	)
	var err error
	ephemeralUndo, err = e.scope.Register(&registry.Tool{Name: "ephemeral", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }})
	if err != nil {
		t.Fatal(err)
	}
	e.scope.Guard(func(c *registry.Call) string {
		if c.Name == "guarded" {
			return "guarded is off limits"
		}
		return ""
	})
	e.opts.PreExecute = []pipeline.PreExecuteFunc{func(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
		if c.Name == "asker" {
			return pipeline.Decision{Action: pipeline.Ask, Reason: "asker needs approval"}, nil
		}
		return pipeline.Decision{}, nil
	}}
	e.opts.Approve = func(_ context.Context, c *pipeline.Call, _ string) (pipeline.Approval, error) {
		if c.ParentID != "call-1" {
			t.Errorf("approval saw parent %q", c.ParentID)
		}
		return pipeline.Rejected, nil
	}
	ex, set := e.executor()
	ephemeralUndo() // unregistered after the tools were bound: the program still sees the name
	code := `
const out = [];
const attempts = {
  invalid: () => tools.echo({ text: 1 }),
  thrower: () => tools.thrower({}),
  timeout: () => tools.slow({}),
  denied: () => tools.guarded({}),
  rejected: () => tools.asker({}),
  unknown: () => tools.ephemeral({}),
  lossy: () => tools.echo({ text: "x", when: new Date(0) }),
};
for (const [name, f] of Object.entries(attempts)) {
  try { await f(); out.push(name + " resolved"); }
  catch (e) { out.push([name, e instanceof ToolCallError, e.name, e.toolName, e.code, e.message].join(" | ")); }
}
return out;`
	args, _ := json.Marshal(map[string]string{"code": code, "description": "errors"})
	res, _ := ex.Run(context.Background(), set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
	var got []string
	if err := res.Value.Decode(&struct{ Result *[]string }{&got}); err != nil {
		t.Fatalf("%v: %s", err, resultText(res))
	}
	want := []string{
		`invalid | true | ToolCallError | echo | INVALID_ARGS | invalid arguments: "text" must be a string`,
		"thrower | true | ToolCallError | thrower | TOOL_FAILED | deliberate failure",
		"timeout | true | ToolCallError | slow | TOOL_TIMEOUT | tool call timed out after 20ms",
		"denied | true | ToolCallError | guarded | DENIED | guarded is off limits",
		`rejected | true | ToolCallError | asker | DENIED | the user rejected tool "asker"`,
		`unknown | true | ToolCallError | ephemeral | UNKNOWN_TOOL | unknown tool "ephemeral"`,
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("ToolCallError fields (-want +got):\n%s", diff)
	}
	if lossy := got[len(got)-1]; lossy != "lossy | true | ToolCallError | echo | INVALID_ARGS | tool arguments must be lossless JSON: a Date at $.when" {
		t.Errorf("lossy arguments: %q", lossy)
	}
}

func TestSchedulingInsidePrograms(t *testing.T) {
	tests := []struct {
		name     string
		safe     bool
		parallel int
		want     int32
	}{
		{"safe calls overlap", true, 0, 5},
		{"exclusive calls run alone", false, 0, 1},
		{"maxParallelSubCalls caps the peak", true, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each body waits until tt.want calls have arrived in all, so the peak reaches
			// tt.want only if that many really overlap; a scheduler that serialised them
			// would stall until the run's wall clock, failing the test instead of hanging.
			var active, peak, arrived atomic.Int32
			all := make(chan struct{})
			var cls func(registry.Value) bool
			if tt.safe {
				cls = func(registry.Value) bool { return true }
			}
			e := newEnv(t)
			e.ptc.MaxParallelSubCalls = tt.parallel
			e.ptc.Limits = &runtime.Limits{WallClock: 20 * time.Second}
			e.register(&registry.Tool{Name: "t", IsConcurrencySafe: cls, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
				n := active.Add(1)
				defer active.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if arrived.Add(1) == tt.want {
					close(all)
				}
				select {
				case <-all:
				case <-ctx.Done():
				}
				return n, nil
			}})
			res, rep := e.run(context.Background(), `await Promise.all([1,2,3,4,5].map(() => tools.t({}))); return "ok"`)
			if resultText(res) != "ok" || len(rep.Calls) != 5 {
				t.Fatalf("run: %q, %d calls", resultText(res), len(rep.Calls))
			}
			if peak.Load() != tt.want {
				t.Errorf("peak = %d, want %d", peak.Load(), tt.want)
			}
		})
	}
}

// TestAbandonAndDrain ends a run (by cancelling it) while one sub-call is in flight
// and an exclusive one is queued behind it: the first is cancelled and awaited before
// run_code returns, the second is abandoned without being logged. (Commits are ordered,
// so a program cannot await a later call while an earlier one hangs; cancellation is
// the deterministic way to end a run with a call in flight.)
func TestAbandonAndDrain(t *testing.T) {
	e := newEnv(t)
	started, queued := make(chan struct{}), make(chan struct{})
	var queuedOnce sync.Once
	var cancelledSeen atomic.Bool
	e.register(
		&registry.Tool{Name: "hang", IsConcurrencySafe: func(registry.Value) bool { return true }, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			close(started)
			<-ctx.Done()
			cancelledSeen.Store(true)
			return nil, ctx.Err()
		}},
		// Its classifier runs when the call is submitted: the cancellation waits for it,
		// so the writer is queued before the run ends.
		&registry.Tool{Name: "writer", IsConcurrencySafe: func(registry.Value) bool { queuedOnce.Do(func() { close(queued) }); return false },
			Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }},
	)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-started; <-queued; cancel(errors.New("user-cancel")) }()
	res, rep := e.run(ctx, `tools.hang({}); tools.writer({}).catch(() => {}); await new Promise(() => {})`)
	if got := resultText(res); got != "Error: code run failed (abort): user-cancel" {
		t.Fatalf("got %q", got)
	}
	if !cancelledSeen.Load() {
		t.Error("the in-flight sub-call was not cancelled and drained before run_code returned")
	}
	if len(rep.Calls) != 2 || rep.Calls[0].Result == nil || rep.Calls[0].NeverStarted || rep.Calls[0].AbandonedRunning || !rep.Calls[1].NeverStarted {
		t.Fatalf("calls = %+v", rep.Calls)
	}
	if got := rep.Calls[0].Result.Error.Code; got != pipeline.CodeAborted {
		t.Errorf("drained call: %s", got)
	}
	if got := rep.Calls[1].Result.Error.Message; got != "run_code run is over (user-cancel); writer tool call abandoned" {
		t.Errorf("abandoned message: %q", got)
	}
	for _, ev := range e.events {
		if ev.CallID == "call-1:code:2" {
			t.Errorf("an abandoned call logged %s", ev.Type)
		}
	}
}

// TestDrainedSubCallIsAborted pins the code of a sub-call still running when the
// program settles: the run cancels it, and a body that gives up with its context's
// cause (the run being over) was aborted, not broken. (ping is submitted first:
// commits are in submission order, so a ping after hang would wait for hang.)
func TestDrainedSubCallIsAborted(t *testing.T) {
	e := newEnv(t)
	started := make(chan struct{})
	e.register(
		&registry.Tool{Name: "hang", IsConcurrencySafe: func(registry.Value) bool { return true }, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, context.Cause(ctx)
		}},
		&registry.Tool{Name: "ping", IsConcurrencySafe: func(registry.Value) bool { return true }, Execute: func(context.Context, *registry.Call) (any, error) {
			<-started
			return "pong", nil
		}},
	)
	res, rep := e.run(context.Background(), `const p = tools.ping({}); tools.hang({}).catch(() => {}); return await p`)
	const want = "Warning: 1 tool call was started but not awaited before the program ended (hang); its result was lost. Put await before each call (await tools.name(args)), or await Promise.all([...]) for calls meant to run together.\npong"
	if got := resultText(res); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if len(rep.Calls) != 2 || rep.Calls[1].Result == nil || rep.Calls[1].NeverStarted {
		t.Fatalf("calls = %+v", rep.Calls)
	}
	if got := rep.Calls[1].Result.Error; got == nil || got.Code != pipeline.CodeAborted || got.Message != "tool call aborted" {
		t.Errorf("drained call: %+v", got)
	}
}

func TestEventsForTwoSubCalls(t *testing.T) {
	e := newEnv(t)
	e.register(echoTool())
	res, _ := e.run(context.Background(), `const a = await tools.echo({text: "one"}); console.log("saw " + a); return await tools.echo({text: "two"})`)
	if resultText(res) != "saw one\ntwo" {
		t.Fatalf("got %q", resultText(res))
	}
	var got []string
	for _, ev := range e.events {
		got = append(got, fmt.Sprintf("%s %s %s parent=%q root=%q %s error=%v %s", ev.Type, ev.CallID, ev.Name, ev.ParentID, ev.RootID, ev.Args, ev.IsError, ev.Content))
	}
	want := []string{
		`tool/call call-1 run_code parent="" root="call-1" {"code":"const a = await tools.echo({text: \"one\"}); console.log(\"saw \" + a); return await tools.echo({text: \"two\"})","description":"test program"} error=false []`,
		`tool/code-dispatch-start call-1:code:1 echo parent="call-1" root="call-1" {"text":"one"} error=false []`,
		`tool/code-dispatch call-1:code:1 echo parent="call-1" root="call-1" {"text":"one"} error=false [{text one   }]`,
		`tool/code-dispatch-start call-1:code:2 echo parent="call-1" root="call-1" {"text":"two"} error=false []`,
		`tool/code-dispatch call-1:code:2 echo parent="call-1" root="call-1" {"text":"two"} error=false [{text two   }]`,
		`tool/result call-1 run_code parent="" root="call-1" {"code":"const a = await tools.echo({text: \"one\"}); console.log(\"saw \" + a); return await tools.echo({text: \"two\"})","description":"test program"} error=false [{text saw one` + "\n" + `two   }]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestImagesAttributed(t *testing.T) {
	e := newEnv(t)
	png := registry.Content{Type: "image", Data: "iVBORw0KGgo=", MIMEType: "image/png"}
	e.register(
		&registry.Tool{Name: "shot", Execute: func(context.Context, *registry.Call) (any, error) { return "shot.png", nil },
			Output: registry.Output{Render: func(_, v registry.Value) ([]registry.Content, error) {
				return []registry.Content{registry.Text("<path>shot.png</path>"), png}, nil
			}}},
		echoTool(),
	)
	res, rep := e.run(context.Background(), `await tools.echo({text: "a"}); await tools.shot({}); throw new Error("later failure")`)
	if !res.IsError() {
		t.Fatalf("expected the program to fail: %q", resultText(res))
	}
	want := []pipeline.AdditionalContext{{Source: "run_code", CallID: "call-1:code:2", Tool: "shot", Content: []registry.Content{registry.Text("<path>shot.png</path>"), png}}}
	if diff := cmp.Diff(want, res.Contexts); diff != "" {
		t.Errorf("contexts on the result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, rep.Contexts); diff != "" {
		t.Errorf("contexts in the report (-want +got):\n%s", diff)
	}
	if strings.Contains(resultText(res), "iVBOR") {
		t.Error("image data leaked into the text result")
	}
}

// TestRecordsCountAgainstHeap: what the host keeps of a run's sub-calls is bounded by the
// run's heap budget, the executor's or else the pool's: 300 KB results (600 KB with their
// text) end a run under 1 MiB at the second call and one under 2 MiB at the fourth.
func TestRecordsCountAgainstHeap(t *testing.T) {
	blob := &registry.Tool{Name: "blob", Execute: func(context.Context, *registry.Call) (any, error) { return strings.Repeat("b", 300_000), nil }}
	for _, tt := range []struct {
		name     string
		executor *runtime.Limits
		pool     *runtime.Limits
		want     string
		calls    int
	}{
		{"executor's budget", &runtime.Limits{HeapBytes: 1 << 20}, nil, "heap limit of 1 MiB", 2},
		{"pool's budget", nil, &runtime.Limits{HeapBytes: 2 << 20}, "heap limit of 2 MiB", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.pool != nil {
				pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1, Limits: tt.pool})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { pool.Close() })
				e.pool = pool
			}
			e.ptc.Limits = tt.executor
			e.register(blob)
			res, rep := e.run(context.Background(), `for (let i = 0; i < 10; i++) try { await tools.blob({}) } catch {}`)
			want := "Error: code run failed (memory-limit): " + tt.want + " exceeded by the arguments and results of its tool calls"
			if got := resultText(res); got != want {
				t.Errorf("text = %q, want %q", got, want)
			}
			if len(rep.Calls) != tt.calls {
				t.Errorf("%d sub-calls, want %d", len(rep.Calls), tt.calls)
			}
		})
	}
}

func TestModesAndDescribe(t *testing.T) {
	e := newEnv(t)
	e.register(echoTool())
	ex, set := e.executor()
	d, err := ex.Describe(set)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tools) != 1 || d.Tools[0].Name != "run_code" || len(d.Sections) != 2 || d.Sections[0].Name != SectionRules ||
		!strings.Contains(d.Sections[1].Text, "declare const tools: {") || strings.Contains(d.Sections[1].Text, "run_code:") {
		t.Errorf("ptc describe: %+v", d)
	}
	results := ex.Execute(context.Background(), set, []pipeline.RawCall{
		{ID: "d1", Name: "echo", Arguments: `{"text":"direct"}`},
		{ID: "d2", Name: "run_code", Arguments: `{"code":"return await tools.echo({text:'inside'})","description":"inside"}`},
	})
	want := []string{"Error: unknown tool \"echo\": only `run_code` is callable directly — call `echo` from inside a `run_code` program instead", "inside"}
	if diff := cmp.Diff(want, []string{resultText(results[0]), resultText(results[1])}); diff != "" {
		t.Errorf("ptc batch (-want +got):\n%s", diff)
	}

	both := newEnv(t)
	both.scope = registry.New()
	if _, err := both.scope.SetMode(registry.ModeBoth); err != nil {
		t.Fatal(err)
	}
	both.register(echoTool())
	ex, set = both.executor()
	d, _ = ex.Describe(set)
	if len(d.Tools) != 2 || d.Tools[0].Name != "echo" || d.Tools[1].Name != "run_code" || len(d.Sections) != 1 {
		t.Errorf("both describe: %+v", d)
	}
	results = ex.Execute(context.Background(), set, []pipeline.RawCall{{ID: "d1", Name: "echo", Arguments: `{"text":"direct"}`}})
	if resultText(results[0]) != "direct" {
		t.Errorf("direct call under both: %q", resultText(results[0]))
	}
}

func TestPolicySeesTheProgram(t *testing.T) {
	e := newEnv(t)
	e.opts.PreExecute = []pipeline.PreExecuteFunc{func(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
		if c.Name == "run_code" && strings.Contains(c.Args.String(), "rm -rf") {
			return pipeline.Decision{Action: pipeline.Deny, Reason: "no deleting"}, nil
		}
		return pipeline.Decision{}, nil
	}}
	res, rep := e.run(context.Background(), `return "rm -rf /"`)
	if resultText(res) != "Error: no deleting" || rep != nil {
		t.Errorf("got %q, report %+v (the program must not run)", resultText(res), rep)
	}
}

func TestAbortMidRun(t *testing.T) {
	e := newEnv(t)
	started := make(chan struct{})
	e.register(&registry.Tool{Name: "wait", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-started; cancel(errors.New("user-cancel")) }()
	res, _ := e.run(ctx, `console.log("before"); await tools.wait({}); return "never"`)
	if resultText(res) != "Error: code run failed (abort): user-cancel\nCaptured output:\nbefore" {
		t.Errorf("got %q", resultText(res))
	}
	// Pre-aborted: the runtime is never invoked.
	res, rep := e.run(ctx, `return 1`)
	if resultText(res) != "Error: tool call aborted before dispatch" || rep != nil {
		t.Errorf("pre-aborted: %q, report %v", resultText(res), rep)
	}
}

// TestSDKBudget: past the budget the SDK section is an index, the same text for the
// same set (rendered once and kept with it); a negative budget always declares.
// Programs search and call in one run, and discovery is no sub-call.
func TestSDKBudget(t *testing.T) {
	e := newEnv(t)
	e.register(echoTool())
	e.ptc.SDKBudget = 10
	ex, set := e.executor()
	d, err := ex.Describe(set)
	if err != nil {
		t.Fatal(err)
	}
	sdk := d.Sections[1].Text
	if !strings.Contains(sdk, "There are 1 tool,") || !strings.Contains(sdk, "- echo: Echo the text.") || strings.Contains(sdk, "interface ToolArgsMap {\n") {
		t.Errorf("over the budget the section is not an index:\n%s", sdk)
	}
	if again := ex.SDK(set); again != sdk {
		t.Error("the section changed for the same set")
	}
	args, _ := json.Marshal(map[string]string{"description": "search then call", "code": `const [hit] = await tools.$search("echo text");
const d = await tools.$describe(hit.name);
return [hit.name, d.includes("echo: {"), await tools[hit.name]({ text: "hi" })]`})
	res, rep := ex.Run(context.Background(), set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
	if got := resultText(res); got != "[\n  \"echo\",\n  true,\n  \"hi\"\n]" {
		t.Errorf("result %q", got)
	}
	if len(rep.Calls) != 1 || rep.Calls[0].ID != "call-1:code:1" {
		t.Errorf("sub-calls %+v: discovery must not be one", rep.Calls)
	}

	e.ptc.SDKBudget = -1
	ex, set = e.executor()
	if got := ex.SDK(set); !strings.Contains(got, "interface ToolArgsMap {\n") {
		t.Errorf("a negative budget did not render the full SDK:\n%s", got)
	}
}

// TestSDKBudgetZero: a zero SDKBudget is sdkgen.DefaultBudget (what --sdk-budget 0
// means too), not "always the full SDK", which is a negative budget.
func TestSDKBudgetZero(t *testing.T) {
	e := newEnv(t)
	for i := range 80 {
		tool := echoTool()
		tool.Name = fmt.Sprintf("echo_%02d", i)
		tool.Description = strings.Repeat("Echo the text back, described at length. ", 5)
		e.register(tool)
	}
	sdks := map[int]string{}
	for _, budget := range []int{0, sdkgen.DefaultBudget, -1} {
		e.ptc.SDKBudget = budget
		ex, set := e.executor()
		sdks[budget] = ex.SDK(set)
	}
	if !strings.Contains(sdks[0], "There are 80 tools") || sdks[0] != sdks[sdkgen.DefaultBudget] {
		t.Errorf("SDKBudget 0 is not the default budget:\n%.400s", sdks[0])
	}
	if strings.Contains(sdks[-1], "There are 80 tools") || !strings.Contains(sdks[-1], "interface ToolArgsMap {\n") {
		t.Errorf("SDKBudget -1 is not the full SDK:\n%.400s", sdks[-1])
	}
}

// TestSDKLeavesOutDeniedTools: a tool a guard denies outright is neither declared in the
// SDK nor described by tools.$describe, so the two never disagree.
func TestSDKLeavesOutDeniedTools(t *testing.T) {
	e := newEnv(t)
	e.register(echoTool(), &registry.Tool{Name: "guarded", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }})
	e.scope.Guard(func(c *registry.Call) string {
		if c.Name == "guarded" {
			return "guarded is off limits"
		}
		return ""
	})
	ex, set := e.executor()
	if sdk := ex.SDK(set); strings.Contains(sdk, "guarded") || !strings.Contains(sdk, "echo") {
		t.Errorf("SDK declares guarded (or not echo):\n%s", sdk)
	}
	res, _ := e.run(context.Background(), `try { await tools.$describe("guarded"); return "described" } catch (e) { return e.message }`)
	if got := resultText(res); got != `unknown tool "guarded"` {
		t.Errorf("$describe(guarded) = %q, want unknown tool", got)
	}
}

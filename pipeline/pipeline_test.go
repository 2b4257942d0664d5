package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

func TestChainOrder(t *testing.T) {
	var tr trace
	mw := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, c *Call) (*Result, error) {
				tr.add(">" + name)
				defer tr.add("<" + name)
				return next(ctx, c)
			}
		}
	}
	h := Chain(func(context.Context, *Call) (*Result, error) { tr.add("handler"); return &Result{}, nil }, mw("a"), mw("b"), mw("c"))
	if _, err := h(context.Background(), &Call{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{">a", ">b", ">c", "handler", "<c", "<b", "<a"}, tr.get()); diff != "" {
		t.Errorf("chain order (-want +got):\n%s", diff)
	}
}

// TestStageOrder pins the order of every stage for one successful call, and that
// every stage sees the same frozen arguments.
func TestStageOrder(t *testing.T) {
	var tr trace
	args := registry.MustParseValue(`{"text":"hi"}`)
	tool := echoTool("echo")
	body := tool.Execute
	tool.Execute = func(ctx context.Context, c *registry.Call) (any, error) {
		tr.add("body " + c.Args.String())
		return body(ctx, c)
	}
	tool.ProjectContent = func(c *registry.Call, v registry.Value, rendered []registry.Content) ([]registry.Content, error) {
		tr.add("project " + v.String())
		return rendered, nil
	}
	tool.FinalizeContent = func(c *registry.Call, content []registry.Content, isError bool) []registry.Content {
		tr.add(fmt.Sprintf("finalize isError=%v", isError))
		return content
	}
	scope := registry.New()
	scope.Guard(func(c *registry.Call) string { tr.add("guard " + c.Args.String()); return "" })
	set := resolveIn(t, scope, tool)
	p := New(&Options{
		PreExecute: []PreExecuteFunc{func(_ context.Context, c *Call) (Decision, error) {
			tr.add("pre " + c.Args.String())
			return Decision{}, nil
		}},
		Wrappers: []Middleware{func(next Handler) Handler {
			return func(ctx context.Context, c *Call) (*Result, error) {
				tr.add(">wrapper")
				defer tr.add("<wrapper")
				return next(ctx, c)
			}
		}},
		PostExecute: []PostExecuteFunc{func(_ context.Context, c *Call, r *Result) (PostAction, error) {
			tr.add("post " + r.Value.String())
			return PostAction{}, nil
		}},
		Observers: []ObserverFunc{func(c *Call, r Result) { tr.add("observe " + text(&r)) }},
		Events:    SinkFunc(func(e Event) { tr.add("event " + e.Type) }),
	})
	res := p.Run(context.Background(), set, registry.Call{ID: "c1", Name: "echo", Args: args})
	want := []string{
		"event tool/call",
		`pre {"text":"hi"}`,
		`guard {"text":"hi"}`,
		">wrapper",
		`body {"text":"hi"}`,
		`project "hi"`,
		"<wrapper",
		`post "hi"`,
		"finalize isError=false",
		"observe hi",
		"event tool/result",
	}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("stage order (-want +got):\n%s", diff)
	}
	if res.IsError() || res.Value.String() != `"hi"` || text(res) != "hi" || res.CallID != "c1" || res.Name != "echo" {
		t.Errorf("result = %+v", res)
	}
}

func TestErrorCodesAndMessages(t *testing.T) {
	tests := []struct {
		name     string
		tools    []*registry.Tool
		opts     Options
		call     registry.Call
		cancel   bool
		wantCode Code
		wantText string
	}{
		{
			name: "invalid args", tools: []*registry.Tool{echoTool("echo")},
			call: call("echo", `{"text":1,"x":2}`), wantCode: CodeInvalidArgs,
			wantText: `Error: invalid arguments: "text" must be a string`,
		},
		{
			name: "arguments not an object", tools: []*registry.Tool{echoTool("echo")},
			call: registry.Call{Name: "echo", Args: ParseArguments(`{not json`)}, wantCode: CodeInvalidArgs,
			wantText: `Error: invalid arguments: "arguments" must be an object`,
		},
		{
			name: "unknown tool", call: call("nope", `{}`), wantCode: CodeUnknownTool,
			wantText: `Error: unknown tool "nope"`,
		},
		{
			name: "body error", tools: []*registry.Tool{{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) {
				return nil, errors.New("disk on fire")
			}}},
			call: call("f", `{}`), wantCode: CodeToolFailed, wantText: "Error: disk on fire",
		},
		{
			name: "body panic", tools: []*registry.Tool{{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) {
				panic("nil map")
			}}},
			call: call("f", `{}`), wantCode: CodeToolFailed, wantText: `Error: tool "f" panicked: nil map`,
		},
		{
			name: "body returns a ToolError code", tools: []*registry.Tool{{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) {
				return nil, &ToolError{Code: CodeDenied, Message: "sandbox says no"}
			}}},
			call: call("f", `{}`), wantCode: CodeDenied, wantText: "Error: sandbox says no",
		},
		{
			name: "output schema mismatch", tools: []*registry.Tool{{Name: "f", Output: registry.Output{Schema: registry.Integer()},
				Execute: func(context.Context, *registry.Call) (any, error) { return "x", nil }}},
			call: call("f", `{}`), wantCode: CodeInvalidToolOutput, wantText: `Error: tool "f" returned invalid output: "output" must be an integer`,
		},
		{
			name: "lossy output", tools: []*registry.Tool{{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) {
				return map[string]any{"c": make(chan int)}, nil
			}}},
			call: call("f", `{}`), wantCode: CodeInvalidToolOutput, wantText: `Error: tool "f" returned invalid output: not lossless JSON: json: unsupported type: chan int`,
		},
		{
			name: "render failure", tools: []*registry.Tool{{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil },
				Output: registry.Output{Render: func(_, _ registry.Value) ([]registry.Content, error) { return nil, errors.New("bad template") }}}},
			call: call("f", `{}`), wantCode: CodeInvalidToolOutput, wantText: "Error: output.render failed: bad template",
		},
		{
			name: "pre-execute deny", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) {
				return Decision{Action: Deny, Reason: "writes are disabled"}, nil
			}}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeDenied, wantText: "Error: writes are disabled",
		},
		{
			name: "ask without a hook uses the reason", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) {
				return Decision{Action: Ask, Reason: "echo needs a human"}, nil
			}}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeDenied, wantText: "Error: echo needs a human",
		},
		{
			name: "ask without a hook or reason", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) {
				return Decision{Action: Ask}, nil
			}}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeDenied, wantText: `Error: tool "echo" requires approval (not yet supported)`,
		},
		{
			name: "pre-execute error", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) {
				return Decision{}, errors.New("policy store unreachable")
			}}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeToolFailed, wantText: "Error: policy store unreachable",
		},
		{
			name: "pre-execute panic", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { panic("bug") }}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeToolFailed, wantText: "Error: pre-execute panicked: bug",
		},
		{
			name: "wrapper panic", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{Wrappers: []Middleware{func(Handler) Handler {
				return func(context.Context, *Call) (*Result, error) { panic("metrics bug") }
			}}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeToolFailed, wantText: "Error: execute wrapper panicked: metrics bug",
		},
		{
			name: "wrapper error", tools: []*registry.Tool{echoTool("echo")},
			opts: Options{Wrappers: []Middleware{func(Handler) Handler {
				return func(context.Context, *Call) (*Result, error) { return nil, errors.New("retry budget spent") }
			}}},
			call: call("echo", `{"text":"x"}`), wantCode: CodeToolFailed, wantText: "Error: retry budget spent",
		},
		{
			name: "pre-aborted", tools: []*registry.Tool{echoTool("echo")}, cancel: true,
			call: call("echo", `{"text":"x"}`), wantCode: CodeAbortedBeforeDispatch, wantText: "Error: tool call aborted before dispatch",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			res := New(&tt.opts).Run(ctx, resolve(t, tt.tools...), tt.call)
			if res.Error == nil || res.Error.Code != tt.wantCode || text(res) != tt.wantText {
				t.Fatalf("got code %v text %q, want %v %q", res.Error, text(res), tt.wantCode, tt.wantText)
			}
			if !res.Value.IsZero() {
				t.Errorf("failed result has a value: %s", res.Value)
			}
			if !errors.Is(res.Error, &ToolError{Code: tt.wantCode}) {
				t.Errorf("errors.Is does not match the code's sentinel")
			}
		})
	}
}

func TestApproval(t *testing.T) {
	ask := []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Ask, Reason: "sure?"}, nil }}
	tests := []struct {
		name   string
		answer Approval
		err    error
		want   string
	}{
		{"allowed once", AllowedOnce, nil, "x"},
		{"rejected", Rejected, nil, `Error: the user rejected tool "echo"`},
		{"cancelled", Cancelled, nil, `Error: approval for tool "echo" was cancelled`},
		{"unavailable", Unavailable, nil, `Error: tool "echo" requires approval, but no approval channel is available`},
		{"hook error", AllowedOnce, errors.New("ui gone"), `Error: approval for tool "echo" failed: ui gone`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotReason string
			p := New(&Options{PreExecute: ask, Approve: func(_ context.Context, _ *Call, reason string) (Approval, error) {
				gotReason = reason
				return tt.answer, tt.err
			}})
			res := p.Run(context.Background(), resolve(t, echoTool("echo")), call("echo", `{"text":"x"}`))
			if text(res) != tt.want || gotReason != "sure?" {
				t.Errorf("got %q (reason %q), want %q", text(res), gotReason, tt.want)
			}
			if tt.answer != AllowedOnce || tt.err != nil {
				if res.Error.Code != CodeDenied {
					t.Errorf("code = %s, want DENIED", res.Error.Code)
				}
			}
		})
	}
}

func TestGuards(t *testing.T) {
	scope := registry.New()
	var ran []string
	scope.Guard(func(*registry.Call) string { ran = append(ran, "first"); return "" })
	scope.Guard(func(c *registry.Call) string { ran = append(ran, "second"); return "no " + c.Name + " today" })
	scope.Guard(func(*registry.Call) string { ran = append(ran, "third"); return "" })
	bodyRan := false
	tool := echoTool("echo")
	tool.Execute = func(context.Context, *registry.Call) (any, error) { bodyRan = true; return "x", nil }
	postSaw := ""
	p := New(&Options{
		PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Allow}, nil }},
		PostExecute: []PostExecuteFunc{func(_ context.Context, _ *Call, r *Result) (PostAction, error) {
			postSaw = r.Error.Message
			return PostAction{}, nil
		}},
	})
	res := p.Run(context.Background(), resolveIn(t, scope, tool), call("echo", `{"text":"x"}`))
	if text(res) != "Error: no echo today" || res.Error.Code != CodeDenied || bodyRan {
		t.Errorf("guard denial: %q code %s bodyRan %v", text(res), res.Error.Code, bodyRan)
	}
	if diff := cmp.Diff([]string{"first", "second"}, ran); diff != "" {
		t.Errorf("guards ran (-want +got):\n%s", diff)
	}
	if postSaw != "no echo today" {
		t.Errorf("post-execute did not see the denial: %q", postSaw)
	}
}

func TestModeCollapse(t *testing.T) {
	scope := registry.New()
	if _, err := scope.SetMode(registry.ModePTC); err != nil {
		t.Fatal(err)
	}
	preRan := false
	p := New(&Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { preRan = true; return Decision{}, nil }}})
	set := resolveIn(t, scope, echoTool("write"))
	res := p.Run(context.Background(), set, call("write", `{"text":"x"}`))
	want := "Error: unknown tool \"write\": only `run_code` is callable directly — call `write` from inside a `run_code` program instead"
	if text(res) != want || res.Error.Code != CodeUnknownTool || preRan {
		t.Errorf("collapsed call: %q (%s), pre-execute ran: %v", text(res), res.Error.Code, preRan)
	}
	// A sub-call (with a parent) is not collapsed.
	sub := call("write", `{"text":"x"}`)
	sub.ParentID = "call-1"
	if res := p.Run(context.Background(), set, sub); res.IsError() {
		t.Errorf("sub-call was collapsed: %q", text(res))
	}
	// A genuinely unknown name is not collapsed: policy sees it, dispatch fails it.
	preRan = false
	if res := p.Run(context.Background(), set, call("nope", `{}`)); text(res) != `Error: unknown tool "nope"` || !preRan {
		t.Errorf("unknown under ptc: %q, pre-execute ran %v", text(res), preRan)
	}
	// Pre-aborted collapsed call.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := p.Run(ctx, set, call("write", `{"text":"x"}`)); res.Error.Code != CodeAbortedBeforeDispatch {
		t.Errorf("pre-aborted collapsed call: %s", res.Error.Code)
	}
}

func TestPostExecute(t *testing.T) {
	ctxBlock := registry.Text("see the policy")
	tests := []struct {
		name      string
		args      string
		hooks     []PostExecuteFunc
		wantText  string
		wantValue string
		wantCode  Code
		wantCtx   []string
	}{
		{
			name: "accept", args: `{"text":"a"}`,
			hooks:    []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) { return PostAction{}, nil }},
			wantText: "a", wantValue: `"a"`,
		},
		{
			name: "replace content keeps value", args: `{"text":"secret"}`,
			hooks: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
				return PostAction{ReplaceContent: []registry.Content{registry.Text("[redacted]")}}, nil
			}},
			wantText: "[redacted]", wantValue: `"secret"`,
		},
		{
			name: "replace value is re-rendered", args: `{"text":"a"}`,
			hooks: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
				v := registry.StringValue("b")
				return PostAction{ReplaceValue: &v}, nil
			}},
			wantText: "b", wantValue: `"b"`,
		},
		{
			name: "replace value is re-validated", args: `{"text":"a"}`,
			hooks: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
				v := registry.MustParseValue(`42`)
				return PostAction{ReplaceValue: &v}, nil
			}},
			wantText: `Error: tool "echo" returned invalid output: "output" must be a string`, wantCode: CodeInvalidToolOutput,
		},
		{
			name: "block with feedback", args: `{"text":"a"}`,
			hooks: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
				return PostAction{Block: true, Feedback: []registry.Content{registry.Text("too big"), {Type: "image", Data: "AA==", MIMEType: "image/png"}}}, nil
			}},
			wantText: "Error: too big\n[image content]", wantCode: CodeDenied,
		},
		{
			name: "block without feedback", args: `{"text":"a"}`,
			hooks: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
				return PostAction{Block: true}, nil
			}},
			wantText: "Error: tool result blocked by post-execute policy", wantCode: CodeDenied,
		},
		{
			name: "both replacements", args: `{"text":"a"}`,
			hooks: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
				v := registry.StringValue("b")
				return PostAction{ReplaceValue: &v, ReplaceContent: []registry.Content{registry.Text("c")}}, nil
			}},
			wantText: "Error: post-execute policy replaced both content and value; replace one", wantCode: CodeToolFailed,
		},
		{
			name: "contexts in hook order, on failures too", args: `{"text":1}`,
			hooks: []PostExecuteFunc{
				func(context.Context, *Call, *Result) (PostAction, error) {
					return PostAction{Contexts: []AdditionalContext{{Source: "one", Content: []registry.Content{ctxBlock}}}}, nil
				},
				func(context.Context, *Call, *Result) (PostAction, error) {
					return PostAction{Contexts: []AdditionalContext{{Source: "two"}}}, nil
				},
			},
			wantText: `Error: invalid arguments: "text" must be a string`, wantCode: CodeInvalidArgs, wantCtx: []string{"one", "two"},
		},
		{
			name: "post-execute panic", args: `{"text":"a"}`,
			hooks:    []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) { panic("policy bug") }},
			wantText: "Error: post-execute panicked: policy bug", wantCode: CodeToolFailed,
		},
		{
			name: "hook cannot change the outcome it was shown", args: `{"text":"a"}`,
			hooks: []PostExecuteFunc{func(_ context.Context, _ *Call, r *Result) (PostAction, error) {
				r.Content[0].Text = "tampered"
				r.Value = registry.StringValue("tampered")
				return PostAction{}, nil
			}},
			wantText: "a", wantValue: `"a"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := New(&Options{PostExecute: tt.hooks}).Run(context.Background(), resolve(t, echoTool("echo")), call("echo", tt.args))
			if text(res) != tt.wantText || res.Value.String() != tt.wantValue {
				t.Errorf("got %q value %q, want %q value %q", text(res), res.Value, tt.wantText, tt.wantValue)
			}
			if tt.wantCode != "" && (res.Error == nil || res.Error.Code != tt.wantCode) {
				t.Errorf("code = %v, want %s", res.Error, tt.wantCode)
			}
			var sources []string
			for _, c := range res.Contexts {
				sources = append(sources, c.Source)
			}
			if diff := cmp.Diff(tt.wantCtx, sources); diff != "" {
				t.Errorf("contexts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFinalizeExactlyOnce runs FinalizeContent for every kind of outcome and counts.
func TestFinalizeExactlyOnce(t *testing.T) {
	outcomes := []struct {
		name string
		args string
		opts Options
		ctx  func() context.Context
	}{
		{name: "success", args: `{"text":"a"}`},
		{name: "invalid args", args: `{}`},
		{name: "denied", args: `{"text":"a"}`, opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Deny}, nil }}}},
		{name: "pre-execute failure", args: `{"text":"a"}`, opts: Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { panic(1) }}}},
		{name: "blocked", args: `{"text":"a"}`, opts: Options{PostExecute: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) { return PostAction{Block: true}, nil }}}},
		{name: "pre-aborted", args: `{"text":"a"}`, ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
	}
	for _, o := range outcomes {
		t.Run(o.name, func(t *testing.T) {
			n := 0
			tool := echoTool("echo")
			tool.FinalizeContent = func(_ *registry.Call, content []registry.Content, isError bool) []registry.Content {
				n++
				return append(content, registry.Text("finalized"))
			}
			ctx := context.Background()
			if o.ctx != nil {
				ctx = o.ctx()
			}
			res := New(&o.opts).Run(ctx, resolve(t, tool), call("echo", o.args))
			if n != 1 {
				t.Errorf("FinalizeContent ran %d times", n)
			}
			if last := res.Content[len(res.Content)-1]; last.Text != "finalized" {
				t.Errorf("finalized content not kept: %+v", res.Content)
			}
		})
	}
	// A panicking finalizer turns the outcome into an error, still once.
	n := 0
	tool := echoTool("echo")
	tool.FinalizeContent = func(*registry.Call, []registry.Content, bool) []registry.Content { n++; panic("finalizer bug") }
	res := New(nil).Run(context.Background(), resolve(t, tool), call("echo", `{"text":"a"}`))
	if n != 1 || text(res) != "Error: finalizeContent panicked: finalizer bug" {
		t.Errorf("panicking finalizer: ran %d, %q", n, text(res))
	}
}

func TestObserversAndEvents(t *testing.T) {
	var seen []string
	var events []Event
	var logged strings.Builder
	p := New(&Options{
		Logger: slog.New(slog.NewTextHandler(&logged, nil)),
		Observers: []ObserverFunc{
			func(_ *Call, r Result) { r.Content[0].Text = "mutated"; panic("observer bug") },
			func(_ *Call, r Result) { seen = append(seen, text(&r)) },
		},
		Events: SinkFunc(func(e Event) { events = append(events, e) }),
	})
	set := resolve(t, echoTool("echo"))
	res := p.Run(context.Background(), set, call("echo", `{"text":"a"}`))
	if text(res) != "a" {
		t.Errorf("observer changed the outcome: %q", text(res))
	}
	if diff := cmp.Diff([]string{"a"}, seen); diff != "" {
		t.Errorf("second observer (-want +got):\n%s", diff)
	}
	if !strings.Contains(logged.String(), `msg="tool result observer panicked" tool=echo call=c1 panic="observer bug"`) {
		t.Errorf("observer panic not logged: %q", logged.String())
	}
	if len(events) != 2 || events[0].Type != EventCall || events[1].Type != EventResult || events[1].IsError || events[0].Args.String() != `{"text":"a"}` {
		t.Errorf("events = %+v", events)
	}
	// Sub-calls produce the dispatch pair instead of tool/call and tool/result.
	events = nil
	sub := call("echo", `{"text":"a"}`)
	sub.ID, sub.RootID, sub.ParentID = "c1:code:1", "c1", "c1"
	p.Run(context.Background(), set, sub)
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s %s root=%s parent=%s %s isError=%v %v", e.Type, e.CallID, e.RootID, e.ParentID, e.Args, e.IsError, e.Content))
	}
	want := []string{
		`tool/code-dispatch-start c1:code:1 root=c1 parent=c1 {"text":"a"} isError=false []`,
		`tool/code-dispatch c1:code:1 root=c1 parent=c1 {"text":"a"} isError=false [{text a   }]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sub-call events (-want +got):\n%s", diff)
	}
}

func TestCancellation(t *testing.T) {
	t.Run("success after cancel becomes ABORTED", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		tool := &registry.Tool{Name: "stubborn", Execute: func(context.Context, *registry.Call) (any, error) {
			cancel() // the caller cancels while the body runs; the body ignores it
			return "done anyway", nil
		}}
		postRan := false
		res := New(&Options{PostExecute: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) {
			postRan = true
			return PostAction{}, nil
		}}}).Run(ctx, resolve(t, tool), call("stubborn", `{}`))
		if text(res) != "Error: tool call aborted" || res.Error.Code != CodeAborted || !postRan {
			t.Errorf("got %q (%v), post ran %v", text(res), res.Error, postRan)
		}
	})
	t.Run("failure is kept over cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		tool := &registry.Tool{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) {
			cancel()
			return nil, errors.New("real failure")
		}}
		if res := New(nil).Run(ctx, resolve(t, tool), call("f", `{}`)); text(res) != "Error: real failure" {
			t.Errorf("got %q", text(res))
		}
	})
	t.Run("body returning its context error is ABORTED", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		tool := &registry.Tool{Name: "f", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		}}
		if res := New(nil).Run(ctx, resolve(t, tool), call("f", `{}`)); res.Error.Code != CodeAborted {
			t.Errorf("got %q", text(res))
		}
	})
	t.Run("body returning its context's cause is ABORTED", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		tool := &registry.Tool{Name: "f", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			cancel(errors.New("the run is over"))
			<-ctx.Done()
			return nil, context.Cause(ctx)
		}}
		if res := New(nil).Run(ctx, resolve(t, tool), call("f", `{}`)); res.Error.Code != CodeAborted || text(res) != "Error: tool call aborted" {
			t.Errorf("got %q (%s)", text(res), res.Error.Code)
		}
	})
	t.Run("cancel during pre-execute", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		bodyRan := false
		tool := &registry.Tool{Name: "f", Execute: func(context.Context, *registry.Call) (any, error) { bodyRan = true; return 1, nil }}
		p := New(&Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { cancel(); return Decision{}, nil }}})
		res := p.Run(ctx, resolve(t, tool), call("f", `{}`))
		if res.Error.Code != CodeAbortedBeforeDispatch || bodyRan {
			t.Errorf("got %q, body ran %v", text(res), bodyRan)
		}
	})
	t.Run("cancel during post-execute", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		p := New(&Options{PostExecute: []PostExecuteFunc{func(context.Context, *Call, *Result) (PostAction, error) { cancel(); return PostAction{}, nil }}})
		if res := p.Run(ctx, resolve(t, echoTool("echo")), call("echo", `{"text":"a"}`)); res.Error.Code != CodeAborted {
			t.Errorf("got %q", text(res))
		}
	})
	t.Run("a wrapper cannot escape the caller's cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		escape := func(next Handler) Handler {
			return func(_ context.Context, c *Call) (*Result, error) { return next(context.Background(), c) }
		}
		tool := &registry.Tool{Name: "f", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			cancel()
			<-ctx.Done() // would hang forever if the caller's cancellation were lost
			return nil, ctx.Err()
		}}
		if res := New(&Options{Wrappers: []Middleware{escape}}).Run(ctx, resolve(t, tool), call("f", `{}`)); res.Error.Code != CodeAborted {
			t.Errorf("got %q", text(res))
		}
	})
	t.Run("disposed set", func(t *testing.T) {
		set := resolve(t, echoTool("echo"))
		set.Dispose()
		if res := New(nil).Run(context.Background(), set, call("echo", `{"text":"a"}`)); res.Error.Code != CodeAbortedBeforeDispatch {
			t.Errorf("got %q", text(res))
		}
	})
	t.Run("unregistered after resolution", func(t *testing.T) {
		scope := registry.New()
		bodyRan := false
		tool := &registry.Tool{Name: "ephemeral", Execute: func(context.Context, *registry.Call) (any, error) { bodyRan = true; return 1, nil }}
		undo, err := scope.Register(tool)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := scope.Resolve(context.Background(), registry.Step{})
		undo()
		if res := New(nil).Run(context.Background(), set, call("ephemeral", `{}`)); text(res) != `Error: unknown tool "ephemeral"` || bodyRan {
			t.Errorf("got %q, body ran %v", text(res), bodyRan)
		}
	})
}

func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tool := &registry.Tool{Name: "slow", TimeoutMs: 250, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			<-ctx.Done()
			return "late", nil // even a success after the deadline is a timeout
		}}
		res := New(&Options{Wrappers: []Middleware{Timeout()}}).Run(context.Background(), resolve(t, tool), call("slow", `{}`))
		if text(res) != "Error: tool call timed out after 250ms" || res.Error.Code != CodeToolTimeout {
			t.Errorf("got %q (%v)", text(res), res.Error)
		}
		if elapsed := time.Since(start); elapsed != 250*time.Millisecond {
			t.Errorf("deadline fired after %v (fake clock), want 250ms", elapsed)
		}
	})
}

func TestTimeoutOnlyForItsOwnTimer(t *testing.T) {
	// The caller's deadline is not a TOOL_TIMEOUT.
	ctx, cancel := context.WithCancel(context.Background())
	tool := &registry.Tool{Name: "slow", TimeoutMs: 60_000, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	res := New(&Options{Wrappers: []Middleware{Timeout()}}).Run(ctx, resolve(t, tool), call("slow", `{}`))
	if res.Error.Code != CodeAborted {
		t.Errorf("caller cancellation under a timeout wrapper: %q (%s)", text(res), res.Error.Code)
	}
	// No declared timeout: the wrapper passes through.
	res = New(&Options{Wrappers: []Middleware{Timeout()}}).Run(context.Background(), resolve(t, echoTool("echo")), call("echo", `{"text":"ok"}`))
	if text(res) != "ok" {
		t.Errorf("tool without TimeoutMs: %q", text(res))
	}
}

func TestParseArguments(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `{}`},
		{"  \n", `{}`},
		{`{"a": 1}`, `{"a":1}`},
		{`{"a":`, `"{\"a\":"`},
		{`[1]`, `[1]`},
	} {
		if got := ParseArguments(tt.in).String(); got != tt.want {
			t.Errorf("ParseArguments(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestExecutorsFor(t *testing.T) {
	scope := registry.New()
	set := resolveIn(t, scope)
	if _, err := (Executors{}).For(set); err == nil || !strings.Contains(err.Error(), `mode "native" has no executor`) {
		t.Errorf("missing executor: %v", err)
	}
}

// TestTimeoutByDefault: a pipeline enforces a tool's declared TimeoutMs without being
// told to, inside every wrapper (which see the TOOL_TIMEOUT); one Timeout() listed in
// Wrappers is the one that applies; DisableTimeout leaves it to the wrappers.
func TestTimeoutByDefault(t *testing.T) {
	slow := func(deadlines *[]bool) *registry.Tool {
		return &registry.Tool{Name: "slow", TimeoutMs: 250, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			_, ok := ctx.Deadline()
			*deadlines = append(*deadlines, ok)
			if !ok {
				return "no deadline", nil
			}
			<-ctx.Done()
			return "late", nil
		}}
	}
	seen := func(got *[]string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, call *Call) (*Result, error) {
				res, err := next(ctx, call)
				if res != nil && res.Error != nil {
					*got = append(*got, string(res.Error.Code))
				} else {
					*got = append(*got, "ok")
				}
				return res, err
			}
		}
	}
	tests := []struct {
		name     string
		opts     func(wrapped *[]string) *Options
		want     string
		wrapped  []string
		deadline bool
	}{
		{"nil options", func(*[]string) *Options { return nil }, "Error: tool call timed out after 250ms", nil, true},
		{"zero options", func(*[]string) *Options { return &Options{} }, "Error: tool call timed out after 250ms", nil, true},
		{"inside the wrappers", func(w *[]string) *Options { return &Options{Wrappers: []Middleware{seen(w)}} },
			"Error: tool call timed out after 250ms", []string{"TOOL_TIMEOUT"}, true},
		{"where Wrappers list it", func(w *[]string) *Options { return &Options{Wrappers: []Middleware{Timeout(), seen(w)}} },
			"Error: tool call timed out after 250ms", []string{"ok"}, true},
		{"disabled", func(w *[]string) *Options { return &Options{DisableTimeout: true, Wrappers: []Middleware{seen(w)}} },
			"no deadline", []string{"ok"}, false},
		{"disabled but listed", func(*[]string) *Options { return &Options{DisableTimeout: true, Wrappers: []Middleware{Timeout()}} },
			"Error: tool call timed out after 250ms", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var deadlines []bool
				var wrapped []string
				res := New(tt.opts(&wrapped)).Run(context.Background(), resolve(t, slow(&deadlines)), call("slow", `{}`))
				if text(res) != tt.want {
					t.Errorf("got %q, want %q", text(res), tt.want)
				}
				if diff := cmp.Diff(tt.wrapped, wrapped); diff != "" {
					t.Errorf("outcomes the wrapper saw (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]bool{tt.deadline}, deadlines); diff != "" {
					t.Errorf("the body's context had a deadline (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestTimeoutOncePerCall: a Timeout() listed in Wrappers and the pipeline's own make one
// deadline for a call, but a call the body makes through another pipeline with the
// body's context gets its own.
func TestTimeoutOncePerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := New(nil)
		innerTool := &registry.Tool{Name: "inner", TimeoutMs: 100, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			<-ctx.Done()
			return "late", nil
		}}
		innerSet := resolve(t, innerTool)
		outer := &registry.Tool{Name: "outer", TimeoutMs: 60_000, Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			return text(inner.Run(ctx, innerSet, call("inner", `{}`))), nil
		}}
		res := New(&Options{Wrappers: []Middleware{Timeout()}}).Run(context.Background(), resolve(t, outer), call("outer", `{}`))
		if text(res) != "Error: tool call timed out after 100ms" {
			t.Errorf("got %q: the nested call's own deadline did not apply", text(res))
		}
	})
}

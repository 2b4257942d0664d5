package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

func TestProjectContent(t *testing.T) {
	tool := echoTool("echo")
	tool.ProjectContent = func(_ *registry.Call, v registry.Value, rendered []registry.Content) ([]registry.Content, error) {
		return append(rendered, registry.Content{Type: "image", Data: "AA==", MIMEType: "image/png"}), nil
	}
	var postSaw int
	p := New(&Options{PostExecute: []PostExecuteFunc{func(_ context.Context, _ *Call, r *Result) (PostAction, error) {
		postSaw = len(r.Content)
		return PostAction{}, nil
	}}})
	res := p.Run(context.Background(), resolve(t, tool), call("echo", `{"text":"a"}`))
	if len(res.Content) != 2 || res.Content[1].Type != "image" || postSaw != 2 {
		t.Errorf("projected content = %+v, post-execute saw %d blocks", res.Content, postSaw)
	}

	tool = echoTool("echo")
	tool.ProjectContent = func(*registry.Call, registry.Value, []registry.Content) ([]registry.Content, error) {
		panic("projector bug")
	}
	res = New(nil).Run(context.Background(), resolve(t, tool), call("echo", `{"text":"a"}`))
	if text(res) != "Error: projectContent failed: projectContent panicked: projector bug" || res.Error.Code != CodeInvalidToolOutput {
		t.Errorf("panicking projector: %q", text(res))
	}
}

func TestWrapperShortCircuit(t *testing.T) {
	tests := []struct {
		name     string
		result   *Result
		wantText string
		wantCode Code
	}{
		{"value is rendered", &Result{Value: registry.StringValue("cached")}, "cached", ""},
		{"error gets its content", &Result{Error: &ToolError{Code: CodeToolFailed, Message: "circuit open"}, Content: []registry.Content{registry.Text("ignored")}}, "Error: circuit open", CodeToolFailed},
		{"no value", &Result{}, `Error: tool "echo" returned no value`, CodeInvalidToolOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodyRan := false
			tool := echoTool("echo")
			tool.Execute = func(context.Context, *registry.Call) (any, error) { bodyRan = true; return "x", nil }
			short := func(Handler) Handler {
				return func(context.Context, *Call) (*Result, error) { r := *tt.result; return &r, nil }
			}
			res := New(&Options{Wrappers: []Middleware{short}}).Run(context.Background(), resolve(t, tool), call("echo", `{"text":"a"}`))
			if text(res) != tt.wantText || bodyRan {
				t.Errorf("got %q (body ran %v), want %q", text(res), bodyRan, tt.wantText)
			}
			if tt.wantCode != "" && res.Error.Code != tt.wantCode {
				t.Errorf("code %s, want %s", res.Error.Code, tt.wantCode)
			}
		})
	}
}

func TestContextOrder(t *testing.T) {
	wrapper := func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (*Result, error) {
			r, err := next(ctx, c)
			if r != nil {
				r.Contexts = append(r.Contexts, AdditionalContext{Source: "wrapper"})
			}
			return r, err
		}
	}
	hook := func(src string, act PostAction) PostExecuteFunc {
		return func(context.Context, *Call, *Result) (PostAction, error) {
			act.Contexts = []AdditionalContext{{Source: src}}
			return act, nil
		}
	}
	sources := func(r *Result) []string {
		var out []string
		for _, c := range r.Contexts {
			out = append(out, c.Source)
		}
		return out
	}
	v := registry.StringValue("new")
	p := New(&Options{Wrappers: []Middleware{wrapper}, PostExecute: []PostExecuteFunc{
		hook("post-1", PostAction{}), hook("post-2", PostAction{ReplaceValue: &v}),
	}})
	res := p.Run(context.Background(), resolve(t, echoTool("echo")), call("echo", `{"text":"a"}`))
	if diff := cmp.Diff([]string{"wrapper", "post-1", "post-2"}, sources(res)); diff != "" || text(res) != "new" {
		t.Errorf("contexts (-want +got):\n%s (text %q)", diff, text(res))
	}
	p = New(&Options{Wrappers: []Middleware{wrapper}, PostExecute: []PostExecuteFunc{
		hook("post-1", PostAction{Block: true}),
	}})
	res = p.Run(context.Background(), resolve(t, echoTool("echo")), call("echo", `{"text":"a"}`))
	if diff := cmp.Diff([]string{"post-1"}, sources(res)); diff != "" {
		t.Errorf("a block discards the dispatch's contexts (-want +got):\n%s", diff)
	}
}

type hostileError struct{}

func (hostileError) Error() string { panic("Error() exploded") }

func TestHostileErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		tool *registry.Tool
		want string
	}{
		{"body", Options{}, &registry.Tool{Name: "t", Execute: func(context.Context, *registry.Call) (any, error) { return nil, hostileError{} }}, "Error: <unprintable error>"},
		{"wrapper", Options{Wrappers: []Middleware{func(Handler) Handler {
			return func(context.Context, *Call) (*Result, error) { return nil, hostileError{} }
		}}}, &registry.Tool{Name: "t", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }}, "Error: <unprintable error>"},
		{"approval", Options{
			PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Ask}, nil }},
			Approve:    func(context.Context, *Call, string) (Approval, error) { return 0, hostileError{} },
		}, &registry.Tool{Name: "t", Execute: func(context.Context, *registry.Call) (any, error) { return 1, nil }}, `Error: approval for tool "t" failed: <unprintable error>`},
		{"empty message", Options{}, &registry.Tool{Name: "t", Execute: func(context.Context, *registry.Call) (any, error) { return nil, errors.New("") }}, "Error: tool failed without a message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := New(&tt.opts).Run(context.Background(), resolve(t, tt.tool), call("t", `{}`))
			if text(res) != tt.want {
				t.Errorf("got %q, want %q", text(res), tt.want)
			}
		})
	}
}

func TestCancelledDuringWrapper(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	bodyRan := false
	tool := &registry.Tool{Name: "t", Execute: func(context.Context, *registry.Call) (any, error) { bodyRan = true; return 1, nil }}
	w := func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (*Result, error) { cancel(); return next(ctx, c) }
	}
	res := New(&Options{Wrappers: []Middleware{w}}).Run(ctx, resolve(t, tool), call("t", `{}`))
	if res.Error.Code != CodeAbortedBeforeDispatch || bodyRan {
		t.Errorf("got %q, body ran %v", text(res), bodyRan)
	}
}

func TestZeroArguments(t *testing.T) {
	preRan := false
	p := New(&Options{PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { preRan = true; return Decision{}, nil }}})
	res := p.Run(context.Background(), resolve(t, echoTool("echo")), registry.Call{ID: "c", Name: "echo"})
	if text(res) != "Error: tool execution arguments must be losslessly JSON-serializable" || res.Error.Code != CodeInvalidArgs || preRan {
		t.Errorf("got %q (%s), pre-execute ran %v", text(res), res.Error.Code, preRan)
	}
}

func TestReRegisterAfterDispose(t *testing.T) {
	scope := registry.New()
	undo, err := scope.Register(echoTool("echo"))
	if err != nil {
		t.Fatal(err)
	}
	undo()
	replacement := echoTool("echo")
	replacement.Execute = func(context.Context, *registry.Call) (any, error) { return "v2", nil }
	set := resolveIn(t, scope, replacement)
	if res := New(nil).Run(context.Background(), set, call("echo", `{"text":"a"}`)); text(res) != "v2" {
		t.Errorf("replacement: %q", text(res))
	}
}

func TestAnswerCarriesContent(t *testing.T) {
	img := registry.Content{Type: "image", MIMEType: "image/png", Data: "AA=="}
	tests := []struct {
		name     string
		out      any
		want     []registry.Content
		wantText string
	}{
		{"own content", registry.Answer{Value: "shot.png", Content: []registry.Content{registry.Text("a shot"), img}}, []registry.Content{registry.Text("a shot"), img}, ""},
		{"pointer", &registry.Answer{Value: "x", Content: []registry.Content{img}}, []registry.Content{img}, ""},
		{"nil content renders", registry.Answer{Value: "plain"}, []registry.Content{registry.Text("plain")}, ""},
		{"value still validated", registry.Answer{Value: 42, Content: []registry.Content{img}}, nil, `Error: tool "t" returned invalid output: "output" must be a string`},
		{"nil answer", (*registry.Answer)(nil), nil, `Error: tool "t" returned invalid output: the tool returned a nil Answer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &registry.Tool{Name: "t", Output: registry.Output{Schema: registry.String()},
				Execute: func(context.Context, *registry.Call) (any, error) { return tt.out, nil }}
			res := New(nil).Run(context.Background(), resolve(t, tool), call("t", `{}`))
			if tt.wantText != "" {
				if text(res) != tt.wantText {
					t.Errorf("got %q, want %q", text(res), tt.wantText)
				}
				return
			}
			if diff := cmp.Diff(tt.want, res.Content); diff != "" || res.IsError() {
				t.Errorf("content (-want +got):\n%s (error %v)", diff, res.Error)
			}
		})
	}
}

// TestCallIsReadOnly pins that no stage can change the call the pipeline validates,
// dispatches and logs: arguments are frozen when the call starts. A stage that assigns
// to the call fails it as a stage failure would, and the events still log the arguments
// the call came with.
func TestCallIsReadOnly(t *testing.T) {
	const orig, bogus = `{"path":"a"}`, `{"bogus":1}`
	var tr trace
	readTool := func() *registry.Tool {
		return &registry.Tool{
			Name:              "read",
			Parameters:        registry.Object(registry.Required("path", registry.String())),
			IsConcurrencySafe: func(registry.Value) bool { return true },
			Execute: func(_ context.Context, c *registry.Call) (any, error) {
				tr.add("body " + c.Args.String())
				c.Args = registry.MustParseValue(bogus) // the body's own copy
				return "ok", nil
			},
		}
	}
	rewrite := func(c *registry.Call) { c.Args = registry.MustParseValue(bogus) }
	pre := func(_ context.Context, c *Call) (Decision, error) { rewrite(&c.Call); return Decision{}, nil }
	tests := []struct {
		name     string
		opts     Options
		guard    bool
		wantText string
	}{
		{name: "pre-execute", opts: Options{PreExecute: []PreExecuteFunc{pre}},
			wantText: `Error: pre-execute hook changed the call to tool "read"; calls are read-only to stages`},
		{name: "approval", opts: Options{
			PreExecute: []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Ask}, nil }},
			Approve: func(_ context.Context, c *Call, _ string) (Approval, error) {
				rewrite(&c.Call)
				return AllowedOnce, nil
			}},
			wantText: `Error: approval hook changed the call to tool "read"; calls are read-only to stages`},
		{name: "guard", guard: true,
			wantText: `Error: guard changed the call to tool "read"; calls are read-only to stages`},
		{name: "execute wrapper", opts: Options{Wrappers: []Middleware{func(next Handler) Handler {
			return func(ctx context.Context, c *Call) (*Result, error) { rewrite(&c.Call); return next(ctx, c) }
		}}}, wantText: `Error: execute wrapper changed the call to tool "read"; calls are read-only to stages`},
		{name: "post-execute", opts: Options{PostExecute: []PostExecuteFunc{func(_ context.Context, c *Call, _ *Result) (PostAction, error) {
			rewrite(&c.Call)
			return PostAction{}, nil
		}}}, wantText: `Error: post-execute hook changed the call to tool "read"; calls are read-only to stages`},
		{name: "observer and body", opts: Options{Observers: []ObserverFunc{
			func(c *Call, _ Result) { rewrite(&c.Call) },
			func(c *Call, _ Result) { tr.add("observer 2 " + c.Args.String()) },
		}}, wantText: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Through a scheduler too: it validates the arguments when it classifies the
			// call, before pre-execute, and the body must not run with others.
			for _, sched := range []bool{false, true} {
				tr = trace{}
				var events []string
				scope := registry.New()
				if tt.guard {
					scope.Guard(func(c *registry.Call) string { rewrite(c); return "" })
				}
				set := resolveIn(t, scope, readTool())
				opts := tt.opts
				opts.Events = SinkFunc(func(e Event) { events = append(events, e.Type+" "+e.Args.String()) })
				p := New(&opts)
				c := registry.Call{ID: "c1", Name: "read", Args: registry.MustParseValue(orig)}
				var res *Result
				if sched {
					s, err := p.NewScheduler(context.Background(), set, nil)
					if err != nil {
						t.Fatal(err)
					}
					res = s.Submit(c).Wait()
					s.Close()
				} else {
					res = p.Run(context.Background(), set, c)
				}
				if text(res) != tt.wantText {
					t.Errorf("scheduler=%v: got %q, want %q", sched, text(res), tt.wantText)
				}
				for _, line := range tr.get() {
					if strings.Contains(line, "bogus") {
						t.Errorf("scheduler=%v: a later stage saw the rewrite: %s", sched, line)
					}
				}
				want := []string{"tool/call " + orig, "tool/result " + orig}
				if diff := cmp.Diff(want, events); diff != "" {
					t.Errorf("scheduler=%v: events (-want +got):\n%s", sched, diff)
				}
			}
		})
	}
}

// TestLaterRestrictionOrShadow pins what a call sees when its set's scope changed
// after the set was resolved: a tool a later restriction hides, or a later same-name
// shadow replaces, fails as UNKNOWN_TOOL at dispatch, and no body runs.
func TestLaterRestrictionOrShadow(t *testing.T) {
	for _, change := range []string{"restriction", "shadow"} {
		t.Run(change, func(t *testing.T) {
			var ran []string
			tool := func(label string) *registry.Tool {
				return &registry.Tool{Name: "write", Execute: func(context.Context, *registry.Call) (any, error) {
					ran = append(ran, label)
					return 1, nil
				}}
			}
			dep := registry.New()
			if _, err := dep.Register(tool("deployment")); err != nil {
				t.Fatal(err)
			}
			agent, err := dep.NewScope(registry.Agent, "agent")
			if err != nil {
				t.Fatal(err)
			}
			set := resolveIn(t, agent)
			if change == "restriction" {
				_, err = agent.Restrict(registry.Filter{Deny: []string{"write"}})
			} else {
				_, err = agent.Register(tool("agent"))
			}
			if err != nil {
				t.Fatal(err)
			}
			res := New(nil).Run(context.Background(), set, call("write", `{}`))
			if text(res) != `Error: unknown tool "write"` || res.Error.Code != CodeUnknownTool || len(ran) != 0 {
				t.Errorf("got %q, bodies run: %v", text(res), ran)
			}
		})
	}
}

// TestEventCards pins the hosts' consumer of PresentCall and PresentResult: the
// tool/call and tool/result events of a model-direct call carry its cards (a generic
// one for a tool without presenters, or an unknown name); sub-call events carry none.
func TestEventCards(t *testing.T) {
	read := echoTool("read")
	read.PresentCall = func(args registry.Value) registry.Presentation {
		return registry.Presentation{Intent: registry.IntentRead, Title: "Read " + args.String(), Kind: "read"}
	}
	read.PresentResult = func(args registry.Value, content []registry.Content, isError bool) registry.Presentation {
		return registry.Presentation{Intent: registry.IntentRead, Title: fmt.Sprintf("%d blocks, isError=%v", len(content), isError)}
	}
	set := resolve(t, read, echoTool("plain"))
	var got []string
	p := New(&Options{Events: SinkFunc(func(e Event) {
		card := "none"
		if e.Card != nil {
			card = fmt.Sprintf("%s %q %s", e.Card.Intent, e.Card.Title, e.Card.Kind)
		}
		got = append(got, e.Type+" "+e.Name+": "+card)
	})})
	p.Run(context.Background(), set, call("read", `{"text":"a"}`))
	p.Run(context.Background(), set, call("read", `{}`))
	p.Run(context.Background(), set, call("plain", `{"text":"a"}`))
	p.Run(context.Background(), set, call("nope", `{}`))
	p.Run(context.Background(), set, registry.Call{ID: "c1:code:1", ParentID: "c1", Name: "read", Args: registry.MustParseValue(`{"text":"a"}`)})
	want := []string{
		`tool/call read: read "Read {\"text\":\"a\"}" read`,
		`tool/result read: read "1 blocks, isError=false" `,
		`tool/call read: read "Read {}" read`,
		`tool/result read: read "1 blocks, isError=true" `,
		`tool/call plain: generic "plain" `,
		`tool/result plain: generic "plain" `,
		`tool/call nope: generic "nope" `,
		`tool/result nope: generic "nope" `,
		`tool/code-dispatch-start read: none`,
		`tool/code-dispatch read: none`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cards (-want +got):\n%s", diff)
	}
}

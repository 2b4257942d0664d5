package mcpbridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

const pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// servedScope is a scope with an image tool and an adder.
func servedScope(t *testing.T, mode registry.Mode) *registry.Scope {
	t.Helper()
	scope := testreg.Scope(t, mode)
	testreg.Register(t, scope,
		&registry.Tool{Name: "shot", Description: "Take a screenshot.", Execute: func(context.Context, *registry.Call) (any, error) {
			return registry.Answer{Value: "a screenshot", Content: []registry.Content{registry.Text("a screenshot"), {Type: "image", MIMEType: "image/png", Data: pngData}}}, nil
		}},
		&registry.Tool{Name: "add", Description: "Add two numbers.",
			Parameters: registry.Object(registry.Required("a", registry.Number()), registry.Required("b", registry.Number())).Closed(),
			Output:     registry.Output{Schema: registry.Number()},
			Execute: func(_ context.Context, c *registry.Call) (any, error) {
				var in struct{ A, B float64 }
				if err := c.Args.Decode(&in); err != nil {
					return nil, err
				}
				return in.A + in.B, nil
			}})
	return scope
}

// serve connects a Go SDK client to a Server for scope in memory.
func serve(t *testing.T, scope *registry.Scope, clientOpts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	return servePipeline(t, scope, pipeline.New(nil), clientOpts)
}

// servePipeline is serve with the calls going through p.
func servePipeline(t *testing.T, scope *registry.Scope, p *pipeline.Pipeline, clientOpts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	srv, err := NewServer(scope, testexec.For(t, testreg.ResolveIn(t, scope).Mode(), p, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv, connect(t, srv, clientOpts, nil)
}

// connect connects a Go SDK client with copts and sopts to srv in memory, until the
// test's cleanup closes the session and waits for the server's end of it.
func connect(t *testing.T, srv *Server, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, copts).Connect(context.Background(), ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

func listNames(t *testing.T, cs *mcp.ClientSession) ([]string, map[string]*mcp.Tool) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
	}
	return names, byName
}

// blocks renders content for comparison: text as is, images as [image <mime> <bytes>].
func blocks(content []mcp.Content) []string {
	var out []string
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, c.Text)
		case *mcp.ImageContent:
			label := "the test PNG"
			if base64.StdEncoding.EncodeToString(c.Data) != pngData {
				label = "other data"
			}
			out = append(out, "[image "+c.MIMEType+": "+label+"]")
		default:
			b, _ := json.Marshal(c)
			out = append(out, string(b))
		}
	}
	return out
}

func TestServePTC(t *testing.T) {
	_, cs := serve(t, servedScope(t, registry.ModePTC), nil)
	names, tools := listNames(t, cs)
	if diff := cmp.Diff([]string{"run_code"}, names); diff != "" {
		t.Fatalf("tools mismatch (-want +got):\n%s", diff)
	}
	desc := tools["run_code"].Description
	for _, want := range []string{"per the declarations below", "`run_code` is the only tool you can call directly", "## Writing code for run_code", "```ts", "declare const tools", "  shot: Record<string, JsonValue>;", "  add: number;"} {
		if !strings.Contains(desc, want) {
			t.Errorf("run_code's description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "system prompt") {
		t.Errorf("run_code's description points at a system prompt MCP clients do not have")
	}

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "Shoot and add",
		"code":        `const s = await tools.shot({}); console.log(s); return await tools.add({ a: 2, b: 3 });`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a screenshot\n5", "Image from shot (sub-call mcp-1:code:1):", "[image image/png: the test PNG]"}
	if diff := cmp.Diff(want, blocks(res.Content)); diff != "" || res.IsError {
		t.Errorf("run_code result (isError %v) mismatch (-want +got):\n%s", res.IsError, diff)
	}

	// A direct call to another tool collapses to UNKNOWN_TOOL, as the contract says:
	// a tool result the model reads, not a protocol error.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatalf("direct call to add under ptc: protocol error %v, want an isError result", err)
	}
	want = []string{"Error: unknown tool \"add\": only `run_code` is callable directly — call `add` from inside a `run_code` program instead"}
	if diff := cmp.Diff(want, blocks(res.Content)); diff != "" || !res.IsError {
		t.Errorf("direct call to add (isError %v) mismatch (-want +got):\n%s", res.IsError, diff)
	}

	// A failed program is an isError result with the contract's text.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "Fail", "code": `throw new Error("nope")`}})
	if err != nil {
		t.Fatal(err)
	}
	if got := blocks(res.Content); !res.IsError || len(got) != 1 || !strings.HasPrefix(got[0], "Error: code run failed (exception): Error: nope") {
		t.Errorf("failed run: isError %v, %q", res.IsError, got)
	}
}

func TestServeNativeAndBoth(t *testing.T) {
	_, cs := serve(t, servedScope(t, registry.ModeNative), nil)
	names, tools := listNames(t, cs)
	if diff := cmp.Diff([]string{"add", "shot"}, names); diff != "" {
		t.Errorf("native tools mismatch (-want +got):\n%s", diff)
	}
	if got, _ := json.Marshal(tools["add"].InputSchema); !strings.Contains(string(got), `"required":["a","b"]`) {
		t.Errorf("add's input schema: %s", got)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil || res.IsError || cmp.Diff([]string{"3"}, blocks(res.Content)) != "" {
		t.Errorf("add: %v %v %q", err, res.IsError, blocks(res.Content))
	}
	res, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": "x"}})
	if got := blocks(res.Content); !res.IsError || len(got) != 1 || !strings.HasPrefix(got[0], "Error: invalid arguments") {
		t.Errorf("bad arguments: isError %v %q", res.IsError, got)
	}
	res, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shot", Arguments: map[string]any{}})
	if diff := cmp.Diff([]string{"a screenshot", "[image image/png: the test PNG]"}, blocks(res.Content)); diff != "" {
		t.Errorf("shot mismatch (-want +got):\n%s", diff)
	}

	_, cs = serve(t, servedScope(t, registry.ModeBoth), nil)
	names, _ = listNames(t, cs)
	if diff := cmp.Diff([]string{"add", "run_code", "shot"}, names); diff != "" {
		t.Errorf("both tools mismatch (-want +got):\n%s", diff)
	}
}

// TestServeNativeStructured: served natively, a tool whose output schema is an
// object sends it as its outputSchema and answers with its canonical value as
// structuredContent; a tool whose output is not an object sends neither (MCP clients
// still commonly require an object at both places).
func TestServeNativeStructured(t *testing.T) {
	scope := servedScope(t, registry.ModeBoth)
	if _, err := scope.Register(&registry.Tool{Name: "stats", Description: "Count things.",
		Output: registry.Output{Schema: registry.Object(registry.Required("n", registry.Integer())).Closed()},
		Execute: func(context.Context, *registry.Call) (any, error) {
			return map[string]any{"n": 3}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	_, cs := serve(t, scope, nil)
	_, tools := listNames(t, cs)
	got, _ := json.Marshal(tools["stats"].OutputSchema)
	if diff := cmp.Diff(`{"additionalProperties":false,"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}`, string(got)); diff != "" {
		t.Errorf("stats's output schema mismatch (-want +got):\n%s", diff)
	}
	for _, name := range []string{"add", "shot", "run_code"} {
		if tools[name].OutputSchema != nil {
			t.Errorf("%s has an output schema: %v", name, tools[name].OutputSchema)
		}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "stats", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.StructuredContent); res.IsError || string(got) != `{"n":3}` {
		t.Errorf("stats: isError %v, structuredContent %s", res.IsError, got)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil || res.IsError || res.StructuredContent != nil {
		t.Errorf("add: %v, isError %v, structuredContent %v", err, res.IsError, res.StructuredContent)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"description": "Count", "code": `return await tools.stats({})`}})
	if err != nil || res.IsError || res.StructuredContent != nil {
		t.Errorf("run_code: %v, isError %v, structuredContent %v", err, res.IsError, res.StructuredContent)
	}
}

// TestServeContexts: contexts a policy attaches are kept in the MCP result, after
// the content, each labelled with where it came from; a sub-call's image stays
// labelled with the sub-call.
func TestServeContexts(t *testing.T) {
	remind := func(_ context.Context, call *pipeline.Call, _ *pipeline.Result) (pipeline.PostAction, error) {
		if call.Name != "add" {
			return pipeline.PostAction{}, nil
		}
		return pipeline.PostAction{Contexts: []pipeline.AdditionalContext{{Source: "reminder", Content: []registry.Content{registry.Text("numbers are floats")}}}}, nil
	}
	p := pipeline.New(&pipeline.Options{PostExecute: []pipeline.PostExecuteFunc{remind}})

	_, cs := servePipeline(t, servedScope(t, registry.ModeNative), p, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3", "Context attached by reminder:", "numbers are floats"}
	if diff := cmp.Diff(want, blocks(res.Content)); diff != "" {
		t.Errorf("native add mismatch (-want +got):\n%s", diff)
	}

	_, cs = servePipeline(t, servedScope(t, registry.ModePTC), p, nil)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "Shoot and add", "code": `await tools.shot({}); return await tools.add({ a: 2, b: 3 });`}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"5", "Image from shot (sub-call mcp-1:code:1):", "[image image/png: the test PNG]",
		"Context attached by reminder to add (sub-call mcp-1:code:2):", "numbers are floats"}
	if diff := cmp.Diff(want, blocks(res.Content)); diff != "" {
		t.Errorf("run_code mismatch (-want +got):\n%s", diff)
	}
}

func TestServeSync(t *testing.T) {
	scope := servedScope(t, registry.ModeNative)
	changed := make(chan struct{}, 1)
	srv, cs := serve(t, scope, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	// A round trip first: the server notifies only sessions whose initialization it has
	// handled, which a loaded machine can delay past the Sync below.
	listNames(t, cs)
	dispose, err := scope.Register(&registry.Tool{Name: "later", Description: "Added later.", Execute: func(context.Context, *registry.Call) (any, error) { return "late", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	testwait.Receive(t, changed, "the tool list change notification")
	if names, _ := listNames(t, cs); cmp.Diff([]string{"add", "later", "shot"}, names) != "" {
		t.Errorf("after adding: %v", names)
	}
	dispose()
	if err := srv.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	testwait.Receive(t, changed, "the tool list change notification")
	if names, _ := listNames(t, cs); cmp.Diff([]string{"add", "shot"}, names) != "" {
		t.Errorf("after removing: %v", names)
	}
}

// TestServeCancellation: a client's cancellation of run_code reaches the sub-call
// in flight.
func TestServeCancellation(t *testing.T) {
	scope := servedScope(t, registry.ModePTC)
	entered, cancelled := make(chan struct{}), make(chan struct{})
	if _, err := scope.Register(&registry.Tool{Name: "wait", Description: "Wait until cancelled.", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
		close(entered)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}}); err != nil {
		t.Fatal(err)
	}
	_, cs := serve(t, scope, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"description": "Wait", "code": `await tools.wait({});`}})
	if err == nil {
		t.Error("the cancelled call returned no error")
	}
	<-cancelled // the server's handler context ended, and with it the sub-call's
}

// TestUpstreamHTTP: an upstream over streamable HTTP (a Server on a loopback
// httptest server), with its headers sent.
func TestUpstreamHTTP(t *testing.T) {
	srv, _ := serve(t, servedScope(t, registry.ModeNative), nil)
	var mu sync.Mutex
	var auth []string
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	b := newBridge(t, registry.ModeNative, nil)
	if err := b.client.Connect(context.Background(), "remote", &Upstream{URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer t0k"}}); err != nil {
		t.Fatal(err)
	}
	res := pipeline.New(nil).Run(context.Background(), b.set(t), registry.Call{ID: "c", RootID: "c", Name: "mcp__remote__add", Args: registry.MustParseValue(`{"a":2,"b":5}`)})
	if res.IsError() || res.Value.String() != "7" {
		t.Errorf("mcp__remote__add: %v %s", res.Error, res.Value)
	}
	b.client.Close()
	mu.Lock()
	defer mu.Unlock()
	for _, a := range auth {
		if a != "Bearer t0k" {
			t.Errorf("a request carried Authorization %q", a)
		}
	}
	if len(auth) == 0 {
		t.Error("no requests")
	}
}

func TestObjectSchema(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"object","properties":{}}`, `{"type":"object","properties":{}}`},
		{`{}`, `{"type":"object"}`},
		{` { } `, `{"type":"object"}`},
		{`{"properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{`{"type":["object","null"]}`, `{"type":"object","allOf":[{"type":["object","null"]}]}`},
		{`true`, `{"type":"object","allOf":[true]}`},
	}
	for _, tt := range tests {
		if got := string(objectSchema(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("objectSchema(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestServeUntypedSchema: a tool whose parameters' root declares no type is still
// served (the SDK refuses input schemas whose root is not "type": "object").
func TestServeUntypedSchema(t *testing.T) {
	scope := servedScope(t, registry.ModeNative)
	if _, err := scope.Register(&registry.Tool{Name: "loose", Description: "Any arguments.",
		Parameters: registry.RawSchema(json.RawMessage(`{"properties":{"q":{"type":"string"}}}`)),
		Execute:    func(context.Context, *registry.Call) (any, error) { return "ok", nil }}); err != nil {
		t.Fatal(err)
	}
	_, cs := serve(t, scope, nil)
	names, _ := listNames(t, cs)
	if diff := cmp.Diff([]string{"add", "loose", "shot"}, names); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
}

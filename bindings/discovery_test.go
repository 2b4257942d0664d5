package bindings

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// TestDiscovery runs tools.$search and tools.$describe from programs: results, errors
// and codes, visibility through the set (a restricted, inactive or later-restricted
// tool never appears), and that neither is a pipeline call (no sub-call, no event, no
// effect on the sub-call budget).
func TestDiscovery(t *testing.T) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	body := func(context.Context, *registry.Call) (any, error) { return "ok", nil }
	dep := registry.New()
	for _, tool := range []*registry.Tool{
		{Name: "read_file", Description: "Read a file from disk.", Parameters: registry.RawSchema(json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Path to read"}},"required":["path"]}`)), Execute: body},
		{Name: "write_file", Description: "Write a file to disk.", Execute: body},
		{Name: "secret_file", Description: "Read a secret file.", Execute: body},
		{Name: "off_file", Description: "Read an inactive file.", Execute: body, When: func(context.Context, registry.Step) (bool, error) { return false, nil }},
		{Name: "late_file", Description: "Read a file, restricted after resolution.", Execute: body},
		{Name: "guarded_file", Description: "Read a file a guard denies.", Execute: body},
		{Name: "$foo", Description: "A tool whose name starts with a dollar.", Execute: func(_ context.Context, c *registry.Call) (any, error) { return c.Args, nil }},
	} {
		if _, err := dep.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	agent, err := dep.NewScope(registry.Agent, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Restrict(registry.Filter{Deny: []string{"secret_file"}}); err != nil {
		t.Fatal(err)
	}
	agent.Guard(func(c *registry.Call) string {
		switch {
		case c.Name == "guarded_file":
			return "denied by policy"
		case c.Name == "read_file" && c.ID == "":
			panic("a guard that panics does not hide the tool")
		}
		return ""
	})
	set, err := agent.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Restrict(registry.Filter{Deny: []string{"late_file"}}); err != nil {
		t.Fatal(err)
	}
	tools, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	p := pipeline.New(&pipeline.Options{Events: pipeline.SinkFunc(func(e pipeline.Event) { events = append(events, string(e.Type)) })})
	readDecl := "interface ToolArgsMap {\n  /** Read a file from disk. */\n  read_file: {\n    /** Path to read */\n    path: string;\n  };\n}\n\ninterface ToolOutputMap {\n  read_file: JsonValue;\n}\n"
	for _, tt := range []struct {
		name, code string
		want       any
	}{
		{"search", `return (await tools.$search("read file")).map(h => h.name)`, []any{"read_file", "write_file"}},
		{"search shows only what the run could call", `return (await tools.$search("file", { limit: 50 })).map(h => h.name).sort()`, []any{"read_file", "write_file"}},
		{"search result", `return (await tools.$search("read a file", { limit: 1 }))[0]`, map[string]any{"name": "read_file", "description": "Read a file from disk.", "declaration": readDecl}},
		{"limit above the maximum is capped", `return (await tools.$search("file", { limit: 1000 })).length`, 2.0},
		{"no match", `return await tools.$search("zebra")`, []any{}},
		{"describe", `return await tools.$describe("read_file")`, readDecl},
		{"blank query", `try { await tools.$search("  ") } catch (e) { return [e instanceof ToolCallError, e.code, e.toolName, e.message] }`,
			[]any{true, "INVALID_ARGS", "$search", `tools.$search: query must be a non-empty string, as in tools.$search("read a file")`}},
		{"bad limit", `try { await tools.$search("x", { limit: 0 }) } catch (e) { return [e.code, e.message] }`, []any{"INVALID_ARGS", "tools.$search: limit must be a positive integer"}},
		{"unknown", `try { await tools.$describe("read_fiel") } catch (e) { return [e.code, e.message] }`, []any{"UNKNOWN_TOOL", `unknown tool "read_fiel"; did you mean "read_file"?`}},
		{"restricted", `try { await tools.$describe("secret_file") } catch (e) { return [e.code, e.message] }`, []any{"UNKNOWN_TOOL", `unknown tool "secret_file"`}},
		{"guarded out", `try { await tools.$describe("guarded_file") } catch (e) { return e.code }`, "UNKNOWN_TOOL"},
		{"inactive", `try { await tools.$describe("off_file") } catch (e) { return e.code }`, "UNKNOWN_TOOL"},
		{"restricted after resolution", `try { await tools.$describe("late_file") } catch (e) { return e.code }`, "UNKNOWN_TOOL"},
		{"no names", `try { await tools.$describe() } catch (e) { return e.code }`, "INVALID_ARGS"},
		{"a dollar tool still gets its arguments object", `return await tools.$foo({ a: 1 })`, map[string]any{"a": 1.0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			events = nil
			ctx := context.Background()
			run, err := Begin(ctx, p, set, &Options{Parent: registry.Call{ID: "c"}, MaxCalls: 1})
			if err != nil {
				t.Fatal(err)
			}
			res, err := pool.Run(ctx, tt.code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(run)}})
			run.End("")
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure != nil {
				t.Fatalf("run failed: %v", res.Failure.Message)
			}
			var got any
			if err := json.Unmarshal(res.Value, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.name != "a dollar tool still gets its arguments object" && (len(run.Calls()) != 0 || len(events) != 0) {
				t.Errorf("discovery made sub-calls %v or events %v", run.Calls(), events)
			}
		})
	}
	// Hidden tools are never searched.
	for _, h := range Index(set).Search("file", 50, nil) {
		if strings.Contains(h.Name, "secret") || strings.Contains(h.Name, "off_") {
			t.Errorf("the index holds a tool the set does not show: %s", h.Name)
		}
	}
	if Index(set) != Index(set.WithTransport(mustTransport(t))) {
		t.Error("the index was built twice for one set")
	}
}

func mustTransport(t *testing.T) *registry.Transport {
	tr, err := registry.NewTransport(&registry.Tool{Name: registry.RunCodeName, Execute: func(context.Context, *registry.Call) (any, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// meaningEmbedder is a deterministic stand-in for an embedding model: a text is the sum
// of one-hot vectors of its words, a word first replaced by its meaning. block, if set,
// makes Embed wait for its context; fail makes it fail.
type meaningEmbedder struct {
	meaning map[string]string
	fail    bool
	block   bool
	calls   atomic.Int32
}

func (e *meaningEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	if e.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if e.fail {
		return nil, errors.New("model unavailable")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if m, ok := e.meaning[w]; ok {
				w = m
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

// TestDiscoveryEmbedder: with an embedder, tools.$search from a program ranks by
// meaning too, still shows only what the run could call, falls back to the lexical
// ranking when the embedder fails, and is bounded by the run when it hangs.
func TestDiscoveryEmbedder(t *testing.T) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	body := func(context.Context, *registry.Call) (any, error) { return "ok", nil }
	dep := registry.New()
	for _, tool := range []*registry.Tool{
		{Name: "maps_elevation", Description: "Get elevation data for locations on the earth.", Execute: body},
		{Name: "secret_elevation", Description: "Elevation of secret places.", Execute: body},
		{Name: "read_file", Description: "Read a file from disk.", Execute: body},
		{Name: "write_file", Description: "Write a file to disk.", Execute: body},
	} {
		if _, err := dep.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	agent, err := dep.NewScope(registry.Agent, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Restrict(registry.Filter{Deny: []string{"secret_elevation"}}); err != nil {
		t.Fatal(err)
	}
	set, err := agent.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	lexical, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	meaning := map[string]string{"tall": "elevation", "summit": "elevation"}
	run := func(t *testing.T, tools *Tools, ctx context.Context, code string) *runtime.Result {
		t.Helper()
		r, err := Begin(ctx, pipeline.New(nil), set, &Options{Parent: registry.Call{ID: "c"}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := pool.Run(ctx, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(r)}})
		r.End("")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	const search = `return (await tools.$search("how tall is the summit", { limit: 50 })).map(h => h.name)`
	names := func(t *testing.T, res *runtime.Result) []string {
		t.Helper()
		if res.Failure != nil {
			t.Fatalf("run failed: %v", res.Failure.Message)
		}
		var got []string
		if err := json.Unmarshal(res.Value, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := names(t, run(t, lexical, context.Background(), search)); len(got) != 0 {
		t.Fatalf("the lexical ranking finds %v: the test shows nothing", got)
	}

	t.Run("by meaning", func(t *testing.T) {
		e := &meaningEmbedder{meaning: meaning}
		tools := lexical.WithEmbedder(e)
		got := names(t, run(t, tools, context.Background(), search))
		if len(got) == 0 || got[0] != "maps_elevation" {
			t.Errorf("hybrid search = %v, want maps_elevation first", got)
		}
		if slices.Contains(got, "secret_elevation") {
			t.Errorf("a restricted tool was returned: %v", got)
		}
		names(t, run(t, tools, context.Background(), search))
		if n := e.calls.Load(); n != 3 {
			t.Errorf("the embedder was called %d times for two searches, want 3 (the tools once, each query)", n)
		}
		if got := run(t, tools, context.Background(), `return await tools.$describe("read_file")`); got.Failure != nil {
			t.Errorf("describe failed: %v", got.Failure.Message)
		}
	})
	t.Run("failing embedder ranks lexically", func(t *testing.T) {
		const q = `return (await tools.$search("read a file")).map(h => h.name)`
		want := names(t, run(t, lexical, context.Background(), q))
		got := names(t, run(t, lexical.WithEmbedder(&meaningEmbedder{fail: true}), context.Background(), q))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-lexical +with a failing embedder):\n%s", diff)
		}
	})
	t.Run("hanging embedder ends with the run", func(t *testing.T) {
		// The search waits for the embedder on a goroutine of its own, not on the VM's:
		// the run's deadline stops the program, and ends the embedder's wait (the
		// package's leak check fails on a goroutine left behind).
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		res := run(t, lexical.WithEmbedder(&meaningEmbedder{block: true}), ctx, `return (await tools.$search("read a file")).map(h => h.name)`)
		if res.Failure == nil {
			t.Errorf("the run finished (%s) though its search could not", res.Value)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the run took %v past its 200ms deadline", d)
		}
	})
}

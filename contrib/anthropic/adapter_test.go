package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/anthropic"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// TestExecuteFixtures answers hand-written responses (testdata/README.md) with real executors (run_code on a goja
// VM, the direct tools natively under mode both) and compares the user turn, as JSON,
// with a golden file.
func TestExecuteFixtures(t *testing.T) {
	for _, name := range []string{"turn_orders", "turn_chart"} {
		t.Run(name, func(t *testing.T) {
			set, exec := setup(t, registry.ModeBoth)
			rec := &recorder{next: exec}
			a := mustNew(t, rec, set, nil)
			msg := message(t, name+".json")
			turn, err := a.Execute(context.Background(), msg)
			if err != nil {
				t.Fatal(err)
			}
			got := indent(t, turn)
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("user turn differs from %s (-want +got; go test -update rewrites it):\n%s", golden, diff)
			}

			// Both tool_use blocks went to the executor as one batch, in order, with
			// their ids and inputs.
			var want2 []pipeline.RawCall
			for _, b := range msg.Content {
				if b.Type == "tool_use" {
					u := b.AsToolUse()
					want2 = append(want2, pipeline.RawCall{ID: u.ID, Name: u.Name, Arguments: string(u.Input)})
				}
			}
			if diff := cmp.Diff([][]pipeline.RawCall{want2}, rec.batches); diff != "" {
				t.Errorf("executor batches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteResultShape pins what the golden files show, field by field: a tool_result
// per tool_use in order, is_error exactly on the failed one, images inside the
// tool_result.
func TestExecuteResultShape(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	type block struct {
		Type, Text string
		Media      string
	}
	type result struct {
		ID      string
		IsError bool
		Content []block
	}
	summarize := func(turn sdk.MessageParam) []result {
		var out []result
		if turn.OfUser == nil {
			t.Fatalf("the turn is not a user message: %s", indent(t, turn))
		}
		for _, b := range turn.OfUser.Content {
			tr := b.OfToolResult
			if tr == nil {
				t.Fatalf("a block of the user turn is not a tool_result: %s", indent(t, b))
			}
			r := result{ID: tr.ToolUseID, IsError: tr.IsError.Value}
			for _, c := range tr.Content {
				switch {
				case c.OfText != nil:
					r.Content = append(r.Content, block{Type: "text", Text: c.OfText.Text})
				case c.OfImage != nil:
					r.Content = append(r.Content, block{Type: "image", Media: string(c.OfImage.Source.OfBase64.MediaType)})
				}
			}
			out = append(out, r)
		}
		return out
	}

	orders, err := a.Execute(context.Background(), message(t, "turn_orders.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []result{
		{ID: "toolu_01A09q90qw90lq917835lq9", Content: []block{{Type: "text", Text: "orders read\n{\n  \"sum\": 50\n}"}}},
		{ID: "toolu_01BcYaLqVQYd3J3UpaAKb9Ld", IsError: true, Content: []block{{Type: "text", Text: `Error: order "missing" not found`}}},
	}
	if diff := cmp.Diff(want, summarize(orders)); diff != "" {
		t.Errorf("orders turn (-want +got):\n%s", diff)
	}

	chart, err := a.Execute(context.Background(), message(t, "turn_chart.json"))
	if err != nil {
		t.Fatal(err)
	}
	want = []result{
		{ID: "toolu_01Q2vtmqGiXhdVcPbUZbGMdx", Content: []block{
			{Type: "text", Text: "rendered sales"},
			{Type: "text", Text: "Image from render_chart (sub-call toolu_01Q2vtmqGiXhdVcPbUZbGMdx:code:1):"},
			{Type: "image", Media: "image/png"},
		}},
		{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Content: []block{{Type: "text", Text: "chart costs"}, {Type: "image", Media: "image/png"}}},
	}
	if diff := cmp.Diff(want, summarize(chart)); diff != "" {
		t.Errorf("chart turn (-want +got):\n%s", diff)
	}
}

// TestExecuteRefuses pins the messages Execute refuses, running nothing.
func TestExecuteRefuses(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	rec := &recorder{next: exec}
	a := mustNew(t, rec, set, nil)
	decode := func(content string) *sdk.Message {
		var m sdk.Message
		if err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","stop_reason":"tool_use","content":`+content+`}`), &m); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	for _, tc := range []struct {
		name string
		msg  *sdk.Message
		want string
	}{
		{"nil", nil, "anthropic: Execute: nil message"},
		{"text only", message(t, "turn_done.json"), anthropic.ErrNoToolUse.Error()},
		{"no id", decode(`[{"type":"tool_use","id":"","name":"run_code","input":{}}]`), `anthropic: Execute: content block 0 (tool_use "run_code") has no id`},
		{"repeated id", decode(`[{"type":"tool_use","id":"toolu_1","name":"run_code","input":{}},{"type":"tool_use","id":"toolu_1","name":"get_order","input":{}}]`), `anthropic: Execute: tool_use id "toolu_1" appears more than once`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.Execute(context.Background(), tc.msg)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := a.Execute(context.Background(), message(t, "turn_done.json")); !errors.Is(err, anthropic.ErrNoToolUse) {
		t.Errorf("err = %v, want ErrNoToolUse", err)
	}
	if len(rec.batches) != 0 {
		t.Errorf("the executor ran %d batches, want none", len(rec.batches))
	}
}

// TestExecuteNullInput shows an absent or null input reaching the pipeline as {}, a
// model-direct call under mode ptc failing as the pipeline says (UNKNOWN_TOOL), and a
// toolset_name carried from tool_use to tool_result.
func TestExecuteNullInput(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	rec := &recorder{next: exec}
	a := mustNew(t, rec, set, nil)
	var m sdk.Message
	if err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"run_code","input":null},{"type":"tool_use","id":"toolu_2","name":"get_order","toolset_name":"orders"}]}`), &m); err != nil {
		t.Fatal(err)
	}
	turn, err := a.Execute(context.Background(), &m)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.RawCall{{ID: "toolu_1", Name: "run_code"}, {ID: "toolu_2", Name: "get_order"}}
	if diff := cmp.Diff([][]pipeline.RawCall{want}, rec.batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	for i, b := range turn.OfUser.Content {
		if !b.OfToolResult.IsError.Value {
			t.Errorf("result %d is not an error: %s", i, indent(t, b))
		}
	}
	// A tool_use's toolset_name comes back on its tool_result.
	if got := []string{turn.OfUser.Content[0].OfToolResult.ToolsetName.Value, turn.OfUser.Content[1].OfToolResult.ToolsetName.Value}; !cmp.Equal(got, []string{"", "orders"}) {
		t.Errorf("toolset names %q", got)
	}
}

// broken breaks the executor contract: it returns one result fewer than calls.
type broken struct{ pipeline.Executor }

func (b broken) Execute(ctx context.Context, set *registry.ResolvedToolSet, batch []pipeline.RawCall) []*pipeline.Result {
	return b.Executor.Execute(ctx, set, batch)[1:]
}

func TestExecuteExecutorContract(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, broken{exec}, set, nil)
	_, err := a.Execute(context.Background(), message(t, "turn_orders.json"))
	if want := "anthropic: the executor returned 1 results for 2 calls"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// TestTools pins the tool list: names in the description's order, the registry's JSON
// Schema as input_schema member for member, defer_loading only where marked.
func TestTools(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	desc, err := exec.Describe(set)
	if err != nil {
		t.Fatal(err)
	}
	tools := a.Tools()
	if len(tools) != len(desc.Tools) {
		t.Fatalf("%d tools, want %d", len(tools), len(desc.Tools))
	}
	for i, tool := range tools {
		var got struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"input_schema"`
			DeferLoading *bool           `json:"defer_loading"`
		}
		if err := json.Unmarshal(indent(t, tool), &got); err != nil {
			t.Fatal(err)
		}
		d := desc.Tools[i]
		if got.Name != d.Name || got.Description != d.Description {
			t.Errorf("tool %d = %q %q, want %q %q", i, got.Name, got.Description, d.Name, d.Description)
		}
		var gotSchema, wantSchema any
		if err := json.Unmarshal(got.InputSchema, &gotSchema); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(d.Parameters, &wantSchema); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantSchema, gotSchema); diff != "" {
			t.Errorf("%s input_schema (-registry +sent):\n%s", d.Name, diff)
		}
		switch {
		case d.DeferLoading && (got.DeferLoading == nil || !*got.DeferLoading):
			t.Errorf("%s: defer_loading = %v, want true", d.Name, got.DeferLoading)
		case !d.DeferLoading && got.DeferLoading != nil:
			t.Errorf("%s: defer_loading sent (%v) for a tool not marked DeferLoading", d.Name, *got.DeferLoading)
		}
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.OfTool.Name)
	}
	if diff := cmp.Diff([]string{"archive_orders", "get_order", "render_chart", "run_code"}, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	if !tools[0].OfTool.DeferLoading.Value {
		t.Errorf("archive_orders is not deferred")
	}
}

// TestSystem pins the system blocks: the description's sections in order, and one
// cache breakpoint, on the SDK section unless Options say otherwise.
func TestSystem(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	desc, err := exec.Describe(set)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	sdkAt := -1
	for i, s := range desc.Sections {
		texts = append(texts, s.Text)
		if s.Name == anthropic.SDKSection {
			sdkAt = i
		}
	}
	if sdkAt != 1 || len(texts) != 2 {
		t.Fatalf("the description's sections changed (%d, SDK at %d); this test expects rules then SDK", len(texts), sdkAt)
	}
	cached := func(blocks []sdk.TextBlockParam) (at []int, ttl []string, got []string) {
		for i, b := range blocks {
			got = append(got, b.Text)
			if b.CacheControl.Type != "" {
				at = append(at, i)
				ttl = append(ttl, string(b.CacheControl.TTL))
			}
		}
		return at, ttl, got
	}
	for _, tc := range []struct {
		name string
		opts *anthropic.Options
		at   []int
		ttl  []string
	}{
		{"default", nil, []int{1}, []string{""}},
		{"ttl", &anthropic.Options{CacheTTL: "1h"}, []int{1}, []string{"1h"}},
		{"named section", &anthropic.Options{CacheSection: "tools:ptc-only"}, []int{0}, []string{""}},
		{"no cache", &anthropic.Options{NoCache: true}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mustNew(t, exec, set, tc.opts)
			at, ttl, got := cached(a.System())
			if diff := cmp.Diff(texts, got); diff != "" {
				t.Errorf("texts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.at, at); diff != "" {
				t.Errorf("breakpoints (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ttl, ttl); diff != "" {
				t.Errorf("ttl (-want +got):\n%s", diff)
			}
		})
	}

	// On the wire the breakpoint is cache_control {"type":"ephemeral"}.
	a, _ := anthropic.New(exec, set, nil)
	wire := string(indent(t, a.System()))
	if strings.Count(wire, `"cache_control"`) != 1 || !strings.Contains(wire, "\"cache_control\": {\n      \"type\": \"ephemeral\"\n    }") {
		t.Errorf("system blocks on the wire:\n%s", wire)
	}
}

// TestSystemNative: without an SDK section the breakpoint goes on the last section;
// with no sections there is nothing to cache.
func TestSystemNative(t *testing.T) {
	set, exec := setup(t, registry.ModeNative)
	desc, err := exec.Describe(set)
	if err != nil {
		t.Fatal(err)
	}
	a := mustNew(t, exec, set, nil)
	sys := a.System()
	if len(sys) != len(desc.Sections) {
		t.Fatalf("%d system blocks for %d sections", len(sys), len(desc.Sections))
	}
	for i, b := range sys {
		if want := i == len(sys)-1; (b.CacheControl.Type != "") != want {
			t.Errorf("block %d cached = %v, want %v", i, !want, want)
		}
	}
	if len(a.Tools()) != 3 {
		t.Errorf("%d native tools, want 3", len(a.Tools()))
	}
}

// TestNewRefuses pins New's errors.
func TestNewRefuses(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)

	dotted := registry.New()
	dotted.Register(&registry.Tool{Name: "fs.read", Parameters: registry.Object(), Execute: func(context.Context, *registry.Call) (any, error) { return nil, nil }})
	dottedSet, err := dotted.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	direct, _ := executors(t).For(dottedSet)

	for _, tc := range []struct {
		name string
		exec pipeline.Executor
		set  *registry.ResolvedToolSet
		opts *anthropic.Options
		want string
	}{
		{"nil executor", nil, set, nil, "anthropic: New: nil executor"},
		{"nil set", exec, nil, nil, "anthropic: New: nil tool set"},
		{"bad ttl", exec, set, &anthropic.Options{CacheTTL: "2h"}, `anthropic: New: CacheTTL must be "", "5m" or "1h", got "2h"`},
		{"unknown section", exec, set, &anthropic.Options{CacheSection: "nope"}, `anthropic: New: CacheSection "nope" is not among the described sections`},
		{"tool name", direct, dottedSet, nil, `anthropic: tool name "fs.read" is not accepted by the Messages API (it must match ^[a-zA-Z0-9_-]{1,128}$)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := anthropic.New(tc.exec, tc.set, tc.opts)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("New = %v, %v; want error %q", a, err, tc.want)
			}
		})
	}
}

// TestToolsAreCopies: a caller changing the returned slices does not change the adapter.
func TestToolsAreCopies(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a, _ := anthropic.New(exec, set, nil)
	before := indent(t, map[string]any{"tools": a.Tools(), "system": a.System()})
	tools, sys := a.Tools(), a.System()
	tools[0].OfTool.Name = "changed"
	tools[0].OfTool.InputSchema.Required[0] = "changed"
	if tools[0].OfTool.InputSchema.ExtraFields == nil {
		t.Fatalf("archive_orders's schema has no extra members: %s", indent(t, tools[0]))
	}
	tools[0].OfTool.InputSchema.ExtraFields["changed"] = true
	tools[1] = sdk.ToolUnionParam{}
	sys[0] = sdk.TextBlockParam{Text: "changed"}
	if after := indent(t, map[string]any{"tools": a.Tools(), "system": a.System()}); !bytes.Equal(before, after) {
		t.Errorf("the adapter changed:\n%s\n---\n%s", before, after)
	}
}

// TestToolsLossless: the schema's members reach the wire as the registry wrote them,
// numbers included.
func TestToolsLossless(t *testing.T) {
	scope := registry.New()
	schema := `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}},"required":["n"],"additionalProperties":false,"$comment":"kept"}`
	scope.Register(&registry.Tool{Name: "count", Parameters: registry.RawSchema(json.RawMessage(schema)),
		Execute: func(context.Context, *registry.Call) (any, error) { return nil, nil }})
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	exec, _ := executors(t).For(set)
	a := mustNew(t, exec, set, nil)
	wire, err := json.Marshal(a.Tools()[0])
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		InputSchema map[string]json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{
		"type":                 json.RawMessage(`"object"`),
		"properties":           json.RawMessage(`{"n":{"type":"integer","maximum":9007199254740993}}`),
		"required":             json.RawMessage(`["n"]`),
		"additionalProperties": json.RawMessage(`false`),
		"$comment":             json.RawMessage(`"kept"`),
	}
	if diff := cmp.Diff(want, got.InputSchema); diff != "" {
		t.Errorf("input_schema (-want +got):\n%s\nwire: %s", diff, wire)
	}
}

// described is a custom executor that describes fixed tools (and runs nothing): a
// custom executor's schemas need not come from the registry, which checks its own.
type described struct{ tools []registry.ToolSchema }

func (d described) Describe(*registry.ResolvedToolSet) (*pipeline.Description, error) {
	return &pipeline.Description{Tools: d.tools}, nil
}

func (d described) Execute(context.Context, *registry.ResolvedToolSet, []pipeline.RawCall) []*pipeline.Result {
	return nil
}

// TestInputSchema pins how a custom executor's schemas become input_schema: empty means
// an empty object schema; anything the API cannot take as one fails New.
func TestInputSchema(t *testing.T) {
	set := resolve(t, registry.ModeNative)
	for _, tc := range []struct{ name, schema, want string }{
		{"empty", ``, `{"type":"object"}`},
		{"no type", `{"properties":{}}`, `{"properties":{},"type":"object"}`},
		{"not an object", `[1]`, `anthropic: tool "t": input schema is not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage`},
		{"another type", `{"type":"string"}`, `anthropic: tool "t": input schema must have "type": "object", got "string"`},
		{"required", `{"type":"object","required":"n"}`, `anthropic: tool "t": input schema's "required" is not a list of strings: json: cannot unmarshal string into Go value of type []string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := anthropic.New(described{[]registry.ToolSchema{{Name: "t", Parameters: json.RawMessage(tc.schema)}}}, set, nil)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				var wire struct {
					InputSchema json.RawMessage `json:"input_schema"`
				}
				if err := json.Unmarshal(indent(t, a.Tools()[0]), &wire); err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				json.Compact(&buf, wire.InputSchema)
				got = buf.String()
				// The tool runner's definition has the same schema.
				beta, err := json.Marshal(a.BetaTools()[0].InputSchema())
				if err != nil {
					t.Fatal(err)
				}
				if string(beta) != got {
					t.Errorf("the runner's input schema is %s, the adapter's %s", beta, got)
				}
			}
			if got != tc.want {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}

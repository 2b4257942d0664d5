package sdkgen

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

// wantContains reports each of wants that text (named what) lacks.
func wantContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q", what, want)
		}
	}
}

// TestInstructionPhrases pins the contract strings (docs/run_code.md, "What the model is
// sent") in the instruction block and the declarations' frame.
func TestInstructionPhrases(t *testing.T) {
	section := Render(nil).Section
	wantContains(t, "the section", section,
		"## Writing code for run_code\n\n",
		"`run_code` takes two required arguments: `code`",
		"and `description`, a short summary of what the program does.",
		"top-level `await` and `return` work; TypeScript annotations are allowed and stripped",
		"Call tools as `await tools.name(args)`",
		"quoted access for exotic names: `tools[\"my-tool\"](args)`",
		"Every call resolves to the tool's typed canonical JSON value.",
		"Tool arguments must be lossless JSON.",
		"A FAILED tool call rejects with `ToolCallError`, whose `toolName` identifies the failed tool",
		"`try/catch` it to handle and continue",
		"Independent read-only calls MAY overlap under `Promise.all` (safe calls run concurrently; mutating calls run alone, in submission order).",
		"Only what you print or return is program output.",
		"A successful tool result containing an image is attached after the run",
		"every other intermediate result stays out of the conversation",
		"\nThe available tools:\n\n```ts\n",
		"\ntype JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }\n\n",
		"\ninterface ToolArgsMap {}\n\ninterface ToolOutputMap {}\n\n",
		"\ntype ToolName = keyof ToolOutputMap\n\n",
		"\ndeclare class ToolCallError extends Error {\n  readonly name: \"ToolCallError\";\n  readonly toolName: ToolName;\n  readonly code: ToolErrorCode;\n}\n\n",
		"\ndeclare const tools: {\n  [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;\n}\n```\n",
	)
	for _, code := range []string{"INVALID_ARGS", "UNKNOWN_TOOL", "TOOL_TIMEOUT", "ABORTED", "ABORTED_BEFORE_DISPATCH", "INVALID_TOOL_OUTPUT", "DENIED", "TOOL_FAILED"} {
		if !strings.Contains(section, `"`+code+`"`) {
			t.Errorf("ToolErrorCode lacks %s", code)
		}
	}
}

// TestRunCodeTexts pins run_code's description, parameter schema and the ptc rule
// section (docs/run_code.md, "What the model is sent").
func TestRunCodeTexts(t *testing.T) {
	wantContains(t, "RunCodeDescription", RunCodeDescription,
		"Takes two required arguments: `code`, the BODY of an async function (top-level `await` and `return` work; TypeScript annotations are allowed and stripped)",
		"`description`, a short summary of what the program does.",
		"Call tools as `await tools.name(args)` per the declarations in the system prompt.",
		"Only what you print or return is program output — curate it.",
		"Image-bearing subtool results are attached after the run.",
	)
	var params struct {
		Type       string
		Properties map[string]struct{ Type, Description string }
		Required   []string
	}
	if err := json.Unmarshal([]byte(RunCodeParameters), &params); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"code", "description"}, params.Required); diff != "" {
		t.Errorf("required mismatch (-want +got):\n%s", diff)
	}
	if got := params.Properties["code"].Description; got != "The program: the body of an async TypeScript function." {
		t.Errorf("code description = %q", got)
	}
	if got := params.Properties["description"].Description; !strings.HasPrefix(got, "Clear, concise description of what this program does in active voice, 5-10 words (shown in the UI).") {
		t.Errorf("description description = %q", got)
	}
	s := RunCodeSchema()
	if s.Name != "run_code" || s.Description != RunCodeDescription || string(s.Parameters) != RunCodeParameters {
		t.Errorf("RunCodeSchema() = %+v", s)
	}
	const rule = "`run_code` is the only tool you can call directly — a tool call naming any other tool fails. Reach every tool the SDK declares below from inside the program."
	if got := Rules(registry.ModePTC); got != rule {
		t.Errorf("Rules(ptc) = %q, want %q", got, rule)
	}
	for _, m := range []registry.Mode{registry.ModeNative, registry.ModeBoth, "custom"} {
		if got := Rules(m); got != "" {
			t.Errorf("Rules(%s) = %q, want none", m, got)
		}
	}
}

// TestGenerateFromRegistry renders DSL-built and raw tools through Resolve, so the
// registry's schema texts are what sdkgen reads.
func TestGenerateFromRegistry(t *testing.T) {
	scope := registry.New()
	noop := func(context.Context, *registry.Call) (any, error) { return nil, nil }
	for _, tool := range []*registry.Tool{
		{Name: "read", Description: "Read a file.", Execute: noop,
			Parameters: registry.Object(
				registry.Required("path", registry.String().Describe("Absolute path")),
				registry.Optional("mode", registry.String().Enum("text", "bytes")),
			).Closed(),
			Output: registry.Output{Schema: registry.OneOf(registry.String(), registry.Null())}},
		{Name: "my-tool", Execute: noop, Parameters: registry.RawSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":["integer","null"]}}}`))},
		{Name: "bare", Execute: noop},
	} {
		if _, err := scope.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	got := Generate(set)
	for _, want := range []string{
		"  bare: Record<string, JsonValue>;\n",
		"  \"my-tool\": {\n    n?: number | null;\n  };\n",
		"  /** Read a file. */\n  read: {\n    /** Absolute path */\n    path: string;\n    mode?: \"text\" | \"bytes\";\n  };\n",
		"  read: string | null;\n",
		"  bare: JsonValue;\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Generate lacks %q in:\n%s", want, got)
		}
	}
	if got != Generate(set) {
		t.Error("Generate is not deterministic")
	}
}

// TestOrderIndependence renders the corpus in shuffled orders: the text is identical.
func TestOrderIndependence(t *testing.T) {
	var tools []Tool
	for _, s := range loadCorpus(t) {
		tools = append(tools, s.tools...)
	}
	want := Render(tools)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		rng.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		got := Render(tools)
		if diff := cmp.Diff(want.Section, got.Section); diff != "" {
			t.Fatalf("order changed the section (-want +got):\n%s", diff)
		}
	}
}

// TestDuplicateNames keeps the first tool of a name: registries never produce
// duplicates, but Render must still emit valid declarations.
func TestDuplicateNames(t *testing.T) {
	sdk := Render([]Tool{{Name: "a", Description: "first"}, {Name: "a", Description: "second"}})
	if !strings.Contains(sdk.Declarations, "first") || strings.Contains(sdk.Declarations, "second") {
		t.Errorf("want only the first tool named a:\n%s", sdk.Declarations)
	}
}

// TestResultOwnsItsText: Render reads schemas in place, so nothing it returns may share
// their memory. Overwriting every schema byte after Render must not change the SDK.
func TestResultOwnsItsText(t *testing.T) {
	var tools []Tool
	for _, s := range loadCorpus(t) {
		tools = append(tools, s.tools...)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		tools = append(tools, Tool{Name: "random_" + itoa(i), Parameters: randomSchema(rng, 5), Output: randomSchema(rng, 3)})
	}
	tools = append(tools, Tool{Name: "exotic", Parameters: json.RawMessage(`{"$defs":{"Név":{"description":"d\u00e9f","type":"object","properties":{"a":{"enum":["x","y"],"enumDescriptions":["ex","why"]}}}},` +
		`"properties":{"n":{"$ref":"#/$defs/N\u00e9v"},"u":{"type":"bogus\n"},"r":{"$ref":"#/nowhere"},"c":{"const":"k\"v"},"d":{"default":"z","format":"f"}}}`)})
	for i := range tools { // schemas the test owns, to overwrite
		tools[i].Parameters = append(json.RawMessage(nil), tools[i].Parameters...)
		tools[i].Output = append(json.RawMessage(nil), tools[i].Output...)
	}
	sdk := Render(tools)
	if len(sdk.Fallbacks) == 0 {
		t.Fatal("want fallbacks among the tools, to check their text too")
	}
	want := SDK{Section: strings.Clone(sdk.Section), Declarations: strings.Clone(sdk.Declarations)}
	for _, f := range sdk.Fallbacks {
		want.Fallbacks = append(want.Fallbacks, Fallback{Tool: f.Tool, Schema: strings.Clone(f.Schema), Path: strings.Clone(f.Path), Reason: strings.Clone(f.Reason)})
	}
	for _, tool := range tools {
		for _, text := range [][]byte{tool.Parameters, tool.Output} {
			for i := range text {
				text[i] = '#'
			}
		}
	}
	if diff := cmp.Diff(want, *sdk); diff != "" {
		t.Errorf("the SDK changed with the schemas it was rendered from (-before +after):\n%s", diff)
	}
}

// TestNotJSON: schema text that is not JSON declares JsonValue and is reported.
func TestNotJSON(t *testing.T) {
	for _, text := range []string{`{"type":`, `{"a":1}x`, `{'a':1}`, `[1,]`, `{"a" 1}`, `01`, `"\x"`, "\"\x01\"", ``} {
		sdk := Render([]Tool{{Name: "t", Parameters: json.RawMessage(text)}})
		if !strings.Contains(sdk.Declarations, "  t: JsonValue;\n") {
			t.Errorf("%q: want t: JsonValue, got:\n%s", text, sdk.Declarations)
		}
		want := []Fallback{{Tool: "t", Schema: "parameters", Reason: "schema is not valid JSON"}}
		if text == "" {
			want = nil // a nil schema means the default {"type":"object"}
		}
		if text == "" {
			continue
		}
		if diff := cmp.Diff(want, sdk.Fallbacks); diff != "" {
			t.Errorf("%q: fallbacks mismatch (-want +got):\n%s", text, diff)
		}
	}
}

// TestDeepSchemas renders 5,000-level schemas of every nesting kind without overflowing
// the stack: the bound cuts them to JsonValue, with one fallback each.
func TestDeepSchemas(t *testing.T) {
	const depth = 5000
	wrap := map[string]func(string) string{
		"items":      func(s string) string { return `{"type":"array","items":` + s + `}` },
		"properties": func(s string) string { return `{"type":"object","properties":{"a":` + s + `}}` },
		"anyOf":      func(s string) string { return `{"anyOf":[` + s + `,{"type":"null"}]}` },
		"allOf":      func(s string) string { return `{"allOf":[` + s + `]}` },
		"const": func(s string) string {
			return `{"const":[` + strings.TrimPrefix(strings.TrimSuffix(s, "}"), `{"const":`) + `]}`
		},
	}
	for name, w := range wrap {
		t.Run(name, func(t *testing.T) {
			s := `{"type":"string"}`
			if name == "const" {
				s = `{"const":1}`
			}
			for range depth {
				s = w(s)
			}
			sdk := Render([]Tool{{Name: "deep", Parameters: json.RawMessage(s)}})
			if len(sdk.Fallbacks) == 0 {
				t.Error("want a depth fallback")
			}
			if len(sdk.Declarations) > 64<<10 {
				t.Errorf("the declarations are %d bytes: the depth bound did not hold", len(sdk.Declarations))
			}
		})
	}
	t.Run("alias-chain", func(t *testing.T) {
		// Each level is its own alias, rendered by the worklist, not by recursion.
		var b strings.Builder
		b.WriteString(`{"$ref":"#/$defs/D0","$defs":{`)
		for i := range depth {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"D` + itoa(i) + `":{"type":"array","items":{"$ref":"#/$defs/D` + itoa(i+1) + `"}}`)
		}
		b.WriteString(`,"D` + itoa(depth) + `":{"type":"string"}}}`)
		sdk := Render([]Tool{{Name: "chain", Parameters: json.RawMessage(b.String())}})
		if len(sdk.Fallbacks) != 0 || !strings.Contains(sdk.Declarations, "type D4999 = D5000[]\n") {
			t.Errorf("want 5,001 aliases and no fallback; fallbacks: %v", sdk.Fallbacks)
		}
	})
}

// TestRefExpansionBounded: in-place pointers that each refer to the previous one
// twice would double the text at every level; the expansion budget stops it.
func TestRefExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"p0":{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", 200) + `"}}}`)
	for i := 1; i <= 40; i++ {
		prev := `{"$ref":"#/properties/p` + itoa(i-1) + `"}`
		b.WriteString(`,"p` + itoa(i) + `":{"type":"object","properties":{"l":` + prev + `,"r":` + prev + `}}`)
	}
	b.WriteString(`}}`)
	sdk := Render([]Tool{{Name: "bomb", Parameters: json.RawMessage(b.String())}})
	if len(sdk.Declarations) > 4<<20 {
		t.Fatalf("the declarations are %d bytes", len(sdk.Declarations))
	}
	if len(sdk.Fallbacks) == 0 || !strings.Contains(sdk.Fallbacks[0].Reason, "grew too large") {
		t.Errorf("want an expansion fallback, got %v", sdk.Fallbacks)
	}
}

// TestLargeObjects: 30,000 properties (one repeated), each naming one of 30,000
// $defs, render in linear time; the repeated key keeps its first position and its
// last value.
func TestLargeObjects(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"dup":{"type":"string"}`)
	for i := range 30_000 {
		b.WriteString(`,"p` + itoa(i) + `":{"$ref":"#/$defs/D` + itoa(i) + `"}`)
	}
	b.WriteString(`,"dup":{"type":"boolean"}},"additionalProperties":false,"$defs":{"D0":{"type":"number"}`)
	for i := 1; i < 30_000; i++ {
		b.WriteString(`,"D` + itoa(i) + `":{"type":"number"}`)
	}
	b.WriteString(`}}`)
	sdk := Render([]Tool{{Name: "wide", Parameters: json.RawMessage(b.String())}})
	if !strings.Contains(sdk.Declarations, "  wide: {\n    dup?: boolean;\n    p0?: D0;\n") || strings.Count(sdk.Declarations, "dup?") != 1 || !strings.Contains(sdk.Declarations, "type D29999 = number\n") {
		t.Errorf("want dup first, once, as boolean, and every alias:\n%.300s", sdk.Declarations)
	}
}

// BenchmarkRender1000 renders an SDK for 1,000 tools cycled from the corpus (real
// servers' schemas, long descriptions included).
func BenchmarkRender1000(b *testing.B) {
	var corpus []Tool
	for _, s := range loadCorpus(b) {
		corpus = append(corpus, s.tools...)
	}
	tools := make([]Tool, 1000)
	for i := range tools {
		tools[i] = corpus[i%len(corpus)]
		tools[i].Name = corpus[i%len(corpus)].Name + "_" + itoa(i)
	}
	var in int64
	for _, t := range tools {
		in += int64(len(t.Name) + len(t.Description) + len(t.Parameters) + len(t.Output))
	}
	b.SetBytes(in) // MB/s of tool definitions read
	b.ReportAllocs()
	for b.Loop() {
		Render(tools)
	}
}

// TestSectionGlobals: state and scripts.$save are declared after the tools, inside the
// fence, in the full SDK and in the index alike, and only when asked for.
func TestSectionGlobals(t *testing.T) {
	tools := []Tool{{Name: "echo", Description: "Echo.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	for _, budget := range []int{-1, 1} {
		plain := Section(tools, &Options{Budget: budget})
		both := Section(tools, &Options{Budget: budget, State: true, SaveScripts: true})
		decl := plain.Declarations + StateDeclaration + SaveScriptsDeclaration
		if both.Declarations != decl {
			t.Errorf("budget %d: declarations\n%s\nwant\n%s", budget, both.Declarations, decl)
		}
		if want := strings.Replace(plain.Section, plain.Declarations, decl, 1); both.Section != want {
			t.Errorf("budget %d: section\n%s\nwant\n%s", budget, both.Section, want)
		}
		if only := Section(tools, &Options{Budget: budget, State: true}); only.Declarations != plain.Declarations+StateDeclaration {
			t.Errorf("budget %d: State alone declares\n%s", budget, only.Declarations)
		}
	}
}

package sdkgen

import (
	"encoding/json"
	"strings"
	"testing"
)

// fuzzSeeds are schemas worth keeping in the fuzz corpus; TestTypeCheck also checks
// their SDKs with tsc.
var fuzzSeeds = []string{
	`{}`, `true`, `false`, `null`, `[]`, `"x"`, `{"type":"object"}`,
	`{"$ref":"#"}`, `{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/A"}}}`,
	`{"$ref":"#/$defs/A","$defs":{"A":{"allOf":[{"$ref":"#/$defs/B"}]},"B":{"anyOf":[{"$ref":"#/$defs/A"}]}}}`,
	`{"$defs":{"JsonValue":{"type":"string"},"":{"type":"number"},"1":{}},"properties":{"a":{"$ref":"#/$defs/JsonValue"},"b":{"$ref":"#/$defs/"},"c":{"$ref":"#/$defs/1"}}}`,
	`{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{}},"required":["__proto__"]}`,
	`{"enum":[1e400,-0,12345678901234567890,"\ud800"]}`,
	`{"type":"array","prefixItems":[],"items":false}`,
	`{"type":["object","array"],"properties":{"a":{}},"items":{"type":"string"}}`,
	`{"properties":{"a":{"$ref":"#/properties/a"}}}`,
	`{"anyOf":[{"anyOf":[{"anyOf":[{"type":"null"}]}]}]}`,
	`{"description":"*/*/","type":"string","default":"*/","pattern":"a*/"}`,
}

// byteSource turns a fuzzer's bytes into the choices randomNode makes (zero when
// they run out), so that every input is a JSON schema built from real keywords.
type byteSource struct{ data []byte }

func (b *byteSource) IntN(n int) int {
	if len(b.data) == 0 {
		return 0
	}
	v := int(b.data[0])
	b.data = b.data[1:]
	return v % n
}

// FuzzRenderSchema explores schemas made of the keywords real tools use ($ref into
// $defs, recursive aliases, anyOf, allOf, tuples, maps, const, enum, exotic names):
// Render never panics and keeps the frame.
func FuzzRenderSchema(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{3, 3, 3, 4, 5, 0, 1, 2, 5, 5, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &byteSource{data: data}
		schema := randomSchema(src, 5)
		sdk := Render([]Tool{{Name: "t", Parameters: schema, Output: randomSchema(src, 3)}})
		if !strings.HasPrefix(sdk.Declarations, "type JsonValue = ") || !strings.HasSuffix(sdk.Declarations, "}\n") {
			t.Fatalf("broken frame for %s:\n%s", schema, sdk.Declarations)
		}
	})
}

// FuzzRender feeds arbitrary text as a tool's name, description and schemas: Render
// must never panic and must produce the fixed frame. (Whether the text type-checks is
// checked with tsc on a sample in TestTypeCheck, not on every input.)
func FuzzRender(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add("tool", "desc", s)
	}
	f.Add("my-tool */", "a\u2028b", `{"type":"object","properties":{"x":{"type":"string"}}}`)
	f.Fuzz(func(t *testing.T, name, desc, schema string) {
		sdk := Render([]Tool{{Name: name, Description: desc, Parameters: json.RawMessage(schema), Output: json.RawMessage(schema)}})
		if !strings.HasPrefix(sdk.Declarations, "type JsonValue = ") || !strings.HasSuffix(sdk.Declarations, "}\n") {
			t.Fatalf("broken frame:\n%s", sdk.Declarations)
		}
		// Markdown closes the fence at a line starting (after at most three spaces)
		// with backticks; backticks elsewhere, as in a quoted name, are harmless.
		for _, line := range strings.Split(sdk.Declarations, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "```") && len(line)-len(strings.TrimLeft(line, " ")) < 4 {
				t.Fatalf("a line of the declarations would close the fence: %q", line)
			}
		}
	})
}

// FuzzSearch: a program's query (any string) never panics the search, and results are
// bounded by the limit and deterministic.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{"", " ", "read a file", "getHTTPServer_logs.v2", "\xff\xfe", "ÉTÉ été", strings.Repeat("a", 5000)} {
		f.Add(s)
	}
	ix := NewIndex([]Tool{
		{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"properties":{"path":{"description":"Path"}}}`)},
		{Name: "getHTTPServerLogs", Description: "Server logs."},
		{Name: "été", Description: "Saison."},
	}, nil)
	f.Fuzz(func(t *testing.T, q string) {
		a := ix.Search(q, 2, nil)
		if len(a) > 2 {
			t.Fatalf("%d results over a limit of 2", len(a))
		}
		if b := ix.Search(q, 2, nil); len(a) != len(b) || (len(a) > 0 && a[0] != b[0]) {
			t.Fatal("the same query ranked differently")
		}
		_ = ix.Suggest(q, nil)
	})
}

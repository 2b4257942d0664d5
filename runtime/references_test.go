package runtime

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja/ast"

	"github.com/google/go-cmp/cmp"
)

func TestReferences(t *testing.T) {
	tests := []struct {
		name, code string
		want       []Reference
	}{
		{"dot and bracket", "const a = await tools.read_file({path: 'x'});\nawait tools[\"my-tool\"]({});\nconst f = tools.glob;", []Reference{
			{"read_file", 1, 23}, {"my-tool", 2, 14}, {"glob", 3, 17},
		}},
		{"nested in functions and Promise.all", "await Promise.all([1,2].map(async (i) => { return tools.lookup({i}) }));", []Reference{{"lookup", 1, 57}}},
		{"dynamic access is not listed", "const n = 'x'; await tools[n]({}); other.thing();", nil},
		{"typescript positions map back", "interface A { x: number }\nconst a: A = { x: 1 };\nawait tools.stat({ path: String(a.x) });", []Reference{{"stat", 3, 13}}},
		{"typescript bracket", "const n: number = 1;\nawait tools[\"my-tool\"]({ n });", []Reference{{"my-tool", 2, 14}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := References(tt.code, "tools", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("references (-want +got):\n%s", diff)
			}
		})
	}
	for _, code := range []string{
		"await tools.x(",
		"return tools.x" + strings.Repeat("(", 300) + strings.Repeat(")", 300), // never reaches a parser
		"})(); tools.x({}); (async () => {",
	} {
		_, err := References(code, "tools", nil)
		var f *Failure
		if !errors.As(err, &f) || f.Kind != KindException || !strings.HasPrefix(f.Message, "SyntaxError: ") {
			t.Errorf("%.40q: err = %v, want a SyntaxError failure", code, err)
		}
	}
}

// A member chain nests without bound (MaxNesting does not count it); walking its tree
// must not overflow the stack, as a recursive walk over a million levels did.
func TestWalkDeepTree(t *testing.T) {
	var e ast.Expression = &ast.Identifier{Name: "o"}
	for range 1_000_000 {
		e = &ast.DotExpression{Left: e, Identifier: ast.Identifier{Name: "a"}}
	}
	n := 0
	walk(reflect.ValueOf(e), func(any) { n++ })
	if n != 1_000_001 {
		t.Errorf("visited %d nodes, want 1000001", n)
	}
}

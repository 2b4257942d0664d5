package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReferences(t *testing.T) {
	ref := func(member string, line, col int) Reference {
		return Reference{Member: member, Line: line, Column: col}
	}
	dyn := func(line, col int) Reference { return Reference{Line: line, Column: col, Dynamic: true} }
	tests := []struct {
		name, code string
		want       []Reference
	}{
		{"dot and bracket", "const a = await tools.read_file({path: 'x'});\nawait tools[\"my-tool\"]({});\nconst f = tools.glob;", []Reference{
			ref("read_file", 1, 23), ref("my-tool", 2, 14), ref("glob", 3, 17),
		}},
		{"nested in functions and Promise.all", "await Promise.all([1,2].map(async (i) => { return tools.lookup({i}) }));", []Reference{ref("lookup", 1, 57)}},
		{"dynamic access", "const n = 'x'; await tools[n]({}); other.thing();", []Reference{dyn(1, 22)}},
		{"typescript positions map back", "interface A { x: number }\nconst a: A = { x: 1 };\nawait tools.stat({ path: String(a.x) });", []Reference{ref("stat", 3, 13)}},
		{"typescript bracket", "const n: number = 1;\nawait tools[\"my-tool\"]({ n });", []Reference{ref("my-tool", 2, 14)}},
		{"template literal and optional chaining", "await tools[`list_dir`]({});\nawait tools?.glob({});\nawait tools?.['stat']({});", []Reference{
			ref("list_dir", 1, 14), ref("glob", 2, 14), ref("stat", 3, 16),
		}},
		{"aliases", "const t = tools;\nlet u;\nu = t;\nawait t.glob({});\nawait u[\"list_dir\"]({});", []Reference{
			ref("glob", 4, 9), ref("list_dir", 5, 10),
		}},
		{"destructuring", "const { glob, \"list-dir\": ld, stat: s = null } = tools;\nconst t = tools;\nlet r;\n({ read_file: r } = t);", []Reference{
			ref("glob", 1, 9), ref("list-dir", 1, 16), ref("stat", 1, 31), ref("read_file", 4, 4),
		}},
		{"typescript destructuring", "const { glob }: { glob: Function } = tools as any;\nconst t = tools as typeof tools;\nawait t.stat({});", []Reference{
			ref("glob", 1, 9), ref("stat", 3, 9),
		}},
		{"rest and computed keys are dynamic", "const k = 'glob';\nconst { [k]: g, stat, ...rest } = tools;", []Reference{
			ref("stat", 2, 17), dyn(2, 35), dyn(2, 35),
		}},
		{"the global as a value is dynamic", "const t = tools;\nconsole.log(Object.keys(t), { tools });\nfor (const k in tools) {}", []Reference{
			dyn(2, 25), dyn(2, 31), dyn(3, 17),
		}},
		{"declarations are not uses", "function f(tools) { return 1 }\ntry {} catch (tools) {}\nawait tools.glob({});", []Reference{ref("glob", 3, 13)}},
		{"a parameter named tools hides the namespace", "function f(tools) { return tools.read(1) }\nconst g = ({ tools }) => tools.stat;\nawait tools.glob({});", []Reference{ref("glob", 3, 13)}},
		{"a local named tools hides it in its block", "{ const tools = [1]; tools.map(x => x) }\nawait tools.glob({});", []Reference{ref("glob", 2, 13)}},
		{"a local in another function does not", "function h() { let tools = 1; return tools }\nawait tools.stat({});", []Reference{ref("stat", 2, 13)}},
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

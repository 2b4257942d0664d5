package jsshape

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dop251/goja/ast"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/jsprep"
)

func TestShapeLiterals(t *testing.T) {
	// want is a literal's JSON, name and text; the text is found after the previous one.
	type want struct{ json, name, text string }
	tests := []struct {
		name, code string
		want       []want
	}{
		{"values of keys, variables and arguments", "const city = \"Paris\";\nconst r = await tools.get_weather({city, days: 3, unit: 'C', metric: true});\nreturn tools.format(r, `short`, -2.5);", []want{
			{`"Paris"`, "city", `"Paris"`}, {`3`, "days", `3`}, {`"C"`, "unit", `'C'`}, {`true`, "metric", `true`},
			{`"short"`, "", "`short`"}, {`-2.5`, "", `-2.5`},
		}},
		{"keys and members are not values", "\"use strict\";\nconst {\"a\": x, b = 4} = await tools[\"my-tool\"]({\"q\": 1, [\"k\"]: 2});\nclass C { \"m\"() {} f = 5 }\nreturn rows[0] + rows[-1] + o[`s`];", []want{
			{`4`, "b", `4`}, {`1`, "q", `1`}, {`2`, "", `2`}, {`5`, "f", `5`},
		}},
		{"names through arrays, conditionals, defaults and assignments", "const ids = [\"a\", \"b\"];\nlet mode;\nmode = flag ? \"x\" : \"y\";\nopts.limit = input.limit ?? 10;\nfunction f(n = 7) {}", []want{
			{`"a"`, "ids", `"a"`}, {`"b"`, "ids", `"b"`}, {`"x"`, "mode", `"x"`}, {`"y"`, "mode", `"y"`},
			{`10`, "limit", `10`}, {`7`, "n", `7`},
		}},
		{"what stays in the skeleton", "const re = /a+/g, n = null, big = 10n, t = `hi ${name}!`, tag = String.raw`x`, inf = 1e999;", nil},
		{"escapes and unicode", "return [\"caf\\u00e9 ☕\", 'it\\'s', 0x1F, 1_000, 1e3];", []want{
			{`"café ☕"`, "", `"caf\u00e9 ☕"`}, {`"it's"`, "", `'it\'s'`}, {`31`, "", `0x1F`}, {`1000`, "", `1_000`}, {`1000`, "", `1e3`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Of(tt.code, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s.Code != tt.code {
				t.Errorf("code %q, want the program's", s.Code)
			}
			var wants []Literal
			at := 0
			for _, w := range tt.want {
				i := strings.Index(tt.code[at:], w.text)
				if i < 0 {
					t.Fatalf("%s is not in the program after offset %d", w.text, at)
				}
				wants = append(wants, Literal{JSON: w.json, Name: w.name, Start: at + i, End: at + i + len(w.text)})
				at += i + len(w.text)
			}
			if diff := cmp.Diff(wants, s.Literals); diff != "" {
				t.Errorf("literals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShapeHash(t *testing.T) {
	base := "const city = \"Paris\";\nconst r = await tools.get_weather({city, days: 3});\nreturn r.temp > -5 ? `warm` : 'cold';"
	same := []struct{ name, code string }{
		{"other values", "const city = \"Rome\";\nconst r = await tools.get_weather({city, days: 4});\nreturn r.temp > -1 ? `hot` : 'cool';"},
		{"comments and whitespace", "// the weather\nconst city='Paris'  ;   const r=await tools.get_weather( { city , days : 3 } ) /* days */\n\n return r.temp>-5?`warm`:'cold'"},
		{"typescript types", "type W = { temp: number };\nconst city: string = \"Paris\";\nconst r: W = await tools.get_weather({city, days: 3}) as W;\nreturn r.temp > -5 ? `warm` : 'cold';"},
		{"quotes and number notation", "const city = `Paris`;\nconst r = await tools.get_weather({city, \"days\": 3.0});\nreturn r.temp > -5e0 ? \"warm\" : `cold`;"},
		{"a minus sign is part of the number", "const city = \"Paris\";\nconst r = await tools.get_weather({city, days: 3});\nreturn r.temp > 5 ? `warm` : 'cold';"},
		{"a markdown fence", "```js\n" + base + "\n```"},
	}
	differ := []struct{ name, code string }{
		{"another key", "const city = \"Paris\";\nconst r = await tools.get_weather({city, hours: 3});\nreturn r.temp > -5 ? `warm` : 'cold';"},
		{"another tool", "const city = \"Paris\";\nconst r = await tools.get_forecast({city, days: 3});\nreturn r.temp > -5 ? `warm` : 'cold';"},
		{"a literal of another type", "const city = \"Paris\";\nconst r = await tools.get_weather({city, days: \"3\"});\nreturn r.temp > -5 ? `warm` : 'cold';"},
		{"a variable renamed", "const town = \"Paris\";\nconst r = await tools.get_weather({city: town, days: 3});\nreturn r.temp > -5 ? `warm` : 'cold';"},
	}
	want, err := Of(base, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Hash) != 32 {
		t.Errorf("hash %q: want 32 hexadecimal digits", want.Hash)
	}
	for _, tt := range same {
		s, err := Of(tt.code, 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if s.Hash != want.Hash {
			t.Errorf("%s: another hash", tt.name)
		}
		if len(s.Literals) != len(want.Literals) {
			t.Errorf("%s: %d literals, want %d", tt.name, len(s.Literals), len(want.Literals))
		}
	}
	for _, tt := range differ {
		s, err := Of(tt.code, 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if s.Hash == want.Hash {
			t.Errorf("%s: the same hash", tt.name)
		}
	}
	// A template's text is part of the skeleton.
	a, _ := Of("return `Hi ${name}`", 0)
	b, _ := Of("return `Bye ${name}`", 0)
	if a.Hash == b.Hash {
		t.Error("templates with other text have the same hash")
	}
}

func TestShapeReplace(t *testing.T) {
	tests := []struct {
		name, code string
		with       map[int]string
		want       string
	}{
		{"values become input", "const city = \"Paris\"; // where\nreturn await tools.get_weather({city, days: 3, unit: 'C'});",
			map[int]string{0: "input.city", 1: "input.days"},
			"const city = input.city; // where\nreturn await tools.get_weather({city, days: input.days, unit: 'C'});"},
		{"a space where words would join", "return typeof-5 in\"x\"in o", map[int]string{0: "input.n", 1: "input.s"},
			"return typeof input.n in input.s in o"},
		{"typescript is stripped", "const n: number = 2;\nreturn n;", map[int]string{0: "input.n"}, "  const n = input.n;\n  return n;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Of(tt.code, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Replace(tt.with); got != tt.want {
				t.Errorf("Replace:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestShapeFailure(t *testing.T) {
	const code = "const x = ;"
	_, want := jsprep.Prepare(code, 0)
	_, err := Of(code, 0)
	var f *jsprep.Failure
	if !errors.As(err, &f) || err.Error() != want.Error() {
		t.Errorf("Of: %v, want Prepare's %v", err, want)
	}
}

// FuzzShape: Of never panics; its literals lie in its code, in order; and a
// program Prepare accepts still does with every literal made input.v.
func FuzzShape(f *testing.F) {
	for _, seed := range []string{
		"const city = \"Paris\"; return await tools.get({city, days: 3})",
		"const n: number = -2; return typeof-5 in\"x\"in o",
		"return [`a`, `b${c}`, 1_000, 0x1F, true, null, /re/g, 10n, 1e999]",
		"\"use strict\"; class C { 'm'() {} f = 5 } return a[-1] ?? { [\"k\"]: 'v' }",
		"```ts\nconst x: string = 'a'\n```",
		"enum E { A = 'a' } return E.A",
		"})(); (() => {",
		"\x00\xff`${",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		s, err := Of(code, 0)
		if err != nil {
			return
		}
		at := 0
		with := map[int]string{}
		for i, l := range s.Literals {
			if s.Code != "" && (l.Start < at || l.End > len(s.Code) || l.Start >= l.End) {
				t.Fatalf("Of(%q): literal %d spans %d to %d in %d bytes after %d", code, i, l.Start, l.End, len(s.Code), at)
			}
			at = l.End
			with[i] = "input.v"
		}
		if _, err := jsprep.Prepare(code, 0); err != nil || s.Code == "" {
			return
		}
		if _, err := jsprep.Prepare(s.Replace(with), 0); err != nil {
			t.Fatalf("Of(%q).Replace: %q does not prepare: %v", code, s.Replace(with), err)
		}
	})
}

// skeleton keeps its own stack, like walk: a million-deep member chain does not
// overflow the goroutine's.
func TestSkeletonDeepTree(t *testing.T) {
	var e ast.Expression = &ast.Identifier{Name: "o"}
	for range 1_000_000 {
		e = &ast.DotExpression{Left: e, Identifier: ast.Identifier{Name: "a"}}
	}
	b := skeleton(e, nil)
	if n := bytes.Count(b, []byte("(DotExpression")); n != 1_000_000 {
		t.Errorf("skeleton has %d member expressions, want 1000000", n)
	}
}

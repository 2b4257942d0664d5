package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrepareSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string
	}{
		{
			name: "js error on line 2 keeps the model's line and shows the line",
			code: "let a = 1;\nfoo(;",
			want: "SyntaxError: Unexpected token ; (line 2, column 5)\n    foo(;\n        ^",
		},
		{
			name: "line 1 column excludes the wrapper",
			code: "const a = 1; const a = 2;",
			want: "SyntaxError: Identifier 'a' has already been declared (line 1, column 20)\n    const a = 1; const a = 2;\n                       ^",
		},
		{
			name: "unterminated code points at the end of the last line",
			code: "return 1 +",
			want: "SyntaxError: Unexpected end of input (line 1, column 11)\n    return 1 +\n              ^",
		},
		{
			name: "imports get a hint",
			code: "import fs from 'fs'\nreturn 1",
			want: "SyntaxError: Unexpected \"fs\" (line 1, column 8)\n    import fs from 'fs'\n           ^\nPrograms cannot import or export modules: tools, console and the other globals are already in scope.",
		},
		{
			name: "unicode property escapes are rejected, not silently false",
			code: "const ok = 1;\nreturn /^\\p{Lu}+$/u.test('ABC')",
			want: "SyntaxError: Unicode property escapes such as \\p{L} are not supported here (they would never match); use explicit ranges such as [A-Za-z\\u00C0-\\u024F] (line 2, column 8)\n    return /^\\p{Lu}+$/u.test('ABC')\n           ^",
		},
		{
			name: "typescript error is reported at the original position",
			code: "const x: number = 1;\nconst y: = 2;",
			want: "SyntaxError: Unexpected \"=\" (line 2, column 10)\n    const y: = 2;\n             ^",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Prepare(tt.code, nil)
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("Prepare error = %v, want a *Failure", err)
			}
			if f.Kind != KindException {
				t.Errorf("kind = %q, want exception", f.Kind)
			}
			if diff := cmp.Diff(tt.want, f.Message); diff != "" {
				t.Errorf("message mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrepareSizeLimit(t *testing.T) {
	_, err := Prepare(strings.Repeat("1;", 60), &PrepareOptions{MaxBytes: 100})
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Prepare error = %v, want a *Failure", err)
	}
	want := Failure{Kind: KindException, Message: "program of 120 bytes exceeds the limit of 100 bytes"}
	if diff := cmp.Diff(want, *f); diff != "" {
		t.Errorf("failure mismatch (-want +got):\n%s", diff)
	}
	if _, err := Prepare(strings.Repeat("1;", 50), &PrepareOptions{MaxBytes: 100}); err != nil {
		t.Errorf("a program of exactly the limit failed: %v", err)
	}
}

func TestPrepareTypeScript(t *testing.T) {
	p := newTestPool(t, nil)
	tests := []struct {
		name string
		code string
		ts   bool
		want string // Result.Text()
	}{
		{name: "plain js never reaches esbuild", code: "return 1 + 1", want: "2"},
		{
			name: "interfaces, annotations, casts and generics",
			code: "interface P { x: number; y: number }\nfunction sum<T extends P>(p: T): number { return p.x + p.y }\nconst p = { x: 1, y: 2 } as P;\nconsole.log('point', p);\nreturn sum<P>(p!)",
			ts:   true,
			want: "point { x: 1, y: 2 }\n3",
		},
		{name: "enums work", code: "enum Color { Red, Green = 5 }\nreturn [Color.Red, Color.Green, Color[5]]", ts: true, want: "[\n  0,\n  5,\n  \"Green\"\n]"},
		{
			name: "for await and async generators are lowered",
			code: "async function* gen() { yield 1; yield 2 }\nlet s = 0;\nfor await (const v of gen()) s += v;\nreturn s",
			ts:   true,
			want: "3",
		},
		{
			name: "runtime error maps back to the original typescript line",
			code: "type T = { a?: { b: number } }\n\nconst t: T = {};\n\nreturn (t as any).a.b",
			ts:   true,
			want: "Error: code run failed (exception): TypeError: Cannot read property 'b' of undefined or null\n    at program.ts:5:21",
		},
		{
			name: "runtime error in js keeps line and line-1 column",
			code: "null.x",
			want: "Error: code run failed (exception): TypeError: Cannot read property 'x' of undefined or null\n    at program.js:1:6",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prg, err := Prepare(tt.code, nil)
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if prg.TypeScript() != tt.ts {
				t.Errorf("TypeScript() = %v, want %v", prg.TypeScript(), tt.ts)
			}
			res := runCode(t, p, tt.code, nil)
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTypeScriptPositionsMatchJavaScript: a TypeScript program's runtime errors point
// at the same line and column as the same program in plain JavaScript. The
// TypeScript variant differs only by annotations after the failing position, or on
// another line.
func TestTypeScriptPositionsMatchJavaScript(t *testing.T) {
	p := newTestPool(t, nil)
	tests := []struct {
		name   string
		js, ts string
		want   string // the frames, as in the JavaScript run
	}{
		{"member of undefined", "const a = 1;\nconst q = undefined;\nreturn q.foo", "const a: number = 1;\nconst q = undefined;\nreturn q.foo",
			"at program.X:3:10"},
		{"method of undefined", "const a = 1;\nconst q = undefined;\n  q.foo()", "const a: number = 1;\nconst q = undefined;\n  q.foo()",
			"at program.X:3:3"},
		{"throw", "const a = 1;\nthrow new Error('x')", "const a: number = 1;\nthrow new Error('x')",
			"at program.X:2:7"},
		{"in a function", "const a = 1;\nfunction f() {\n  null.x }\nf()", "const a: number = 1;\nfunction f() {\n  null.x }\nf()",
			"at f (program.X:3:8)\n    at program.X:4:2"},
		{"call frames", "const a = 1;\nfunction g() {\n    throw new Error('x') }\nconst o = { m() { return g() } };\n  o.m()",
			"const a: number = 1;\nfunction g() {\n    throw new Error('x') }\nconst o = { m() { return g() } };\n  o.m()",
			"at g (program.X:3:11)\n    at m (program.X:4:27)\n    at program.X:5:6"},
		{"callback", "const a = 1;\nreturn [1].map((x) => x.foo.bar)", "const a: number = 1;\nreturn [1].map((x) => x.foo.bar)",
			"at program.X:2:29\n    at map (native)\n    at program.X:2:15"},
		{"on line 1", "const a = 1; null.x", "const a: number = 1; null.x",
			"at program.X:1:27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, lang := range []string{"js", "ts"} {
				code := tt.js
				if lang == "ts" {
					code = tt.ts
				}
				text := runCode(t, p, code, nil).Text()
				_, frames, _ := strings.Cut(text, "\n    ")
				want := strings.ReplaceAll(tt.want, "program.X", "program."+lang)
				if tt.name == "on line 1" && lang == "js" {
					want = "at program.js:1:19" // the annotation is before the failure here
				}
				if diff := cmp.Diff(want, frames); diff != "" {
					t.Errorf("%s: frames mismatch (-want +got):\n%s\n%s", lang, diff, text)
				}
			}
		})
	}
}

// A program cannot make the parser read a host file through a sourceMappingURL comment,
// neither in its own text nor through eval or new Function.
func TestPrepareNeverLoadsHostSourceMaps(t *testing.T) {
	p := newTestPool(t, nil)
	for _, code := range []string{
		"//# sourceMappingURL=/etc/passwd\nreturn 1",
		"const x: number = 1\n//# sourceMappingURL=/etc/passwd\nreturn x",
		"return eval('1\\n//# sourceMappingURL=/etc/passwd')",
		"return new Function('return 1\\n//# sourceMappingURL=/etc/passwd')()",
	} {
		res := runCode(t, p, code, nil)
		if diff := cmp.Diff("1", res.Text()); diff != "" {
			t.Errorf("%q: text mismatch (-want +got):\n%s", code, diff)
		}
	}
}

// code is the body of an async function: a program that closes the wrapper itself is a
// syntax error at the brace that closed it, and none of it runs.
func TestPrepareRejectsClosingTheWrapper(t *testing.T) {
	p := newTestPool(t, nil)
	var ft fakeTools
	ns := ft.namespace(t)
	tests := []struct {
		name string
		code string
		want string // the message's first line
	}{
		{"semicolon", "return 1 })(); tools.echo({tail: 1}); (async function () {",
			"SyntaxError: Unexpected token } (line 1, column 10)"},
		{"comma", "return 1 }), tools.echo({tail: 1}), (async () => {",
			"SyntaxError: Unexpected token } (line 1, column 10)"},
		{"call with the tail as argument", "return 1 })(tools.echo({tail: 1})); (() => {",
			"SyntaxError: Unexpected token } (line 1, column 10)"},
		{"member call", "}).call(tools.echo({tail: 1})); (async () => {",
			"SyntaxError: Unexpected token } (line 1, column 1)"},
		{"comments and lines", "const a = 1;\n  /* } */ } // })\n)(); tools.echo({tail: 1});\n(async () => { // {",
			"SyntaxError: Unexpected token } (line 2, column 11)"},
		{"typescript", "const a: number = 1;\n}); tools.echo({tail: 1}); (async () => {",
			"SyntaxError: Unexpected token } (line 2, column 1)"},
		{"typescript with lowered helpers", "async function* g() { yield 1 }\n}); tools.echo({tail: 1}); (async () => {",
			"SyntaxError: Unexpected token } (line 2, column 1)"},
		{"typescript call", "let x: string = 'a'\n  })(tools.echo({tail: 1} as object)); (async (): Promise<void> => {",
			"SyntaxError: Unexpected token } (line 2, column 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Prepare(tt.code, nil)
			var f *Failure
			if !errors.As(err, &f) || f.Kind != KindException {
				t.Fatalf("Prepare error = %v, want an exception failure", err)
			}
			if got, _, _ := strings.Cut(f.Message, "\n"); got != tt.want {
				t.Errorf("message %q, want %q", got, tt.want)
			}
			res := runCode(t, p, tt.code, &RunOptions{Namespaces: []*Namespace{ns}})
			if res.Failure == nil || res.Failure.Message != f.Message {
				t.Errorf("Run = %+v, want the same failure", res.Failure)
			}
		})
	}
	if calls := ft.calls(); len(calls) > 0 {
		t.Errorf("the tails ran: %q", calls)
	}
}

// TestUnclosedProgram: a program that ends inside a brace fails at the end of its own
// text with V8's "Unexpected end of input", not with the wrapper's closing tokens.
func TestUnclosedProgram(t *testing.T) {
	_, err := Prepare("return {", nil)
	want := "SyntaxError: Unexpected end of input (line 1, column 9)\n    return {\n            ^"
	var f *Failure
	if !errors.As(err, &f) || f.Message != want {
		t.Errorf("Prepare(%q) = %v, want %q", "return {", err, want)
	}
}

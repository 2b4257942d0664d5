package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/google/go-cmp/cmp"
)

// literal is a string, template text or regular expression as a parser saw it: its kind,
// where it starts and its raw text (template text with line breaks normalised, as goja
// keeps it).
type literal struct {
	Kind  litKind
	Start int
	Text  string
}

// gojaLiterals parses src with goja's parser and returns its string, template and regular
// expression literals in source order, or ok false if goja rejects src.
func gojaLiterals(src string) (lits []literal, ok bool) {
	prg, err := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, false
	}
	base := prg.File.Base()
	walk(reflect.ValueOf(prg), func(n any) {
		switch e := n.(type) {
		case *ast.StringLiteral:
			// Identifier keys are StringLiterals too; only quoted ones are literals.
			if strings.HasPrefix(e.Literal, "'") || strings.HasPrefix(e.Literal, `"`) {
				lits = append(lits, literal{litString, int(e.Idx) - base, e.Literal})
			}
		case *ast.TemplateElement:
			// goja's index of template text is one past its first byte.
			lits = append(lits, literal{litTemplate, int(e.Idx) - base - 1, e.Literal})
		case *ast.RegExpLiteral:
			start := int(e.Idx) - base
			lits = append(lits, literal{litRegExp, start, src[start : start+len(e.Pattern)+2+len(e.Flags)]})
		}
	})
	sortLiterals(lits)
	// A function's declaration list shares its var statements' nodes: walked twice.
	return slices.Compact(lits), true
}

// scannerLiterals is what the nesting scanner reads as strings, template text and regular
// expressions, in the same form.
func scannerLiterals(src string) []literal {
	var lits []literal
	for _, sp := range scanLiterals(src) {
		if sp.kind == litComment {
			continue
		}
		text := src[sp.start:sp.end]
		if sp.kind == litTemplate {
			text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
		}
		lits = append(lits, literal{sp.kind, sp.start, text})
	}
	sortLiterals(lits)
	return lits
}

func sortLiterals(lits []literal) {
	slices.SortStableFunc(lits, func(a, b literal) int { return a.Start - b.Start })
}

// checkLiterals fails the test if goja accepts src and reads its literals differently
// from the scanner.
func checkLiterals(t *testing.T, src string) {
	t.Helper()
	want, ok := gojaLiterals(src)
	if !ok {
		return
	}
	if diff := cmp.Diff(want, scannerLiterals(src)); diff != "" {
		t.Errorf("%q: literals differ from goja's (-goja +scanner):\n%s", src, diff)
	}
}

// literalSeeds are sources where telling code from strings, template text and regular
// expressions needs the grammar, not just the characters.
var literalSeeds = []string{
	"x = a / b / c",
	"x = a\n/b/g.test(c)",
	"x = (a) / 2 / 1",
	"if (a) /re/.test(b)",
	"while (a) /re/.test(b)",
	"for (;;) /re/.test(b)",
	"for (const x of /a/g.exec(s)) {}",
	"for (x in /a/) {}",
	"do x; while (a) /re/.test(b)",
	"do {} while (a)\n/re/.test(b)",
	"x = function(){} / 1 / 2",
	"function f(){} /a/.test('a')",
	"{} /a/.test('a')",
	"class A {} /a/.test('a')",
	"x = class {} / 1 / 2",
	"x = () => {}\n/a/g.test('a')",
	"x = {} / 1 / 2",
	"x = a++ / 2 / 1",
	"x = a\n++/a/.lastIndex",
	"function f() { return /a/.test(b) }",
	"function f() { return\n/a/.test(b) }",
	"x = typeof /a/",
	"x = a ? /b/ : /c/",
	"x = [/a/, /b/]",
	"x = {a: /b/}",
	"x = /[/]/.test('/')",
	"x = /[\\]/]/.test('/')",
	"x = /\\//.test('/')",
	"x = /a/in b",
	"x = /a/g in b",
	"x = 'a\\'b' + \"c\\\"d\"",
	"x = 'a\\\nb'",
	"x = `a${b}c${`d${e}f`}g`",
	"x = `${{a: 1}.a}`",
	"x = `a\\`b${'}'}c`",
	"x = tag`a${b}`",
	"x = a // c / d\n/ 2",
	"x = a /* c */ / 2",
	"x = a /*\n*/ / 2",
	"label: /a/.test(b)",
	"switch (a) { case 1: /a/.test(b); default: /c/ }",
	"x = a ? b : /c/",
	"try {} catch (e) {} /a/.test(b)",
	"try {} finally {} /a/.test(b)",
	"var x\n/a/.test(b)",
	"let x, y\n/a/.test(b)",
	"x: for (;;) { break x\n/a/.test(b) }",
	"x: for (;;) { continue x\n/a/ }",
	"async function f() { await /a/ }",
	"function f() { var await = 1; return await / 2 / 1 }",
	"function* g() { yield /a/ }",
	"function g() { var yield = 1; return yield / 2 / 1 }",
	"async function f() { x => await / 2 / 1 }",
	"async function f() { async x => await /a/ }",
	"x = async / 2 / 1",
	"x = o.return / 2 / 1",
	"x = o.if / 2 / 1",
	"x = {return: 1}.return / 2",
	"x = {if: /a/, else: /b/}",
	"class A { static { /a/ } }",
	"class A { m() { return /a/ } }",
	"class A { x = /a/ }",
	"class A { get if() { return /a/ } }",
	"x = this / 2 / 1",
	"x = null / 2 / 1",
	"x = 1. / 2 / 1",
	"x = .5 / 2 / 1",
	"x = 0x1F / 2 / 1",
	"x = 1e3 / 2 / 1",
	"x = 1n / 2n / 1n",
	"x = a[0] / 2 / 1",
	"x = f() / 2 / 1",
	"x = `a` / 2 / 1",
	"x = /a/ / 2 / 1",
	"if (a) b\nelse /c/.test(d)",
	"if (a) {} else /c/.test(d)",
	"x = !/a/.test(b)",
	"x = a\n!/b/.test(c)",
	"x = -/a/.lastIndex",
	"x = a - /b/.lastIndex",
	"x = a ?? /b/",
	"x = a?.b / 2 / 1",
	"x = a?.[0] / 2 / 1",
	"x = (1, /a/)",
	"x = new RegExp(/a/)",
	"x = void /a/",
	"x = delete /a/.x",
	"x = [] / 2 / 1",
	"x = [...a] / 2 / 1",
	"x = #x in o",
	"class A { #x = 1; m() { return this.#x / 2 / 1 } }",
	"x = a\n`b` / 2",
	"x = '\u2028' + /a/",
	"x = /[\u2028]/",
	"x = a\u2028/b/g",
	"x = '/*' + /*'*/ 'a'",
	"x = \"//\" + `//` + /\\/\\//",
	"x = a /= 2 / 1",
	"x = /=/g",
	"if (a) function f(){} /a/",
	"x = function*(){ yield\n/a/ }",
	"x = y => ({}) / 2",
	"x = y => {} \n/a/",
	"x = (y) => y / 2 / 1",
	"x = async (y) => await /a/",
	"x = async y => await /a/",
	"a: b: /c/",
	"x = a ? b : c\n/d/g",
	"with (a) /b/",
	"x = { get a() { return /a/ }, set a(v) {}, async b() { await /c/ }, *d() { yield /e/ } }",
	"class A extends B { constructor() { super() / 2 } }",
	"x = new.target / 2",
	"x = `${a}` / 2 / 1",
	"x = `${`${`${a}`}`}`",
	"x = '${a}' + `\\${a}`",
	"x = a\n/b/\n/c/",
	"let {a = /b/} = c",
	"let [a = /b/] = c",
	"for (let i = 0; i < n / 2; i++) /a/",
	"for (let i of /a/g) {}",
	"for (const [a, b] of /x/) {}",
	"for (const {a} of o) /r/",
}

func TestScanLiteralsMatchGoja(t *testing.T) {
	for _, src := range literalSeeds {
		if _, ok := gojaLiterals(src); !ok {
			t.Errorf("seed %q: goja rejects it; seeds must parse", src)
			continue
		}
		checkLiterals(t, src)
	}
}

// FuzzNesting compares, for every source goja's parser accepts, what the nesting scanner
// reads as strings, template text and regular expressions with the literals goja saw.
// A difference could let a program hide nesting from the scanner.
func FuzzNesting(f *testing.F) {
	for _, s := range literalSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkLiterals(t, src)
		_, _, _ = checkNesting(src, 0, true)
	})
}

// nestingShape builds a program nested n levels deep and returns it with the byte offset
// of the token that opens its n-th level.
type nestingShape func(n int) (code string, at int)

// repeated nests unit n times between pre and post(n); the level of each unit starts at
// its byte tok.
func repeated(pre, unit string, tok int, post func(n int) string) nestingShape {
	return func(n int) (string, int) {
		return pre + strings.Repeat(unit, n) + post(n), len(pre) + (n-1)*len(unit) + tok
	}
}

func closers(s string) func(int) string {
	return func(n int) string { return strings.Repeat(s, n) }
}

func tail(s string) func(int) string { return func(int) string { return s } }

var nestingShapes = []struct {
	name  string
	shape nestingShape
}{
	{"brackets", repeated("return ", "[", 0, closers("]"))},
	{"parentheses", repeated("return ", "(", 0, func(n int) string { return "1" + strings.Repeat(")", n) })},
	{"blocks", repeated("", "{", 0, closers("}"))},
	{"template substitutions", repeated("return ", "`${", 1, func(n int) string { return "1" + strings.Repeat("}`", n) })},
	// The parameters' parenthesis opens the deepest level of the innermost function.
	{"functions", repeated("", "function f() {", 10, closers("}"))},
	{"sum chain", repeated("return 1", "+1", 0, tail(""))},
	{"logical and chain", repeated("return a", " && a", 1, tail(""))},
	{"nullish chain", repeated("return a", " ?? a", 1, tail(""))},
	{"comparison chain", repeated("return a", " < a", 1, tail(""))},
	{"in chain", repeated("return a", " in a", 1, tail(""))},
	{"assignment chain", repeated("let a; return ", "a = ", 2, tail("1"))},
	{"arrow chain", repeated("return ", "a => ", 2, tail("1"))},
	{"optional chain", repeated("return o", "?.a", 0, tail(""))},
	{"unary minus", repeated("return ", "- ", 0, tail("x"))},
	{"logical not", repeated("return ", "!", 0, tail("x"))},
	{"typeof", repeated("return ", "typeof ", 0, tail("x"))},
	{"await", repeated("return ", "await ", 0, tail("x"))},
	{"new", repeated("return ", "new ", 0, tail("X"))},
	{"ternary", repeated("return ", "a ? b : ", 2, tail("c"))},
	{"if", repeated("", "if (a) ", 0, tail("x;"))},
	{"while", repeated("", "while (a) ", 0, tail("x;"))},
	{"for", repeated("", "for (;;) ", 0, tail("x;"))},
	{"do while", repeated("", "do ", 0, func(n int) string { return "x;" + strings.Repeat(" while (a);", n) })},
	{"else if chain", func(n int) (string, int) {
		code := "if (a) x;" + strings.Repeat(" else if (a) x;", n-1)
		return code, len(code) - len("if (a) x;")
	}},
	// The last if's block is one level deeper than the chain.
	{"else if chain of blocks, one per line", func(n int) (string, int) {
		code := "if (a) {\n}" + strings.Repeat(" else if (a) {\n}", n-2)
		return code, len(code) - len("{\n}")
	}},
	{"labels", func(n int) (string, int) {
		var b strings.Builder
		at := 0
		for i := range n {
			at = b.Len()
			fmt.Fprintf(&b, "l%d: ", i)
		}
		b.WriteString("x;")
		return b.String(), at + strings.Index(b.String()[at:], ":")
	}},
}

// Every recursive shape is accepted at MaxNesting levels and rejected one level deeper,
// at the token that opens that level.
func TestPrepareNestingLimit(t *testing.T) {
	for _, tt := range nestingShapes {
		t.Run(tt.name, func(t *testing.T) {
			ok, _ := tt.shape(MaxNesting)
			if _, err := Prepare(ok, nil); err != nil {
				t.Errorf("at %d levels: %v", MaxNesting, err)
			}
			deep, at := tt.shape(MaxNesting + 1)
			lineStart := strings.LastIndexByte(deep[:at], '\n') + 1
			want := fmt.Sprintf("SyntaxError: nesting deeper than 256 levels (line %d, column %d)",
				1+strings.Count(deep[:at], "\n"), utf8.RuneCountInString(deep[lineStart:at])+1)
			_, err := Prepare(deep, nil)
			var f *Failure
			if !errors.As(err, &f) || f.Kind != KindException {
				t.Fatalf("at %d levels: err = %v, want an exception failure", MaxNesting+1, err)
			}
			if got, _, _ := strings.Cut(f.Message, "\n"); got != want {
				t.Errorf("at %d levels: message %q, want %q", MaxNesting+1, got, want)
			}
		})
	}
}

func TestPrepareNestingMessage(t *testing.T) {
	code := "const ok = 1;\nreturn " + strings.Repeat("[", 257) + strings.Repeat("]", 257)
	_, err := Prepare(code, nil)
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Prepare error = %v, want a *Failure", err)
	}
	line := "return " + strings.Repeat("[", 257) + strings.Repeat("]", 257)
	shown := "…" + line[263-80:263-80+160] + "…"
	want := "SyntaxError: nesting deeper than 256 levels (line 2, column 264)\n    " + shown + "\n    " + strings.Repeat(" ", 81) + "^"
	if diff := cmp.Diff(want, f.Message); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
}

// What a string, comment, regular expression or template text holds is not code: its
// brackets never add to the nesting of the code around it, though a region is measured on
// its own in case a parser reads it as code.
func TestPrepareNestingIgnoresLiterals(t *testing.T) {
	deep := strings.Repeat("[", 250)
	deepEnd := strings.Repeat("]", 250)
	for _, code := range []string{
		"return " + deep + "'" + strings.Repeat("]})", 100) + "'" + deepEnd,
		strings.Repeat("x = '((((((((((';\n", 300),
		strings.Repeat("// ((((((((((\n", 300) + "return " + deep + deepEnd,
		strings.Repeat("/* [[[[[[[[[[ */\n", 300) + "return " + deep + deepEnd,
		strings.Repeat("x = /\\(\\(\\(\\(\\(\\(/;\n", 300) + "return " + deep + deepEnd,
		strings.Repeat("x = `{{{{{{{{{{ ${1} }}}}}}}}}} ((((((`;\n", 300) + "return " + deep + deepEnd,
		"const s = '" + strings.Repeat("(", 200) + "';\nreturn " + deep + deepEnd,
	} {
		if _, err := Prepare(code, nil); err != nil {
			t.Errorf("%.60q…: %v", code, err)
		}
	}
	// A long stretch of brackets inside a string is measured as if it were code.
	code := "return '" + strings.Repeat("(", 300) + "'"
	if _, err := Prepare(code, nil); err == nil || !strings.Contains(err.Error(), nestingMessage) {
		t.Errorf("a string of 300 brackets: err = %v, want the nesting error", err)
	}
}

func TestPrepareNestingTypeScript(t *testing.T) {
	ts := "interface Box<T> { value: T; next?: Box<T> }\n" +
		"function wrap<T extends Record<string, Array<Map<string, number>>>>(x: T): Promise<Array<T>> {\n" +
		"  return Promise.resolve([x] as Array<T>);\n}\n" +
		"const b: Box<number> = { value: 1 };\n" +
		"const r = await wrap({ a: [new Map<string, number>([['k', 1]])] });\n" +
		"return [b.value!, r.length, " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + " as number]"
	prg, err := Prepare(ts, nil)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if !prg.TypeScript() {
		t.Errorf("TypeScript() = false, want true")
	}
	deep := "const n: number = 1;\nconst x: number = " + strings.Repeat("(", 300) + "n" + strings.Repeat(")", 300) + ";"
	_, err = Prepare(deep, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "exception: SyntaxError: nesting deeper than 256 levels (line 2, column 274)") {
		t.Errorf("Prepare(deep TypeScript) = %v, want the nesting error at line 2, column 274", err)
	}
}

// Programs that used to end the process with a Go stack overflow (or compile for tens of
// seconds) fail with the nesting error instead.
func TestPrepareNestingKillers(t *testing.T) {
	for name, code := range map[string]string{
		"400,000 brackets":          "const x = " + strings.Repeat("[", 400000) + strings.Repeat("]", 400000),
		"300,000 parentheses in TS": "const x: number = " + strings.Repeat("(", 300000) + "1" + strings.Repeat(")", 300000),
		"40,000-term sum":           "x = 1" + strings.Repeat("+1", 40000),
		"300,000 arrows":            "const f = " + strings.Repeat("a=>", 300000) + "1",
		"200,000 else ifs":          "if (a) x;" + strings.Repeat(" else if (a) x;", 60000),
		"nested ifs after a do":     strings.Repeat("if (a) do x; while (b); else ", 30000) + "x;",
		"30,000 optional calls":     "f" + strings.Repeat("?.()", 30000),
		"grouped chains":            strings.Repeat("(", 250) + "a" + strings.Repeat(strings.Repeat("+a", 200)+")", 250),
	} {
		_, err := Prepare(code, nil)
		if err == nil || !strings.Contains(err.Error(), nestingMessage) {
			t.Errorf("%s: err = %.200v, want the nesting error", name, err)
		}
	}
}

// BenchmarkNesting scans about a megabyte of ordinary program text (bytes/s is the
// scanner's throughput).
func BenchmarkNesting(b *testing.B) {
	unit := "const users = await tools.list({limit: 10, filter: 'active (all)'});\n" +
		"// keep only the ones we need: [id, name]\n" +
		"const active = users.filter(u => u.active && /^[a-z]+$/i.test(u.name)).map(u => ({id: u.id, name: `${u.first} ${u.last}`}));\n" +
		"if (active.length > 0) { for (const a of active) { total += a.score * 2 / 3; } } else console.log(\"none\");\n"
	src := wrapOpen + strings.Repeat(unit, (1<<20)/len(unit)) + wrapClose
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if off, _, _ := checkNesting(src, len(wrapOpen), false); off >= 0 {
			b.Fatalf("nesting error at %d", off)
		}
	}
}

// TypeScript has no oracle here (esbuild reports no tree), so these pin what the scanner
// reads as regular expressions, strings and template text in TypeScript syntax.
func TestScanLiteralsTypeScript(t *testing.T) {
	tests := []struct {
		src  string
		want []string // the non-code regions, comments left out, in order
	}{
		{"const r = f<RegExp>(/a/g) as RegExp / 2", []string{"/a/g"}},
		{"const n = x! / 2 / 1", nil},
		{"let x!: number\n/a/.test(s)", []string{"/a/"}},
		{"let x: Map<string, number[]>\n/a/.test(s)", []string{"/a/"}},
		{"let y: { a: 'q' }\n/a/.test(s)", []string{"'q'", "/a/"}},
		{"type T = { a: string }\n/a/.test(s)", []string{"/a/"}},
		{"interface I<T> { a: T; b(): void }\n/a/.test(s)", []string{"/a/"}},
		{"enum E { A = 'a', B = 2 }\n/a/.test(s)", []string{"'a'", "/a/"}},
		{"function f(a: string, b?: number): Promise<void> { return /a/ }", []string{"/a/"}},
		{"function f(): { a: 1 } { return { a: 1 } } /a/.test(s)", []string{"/a/"}},
		{"const f = async (a: number): Promise<number> => await /a/.exec(s)", []string{"/a/"}},
		{"const f = <T,>(x: T): T => x / 2 / 1", nil},
		{"abstract class A { abstract m(): void; n = /a/ }\n/b/.test(s)", []string{"/a/", "/b/"}},
		{"class B { constructor(private readonly x: number) {} m(this: B) { return `${this.x}/` } }", []string{"", "/"}},
		{"const k: keyof typeof o = 'a'; const v = o[k] / 2", []string{"'a'"}},
		{"type C<T> = T extends string ? 'y' : `n${number}`", []string{"'y'", "n", ""}},
		{"const o = { a: 1 } satisfies Record<string, number>; const r = /a/", []string{"/a/"}},
		{"@dec class D {}\n/a/.test(s)", []string{"/a/"}},
		{"let a = <any>/x/; let b = <number>c / 2", []string{"/x/"}},
		{"declare const z: string\n/a/.test(s)", []string{"/a/"}},
		{"namespace N { export const a = 'x' }\n/a/.test(s)", []string{"'x'", "/a/"}},
	}
	for _, tt := range tests {
		var got []string
		for _, sp := range scanLiterals(tt.src) {
			if sp.kind != litComment {
				got = append(got, tt.src[sp.start:sp.end])
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q: regions (-want +got):\n%s", tt.src, diff)
		}
	}
}

package runtime

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// progGen writes random programs from a small JavaScript grammar, dense in the places where
// telling a regular expression from a division, or code from a string, needs the grammar:
// keywords used as names, await and yield inside and outside their functions, statement
// ends by line break, and literals of every kind right after every kind of token.
type progGen struct {
	r     *rand.Rand
	b     strings.Builder
	depth int
}

func (g *progGen) pick(opts ...string) string { return opts[g.r.IntN(len(opts))] }

func (g *progGen) sep() {
	switch g.r.IntN(8) {
	case 0:
		g.b.WriteString("\n")
	case 1:
		g.b.WriteString(" /* c */ ")
	case 2:
		g.b.WriteString(" // c\n")
	case 3:
		g.b.WriteString("")
	default:
		g.b.WriteString(" ")
	}
}

func (g *progGen) atom() {
	g.b.WriteString(g.pick(
		"a", "b", "await", "yield", "of", "async", "get", "set", "static", "let", "as", "type", "x",
		"1", ".5", "1e3", "0x1F", "1n", "1_0",
		"'a'", `"b\""`, "'/*'", `"//"`, "'`'", `'\''`, `"\\"`,
		"/a/g", "/[/]/", `/\//`, "/=/", "/a/i", "/[\\]/]/",
		"`t`", "`a${1}b`", "``",
		"this", "null", "true", "super.x",
	))
}

func (g *progGen) expr() {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 4 || g.r.IntN(3) == 0 {
		g.atom()
		return
	}
	switch g.r.IntN(30) {
	case 0:
		g.b.WriteString(g.pick("!", "-", "+", "~", "typeof ", "void ", "delete ", "await ", "yield ", "new ", "++", "--"))
		g.expr()
	case 1:
		g.atom()
		g.b.WriteString(g.pick("++", "--", "!"))
	case 2, 3, 4:
		g.expr()
		g.sep()
		g.b.WriteString(g.pick("/", "+", "-", "*", "%", "<", ">", "==", "&&", "||", "??", " in ", " instanceof ", "=", "/=", "+=", "**", ",", " as "))
		g.sep()
		g.expr()
	case 5:
		g.expr()
		g.b.WriteString(" ? ")
		g.expr()
		g.b.WriteString(" : ")
		g.expr()
	case 6:
		g.b.WriteString("(")
		g.expr()
		g.b.WriteString(")")
	case 7:
		g.b.WriteString("[")
		g.expr()
		g.b.WriteString(", ")
		g.expr()
		g.b.WriteString("]")
	case 8:
		g.b.WriteString("{" + g.pick("a", "if", "return", "get", "async", "'k'", "[x]", "1") + ": ")
		g.expr()
		g.b.WriteString(", " + g.pick("m", "get g", "set s", "async m", "*m", "static", "await") + "(" + g.pick("", "v") + ") {")
		g.stmt()
		g.b.WriteString("}}")
	case 9:
		g.b.WriteString(g.pick("function", "function*", "async function", "function f", "function* g") + " (" + g.pick("", "a", "a = 1") + ") {")
		g.stmts(2)
		g.b.WriteString("}")
	case 10:
		g.b.WriteString(g.pick("(a) => ", "a => ", "async a => ", "async (a) => ", "() => ", "async () => "))
		if g.r.IntN(2) == 0 {
			g.expr()
		} else {
			g.b.WriteString("{")
			g.stmts(2)
			g.b.WriteString("}")
		}
	case 11:
		g.b.WriteString("class " + g.pick("", "C ", "D extends B ") + "{ " + g.pick("m", "static m", "get m", "async m", "*m", "if", "static", "#p") + "() {")
		g.stmts(2)
		g.b.WriteString("} " + g.pick("", "x = 1;", "static { ", "y\n") + g.pick("", "") + "}")
		if strings.HasSuffix(g.b.String(), "static { }") {
			g.b.WriteString("")
		}
	case 12:
		g.expr()
		g.b.WriteString(g.pick(".p", ".if", ".return", "?.p", "?.[0]", "[0]", "()", "(1, 2)", "`x`", "`a${b}c`"))
	case 13:
		g.b.WriteString("`" + g.pick("", "a", "/", "'", "\\`", "$", "{") + "${")
		g.expr()
		g.b.WriteString("}" + g.pick("", "b", "}", "//", "\"") + "`")
	default:
		g.atom()
	}
}

func (g *progGen) stmts(n int) {
	for range g.r.IntN(n + 1) {
		g.stmt()
		g.sep()
	}
}

func (g *progGen) stmt() {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 5 {
		g.expr()
		g.b.WriteString(";")
		return
	}
	switch g.r.IntN(24) {
	case 0:
		g.b.WriteString("if (")
		g.expr()
		g.b.WriteString(")")
		g.sep()
		g.stmt()
		if g.r.IntN(2) == 0 {
			g.sep()
			g.b.WriteString("else")
			g.sep()
			g.stmt()
		}
	case 1:
		g.b.WriteString(g.pick("while (", "with (", "for (;;", "for (a of ", "for (const a of ", "for (let [a] of ", "for (a in ", "for (var i = 0; i < "))
		g.expr()
		g.b.WriteString(")")
		g.sep()
		g.stmt()
	case 2:
		g.b.WriteString("do")
		g.sep()
		g.stmt()
		g.sep()
		g.b.WriteString("while (")
		g.expr()
		g.b.WriteString(")")
	case 3:
		g.b.WriteString("{")
		g.stmts(3)
		g.b.WriteString("}")
	case 4:
		g.b.WriteString(g.pick("l: ", "a: ", "yield: ", "await: "))
		g.stmt()
	case 5:
		g.b.WriteString(g.pick("return", "throw ", "break", "continue", "return ", "debugger"))
		g.sep()
		g.expr()
	case 6:
		g.b.WriteString(g.pick("var ", "let ", "const ") + g.pick("a", "b", "[a]", "{a}", "await", "yield"))
		if g.r.IntN(2) == 0 {
			g.b.WriteString(" = ")
			g.expr()
		}
	case 7:
		g.b.WriteString(g.pick("function f", "function* g", "async function h", "class C", "class D extends B") + g.pick("() {", " {"))
		g.stmts(3)
		g.b.WriteString("}")
	case 8:
		g.b.WriteString("switch (")
		g.expr()
		g.b.WriteString(") { case ")
		g.expr()
		g.b.WriteString(": ")
		g.stmts(2)
		g.b.WriteString(" default: ")
		g.stmts(2)
		g.b.WriteString("}")
	case 9:
		g.b.WriteString("try {")
		g.stmts(2)
		g.b.WriteString("} " + g.pick("catch (e) {", "catch {", "finally {"))
		g.stmts(2)
		g.b.WriteString("}")
	case 10:
		g.b.WriteString(";")
	default:
		g.expr()
		g.b.WriteString(g.pick(";", "\n", ""))
	}
}

// generate returns the program of a seed: plain script, or the body of the async wrapper
// (where await is a keyword), or of a generator (where yield is).
func generate(seed uint64) string {
	g := &progGen{r: rand.New(rand.NewPCG(seed, seed>>32|1))}
	prefix, suffix := g.pick("", wrapOpen, "function* gen() {", "async function af() {"), ""
	if prefix != "" {
		suffix = g.pick("\n}", "}")
		if prefix == wrapOpen {
			suffix = wrapClose
		}
	}
	g.b.WriteString(prefix)
	g.stmts(12)
	g.b.WriteString(suffix)
	return g.b.String()
}

// TestScanLiteralsGenerated compares the scanner with goja's parser on programs from the
// grammar above; those goja rejects are skipped.
func TestScanLiteralsGenerated(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 5000
	}
	parsed := 0
	for seed := range uint64(n) {
		src := generate(seed)
		if _, ok := gojaLiterals(src); ok {
			parsed++
		}
		checkLiterals(t, src)
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
	if parsed < n/10 {
		t.Errorf("goja accepted only %d of %d generated programs; the generator needs care", parsed, n)
	}
}

// FuzzNestingGrammar explores seeds of the grammar above.
func FuzzNestingGrammar(f *testing.F) {
	f.Add(uint64(1))
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkLiterals(t, generate(seed))
	})
}

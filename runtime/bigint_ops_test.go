package runtime

import (
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/google/go-cmp/cmp"
)

// TestRewriteBigIntOps pins the rewrite of each operator form.
func TestRewriteBigIntOps(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a ** b", "__runcode$.b(a) ** __runcode$.e(b)"},
		{"(a + 1) ** (b, c)", "__runcode$.b((a + 1)) ** __runcode$.e((b, c))"},
		{"(f)(y) ** x; x ** (f)(y); a << b + (c); a >> -(b)", "__runcode$.b((f)(y)) ** __runcode$.e(x); __runcode$.b(x) ** __runcode$.e((f)(y)); __runcode$.b(a) << __runcode$.l(b + (c)); __runcode$.b(a) >> __runcode$.r(-(b))"},
		{"a ** f(')') << g('(', /\\(/, `(${b})`) /* ( */", "__runcode$.b(__runcode$.b(a) ** __runcode$.e(f(')'))) << __runcode$.l(g('(', /\\(/, `(${b})`)) /* ( */"},
		{"( /* a */ (x)) /* ) */ ** y", "__runcode$.b(( /* a */ (x))) /* ) */ ** __runcode$.e(y)"},
		{"a ** b ** c", "__runcode$.b(a) ** __runcode$.e(__runcode$.b(b) ** __runcode$.e(c))"},
		{"(a ** b) ** c", "__runcode$.b((__runcode$.b(a) ** __runcode$.e(b))) ** __runcode$.e(c)"},
		{"tag`x` ** this.#p; a.b.#c++ << d?.e", "__runcode$.b(tag`x`) ** __runcode$.e(this.#p); __runcode$.b(a.b.#c++) << __runcode$.l(d?.e)"},
		{"a ** (() => b ** c)()", "__runcode$.b(a) ** __runcode$.e((() => __runcode$.b(b) ** __runcode$.e(c))())"},
		{"a ** 2; 2 ** a; a ** 2n", "a ** 2; 2 ** a; __runcode$.b(a) ** __runcode$.e(2n)"},
		{"a << b >> c", "__runcode$.b(__runcode$.b(a) << __runcode$.l(b)) >> __runcode$.r(c)"},
		{"a << 5 >> 1n >>> b; a << 2n ** 38n", "a << 5 >> 1n >>> b; __runcode$.b(a) << __runcode$.l(__runcode$.b(2n) ** __runcode$.e(38n))"},
		{"x <<= y; x >>= 3; x **= y; o[f()] >>= y", "x = __runcode$.b(x) << __runcode$.l(y); x >>= 3; x = __runcode$.b(x) ** __runcode$.e(y); o[f()] >>= __runcode$.a(y)"},
		{"(x) /* c */ **= y", "(x) /* c */ = __runcode$.b(x) ** __runcode$.e(y)"},
		{"this.#p.q **= y; o['k'] **= y", "this.#p.q = __runcode$.b(this.#p.q) ** __runcode$.e(y); o['k'] = __runcode$.b(o[\"k\"]) ** __runcode$.e(y)"},
		{"`${a ** b}`", "`${__runcode$.b(a) ** __runcode$.e(b)}`"},
		{"f(a ** g(b << c))", "f(__runcode$.b(a) ** __runcode$.e(g(__runcode$.b(b) << __runcode$.l(c))))"},
		{"a * b + c >>> d", "a * b + c >>> d"},
	}
	for _, tt := range tests {
		tree, err := parser.ParseFile(nil, "", tt.src, 0, parser.WithDisableSourceMaps)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		got, _, msg := rewriteBigIntOps(tt.src, tree)
		if msg != "" || got != tt.want {
			t.Errorf("rewrite(%s) = %s %q\nwant %s", tt.src, got, msg, tt.want)
		}
	}
	for _, src := range []string{"o[k()] **= y", "f().p **= y", "a[b + 1] **= c"} {
		tree, _ := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
		if _, _, msg := rewriteBigIntOps(src, tree); !strings.Contains(msg, "**= on a target whose key is an expression") {
			t.Errorf("rewrite(%s): %q, want the computed-target error", src, msg)
		}
	}
}

// TestBigIntOpsSameResults: rewritten operators compute what goja's own do, for numbers,
// BigInts, strings, objects that convert (their valueOf calls counted and ordered) and
// operands that throw, with the same error messages.
func TestBigIntOpsSameResults(t *testing.T) {
	const prelude = `const log = []; const obj = (v, n) => ({ valueOf() { log.push(n); return v } });`
	exprs := []string{
		"2 ** 10", "2 ** -1", "(-2) ** 3", "2 ** 0.5", "NaN ** 0", "(-0) ** 3", "2n ** 64n", "(-3n) ** 3n", "0n ** 0n", "1n ** 100000000000n", "(-1n) ** 100000000001n",
		"2 ** 3 ** 2", "(2 ** 3) ** 2", "2n ** 3n ** 2n", "'3' ** '2'", "obj(2, 'a') ** obj(5, 'b')", "obj(2n, 'a') ** obj(5n, 'b')",
		"1 << 31", "1 << 32", "-1 >> 1", "5 >> -1", "1n << 64n", "-1n >> 100n", "(1n << 70n) >> 3n", "5n << -2n", "'8' << '1'",
		"obj(1, 'a') << obj(3, 'b')", "obj(1n, 'a') << obj(3n, 'b')", "(() => { let x = 3n; x **= 4n; let y = 5; y <<= 2; y >>= 1; return [x, y] })()",
		"(() => { const o = { p: 2n, q: [3n] }; o.p **= 10n; o.q[0] **= 2n; o['p'] <<= 1n; return [o.p, o.q[0]] })()",
		"(() => { const a = [2, 3n], p = [5, 2n]; for (let i = 0; i < 2; i++) a[i] **= p[i]; return a.join() })()",
		"(() => { class C { #v = 2n; f() { this.#v **= 3n; return this.#v } } return new C().f() })()",
		// Operand shapes whose text goja's positions get wrong (found by red-teaming).
		"(() => { const aéb = 2; return [1 << aéb | 1, (1 << aéb) * 3] })()", "(() => { const é = 2n; return é ** 3n + (3n ** é) })()",
		"(() => { class B { valueOf() { return 3 } } const two = 2; return two ** new B() })()", "(() => { function A() {} A.prototype.valueOf = () => 2; return new A() ** 3 })()",
		"(() => { const a = 2, o = { '(': 3 }; return [a ** `(`.length, a ** o[`(`], a ** `)${a}(`.length] })()",
		"(() => { const a = 2n; return ( // (\n a) ** 3n })()", "(() => { const a = 2n; return (( /* ( /* */ a) ** 3n) })()",
		"(() => { let a = 2, b = 3; return [a ** b ++, a ** b /* x */++, b] })()", "(() => { const a = 3n; return 2n ** \\u0061 })()",
		"(() => { function f() { return new.target ** 2n } return typeof f })()",
	}
	throwing := []string{
		"1n ** 2", "2 ** 1n", "1n << 2", "1 << 2n", "1 << 2n ** 40n", "1 ** 2n ** 40n", "2n ** -1n", "Symbol() ** 2", "2 ** Symbol()", "1 << Symbol()", "Symbol() << 1", "obj(1n, 'a') ** obj(2, 'b')",
	}
	bare := goja.New()
	pool := newTestPool(t, nil)
	run := func(code string) string {
		res := runCode(t, pool, code, nil)
		return res.Text()
	}
	evalBare := func(code string) string {
		v, err := bare.RunString("(() => {" + prelude + code + "})()")
		if err != nil {
			return "threw: " + err.Error()
		}
		return v.String()
	}
	for _, e := range exprs {
		code := "const v = " + e + "; return [typeof v, String(v), log.join()].join(' ')"
		want := evalBare(code)
		if got := run(prelude + code); got != want {
			t.Errorf("%s: rewritten %q, goja %q", e, got, want)
		}
	}
	for _, e := range throwing {
		code := "try { " + e + "; return 'no error' } catch (err) { return err.name + ': ' + err.message + ' ' + log.join() }"
		want := evalBare(code)
		if got := run(prelude + code); got != want {
			t.Errorf("%s: rewritten %q, goja %q", e, got, want)
		}
	}
}

// TestBigIntOpsBounded: a BigInt operator whose result would be over the bound throws
// V8's RangeError before it computes, in the program and in code eval and the Function
// constructors build; the program cannot name the checks to shadow them.
func TestBigIntOpsBounded(t *testing.T) {
	pool := newTestPool(t, nil)
	tests := []struct{ name, code, want string }{
		{"shift", catch("1n << 2n ** 38n"), "RangeError: Maximum BigInt size exceeded"},
		{"negative right shift", catch("1n >> -(2n ** 38n)"), "RangeError: Maximum BigInt size exceeded"},
		{"power", catch("(2n ** 4000n) ** 300000n"), "RangeError: Maximum BigInt size exceeded"},
		{"compound", catch("let x = 3n; x **= 2n ** 40n"), "RangeError: Maximum BigInt size exceeded"},
		{"compound shift", catch("let x = 3n; x <<= 2n ** 40n"), "RangeError: Maximum BigInt size exceeded"},
		{"within the bound", "return String((2n ** 4000n) ** 30n).length", "36124"},
		{"power that would take minutes", catch("3n ** 100000000n"), "RangeError: Maximum BigInt size exceeded"},
		{"shift of the same size", "return String((1n << 158496250n) > 0n)", "true"},
		{"eval", catch("(0, eval)('1n << 2n ** 38n')"), "RangeError: Maximum BigInt size exceeded"},
		{"TypeScript", "const x: bigint = 1n; try { return String(x << 2n ** 38n) } catch (e) { return String(e) }", "RangeError: Maximum BigInt size exceeded"},
		{"TypeScript within the bound", "const x: bigint = 3n; return String(x ** 3n << 2n)", "108"},
		{"Function", catch("new Function('a', 'return a << 2n ** 40n')(1n)"), "RangeError: Maximum BigInt size exceeded"},
		{"uncaught", "return String(1n << 2n ** 38n)", "Error: code run failed (exception): RangeError: Maximum BigInt size exceeded\n    at program.js:1:15"},
		{"comments to mislead the splicing", "let x = 1n, a = 2n, q = 2n, r = 2n ** 38n;\ntry { x ** a/*c*/++, ( // (\nq) ** r; return 'survived' } catch (e) { return String(e) }", "RangeError: Maximum BigInt size exceeded"},
		{"shift of a large left operand", catch("let x = 1n << 2n ** 29n; for (let i = 0; i < 3; i++) x <<= 2n ** 29n; return 'no error'"), "RangeError: Maximum BigInt size exceeded"},
		{"new.target", "function f() { return new.target ** 2n } return 1", "1"},
		{"name at the end of eval", "return String((0, eval)('let é = 2n; 3n ** é'))", "9"},
		{"shadowed", "const __runcode$ = {s: x => x}; return 1n << 2n", "Error: code run failed (exception): SyntaxError: the name __runcode$ is reserved"},
		{"shadowed in eval", catch("eval('var __runcode\\\\u0024 = 1')"), "SyntaxError: the name __runcode$ is reserved"},
		{"replaced", catch("globalThis['__run' + 'code$'] = 0; return 1n << 2n ** 38n"), "TypeError: Cannot assign to read only property '__runcode$'"},
		// Checks installed by eval, after the program replaced Object.freeze and tried to
		// change the base's conversion.
		{"tampered", catch("Object.freeze = (o) => o; (0, eval)('let a; a ** a'); const ops = globalThis['__run' + 'code$']; " +
			"try { Object.getPrototypeOf(ops.b(1n)).valueOf = () => 2n } catch {} return (0, eval)('(2n ** 4000n) ** (2n ** 20n)')"), "RangeError: Maximum BigInt size exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, runCode(t, pool, tt.code, nil).Text()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBigIntOpsColumns: stack frames on a rewritten line keep the model's columns, in
// JavaScript and in TypeScript.
func TestBigIntOpsColumns(t *testing.T) {
	pool := newTestPool(t, nil)
	for _, tt := range []struct{ code, want string }{
		{"let a = 2n;\na **= 3n; const z = a ** (a << a); undefinedFn(a ** a)", "program.js:2:47"},
		{"const a = 2n, b = 3n; const c = a ** b << a; null.x", "program.js:1:51"},
		{"let a: bigint = 2n;\nconst q: any = [a ** a, (null as any).x];", "program.ts:2:39"},
	} {
		text := runCode(t, pool, tt.code, nil).Text()
		if !strings.Contains(text+"\n", "at "+tt.want+"\n") {
			t.Errorf("%q: %q, want a frame at %s", tt.code, text, tt.want)
		}
	}
}

// FuzzRewriteBigIntOps: whatever parses still parses once rewritten, and code without the
// operators is left alone.
func FuzzRewriteBigIntOps(f *testing.F) {
	for _, s := range []string{"a ** b", "(a)**=(b)", "x <<= y >> z", "`${a**b}`", "a/*)*/**b", "o.p **= 2n", "f(a ** -b)", "a ** (b ** c)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tree, err := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
		if err != nil {
			return
		}
		out, _, msg := rewriteBigIntOps(src, tree)
		if msg != "" {
			return
		}
		if !hasOps(src) && out != src {
			t.Fatalf("rewrote code without the operators: %q → %q", src, out)
		}
		if _, err := parser.ParseFile(nil, "", out, 0, parser.WithDisableSourceMaps); err != nil {
			t.Fatalf("%q rewritten to %q, which does not parse: %v", src, out, err)
		}
		// Each check is a call of its own, not glued to a name before it.
		for i := strings.Index(out, opsGlobal); i >= 0; i = next(out, i) {
			if i > 0 && isIdentByte(out[i-1]) {
				t.Fatalf("%q rewritten to %q: a check glued to a name at %d", src, out, i)
			}
		}
	})
}

func next(s string, i int) int {
	j := strings.Index(s[i+1:], opsGlobal)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

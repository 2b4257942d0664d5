package runtime

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProxyUnchanged compares the guarded Proxy with goja's own: its shape, its errors,
// revocation, and the order, this and arguments of trap lookups and calls (the
// forwarding handler is a trust boundary: everything a program's handler sees must be
// what it saw before).
func TestProxyUnchanged(t *testing.T) {
	runDifferential(t, map[string]string{
		"shape": "return [typeof Proxy, Proxy.name, Proxy.length, 'prototype' in Proxy, Object.getOwnPropertyNames(Proxy).join(), Function.prototype.toString.call(Proxy), " +
			"Proxy.revocable.name, Proxy.revocable.length, JSON.stringify(Object.getOwnPropertyDescriptor(Proxy, 'revocable')), Object.getPrototypeOf(Proxy) === Function.prototype, 5 instanceof Proxy].join(' | ')",
		"without new":                   catchExpr("Proxy({}, {})"),
		"non-object target":             catchExpr("new Proxy(1, {})"),
		"non-object handler":            catchExpr("new Proxy({}, null)"),
		"missing handler":               catchExpr("new Proxy({})"),
		"revocable arguments":           catchExpr("Proxy.revocable({}, 1)"),
		"instanceof":                    catchExpr("({}) instanceof Proxy"),
		"subclass":                      catchExpr("class X extends Proxy {}"),
		"revocation":                    "const r = Proxy.revocable({a: 1}, {}); const before = r.proxy.a; r.revoke(); r.revoke(); const out = [before, Object.keys(r).join(), typeof r.revoke, r.revoke.length]; for (const f of [() => r.proxy.a, () => 'a' in r.proxy, () => Object.keys(r.proxy), () => typeof r.proxy]) { try { out.push(f()) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"a revoked proxy as target":     "const r = Proxy.revocable({}, {}); r.revoke(); try { return typeof new Proxy(r.proxy, {}) } catch (e) { return e.name + ': ' + e.message }",
		"non-callable trap":             catchExpr("new Proxy({}, {get: 5}).x"),
		"null and undefined traps":      "const p = new Proxy({a: 1}, {get: null, has: undefined}); return p.a + ' ' + ('a' in p)",
		"trap this and arguments":       "const log = []; const h = {get(t, k, r) { log.push([this === h, t === target, String(k), r === p].join()); return 7 }}; const target = {}; const p = new Proxy(target, h); const o = Object.create(p); return p.x + o.y + ' ' + log.join(' ')",
		"traps looked up when they run": "const log = []; const h = new Proxy({}, {get(t, k) { log.push('lookup ' + String(k)); return k === 'get' ? () => 1 : undefined }}); const p = new Proxy({a: 2}, h); return [p.a, 'a' in p, Object.keys(p).join(), log.join(',')].join(' | ')",
		"a trap added later":            "const h = {}; const p = new Proxy({a: 1}, h); const x = p.a; h.get = () => 2; const y = p.a; delete h.get; return [x, y, p.a].join()",
		"apply and construct":           "const log = []; function f(a, b) { return a + b } const p = new Proxy(f, {apply(t, th, args) { log.push('apply ' + (th === undefined) + ' ' + args.join()); return t(...args) }, construct(t, args, nt) { log.push('construct ' + (nt === p) + ' ' + args.join()); return {v: args[0]} }}); return [p(1, 2), new p(3).v, p.call(null, 4, 5), Reflect.apply(p, null, [6, 7]), Reflect.construct(p, [8]).v, typeof p, log.join(' | ')].join(' ')",
		"class target":                  "class A { constructor(x) { this.x = x } }; const p = new Proxy(A, {}); class B extends p { constructor() { super(9) } }; return [new p(1).x, new B().x, new B() instanceof A, Object.getPrototypeOf(B) === p].join()",
		"invariants": "const out = []; const t = {}; Object.defineProperty(t, 'fixed', {value: 1}); Object.preventExtensions(t); const bad = new Proxy(t, {get() { return 2 }, has() { return false }, ownKeys() { return ['extra'] }, getOwnPropertyDescriptor() { return undefined }, defineProperty() { return true }, deleteProperty() { return true }, getPrototypeOf() { return Array.prototype }, isExtensible() { return true }, preventExtensions() { return false }, setPrototypeOf() { return true }}); " +
			"for (const f of [() => bad.fixed, () => 'fixed' in bad, () => Object.keys(bad), () => Object.getOwnPropertyDescriptor(bad, 'fixed'), () => Object.defineProperty(bad, 'n', {value: 1}), () => delete bad.fixed, () => Object.getPrototypeOf(bad), () => Object.isExtensible(bad), () => Object.preventExtensions(bad), () => Object.setPrototypeOf(bad, null)]) { try { out.push(String(f())) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"proxy of a proxy":   "const log = []; const inner = new Proxy({a: 1}, {get(t, k, r) { log.push('inner ' + String(k)); return Reflect.get(t, k, r) }, getOwnPropertyDescriptor(t, k) { log.push('inner gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k) }}); const outer = new Proxy(inner, {has(t, k) { log.push('outer has ' + String(k)); return k in t }}); return [outer.a, 'a' in outer, Object.getOwnPropertyDescriptor(outer, 'a').value, log.join(',')].join(' | ')",
		"arrays and isArray": "const p = new Proxy([1, 2, 3], {}); return [Array.isArray(p), p.length, p.map(x => x * 2).join(), JSON.stringify(p), [...p].join(), Array.prototype.concat.call([], p).length].join(' ')",
		"for-in and spread":  "const log = []; const p = new Proxy({a: 1, b: 2}, {ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t) }, getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k) }}); const ks = []; for (const k in p) ks.push(k); const c = {...p}; return ks.join() + ' ' + JSON.stringify(c) + ' ' + log.join()",
		"a trap that throws": catchExpr("new Proxy({}, {get() { throw new RangeError('from the trap') }}).x"),
	})
}

// proxyOps are the operations a generated proxy program applies; each is an expression
// over p.
var proxyOps = []string{
	"p.a", "p.zz", "(p.a = 5)", "'a' in p", "delete p.b", "Object.keys(p)", "Object.getOwnPropertyNames(p)",
	"Object.getOwnPropertyDescriptor(p, 'a')", "Object.defineProperty(p, 'c', {value: 3, configurable: true})",
	"Object.getPrototypeOf(p)", "Object.setPrototypeOf(p, null)", "Object.isExtensible(p)", "Object.preventExtensions(p)",
	"p(1)", "new p(2)", "Object.entries(p)", "Object.assign({}, p)", "Reflect.ownKeys(p)", "p[Symbol.iterator]",
	"Array.isArray(p)", "typeof p", "JSON.stringify(p)", "Reflect.has(p, 'a')", "Reflect.get(p, 'a', {})",
	"Reflect.set(p, 'd', 4)", "Reflect.deleteProperty(p, 'a')", "Object.freeze(p)", "Object.isFrozen(p)",
	"Object.getOwnPropertyDescriptors(p)", "Reflect.defineProperty(p, 'e', {get() { return 1 }, configurable: true})",
	"String(Object.values(p))", "p.length", "Object.create(p).a",
}

// proxyTrapModes are what a generated handler's trap is: absent, a logging function that
// forwards to Reflect, a logging function that answers a fixed value (often violating an
// invariant), null, or not callable.
const proxyTrapModes = 5

// proxyFixed are the fixed answers of the traps, in proxyTraps order.
var proxyFixed = [...]string{"null", "true", "true", "true", "undefined", "false", "false", "42", "true", "true", "['x', 'a']", "'applied'", "({made: 1})"}

// proxyProgram turns bytes into a program that builds a proxy (the target, the handler,
// whether the handler is itself a logging proxy, whether the target is another proxy) and
// applies operations to it, logging every trap lookup, call, result and error.
func proxyProgram(data []byte) string {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	var b strings.Builder
	b.WriteString("const log = [];\n")
	b.WriteString("const s = (v) => typeof v === 'symbol' ? v.toString() : typeof v === 'function' ? 'fn' : typeof v === 'object' && v !== null ? (Array.isArray(v) ? 'arr' : 'obj') : String(v);\n")
	targets := []string{"({a: 1, b: 2})", "Object.freeze({a: 1, b: 2})", "(function f(x) { return x })", "[1, 2]", "Object.preventExtensions({a: 1})", "(class C { constructor(x) { this.a = x } })"}
	b.WriteString("let target = " + targets[next()%len(targets)] + ";\n")
	if next()%2 == 1 {
		b.WriteString("target = new Proxy(target, {get(t, k, r) { log.push('inner get ' + s(k)); return Reflect.get(t, k, r) }, ownKeys(t) { log.push('inner ownKeys'); return Reflect.ownKeys(t) }});\n")
	}
	b.WriteString("const h = {};\n")
	for i, trap := range proxyTraps {
		switch next() % proxyTrapModes {
		case 1:
			b.WriteString("h." + trap + " = function (...args) { log.push('" + trap + " ' + (this === handler) + ' ' + args.slice(1).map(s).join(' ')); return Reflect." + trap + "(...args) };\n")
		case 2:
			b.WriteString("h." + trap + " = function () { log.push('" + trap + " fixed'); return " + proxyFixed[i] + " };\n")
		case 3:
			b.WriteString("h." + trap + " = null;\n")
		case 4:
			b.WriteString("h." + trap + " = 5;\n")
		}
	}
	if next()%2 == 1 {
		b.WriteString("const handler = new Proxy(h, {get(t, k, r) { log.push('lookup ' + s(k)); return Reflect.get(t, k, r) }});\n")
	} else {
		b.WriteString("const handler = h;\n")
	}
	b.WriteString("const p = new Proxy(target, handler);\n")
	for n := next()%12 + 1; n > 0; n-- {
		op := proxyOps[next()%len(proxyOps)]
		b.WriteString("try { log.push('> " + strings.ReplaceAll(op, "'", "\\'") + " = ' + s(" + op + ")) } catch (e) { log.push('! ' + e.name + ': ' + e.message) }\n")
	}
	b.WriteString("return log.join('\\n');\n")
	return b.String()
}

// FuzzProxy compares generated proxy programs between the guarded Proxy and goja's own:
// the trap lookups, calls, this, arguments, results, invariant errors and revocation must
// be the same.
func FuzzProxy(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
		{1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22},
		{2, 0, 3, 4, 1, 2, 0, 1, 3, 4, 0, 2, 1, 1, 1, 1, 8, 13, 14, 9, 21, 20, 2, 3, 4},
		{3, 1, 1, 0, 2, 0, 1, 0, 2, 4, 1, 0, 3, 0, 0, 0, 11, 0, 5, 6, 23, 24, 25, 26, 27, 28, 29, 30, 31},
		{4, 0, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 11, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
		{5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 5, 14, 13, 32, 31, 0, 1},
		{2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 1, 6, 13, 14, 13, 14, 21, 20},
	} {
		f.Add(seed)
	}
	p := newTestPool(f, &Limits{HeapBytes: 32 << 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		code := proxyProgram(data)
		want := bareRun(code)
		got := runCode(t, p, code, nil).Text()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("guarded Proxy differs from goja's (-goja +guarded):\n%s\nprogram:\n%s", diff, code)
		}
	})
}

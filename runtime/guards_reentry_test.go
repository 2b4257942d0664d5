package runtime

import (
	"testing"
)

const msgRecursion = "RangeError: Maximum call stack size exceeded"

// TestNativeReentry runs every shape of native re-entry the audit found (probes
// rec_*.js), and the conversion re-entries the guards count: in plain goja each recursed
// in Go until the process died of a stack overflow; guarded, each is a catchable
// RangeError.
func TestNativeReentry(t *testing.T) {
	runGuardCases(t, []textCase{
		// Built-ins as getters and setters.
		{name: "Array.prototype.at as the length getter", code: catchExpr("const o = {}; Object.defineProperty(o, 'length', {get: Array.prototype.at}); o.length"), want: msgRecursion},
		{name: "Object.prototype.toString as the toStringTag getter", code: catchExpr("const o = {}; Object.defineProperty(o, Symbol.toStringTag, {get: Object.prototype.toString}); String(o)"), want: msgRecursion},
		{name: "a bound Reflect.get as its own getter", code: catchExpr("const o = {}; Object.defineProperty(o, 'x', {get: Reflect.get.bind(null, o, 'x')}); o.x"), want: msgRecursion},
		{name: "a native getter and push as the length setter", code: catchExpr("const o = {}; Object.defineProperty(o, 'length', {get: Math.random, set: Array.prototype.push}); o.length = 1"), want: msgRecursion},
		{name: "push as the length setter", code: catchExpr("const o = {length: 0}; Object.defineProperty(o, 'length', {get() { return 0 }, set: Array.prototype.push}); o.length = 1"), want: msgRecursion},
		{name: "through defineProperties", code: catchExpr("const o = Object.defineProperties({}, {length: {get: Array.prototype.at}}); o.length"), want: msgRecursion},
		{name: "through create", code: catchExpr("const o = Object.create(null, {length: {get: Array.prototype.at}}); Array.prototype.at.call(o, 0)"), want: msgRecursion},
		{name: "through Reflect.defineProperty", code: catchExpr("const o = {}; Reflect.defineProperty(o, 'length', {get: Array.prototype.at}); o.length"), want: msgRecursion},
		{name: "a proxy as the getter", code: catchExpr("const o = {}; Object.defineProperty(o, 'length', {get: new Proxy(Array.prototype.at, {})}); o.length"), want: msgRecursion},
		{name: "the getter inherited from a polluted Object.prototype", code: catchExpr("Object.prototype.get = Array.prototype.at; const o = {}; Object.defineProperty(o, 'length', {configurable: true}); delete Object.prototype.get; o.length"), want: msgRecursion},
		// Proxies.
		{name: "a bound Reflect.get as a proxy's get trap", code: catchExpr("const h = {}; const p = new Proxy({}, h); h.get = Reflect.get.bind(null, p); p.x"), want: msgRecursion},
		{name: "a revocable proxy's trap", code: catchExpr("const h = {}; const {proxy} = Proxy.revocable({}, h); h.has = Reflect.has.bind(null, proxy); 'x' in proxy"), want: msgRecursion},
		{name: "a proxy chain as deep as the call stack", code: catchExpr("let p = {}; for (let i = 0; i < 1e6; i++) p = new Proxy(p, {}); p.x"), want: msgRecursion},
		{name: "Array.isArray through a proxy chain", code: catchExpr("let p = []; for (let i = 0; i < 3e6; i++) p = new Proxy(p, {}); Array.isArray(p)"), want: msgRecursion},
		// Conversions through data properties.
		{name: "an Error as its own message", code: catchExpr("const e = new Error(); e.message = e; String(e)"), want: msgRecursion},
		{name: "an Error as its own name", code: catchExpr("const e = new Error(); e.name = e; String(e)"), want: msgRecursion},
		{name: "toLocaleString as toString", code: catchExpr("const o = {}; o.toString = Object.prototype.toLocaleString; String(o)"), want: msgRecursion},
		{name: "Date's toJSON as toISOString", code: catchExpr("const o = {toISOString: Date.prototype.toJSON}; o.toISOString()"), want: msgRecursion},
		{name: "a guard as valueOf of its own length", code: catchExpr("const o = {}; o.length = o; o.valueOf = Array.prototype.forEach; o.valueOf()"), want: msgRecursion},
		{name: "padStart as toString", code: catchExpr("const o = {}; o.toString = String.prototype.padStart; String(o)"), want: msgRecursion},
		{name: "Proxy and Reflect reached only through eval", code: catchExpr("const P = eval('Pro' + 'xy'), R = eval('Refl' + 'ect'); const h = {}; const p = new P({}, h); h.get = R.get.bind(null, p); p.x"), want: msgRecursion},
		{name: "Date reached only through a Function", code: catchExpr("const D = Function('return Da' + 'te')(); const o = {toISOString: D.prototype.toJSON}; o.toISOString()"), want: msgRecursion},
		{name: "goja has no __defineGetter__", code: "return typeof ({}).__defineGetter__ + typeof ({}).__lookupGetter__", want: "undefinedundefined"},
		{name: "the run goes on afterwards", code: "try { const o = {}; Object.defineProperty(o, 'length', {get: Array.prototype.at}); o.length } catch {} return [1, 2].at(-1)", want: "2"},
	})
}

// TestDescriptorGuardsUnchanged compares Object.defineProperty, defineProperties, create
// and Reflect.defineProperty with goja's own: the order in which they read descriptors
// and descriptor maps (getters, proxies), what they define, and their errors.
func TestDescriptorGuardsUnchanged(t *testing.T) {
	const logged = "const log = []; const desc = (d) => { const o = {}; for (const k of Object.keys(d)) Object.defineProperty(o, k, {get() { log.push('get ' + k); return d[k] }, enumerable: true}); return o };"
	runDifferential(t, map[string]string{
		"defineProperty reads once, in goja's order":    logged + "const o = {}; Object.defineProperty(o, {toString() { log.push('key'); return 'k' }}, desc({set: undefined, configurable: true, enumerable: true, get: undefined})); return log.join() + JSON.stringify(Object.getOwnPropertyDescriptor(o, 'k'))",
		"a proxy as a descriptor":                       "const log = []; const d = new Proxy({value: 1}, {get(t, k) { log.push(String(k)); return t[k] }}); try { Object.defineProperty({}, 'x', d) } catch (e) { log.push(e.message) } return log.join()",
		"accessors":                                     "const o = {}; let seen; Object.defineProperty(o, 'x', {get() { return this === o }, set(v) { seen = v }, enumerable: true}); o.x = 5; const d = Object.getOwnPropertyDescriptor(o, 'x'); return [o.x, seen, typeof d.get, typeof d.set, d.enumerable, d.configurable, JSON.stringify(Object.keys(o))].join()",
		"partial redefinition":                          "const o = {}; Object.defineProperty(o, 'x', {value: 1, writable: true, configurable: true}); Object.defineProperty(o, 'x', {enumerable: true}); return JSON.stringify(Object.getOwnPropertyDescriptor(o, 'x'))",
		"array length and index":                        "const a = [1, 2, 3]; Object.defineProperty(a, 'length', {value: 1}); Object.defineProperty(a, '5', {value: 9, enumerable: true}); return JSON.stringify([a, a.length])",
		"symbol keys":                                   "const s = Symbol('s'); const o = Object.defineProperty({}, s, {value: 1, enumerable: true}); return String(o[s]) + Object.getOwnPropertySymbols(o).length",
		"returns the target":                            "const o = {}; return [Object.defineProperty(o, 'a', {}) === o, Object.defineProperties(o, {}) === o, Reflect.defineProperty(o, 'b', {})].join()",
		"defineProperties order":                        logged + "const props = new Proxy({b: desc({value: 1}), a: desc({get() { return 2 }}), 1: desc({value: 3})}, {ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t) }, getOwnPropertyDescriptor(t, k) { log.push('gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k) }, get(t, k) { log.push('map ' + String(k)); return t[k] }}); const o = Object.defineProperties({}, props); return log.join() + ' ' + JSON.stringify(Object.getOwnPropertyNames(o)) + o.a",
		"defineProperties on an array":                  "const a = Object.defineProperties([], {0: {value: 'x', enumerable: true}, 2: {value: 'y', enumerable: true, writable: true}, length: {value: 5}}); return JSON.stringify([a, a.length, Object.getOwnPropertyDescriptor(a, 2)])",
		"defineProperties of accessors":                 "const s = Symbol('s'); let set; const o = Object.defineProperties({}, {a: {get() { return 1 }, enumerable: true}, b: {set(v) { set = v }}, [s]: {get() { return 2 }, configurable: true}}); o.b = 3; return [o.a, set, o[s], JSON.stringify(Object.getOwnPropertyDescriptor(o, 'a'))].join()",
		"defineProperties skips non-enumerable":         "const props = {}; Object.defineProperty(props, 'hidden', {value: {value: 1}}); props.shown = {value: 2, enumerable: true}; return JSON.stringify(Object.defineProperties({}, props))",
		"create":                                        "const proto = {p: 1}; const o = Object.create(proto, {a: {value: 2, enumerable: true}, b: {get() { return this.a + this.p }}}); return [Object.getPrototypeOf(o) === proto, o.a, o.b, JSON.stringify(o)].join()",
		"create with null":                              "const o = Object.create(null, {a: {value: 1}}); return Object.getPrototypeOf(o) === null && o.a",
		"Reflect.defineProperty converts the key first": logged + "const o = {}; const ok = Reflect.defineProperty(o, {toString() { log.push('key'); return 'k' }}, desc({value: 1})); return ok + ' ' + log.join()",
		"Reflect.defineProperty fails quietly":          "const o = Object.freeze({}); return Reflect.defineProperty(o, 'x', {value: 1})",
		"a symbol key through an object":                "const s = Symbol('k'); const o = {}; Reflect.defineProperty(o, {[Symbol.toPrimitive]() { return s }}, {value: 7}); return o[s]",
		"errors: non-object target":                     catchExpr("Object.defineProperty(1, 'x', {})"),
		"errors: non-object descriptor":                 catchExpr("Object.defineProperty({}, 'x', 1)"),
		"errors: getter not a function":                 catchExpr("Object.defineProperty({}, 'x', {get: 1})"),
		"errors: setter not a function":                 catchExpr("Object.defineProperty({}, 'x', {set: {}})"),
		"errors: accessor and value":                    catchExpr("Object.defineProperty({}, 'x', {get() {}, value: 1})"),
		"errors: redefining":                            catchExpr("const o = Object.freeze({x: 1}); Object.defineProperty(o, 'x', {value: 2})"),
		"errors: defineProperties of null":              catchExpr("Object.defineProperties(null, {})"),
		"errors: defineProperties of a number":          catchExpr("Object.defineProperties(1, {})"),
		"errors: a null descriptor map":                 catchExpr("Object.defineProperties({}, null)"),
		"errors: a bad descriptor in the map":           catchExpr("Object.defineProperties({}, {a: {value: 1}, b: 5})"),
		"errors: earlier properties stay":               "const o = Object.preventExtensions({a: 1}); try { Object.defineProperties(o, {a: {value: 2}, b: {value: 3}}) } catch (e) { return e.message + ' ' + o.a + ' ' + ('b' in o) }",
		"errors: create with a bad prototype":           catchExpr("Object.create(1, {})"),
		"errors: Reflect.defineProperty target":         catchExpr("Reflect.defineProperty(1, 'x', {})"),
		"errors: Reflect.defineProperty desc":           catchExpr("Reflect.defineProperty({}, 'x', 1)"),
		"defineProperty on a proxy":                     "const log = []; const p = new Proxy({}, {defineProperty(t, k, d) { log.push(k + ':' + JSON.stringify(d)); return Reflect.defineProperty(t, k, d) }}); Object.defineProperty(p, 'a', {value: 1, enumerable: true}); Object.defineProperties(p, {b: {value: 2}}); return log.join(' ') + ' ' + JSON.stringify(Object.getOwnPropertyDescriptors(p))",
	})
}

// TestAccessorThunks pins what the thunk of a built-in accessor keeps: calls go to the
// built-in with the same this and arguments, its name and length are the built-in's, and
// reading the descriptor back gives the thunk (the one observable difference).
func TestAccessorThunks(t *testing.T) {
	runGuardCases(t, []textCase{
		{
			name: "calls through with this and arguments",
			code: "const o = {length: 2, 0: 'a', 1: 'b'}; Object.defineProperty(o, 'last', {get: Array.prototype.at.bind(o, -1)}); const s = {}; Object.defineProperty(s, 'items', {set: Array.prototype.push, get: Array.prototype.join}); s.length = 0; s.items = 'x'; s.items = 'y'; return [o.last, s.items, s.length].join(' ')",
			want: "b x,y 2",
		},
		{
			name: "keeps name and length",
			code: "const o = {}; Object.defineProperty(o, 'x', {get: Array.prototype.includes}); const d = Object.getOwnPropertyDescriptor(o, 'x'); return [d.get.name, d.get.length, d.get === Array.prototype.includes, typeof d.get].join()",
			want: "includes,1,false,function",
		},
		{
			name: "one thunk per built-in, reused",
			code: "const a = {}, b = {}; Object.defineProperty(a, 'x', {get: Math.random}); Object.defineProperty(b, 'x', {get: Math.random}); const ga = Object.getOwnPropertyDescriptor(a, 'x').get; Object.defineProperty(b, 'y', {get: ga}); return [ga === Object.getOwnPropertyDescriptor(b, 'x').get, ga === Object.getOwnPropertyDescriptor(b, 'y').get].join()",
			want: "true,true",
		},
		{
			name: "ordinary functions are kept",
			code: "const f = function () { return 1 }, g = () => 2, h = {m() { return 3 }}.m; class C { get x() { return 4 } }; const o = {}; Object.defineProperty(o, 'f', {get: f}); Object.defineProperty(o, 'g', {get: g}); Object.defineProperty(o, 'h', {get: h}); Object.defineProperty(o, 'c', {get: Object.getOwnPropertyDescriptor(C.prototype, 'x').get}); const d = Object.getOwnPropertyDescriptors(o); return [d.f.get === f, d.g.get === g, d.h.get === h, o.f + o.g + o.h + o.c].join()",
			want: "true,true,true,10",
		},
		{
			name: "a descriptor's getter read once",
			code: "let n = 0; const d = {get get() { return n++ ? Array.prototype.at : function () { return 'first' } }}; const o = {}; Object.defineProperty(o, 'length', d); return o.length + ' ' + n",
			want: "first 1",
		},
		{
			name: "a descriptor map read once",
			code: "let n = 0; const props = {get length() { return n++ ? {get: Array.prototype.at} : {value: 'first'} }}; const o = Object.defineProperties({}, props); return o.length + ' ' + n",
			want: "first 1",
		},
	})
}

package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// jsonHarness runs the same program on a plain goja VM (goja's own JSON) and on a VM
// of ours (the guarded JSON), each fresh.
type jsonHarness struct {
	t testing.TB
}

// jsonWrap makes a program's outcome a string: its value, or the error it threw.
func jsonWrap(src string) string {
	return "(function () { const log = []; try { const out = (function () {\n" + src +
		"\n})(); return 'ok ' + (typeof out === 'string' ? out : String(out)) + (log.length ? ' | ' + log.join(',') : ''); } catch (e) { return 'throw ' + (e instanceof Error ? e.name + ': ' + e.message : String(e)) + (log.length ? ' | ' + log.join(',') : ''); } })()"
}

// gojaOutcome runs src with goja's own JSON.
func gojaOutcome(t testing.TB, src string) string {
	t.Helper()
	v, err := goja.New().RunString(jsonWrap(src))
	if err != nil {
		t.Fatalf("goja: %v\n%s", err, src)
	}
	return v.String()
}

// oursOutcome runs src on a VM of ours, outside any run (no budgets armed).
func oursOutcome(t testing.TB, src string) string {
	t.Helper()
	r := newJSONRun(t)
	v, err := r.vm.RunString(jsonWrap(src))
	if err != nil {
		t.Fatalf("ours: %v\n%s", err, src)
	}
	return v.String()
}

// newJSONRun builds a VM of ours with the default limits and the JSON guards.
func newJSONRun(t testing.TB) *run {
	t.Helper()
	r := newDefaultRun(t)
	r.installLazy(familyJSON) // as for a run whose program names JSON
	return r
}

// gojaCase is a program run on our JSON and on goja's own: want is our outcome, and
// goja's too unless goja names where goja's own differs (a bug of goja's ours does not
// copy).
type gojaCase struct {
	name, src, want, goja string
}

// runAgainstGoja runs every case on both and compares each outcome.
func runAgainstGoja(t *testing.T, tests []gojaCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, oursOutcome(t, tt.src)); diff != "" {
				t.Errorf("ours (-want +got):\n%s", diff)
			}
			want := tt.want
			if tt.goja != "" {
				want = tt.goja
			}
			if diff := cmp.Diff(want, gojaOutcome(t, tt.src)); diff != "" {
				t.Errorf("goja's own (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStringifyTable pins JSON.stringify feature by feature: the exact text, which goja's
// own stringify must produce too (unless the case names a deviation).
func TestStringifyTable(t *testing.T) {
	tests := []gojaCase{
		{name: "primitives", src: "return [JSON.stringify(null), JSON.stringify(true), JSON.stringify(false), JSON.stringify(0), JSON.stringify(-0), JSON.stringify(1.5), JSON.stringify(-1e-7), JSON.stringify(1e21), JSON.stringify('a')].join(' ')", want: `ok null true false 0 0 1.5 -1e-7 1e+21 "a"`},
		{name: "non-finite numbers are null", src: "return JSON.stringify([NaN, Infinity, -Infinity])", want: "ok [null,null,null]"},
		{name: "top-level undefined, function, symbol", src: "return [JSON.stringify(undefined), JSON.stringify(() => 1), JSON.stringify(Symbol('s')), JSON.stringify()].map(String).join(' ')", want: "ok undefined undefined undefined undefined"},
		{name: "omitted in objects, null in arrays", src: "return JSON.stringify({a: undefined, b: () => 1, c: Symbol(), d: 1, [Symbol()]: 2}) + JSON.stringify([undefined, function () {}, Symbol(), 1])", want: `ok {"d":1}[null,null,null,1]`},
		{name: "holes are null", src: "return JSON.stringify([, 1, , ])", want: "ok [null,1,null]"},
		{name: "string escapes", src: `return JSON.stringify('"\\\b\f\n\r\t\u0000\u001f\u007f é😀\u2028')`, want: `ok "\"\\\b\f\n\r\t\u0000\u001f` + "\x7f é😀\u2028\""},
		{name: "lone surrogates escaped", src: `return JSON.stringify(['\ud800', '\udc00x', 'a\ud83d', '\ud83d\ude00', '\udc00\ud800'])`, want: `ok ["\ud800","\udc00x","a\ud83d","😀","\udc00\ud800"]`},
		{name: "keys escaped, lone surrogates too", src: `return JSON.stringify({'a"b': 1, '\n': 2, '\ud800': 3, 'é': 4})`, want: `ok {"a\"b":1,"\n":2,"\ud800":3,"é":4}`},
		{name: "property order: array indexes first", src: "return JSON.stringify({b: 1, 2: 2, a: 3, 1: 4, '-1': 5, '01': 6, 4294967295: 7, 4294967294: 8})", want: `ok {"1":4,"2":2,"4294967294":8,"b":1,"a":3,"-1":5,"01":6,"4294967295":7}`},
		{name: "non-enumerable and inherited skipped", src: "const o = Object.create({inh: 1}); Object.defineProperty(o, 'hidden', {value: 1}); o.own = 2; return JSON.stringify(o)", want: `ok {"own":2}`},
		{name: "null prototype", src: "const o = Object.create(null); o.x = 1; return JSON.stringify(o)", want: `ok {"x":1}`},
		{name: "boxed primitives", src: "return JSON.stringify([new Number(3), new String('s'), new Boolean(false), Object(true)])", want: `ok [3,"s",false,true]`},
		{name: "the Number and String prototypes are ordinary objects, as in goja", src: "return JSON.stringify([Number.prototype, String.prototype, Boolean.prototype])", want: "ok [{},{},false]"},
		{name: "boxed use valueOf and toString", src: "const n = new Number(1); n.valueOf = () => 7; const s = new String('a'); s.toString = () => 'b'; return JSON.stringify([n, s])", want: `ok [7,"b"]`},
		{name: "BigInt throws", src: "return JSON.stringify({a: 1n})", want: "throw TypeError: Do not know how to serialize a BigInt"},
		{name: "boxed BigInt throws", src: "return JSON.stringify([Object(2n)])", want: "throw TypeError: Do not know how to serialize a BigInt"},
		{name: "BigInt with toJSON", src: "BigInt.prototype.toJSON = function (k) { return this.toString() + ':' + k; }; return JSON.stringify({a: 1n, b: [Object(2n)]})", want: `ok {"a":"1:a","b":["2:0"]}`},
		{name: "cycle", src: "const o = {a: [1]}; o.a.push(o); return JSON.stringify(o)", want: "throw TypeError: Converting circular structure to JSON"},
		{name: "shared reference is no cycle", src: "const x = {v: 1}; return JSON.stringify([x, x, {x}])", want: `ok [{"v":1},{"v":1},{"x":{"v":1}}]`},
		{name: "toJSON own and inherited, with the key", src: "class P { toJSON(k) { return 'P' + k; } } return JSON.stringify({a: new P(), b: {toJSON(k) { return [k]; }}, c: [new P()]})", want: `ok {"a":"Pa","b":["b"],"c":["P0"]}`},
		{name: "Date", src: "return JSON.stringify({d: new Date(0), bad: new Date(NaN)})", want: `ok {"d":"1970-01-01T00:00:00.000Z","bad":null}`},
		{name: "non-callable toJSON ignored", src: "return JSON.stringify({toJSON: 1, a: 2})", want: `ok {"toJSON":1,"a":2}`},
		{name: "getters invoked once per visit", src: "let n = 0; const o = {get g() { return ++n; }}; return JSON.stringify([o, o]) + n", want: `ok [{"g":1},{"g":2}]2`},
		{name: "replacer function sees holder, key, value", src: "return JSON.stringify({a: [1, {b: 2}]}, function (k, v) { log.push(JSON.stringify(k) + (Array.isArray(this) ? '@arr' : '@' + Object.keys(this).join('/'))); return typeof v === 'number' ? v * 10 : v; })", want: `ok {"a":[10,{"b":20}]} | ""@,"a"@a,"0"@arr,"1"@arr,"b"@b`},
		{name: "replacer function runs after toJSON", src: "return JSON.stringify({d: {toJSON() { return 'j'; }}}, (k, v) => k === 'd' ? v + '!' : v)", want: `ok {"d":"j!"}`},
		{name: "replacer drops and replaces the root", src: "return [JSON.stringify(1, () => undefined), JSON.stringify(1, (k, v) => k === '' ? {x: v} : v)].map(String).join(' ')", want: `ok undefined {"x":1}`},
		{name: "replacer array: order, dedupe, numbers, boxed", src: "return JSON.stringify({b: 1, a: 2, 1: 3, c: {a: 4, d: 5}}, ['a', 'c', 'a', 1, new String('b'), new Number(9), {}, true, null])", want: `ok {"a":2,"c":{"a":4},"1":3,"b":1}`},
		{name: "replacer array applies to nested objects, not arrays", src: "return JSON.stringify([{a: 1, b: 2}], ['a'])", want: `ok [{"a":1}]`},
		{name: "empty replacer array", src: "return JSON.stringify({a: 1}, [])", want: "ok {}"},
		{name: "non-callable object replacer ignored", src: "return JSON.stringify({a: 1}, {a: 1})", want: `ok {"a":1}`},
		{name: "space number", src: "return JSON.stringify({a: [1, {b: 2}]}, null, 2)", want: "ok {\n  \"a\": [\n    1,\n    {\n      \"b\": 2\n    }\n  ]\n}"},
		{name: "space clamped to 10", src: "return JSON.stringify([1], null, 20)", want: "ok [\n          1\n]"},
		{name: "space fraction truncated, below 1 none", src: "return [JSON.stringify([1], null, 2.9), JSON.stringify([1], null, 0.9), JSON.stringify([1], null, -3)].join('|')", want: "ok [\n  1\n]|[1]|[1]"},
		{name: "space string cut to 10", src: "return JSON.stringify([1], null, '0123456789abc')", want: "ok [\n01234567891\n]"},
		{name: "space boxed", src: "return JSON.stringify([1], null, new Number(1)) + JSON.stringify([1], null, new String('--'))", want: "ok [\n 1\n][\n--1\n]"},
		{name: "space of other types ignored", src: "return JSON.stringify([1], null, true) + JSON.stringify([1], null, {}) + JSON.stringify([1], null, new Boolean(true))", want: "ok [1][1][1]"},
		{name: "empty containers with space", src: "return JSON.stringify({a: {}, b: [], c: [{}]}, null, 1)", want: "ok {\n \"a\": {},\n \"b\": [],\n \"c\": [\n  {}\n ]\n}", goja: "ok {\n \"a\": {},\n \"b\": [],\n \"c\": [\n    {}\n   ]\n}"},
		{name: "object of omitted members is empty with space", src: "return JSON.stringify({a: undefined}, null, 2)", want: "ok {}"},
		{
			name: "indentation after an empty container",
			src:  "return JSON.stringify({a: {}, b: {c: 1}}, null, 2)",
			want: "ok {\n  \"a\": {},\n  \"b\": {\n    \"c\": 1\n  }\n}",
			goja: "ok {\n  \"a\": {},\n  \"b\": {\n      \"c\": 1\n    }\n}",
		},
		{name: "space Infinity indents by 10", src: "return JSON.stringify([1], null, Infinity)", want: "ok [\n          1\n]", goja: "ok [1]"},
		{name: "space string cut at code units", src: "return JSON.stringify([1], null, 'éééééééééééé')", want: "ok [\néééééééééé1\n]", goja: "ok [\nééééé1\n]"},
		{name: "Symbol wrapper is an object", src: "return JSON.stringify([Object(Symbol('s'))])", want: "ok [{}]", goja: "ok [null]"},
		{name: "rawJSON", src: "return JSON.stringify({a: JSON.rawJSON('1e1000'), b: [JSON.rawJSON('\"x\"')]})", want: `ok {"a":1e1000,"b":["x"]}`},
		{name: "typed array", src: "return JSON.stringify(new Uint8Array([1, 2]))", want: `ok {"0":1,"1":2}`},
		{name: "Map, Set, RegExp, Error", src: "return JSON.stringify([new Map([[1, 2]]), new Set([1]), /x/g, new Error('e')])", want: "ok [{},{},{},{}]"},
		{name: "arguments and array-likes", src: "return JSON.stringify((function () { return arguments; })(1, 'a'))", want: `ok {"0":1,"1":"a"}`},
		{name: "array with extra properties", src: "const a = [1]; a.x = 2; return JSON.stringify(a)", want: "ok [1]"},
		{name: "array getters and prototype holes", src: "Array.prototype[1] = 'p'; const a = [0, , 2]; Object.defineProperty(a, 2, {get() { return 'g'; }}); const out = JSON.stringify(a); delete Array.prototype[1]; return out", want: `ok [0,"p","g"]`},
		{name: "class instance", src: "class A { constructor() { this.x = 1; } get y() { return 2; } } return JSON.stringify(new A())", want: `ok {"x":1}`},
		{name: "proxy object traps in order", src: `const p = new Proxy({a: 1, b: 2}, {
			ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t); },
			getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k); },
			get(t, k) { log.push('get ' + String(k)); return Reflect.get(t, k); },
		}); return JSON.stringify(p)`, want: `ok {"a":1,"b":2} | get toJSON,ownKeys,gopd a,gopd b,get a,get b`},
		{name: "proxy array is an array", src: `const p = new Proxy([1, 2], {get(t, k) { log.push(String(k)); return Reflect.get(t, k); }}); return JSON.stringify(p)`, want: "ok [1,2] | toJSON,length,0,1"},
		{name: "proxy with replacer array", src: `const p = new Proxy({a: 1, b: 2}, {get(t, k) { log.push(String(k)); return Reflect.get(t, k); }}); return JSON.stringify(p, ['b', 'z'])`, want: `ok {"b":2} | toJSON,b,z`},
		{name: "proxy of proxy of array", src: "return JSON.stringify(new Proxy(new Proxy([1], {}), {}))", want: "ok [1]"},
		{name: "replacer array through a proxy", src: "return JSON.stringify({a: 1, b: 2}, new Proxy(['b'], {}))", want: `ok {"b":2}`},
		{name: "revoked proxy", src: "const p = Proxy.revocable({}, {}); p.revoke(); return JSON.stringify([p.proxy])", want: "throw TypeError: Proxy already revoked"},
		{name: "proxy keys with lone surrogates", src: `return JSON.stringify(new Proxy({'\ud800': 1}, {}))`, want: `ok {"\ud800":1}`},
		{name: "replacer key with lone surrogate", src: `return JSON.stringify({'\ud800': 1}, function (k, v) { if (k) log.push(k === '\ud800'); return v; })`, want: `ok {"\ud800":1} | true`},
		{name: "getter that throws", src: "return JSON.stringify({get a() { throw new RangeError('inner'); }})", want: "throw RangeError: inner"},
		{name: "toJSON that throws", src: "return JSON.stringify({toJSON() { throw 'raw'; }})", want: "throw raw"},
		{name: "function properties of the result", src: "const f = JSON.stringify; const d = Object.getOwnPropertyDescriptor(JSON, 'stringify'); return [f.name, f.length, d.writable, d.enumerable, d.configurable, typeof f.prototype].join()", want: "ok stringify,3,true,false,true,undefined"},
	}
	runAgainstGoja(t, tests)
}

// indentLike is goja's compact text indented the way JSON.stringify's space asks,
// which is what goja's own indented text would be without its bug after empty
// containers.
func indentLike(compact, gap string) (string, bool) {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), "", gap); err != nil {
		return "", false
	}
	return b.String(), true
}

// TestParseTable pins JSON.parse: goja's parser and its errors unchanged, the reviver
// walked in goja's order, and the depth bound.
func TestParseTable(t *testing.T) {
	tests := []gojaCase{
		{name: "values", src: `return JSON.stringify(JSON.parse(' {"a": [1, -0.5e1, true, null, "x\\u00e9"], "b": {}} '))`, want: `ok {"a":[1,-5,true,null,"xé"],"b":{}}`},
		{name: "syntax error unchanged", src: "return JSON.parse('{\"a\":}')", want: "throw SyntaxError: invalid character '}' looking for beginning of value"},
		{name: "unexpected end unchanged", src: "return JSON.parse('[1')", want: "throw SyntaxError: Unexpected end of JSON input (EOF)"},
		{name: "argument converted once", src: "let n = 0; const v = JSON.parse({toString() { n++; return '[7]'; }}); return v[0] + ':' + n", want: "ok 7:1"},
		{name: "symbol argument", src: "return JSON.parse(Symbol())", want: "throw TypeError: Cannot convert a Symbol value to a string"},
		{name: "brackets inside strings do not nest", src: "return JSON.parse('[\"' + '['.repeat(20000) + '\\\\\"{\"]')[0].length", want: "ok 20002"},
		{name: "nesting at the limit", src: "return JSON.parse('['.repeat(10000) + ']'.repeat(10000)).length", want: "ok 1"},
		{name: "nesting over the limit", src: "try { JSON.parse('['.repeat(10001) + ']'.repeat(10001)) } catch (e) { return [e instanceof RangeError, e.message].join() }", want: "ok true,Maximum call stack size exceeded", goja: "ok undefined"},
		{
			name: "reviver order, holder and deletion",
			src: `const v = JSON.parse('{"a": [1, {"b": 2}], "c": 3, "d": 4}', function (k, v) {
				log.push(k + (Array.isArray(this) ? '@arr' : '@' + Object.keys(this).join('/')));
				if (k === 'c') return undefined;
				return typeof v === 'number' ? v * 10 : v;
			}); return JSON.stringify(v)`,
			want: `ok {"a":[10,{"b":20}],"d":40} | 0@arr,b@b,1@arr,a@a/c/d,c@a/c/d,d@a/d,@`,
		},
		{name: "reviver replaces the root", src: "return JSON.parse('1', (k, v) => [k, v]).join()", want: "ok ,1"},
		{name: "reviver deletes array elements to holes", src: "const a = JSON.parse('[1,2,3]', (k, v) => v === 2 ? undefined : v); return [a.length, 1 in a].join()", want: "ok 3,false"},
		{name: "reviver sees changes the walk has not reached", src: "return JSON.stringify(JSON.parse('[1,2]', function (k, v) { if (k === '0') this[1] = {z: 5}; return v; }))", want: `ok [1,{"z":5}]`},
		{name: "non-configurable properties are kept silently", src: "return JSON.stringify(JSON.parse('{\"a\":{\"x\":1}}', function (k, v) { if (k === 'x') Object.defineProperty(this, 'x', {configurable: false}); return k === 'x' ? undefined : v; }))", want: `ok {"a":{"x":1}}`},
		{name: "reviver that throws", src: "return JSON.parse('[1]', () => { throw new Error('rev'); })", want: "throw Error: rev"},
		{name: "non-callable reviver ignored", src: "return JSON.parse('[1]', 5)[0]", want: "ok 1"},
		{name: "null reviver ignored", src: "return JSON.parse('[1]', null)[0]", want: "ok 1", goja: "throw TypeError: Cannot convert undefined or null to object"},
		{
			name: "reviver over a proxy it planted",
			src: `const p = new Proxy({a: 1, b: 2}, {
				ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t); },
				getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k); },
				get(t, k) { log.push('get ' + String(k)); return Reflect.get(t, k); },
				defineProperty(t, k, d) { log.push('define ' + k); return Reflect.defineProperty(t, k, d); },
				deleteProperty(t, k) { log.push('delete ' + k); return Reflect.deleteProperty(t, k); },
			}); JSON.parse('[0, 0]', function (k, v) { if (k === '0') this[1] = p; return k === 'a' ? undefined : v; }); return 'x'`,
			want: "ok x | ownKeys,gopd a,gopd b,get a,delete a,get b,define b",
		},
		{name: "reviver key with a lone surrogate", src: `const o = JSON.parse('[0, 0]', function (k, v) { if (k === '0') this[1] = {'\ud800': 1}; if (k === '\ud800') log.push('seen'); return v; }); return JSON.stringify(o)`, want: `ok [0,{"\ud800":1}] | seen`},
	}
	runAgainstGoja(t, tests)
}

// TestJSONHostile runs the programs that spin, recurse or allocate inside goja's own
// JSON.stringify and JSON.parse through a real pool: each must end with a catchable
// error (the program reports it) or with the run's budget, and Close, which waits for
// every VM goroutine, must return: with goja's own JSON the goroutine would still be
// inside the one native call.
func TestJSONHostile(t *testing.T) {
	catch := func(body string) string {
		return "try { " + body + " } catch (e) { return e.name + ': ' + e.message }"
	}
	tests := []struct {
		name   string
		code   string
		want   string // the completion, or
		kinds  []Kind // any of these failure kinds
		limits *Limits
	}{
		{
			name: "shared DAG: 2^30 leaves",
			code: catch("let o = [1]; for (let i = 0; i < 30; i++) o = [o, o]; return JSON.stringify(o).length"),
			want: `"RangeError: Invalid string length"`,
			// The text limit is a quarter of the heap budget: 8 MiB here.
			limits: &Limits{HeapBytes: 32 << 20},
		},
		{
			name: "shared DAG with a budget that ends first",
			code: "let o = [1]; for (let i = 0; i < 30; i++) o = [o, o]; return JSON.stringify(o).length",
			// 4 GiB of heap: a text limit of 1 GiB, which the compute budget ends long before.
			limits: &Limits{HeapBytes: 4 << 30, Compute: 200 * time.Millisecond},
			kinds:  []Kind{KindTimeout},
		},
		{
			name: "1e5-deep array",
			code: catch("let o = []; for (let i = 0; i < 1e5; i++) o = [o]; return JSON.stringify(o)"),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
		{
			name: "2e4-deep object",
			code: catch("let o = {}; for (let i = 0; i < 2e4; i++) o = {o}; return JSON.stringify(o)"),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
		{
			name: "2e4-deep object with a space: its indentation passes the text limit first",
			code: catch("let o = {}; for (let i = 0; i < 2e4; i++) o = {o}; return JSON.stringify(o, null, 10)"),
			want: `"RangeError: Invalid string length"`,
		},
		{
			name: "a replacer that nests forever",
			code: catch("return JSON.stringify(1, () => ({x: 1}))"),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
		{
			name: "output over the limit",
			code: catch("const s = 'x'.repeat(1 << 20); return JSON.stringify(Array(40).fill(s)).length"),
			want: `"RangeError: Invalid string length"`,
		},
		{
			name: "escapes over the limit inside one string",
			code: catch("return JSON.stringify('\\u0001'.repeat(4e6)).length"),
			want: `"RangeError: Invalid string length"`,
		},
		{
			name:   "a sparse array of length 2^32-1",
			code:   catch("const a = []; a.length = 2 ** 32 - 1; return JSON.stringify(a).length"),
			want:   `"RangeError: Invalid string length"`,
			limits: &Limits{HeapBytes: 32 << 20},
		},
		{
			name: "a huge typed array fails before listing its keys",
			code: catch("return JSON.stringify(new Uint8Array(1e7)).length"),
			want: `"RangeError: Invalid string length"`,
		},
		{
			name: "a huge typed array with a replacer fails before listing its keys",
			code: catch("return JSON.stringify(new Uint8Array(2e6), (k, v) => v).length"),
			want: `"RangeError: the keys of a typed array of 2000000 elements would exceed the heap limit of 64 MiB"`,
		},
		{
			name: "a huge BigInt typed array fails before listing its keys",
			code: catch("return JSON.stringify(new BigInt64Array(2e6)).length"),
			want: `"RangeError: the keys of a typed array of 2000000 elements would exceed the heap limit of 64 MiB"`,
		},
		{
			name: "a proxy of a huge typed array fails before listing its keys",
			code: catch("return JSON.stringify(new Proxy(new Uint8Array(2e6), {})).length"),
			want: `"RangeError: the keys of a typed array of 2000000 elements would exceed the heap limit of 64 MiB"`,
		},
		{
			name: "a reviver that plants a huge typed array",
			code: catch("return JSON.parse('[0, 0]', function (k, v) { if (k === '0') this[1] = new Uint8Array(2e6); return v; })"),
			want: `"RangeError: the keys of a typed array of 2000000 elements would exceed the heap limit of 64 MiB"`,
		},
		{
			name:   "a sparse replacer array of length 2^32-1",
			code:   "const r = []; r.length = 2 ** 32 - 1; return JSON.stringify({}, r)",
			kinds:  []Kind{KindTimeout},
			limits: &Limits{Compute: 200 * time.Millisecond},
		},
		{
			name:   "a replacer array that makes every object slow",
			code:   "const names = Array.from({length: 1e5}, (_, i) => 'n' + i); return JSON.stringify(Array(1e5).fill({}), names).length",
			kinds:  []Kind{KindTimeout},
			limits: &Limits{Compute: 200 * time.Millisecond},
		},
		{
			name:   "a getter that spins inside a large object",
			code:   "const o = {}; for (let i = 0; i < 1e4; i++) o['k' + i] = i; Object.defineProperty(o, 'z', {get() { for (;;) {} }, enumerable: true}); return JSON.stringify(o)",
			kinds:  []Kind{KindTimeout},
			limits: &Limits{Compute: 200 * time.Millisecond},
		},
		{
			name: "deep JSON.parse",
			code: catch("return JSON.parse('['.repeat(5e6) + ']'.repeat(5e6)).length"),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
		{
			name: "deep invalid JSON.parse",
			code: catch("return JSON.parse('{\"a\":'.repeat(1e6))"),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
		{
			name: "JSON.parse of text that would exceed the heap budget",
			code: catch("return JSON.parse('[' + '[],'.repeat(2e5) + '[]]').length"),
			want: `"RangeError: JSON.parse: the parsed value would exceed the heap limit of 64 MiB"`,
		},
		{
			name: "a reviver that plants a cycle",
			code: catch("return JSON.parse('[0, 0]', function (k, v) { if (k === '0') this[1] = this; return v; })"),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
		{
			name: "a reviver that plants an endless proxy",
			code: catch(`const deep = () => new Proxy({}, {ownKeys: () => ['a'], getOwnPropertyDescriptor: () => ({value: 1, enumerable: true, configurable: true}), get: () => deep()});
				return JSON.parse('[0, 0]', function (k, v) { if (k === '0') this[1] = deep(); return v; })`),
			want: `"RangeError: Maximum call stack size exceeded"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Generous budgets: the catchable errors, not the budgets, must end these runs,
			// even on a loaded machine. The cases that expect a timeout set a short one.
			p, err := NewPool(&PoolOptions{Size: 1, Grace: 50 * time.Millisecond, Limits: &Limits{
				Compute: time.Minute, WallClock: 2 * time.Minute, HeapBytes: 64 << 20, OutputBytes: 64 << 10,
			}})
			if err != nil {
				t.Fatal(err)
			}
			res := runCode(t, p, tt.code, &RunOptions{Limits: tt.limits})
			if tt.kinds != nil {
				if res.Failure == nil || !slices.Contains(tt.kinds, res.Failure.Kind) {
					t.Errorf("result = %.300s, want a failure of kind %v", res.Text(), tt.kinds)
				}
			} else if res.Failure != nil || string(res.Value) != tt.want {
				t.Errorf("result = %.300s, want %s", res.Text(), tt.want)
			}
			if err := p.Close(); err != nil { // waits for the VM goroutine
				t.Error(err)
			}
		})
	}
}

// TestScanJSON pins the scan in front of JSON.parse: the depth it counts (strings and
// escapes skipped) and its heap estimate (a string counts its length less one quote).
func TestScanJSON(t *testing.T) {
	tests := []struct {
		text    string
		limit   int
		tooDeep bool
		heap    int64
	}{
		{text: "[[[]]]", limit: 3, heap: 3 * heapPerArray},
		{text: "[[[[]]]]", limit: 3, tooDeep: true, heap: 3 * heapPerArray},
		{text: `["[[[[", "\\", "\"[["]`, limit: 1, heap: heapPerArray + 2*heapPerComma + 5 + 3 + 5},
		{text: `{"a": {"b": []}}`, limit: 3, heap: 2*heapPerObject + heapPerArray + 2*heapPerMember + 2*2},
		{text: "]]]][[[", limit: 3, heap: 3 * heapPerArray},
		{text: "][][][][", limit: 1, heap: 4 * heapPerArray},
		{text: `"unterminated [[[[`, limit: 1, heap: 18},
		{text: "1, 2, 3", limit: 1, heap: 2 * heapPerComma},
	}
	for _, tt := range tests {
		tooDeep, heap := scanJSON(tt.text, tt.limit)
		if tooDeep != tt.tooDeep || heap != tt.heap {
			t.Errorf("scanJSON(%q, %d) = %v, %d; want %v, %d", tt.text, tt.limit, tooDeep, heap, tt.tooDeep, tt.heap)
		}
	}
}

// FuzzParse compares our JSON.parse with goja's on arbitrary text, once plainly and once
// with a reviver that logs every call and changes numbers: the same value (rendered by
// JSON.stringify), the same error, the same calls. Text the scan rejects as too deep is
// the one allowed difference.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{`{"a": [1, {"b": null}], "c": "\u00e9\ud800"}`, `[1, 2`, `{"__proto__": 1, "a": 1, "a": 2}`, `1e400`, `"\"[["`, `[[[[]]]]`, ` -0 `, `{"": {"": []}}`} {
		f.Add(seed)
	}
	const src = `const log = [];
		const plain = (() => { try { return JSON.stringify(JSON.parse(TEXT)); } catch (e) { return e.name + ': ' + e.message; } })();
		const revived = (() => { try { return JSON.stringify(JSON.parse(TEXT, function (k, v) { log.push(k + ':' + typeof v + ':' + Array.isArray(this)); return typeof v === 'number' ? v + 1 : v; })); } catch (e) { return e.name + ': ' + e.message; } })();
		[plain, revived, log.join(',')].join('\n')`
	run := func(t *testing.T, vm *goja.Runtime, text string) string {
		if err := vm.Set("TEXT", text); err != nil {
			t.Fatal(err)
		}
		v, err := vm.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		return v.String()
	}
	f.Fuzz(func(t *testing.T, text string) {
		if tooDeep, _ := scanJSON(text, maxJSONDepth); tooDeep {
			return
		}
		theirs := run(t, goja.New(), text)
		ours := run(t, newJSONRun(t).vm, text)
		if diff := cmp.Diff(theirs, ours); diff != "" {
			t.Errorf("JSON.parse(%q) differs from goja's (-goja +ours):\n%s", text, diff)
		}
	})
}

// TestJSONHijackedHelpers replaces what the slow paths capture on first use before they
// do: the program only changes its own output, and nothing fails inside the runtime.
func TestJSONHijackedHelpers(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{name: "Object.keys returning junk", src: `Object.keys = () => ({length: 3, 0: 1, 1: {toString() { return 'b'; }}}); return JSON.stringify(new Proxy({b: 2, 1: 3, undefined: 4}, {}))`, want: `ok {"1":3,"b":2,"undefined":4}`},
		{name: "Object.keys returning a primitive", src: `Object.keys = () => 5; return JSON.stringify(new Proxy({b: 2}, {}))`, want: "ok {}"},
		{name: "Object.keys returning a symbol", src: `Object.keys = () => [Symbol('s')]; return JSON.stringify(new Proxy({s: 2}, {}))`, want: `ok {"s":2}`},
		{name: "Object.keys returning an endless list", src: `Object.keys = () => ({length: 2 ** 53}); try { JSON.stringify(new Proxy({undefined: 'x'.repeat(1e4)}, {})) } catch (e) { return e.message }`, want: "ok Invalid string length"},
		{
			name: "a getter on Object.prototype does not reach the descriptor",
			src:  `Object.defineProperty(Object.prototype, 'get', {get() { return () => 1; }, configurable: true}); const p = new Proxy({a: 1}, {}); const v = JSON.parse('[0, 0]', function (k, v) { if (k === '0') this[1] = p; return k === 'a' ? 5 : v; }); delete Object.prototype.get; return String(v[1].a)`,
			want: "ok 5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, oursOutcome(t, tt.src)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

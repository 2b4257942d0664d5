package runtime

import (
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// catch turns a statement into a program that returns what it produced or threw.
func catch(stmt string) string {
	return "try { const v = (() => { " + stmt + " })(); return typeof v === 'object' && v !== null ? 'object' : String(v) } catch (e) { return e.name + ': ' + e.message }"
}

// TestGuards pins the guards of guards.go, family by family: each hostile shape ends
// with a catchable error at once (a pool with a 32 MiB heap budget: strings of at most
// 8M characters, 2M elements), a value that answers differently the second time cannot
// get past a check, and ordinary use is unchanged.
func TestGuards(t *testing.T) {
	const huge = "2 ** 53 - 1"
	tests := []struct {
		family string
		cases  []textCase
	}{
		{"strings", []textCase{
			{"repeat over the bound", catch("return 'ab'.repeat(1e9)"), "RangeError: Invalid string length"},
			{"padStart over the bound", catch("return 'a'.padStart(1e9)"), "RangeError: Invalid string length"},
			{"padEnd over the bound", catch("return 'a'.padEnd(1e9, 'xy')"), "RangeError: Invalid string length"},
			{"repeat of a receiver whose toString lies", catch("let n = 0; return String.prototype.repeat.call({toString() { return n++ ? 'x'.repeat(1e6) : 'x' }}, 1e5).length"), "100000"},
			{"padStart with a length whose valueOf lies", catch("let n = 0; return 'a'.padStart({valueOf() { return n++ ? 1e11 : 3 }}).length"), "3"},
			{"ordinary string guards", "return ['ab'.repeat(3), 'a'.padStart(3, '-'), 'a'.padEnd(2), 'x'.padStart(4, {toString() { return 'yz' }})].join(' ')", "ababab --a a  yzyx"},
		}},
		// arrays: a huge length on an array-like or a sparse array
		{"arrays", []textCase{
			{"indexOf on a huge array-like", catch("return Array.prototype.indexOf.call({length: " + huge + "}, 42)"), "RangeError: Invalid array length"},
			{"includes on a huge array-like", catch("return Array.prototype.includes.call({length: " + huge + "}, 42)"), "RangeError: Invalid array length"},
			{"lastIndexOf on a huge array-like", catch("return Array.prototype.lastIndexOf.call({length: " + huge + "}, 42)"), "RangeError: Invalid array length"},
			{"forEach over a huge sparse array", catch("Array(2 ** 32 - 1).forEach(x => {})"), "RangeError: Invalid array length"},
			{"map over a huge sparse array", catch("return Array(2 ** 32 - 1).map(x => 1)"), "RangeError: Invalid array length"},
			{"with on a huge sparse array", catch("return Array(2 ** 32 - 1).with(0, 1)"), "RangeError: Invalid array length"},
			{"toReversed on a huge sparse array", catch("return Array(2 ** 32 - 1).toReversed()"), "RangeError: Invalid array length"},
			{"sort with a comparator on a huge sparse array", catch("return Array(2 ** 32 - 2).sort((a, b) => 0)"), "RangeError: Invalid array length"},
			{"spread of a huge sparse array", catch("return [...Array(2 ** 32 - 1)]"), "RangeError: Invalid array length"},
			{"spread of keys of a huge sparse array", catch("return [...Array(2 ** 32 - 1).keys()]"), "RangeError: Invalid array length"},
			{"destructuring rest of a huge sparse array", catch("const [a, ...rest] = Array(2 ** 32 - 1); return rest"), "RangeError: Invalid array length"},
			{"a Set of a huge sparse array", catch("return new Set(Array(2 ** 32 - 1))"), "RangeError: Invalid array length"},
			{"concat of a spreadable huge array-like", catch("return [].concat({length: " + huge + ", [Symbol.isConcatSpreadable]: true})"), "RangeError: Invalid array length"},
			{"Array.from of a huge array-like", catch("return Array.from({length: 1e9})"), "RangeError: Invalid array length"},
			{"fill over the bound", catch("return new Array(1e9).fill(0)"), "RangeError: Invalid array length"},
			{"a length getter that lies the second time", catch("let n = 0; return Array.prototype.indexOf.call({get length() { return n++ ? 2 ** 53 - 1 : 2 }, 1: 'x'}, 'x') + ' ' + n"), "1 1"},
			{"a Proxy length that lies the second time", catch("let n = 0; const p = new Proxy({}, {get(t, k) { return k === 'length' ? (n++ ? 2 ** 53 - 1 : 1) : undefined }}); return Array.prototype.includes.call(p, undefined) + ' ' + n"), "true 1"},
			{"fill with bounds whose valueOf lies", catch("let n = 0; return [1, 2, 3].fill(0, {valueOf() { return n++ ? -1e9 : 1 }}).join()"), "1,0,0"},
			{"methods that return their receiver return the program's object", catch("const o = {length: 2, 0: 'a', 1: 'b'}; return [Array.prototype.reverse.call(o) === o, o[0], Array.prototype.copyWithin.call(o, 0, 1) === o].join()"), "true,b,true"},
			{"array-like iteration still sees the object's own elements", catch("const o = {length: 3, 0: 'a', 2: 'c'}; return [Array.prototype.map.call(o, x => x + '!').join(), [...Array.prototype.values.call(o)].join(), Array.prototype.slice.call(o, 1).length].join(' ')"), "a!,,c! a,,c 2"},
			{"ordinary array methods", "const a = [3, 1, 2]; return [a.indexOf(1), a.includes(2), a.map(x => x * 2).join(), a.filter(x => x > 1).join(), a.slice(1).join(), [...a].join(), a.concat([4], 5).join(), a.toSorted().join(), a.with(0, 9).join(), Array.from({length: 2}, (_, i) => i).join(), Array.prototype[Symbol.iterator] === Array.prototype.values].join(' ')", "1 true 6,2,4 3,2 1,2 3,1,2 3,1,2,4,5 1,2,3 9,1,2 0,1 true"},
			{"fill with relative bounds", "return [1, 2, 3, 4].fill(0, -2).join()", "1,2,0,0"},
			{"Array.from of iterables and small array-likes", "return [Array.from({length: 3}, (_, i) => i).join(), Array.from(new Set([1, 2])).join(), Array.from('ab').join()].join(' ')", "0,1,2 1,2 a,b"},
			{"default sort compares strings", "return [10, 9, 1, undefined, 'b', 'a'].sort().map(String).join()", "1,10,9,a,b,undefined"},
			{"sort with a comparator, toSorted", "const a = [3, 1, 2]; return [a.toSorted().join(), a.sort((x, y) => y - x).join()].join(' ')", "1,2,3 3,2,1"},
			{"a long default sort keeps the native order", "const a = Array.from({length: 20000}, (_, i) => (i * 7919) % 20000); a.sort(); return a.length === 20000 && a.every((v, i) => i === 0 || String(a[i - 1]) <= String(v))", "true"},
			{"guarded methods keep their names and lengths", "return [Array.prototype.indexOf.name, Array.prototype.indexOf.length, Array.prototype.map.length, Array.prototype.concat.length, Array.prototype.flat.name, Array.prototype.flatMap.length].join()", "indexOf,1,1,1,flat,1"},
		}},
		// join, toString and toLocaleString: result size and nesting
		{"join", []textCase{
			{"join of a huge sparse array", catch("return Array(3e8).join('abc')"), "RangeError: Invalid array length"},
			{"join of big elements", catch("const s = 'x'.repeat(1 << 20); return Array(20).fill(s).join('')"), "RangeError: Invalid string length"},
			{"join with a big separator", catch("return Array(1000).fill('').join('x'.repeat(1e4))"), "RangeError: Invalid string length"},
			{"a length getter that lies to join", catch("let n = 0; return Array.prototype.join.call({get length() { return n++ ? 2 ** 32 - 1 : 0 }}, 'abcdefgh').length"), "0"},
			{"an array nested deeper than native nesting allows", catch("let a = []; for (let i = 0; i < 2e4; i++) a = [a]; return String(a)"), "RangeError: Maximum call stack size exceeded"},
			{"the same through a template literal", catch("let a = []; for (let i = 0; i < 2e4; i++) a = [a]; return `${a}`"), "RangeError: Maximum call stack size exceeded"},
			{"a built-in join as its own toString", catch("const o = {length: 1}; o[0] = o; o.toString = Array.prototype.join; return String(o)"), "RangeError: Maximum call stack size exceeded"},
			{"toLocaleString of a huge sparse array", catch("return Array(2 ** 32 - 1).toLocaleString()"), "RangeError: Invalid array length"},
			{"ordinary join and toLocaleString", "return [[1, [2, 3], null, undefined, 'x'].join('-'), [1, 2].toString(), [1, {toLocaleString() { return 'L' }}].toLocaleString(), String([[], [[]]]), [,'a'].join()].join(' ')", "1-2,3---x 1,2 1,L , ,a"},
		}},
		// flat and flatMap
		{"flat", []textCase{
			{"flat of a cycle", catch("const a = [0]; a[0] = a; return a.flat(Infinity)"), "RangeError: Maximum call stack size exceeded"},
			{"flat as ECMAScript defines it", "return JSON.stringify([[1, [2, [3, [4]]]].flat(), [1, [2, [3, [4]]]].flat(2), [1, [2, [3]]].flat(Infinity), [1, , [2, , 3]].flat(), [[1]].flat(0), [[1]].flat(-1), [[1]].flat('1'), [1, 2].flatMap((x, i, a) => [x, i, a.length]), ['a b', 'c'].flatMap(s => s.split(' '))])", `[[1,2,[3,[4]]],[1,2,3,[4]],[1,2,3],[1,2,3],[[1]],[[1]],[1],[1,0,2,2,1,2],["a","b","c"]]`},
			{"flat of array-likes and species", "class A extends Array {}; const a = A.from([[1], [2]]); return [Array.prototype.flat.call({length: 2, 0: [1], 1: 2}).join(), a.flat() instanceof A, [1].flatMap(function () { return this.v }, {v: 7}).join()].join(' ')", "1,2 true 7"},
			{"flatMap needs a function", catch("return [1].flatMap(1)"), "TypeError: flatMap mapper function is not callable"},
		}},
		{"calls", []textCase{
			{"apply with a huge array-like", catch("return Math.max.apply(null, {length: 2 ** 32})"), "RangeError: Maximum call stack size exceeded"},
			{"Reflect.apply with a huge array-like", catch("return Reflect.apply(Math.max, null, {length: 2 ** 32})"), "RangeError: Maximum call stack size exceeded"},
			{"Reflect.construct with a huge array-like", catch("return Reflect.construct(Array, {length: 2 ** 32})"), "RangeError: Maximum call stack size exceeded"},
			{"an argument list whose length lies the second time", catch("let n = 0; return Math.max.apply(null, {get length() { return n++ ? 2 ** 32 : 2 }, 0: 4, 1: 5})"), "5"},
			{"Reflect.apply nested as data", catch("let args = [1]; for (let i = 0; i < 5000; i++) args = [Math.max, null, args]; return Reflect.apply(Reflect.apply, null, args)"), "RangeError: Maximum call stack size exceeded"},
			{"ordinary calls", "function f(a, b) { return [this && this.t, a, b].join('|') } return [f.apply({t: 1}, [2, 3]), f.apply(null, {length: 1, 0: 'x'}), Reflect.apply(f, {t: 'r'}, ['y']), Reflect.construct(Date, [0]).getTime(), f.apply(null), Math.max.apply(null, Array(1000).fill(1).map((x, i) => i))].join(' ')", "1|2|3 |x| r|y| 0 || 999"},
			{"bound function names are capped", "let f = function f() {}; for (let i = 0; i < 1000; i++) f = f.bind(null); return [f.name.length <= 256, f.name.startsWith('bound bound')].join()", "true,true"},
		}},
	}
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	for _, f := range tests {
		t.Run(f.family, func(t *testing.T) { runTextCases(t, p, f.cases, nil) })
	}
}

// TestFlatOfADAG flattens a DAG of 31 arrays with a billion leaves: the result is bounded
// by the heap budget's element count, so the run ends with that RangeError, or with
// memory-limit when the collector sees the result first (an array of that many elements
// is about the whole budget).
func TestFlatOfADAG(t *testing.T) {
	p := newTestPool(t, &Limits{HeapBytes: 4 << 20})
	res := runCode(t, p, catch("let o = [1]; for (let i = 0; i < 30; i++) o = [o, o]; return o.flat(Infinity)"), nil)
	if got := res.Text(); got != "RangeError: Invalid array length" && (res.Failure == nil || res.Failure.Kind != KindMemoryLimit) {
		t.Errorf("flat of a DAG = %.200s, want the RangeError or memory-limit", got)
	}
}

// TestFlatMatchesGoja compares flat and flatMap with goja's own on values both can take.
func TestFlatMatchesGoja(t *testing.T) {
	cases := []string{
		"[1, [2, [3, [4, [5]]]]].flat(3)",
		"[[], [[]], [[], [1]]].flat(Infinity)",
		"[1, , 3, [4, , 6]].flat()",
		"[{length: 1, 0: 'x'}, [[1], 2]].flat(1)",
		"[1, 2, 3].flatMap(x => x % 2 ? [x, [x]] : [])",
		"[[1, 2], [3]].flat(NaN)",
		"Array.prototype.flat.call({length: 3, 0: [1], 2: [[2]]}, 2)",
		"[[1]].flatMap(x => x, {})",
	}
	p := newTestPool(t, nil)
	for _, c := range cases {
		want, err := goja.New().RunString("JSON.stringify(" + c + ")")
		if err != nil {
			t.Fatalf("goja: %s: %v", c, err)
		}
		if got := runCode(t, p, "return JSON.stringify("+c+")", nil).Text(); got != want.String() {
			t.Errorf("%s = %s, goja %s", c, got, want)
		}
	}
}

// TestGuardedShapes pins what a program can see of the guarded built-ins themselves:
// property attributes as in goja, and ToString's TypeError for a Symbol.
func TestGuardedShapes(t *testing.T) {
	const code = `const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k); return [x.writable, x.enumerable, x.configurable].join('') };
		const out = [d(Array.prototype, Symbol.iterator), d(Array.prototype, 'indexOf'), d(Uint8Array.prototype, 'constructor'), d(globalThis, 'Uint8Array'), d(Uint8Array, Symbol.hasInstance)];
		try { 'x'.padEnd(5, Symbol('ab')); out.push('no error') } catch (e) { out.push(e.name) }
		try { ['a', Symbol('b')].join(); out.push('no error') } catch (e) { out.push(e.name) }
		return out.join(' ')`
	p := newTestPool(t, nil)
	if got, want := runCode(t, p, code, nil).Text(), "truefalsetrue truefalsetrue truefalsetrue truefalsetrue falsefalsetrue TypeError TypeError"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestBuiltinsAsConversions installs every built-in as a plain object's toString, valueOf
// and Symbol.toPrimitive (with the object as its own length and first element) and
// converts the object. A built-in that converts its receiver then calls itself through
// goja's ToPrimitive with no JavaScript frame; each must end with an exception (the
// RangeError of native nesting, or its own TypeError), never a Go stack overflow, which
// would end this test binary.
func TestBuiltinsAsConversions(t *testing.T) {
	const code = `const roots = {String, Number, Boolean, Symbol, RegExp, Function, Promise, Array, ArrayBuffer,
		DataView, Date, Object, Map, Set, WeakMap, WeakSet, Error, Math, JSON, Reflect, Uint8Array, BigInt, URL,
		URLSearchParams, TextEncoder, TextDecoder};
	const fns = [];
	for (const c of Object.values(roots)) {
		for (const o of [c, c.prototype]) {
			if (!o) continue;
			for (const k of Object.getOwnPropertyNames(o)) {
				const d = Object.getOwnPropertyDescriptor(o, k);
				if (typeof d.value === 'function') fns.push(d.value);
				if (typeof d.get === 'function') fns.push(d.get);
			}
		}
	}
	let ended = 0;
	for (const f of fns) {
		for (const shape of [0, 1]) {
			const o = {};
			if (shape === 0) { o.toString = f; o.valueOf = f; }
			else { o[Symbol.toPrimitive] = f; o.toString = f; o.length = o; o[0] = o; }
			for (const conv of [() => String(o), () => +o, () => o + '']) {
				try { conv() } catch (e) {}
				ended++;
			}
		}
	}
	return fns.length > 300 && ended === fns.length * 6`
	p := newTestPool(t, &Limits{Compute: 30 * time.Second})
	if got := runCode(t, p, code, nil).Text(); got != "true" {
		t.Errorf("got %.300s, want true", got)
	}
}

// TestWithEscapesDecoded: the text the lazy families' words are looked for in is the
// program followed by a copy with every Unicode escape decoded; what only looks like an
// escape stays as written.
func TestWithEscapesDecoded(t *testing.T) {
	tests := []struct{ in, decoded string }{
		{`\u004aSON.parse(s)`, `JSON.parse(s)`},
		{`new \u{46}loat64Array(1)`, `new Float64Array(1)`},
		{`\u{000000000046}loat64Array`, `Float64Array`},
		{`'\\u0044ate'`, `'\Date'`},
		{`\u{1F600} \uD83D\uDE00`, "\U0001F600 \uFFFD\uFFFD"},
		{`\u{110000} \u{} \u{46 \u12 \uZZZZ \u`, `\u{110000} \u{} \u{46 \u12 \uZZZZ \u`},
		{`\u\u0041`, `\uA`},
	}
	for _, tt := range tests {
		if got, want := withEscapesDecoded(tt.in), tt.in+"\n"+tt.decoded; got != want {
			t.Errorf("withEscapesDecoded(%q) = %q, want %q", tt.in, got, want)
		}
	}
	if got := withEscapesDecoded("JSON.parse(s)"); got != "JSON.parse(s)" {
		t.Errorf("without an escape: %q, want the text as it is", got)
	}
}

// FuzzWithEscapesDecoded: any text decodes without a panic to itself, a line break and
// a copy no longer than itself (an escape is never shorter than what it stands for).
func FuzzWithEscapesDecoded(f *testing.F) {
	for _, s := range []string{`\u004aSON`, `\u{46}`, `\u{`, `\u{0000000000000041}`, `\u\u{110000}\uzzzz`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := withEscapesDecoded(s)
		if !strings.Contains(s, `\u`) {
			if got != s {
				t.Fatalf("%q without an escape gave %q", s, got)
			}
			return
		}
		if !strings.HasPrefix(got, s+"\n") || len(got) > 2*len(s)+1 {
			t.Fatalf("%q gave %q", s, got)
		}
	})
}

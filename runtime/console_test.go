package runtime

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConsoleFormatting(t *testing.T) {
	long := strings.Repeat("a", 10000)
	tests := []struct {
		name string
		code string
		want string // the one log entry
	}{
		{name: "strings raw, objects inspected, joined by one space", code: "console.log('point', {x: 1, y: 2})", want: "point { x: 1, y: 2 }"},
		{name: "nested objects and arrays", code: "console.log({a: 1, b: [1, 2, {c: 3}]})", want: "{ a: 1, b: [ 1, 2, { c: 3 } ] }"},
		{name: "strings inside structures are quoted", code: `console.log(['a\nb', "it's", 'q"s'])`, want: `[ 'a\nb', "it's", 'q"s' ]`},
		{name: "primitives", code: "console.log(1, -0, 1.5e300, 10n, true, null, undefined, Symbol('s'), NaN)", want: "1 -0 1.5e+300 10n true null undefined Symbol(s) NaN"},
		{name: "empty containers", code: "console.log({}, [], new Map(), new Set())", want: "{} [] Map(0) {} Set(0) {}"},
		{name: "keys that are not identifiers are quoted", code: "console.log({'my-key': 1, ok: 2, 3: 'n'})", want: "{ '3': 'n', 'my-key': 1, ok: 2 }"},
		{
			name: "depth over 4 collapses, and deep nesting breaks lines like Node",
			code: "console.log({a: {b: {c: {d: {e: {f: 1}}}}}})",
			want: "{\n  a: {\n    b: { c: { d: { e: [Object] } } }\n  }\n}",
		},
		{name: "arrays beyond depth", code: "console.log([[[[[[1]]]]]])", want: "[\n  [\n    [ [ [ [Array] ] ] ]\n  ]\n]"},
		{
			name: "arrays over 100 items are cut and grouped",
			code: "console.log(Array.from({length: 120}, (_, i) => i))",
			want: "[\n   0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11,\n  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,\n  24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,\n  60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n  72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83,\n  84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,\n  96, 97, 98, 99,\n  ... 20 more items\n]",
		},
		{name: "holes", code: "console.log([1, , , 4])", want: "[ 1, <2 empty items>, 4 ]"},
		{name: "circular", code: "const o = {x: 1}; o.self = o; o.list = [o]; console.log(o)", want: "{ x: 1, self: [Circular], list: [ [Circular] ] }"},
		{name: "Map and Set", code: "console.log(new Map([['a', 1], ['b', {c: 2}]]), new Set([1, 'two']))", want: "Map(2) { 'a' => 1, 'b' => { c: 2 } } Set(2) { 1, 'two' }"},
		{name: "Date", code: "console.log(new Date(0), {d: new Date(86400000)}, new Date(NaN))", want: "1970-01-01T00:00:00.000Z { d: 1970-01-02T00:00:00.000Z } Invalid Date"},
		{name: "Error prints its stack", code: "console.log(new Error('bad'))", want: "Error: bad\n    at program.js:1:13"},
		{name: "Error properties follow the stack", code: "const e = new Error('bad'); e.code = 'E1'; console.log(e)", want: "Error: bad\n    at program.js:1:11 {\n  code: 'E1'\n}"},
		{name: "functions", code: "function foo() {}; const arrow = () => 1; console.log(foo, arrow, [function () {}])", want: "[Function: foo] [Function: arrow] [ [Function (anonymous)] ]"},
		{name: "classes, async and generator functions", code: "class A {}; class B extends A {}; async function af() {}; function* g() {}; console.log(A, B, af, g)", want: "[class A] [class B extends A] [AsyncFunction: af] [GeneratorFunction: g]"},
		{name: "a throwing getter does not make console.log throw", code: "console.log({a: 1, get b() { throw new Error('no') }})", want: "{ a: 1, b: [Getter] }"},
		{name: "class instances and null prototypes", code: "class Foo { constructor() { this.x = 1 } }; const n = Object.create(null); n.a = 1; console.log(new Foo(), n)", want: "Foo { x: 1 } [Object: null prototype] { a: 1 }"},
		{name: "typed arrays", code: "console.log(new Uint8Array([1, 2, 3]))", want: "Uint8Array(3) [ 1, 2, 3 ]"},
		{name: "long strings inside structures are cut at 10,000 characters", code: "console.log(['a'.repeat(10005)])", want: "[\n  '" + long + "'... 5 more characters\n]"},
		{name: "long top-level strings are raw and whole", code: "console.log('b'.repeat(20000))", want: strings.Repeat("b", 20000)},
		{name: "long objects break lines", code: "console.log({first: 'x'.repeat(40), second: 'y'.repeat(40)})", want: "{\n  first: '" + strings.Repeat("x", 40) + "',\n  second: '" + strings.Repeat("y", 40) + "'\n}"},
		{name: "promises", code: "console.log(Promise.resolve(1), new Promise(() => {}))", want: "Promise { 1 } Promise { <pending> }"},
		{name: "boxed primitives", code: "console.log(new String('s'), new Number(2))", want: "[String: 's'] [Number: 2]"},
	}
	p := newTestPool(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCode(t, p, tt.code, nil)
			if res.Failure != nil {
				t.Fatalf("run failed: %s", res.Text())
			}
			if diff := cmp.Diff([]string{tt.want}, res.Logs); diff != "" {
				t.Errorf("logs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConsoleIgnoresReplacedIntrinsics(t *testing.T) {
	p := newTestPool(t, nil)
	// The intrinsics are captured when the console first formats an object.
	res := runCode(t, p, "console.log('first', {}); Map.prototype.entries = () => { throw 1 }; Date.prototype.toISOString = () => 'fake'; console.log(new Map([[1, 2]]), new Date(0))", nil)
	if diff := cmp.Diff([]string{"first {}", "Map(1) { 1 => 2 } 1970-01-01T00:00:00.000Z"}, res.Logs); diff != "" {
		t.Errorf("logs mismatch (-want +got):\n%s", diff)
	}
}

func TestConsoleMethods(t *testing.T) {
	p := newTestPool(t, nil)
	res := runCode(t, p, "console.log('l'); console.info('i'); console.warn('w'); console.error('e'); console.debug('d'); return Object.keys(console).join()", nil)
	want := &Result{Logs: []string{"l", "i", "w", "e", "d"}, Value: []byte(`"log,info,warn,error,debug"`)}
	if diff := cmp.Diff(want, res, ignoreCompute); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	res = runCode(t, p, "console.table([1])", nil)
	if res.Failure == nil || !strings.HasPrefix(res.Failure.Message, "TypeError") {
		t.Errorf("console.table = %s, want a TypeError", res.Text())
	}
}

// TestConsoleOneMoreItem: one entry past the listing's 100 is "1 more item", for arrays,
// Maps and Sets alike.
func TestConsoleOneMoreItem(t *testing.T) {
	p := newTestPool(t, nil)
	for _, code := range []string{
		"console.log(Array(101).fill(0))",
		"console.log(new Set(Array.from({length: 101}, (_, i) => i)))",
		"console.log(new Map(Array.from({length: 101}, (_, i) => [i, i])))",
	} {
		logs := runCode(t, p, code, nil).Logs
		if len(logs) != 1 || !strings.Contains(logs[0], "... 1 more item\n") || strings.Contains(logs[0], "more items") {
			t.Errorf("%s: logs %q, want one entry with \"... 1 more item\"", code, logs)
		}
	}
}

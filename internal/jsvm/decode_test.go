package jsvm

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// sameAsJSONParse compares decodeJSON with goja's JSON.parse on text: both must accept
// it and build equal values (same types, Object.is numbers, same keys in the same order),
// or decodeJSON must reject what JSON.parse rejects.
var sameValueSrc = `(function same(a, b) {
	if (typeof a !== typeof b) return false;
	if (typeof a !== 'object' || a === null || b === null) return Object.is(a, b);
	if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
	const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
	if (ka.length !== kb.length) return false;
	for (let i = 0; i < ka.length; i++) {
		if (ka[i] !== kb[i] || !same(a[ka[i]], b[kb[i]])) return false;
	}
	return true;
})`

// loneSurrogate matches an escaped UTF-16 surrogate, which decodeJSON turns into U+FFFD
// (Go strings cannot hold one) while goja's JSON.parse keeps it.
var loneSurrogate = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

func checkDecode(t *testing.T, text string) {
	t.Helper()
	checkDecodeIn(t, goja.New(), text)
}

// checkDecodeIn is checkDecode in a VM a program may have changed.
func checkDecodeIn(t *testing.T, vm *goja.Runtime, text string) {
	t.Helper()
	if loneSurrogate.MatchString(text) {
		return
	}
	r := &VM{vm: vm}
	parse, _ := goja.AssertFunction(r.vm.Get("JSON").ToObject(r.vm).Get("parse"))
	want, perr := parse(goja.Undefined(), r.vm.ToValue(text))
	got, err := r.decodeJSON([]byte(text))
	if perr != nil {
		return // decodeJSON may be lenient (leading zeros), hosts send valid JSON
	}
	if err != nil {
		t.Fatalf("decodeJSON(%q) failed (%v); JSON.parse gives %v", text, err, want)
	}
	same, _ := r.vm.RunString(sameValueSrc)
	fn, _ := goja.AssertFunction(same)
	eq, err := fn(goja.Undefined(), got, want)
	if err != nil || !eq.ToBoolean() {
		t.Errorf("decodeJSON(%q) differs from JSON.parse", text)
	}
}

var decodeSeeds = []string{
	`0`, `-0`, `-1`, `123456789012345`, `1234567890123456`, `12345678901234567890`, `1.5`, `-2.5e-3`,
	`1e3`, `1E+2`, `0.0`, `-0.0`, `9007199254740993`, `1e400`, `-1e400`, `5e-324`,
	`"s"`, `""`, `"a\"b\\c\/d\n\t\u00e9\u20ac"`, `"\ud83d\ude00"`, `"é€😀"`,
	`[]`, `{}`, `[1,"x",true,false,null,{"a":[{}]}]`, ` { "a" : 1 , "b" : [ 1 , 2 ] } `,
	`{"__proto__":{"x":1},"constructor":2}`, `{"a":1,"a":2,"b":3}`, `{"2":1,"1":2,"b":3,"a":4}`,
	`[{"id":1,"category":"toys","qty":3},{"id":2,"category":"toys","qty":300},{"id":2,"category":"books","qty":-0}]`,
	`{"k\u0041":1,"kA":2}`, `[{"name":"` + strings.Repeat("n", 60) + `","ok":true},"` + strings.Repeat("é", 30) + `"]`, `01`, `-`, `--1`, `1.`, `.5`, `[1,]`, `{"a"}`, `"\x"`, `tru`, `nul`,
}

func TestDecodeLikeJSONParse(t *testing.T) {
	for _, text := range decodeSeeds {
		checkDecode(t, text)
	}
	// Interning reuses values, never shares objects: two rows are distinct objects.
	r := &VM{vm: goja.New()}
	v, err := r.decodeJSON([]byte(`[{"a":"x"},{"a":"x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	arr := v.ToObject(r.vm)
	if arr.Get("0").StrictEquals(arr.Get("1")) || !arr.Get("0").ToObject(r.vm).Get("a").StrictEquals(arr.Get("1").ToObject(r.vm).Get("a")) {
		t.Error("rows must be distinct objects with equal strings")
	}
}

// A program may give Object.prototype setters, read-only properties and new names; the
// decoder still creates own data properties, as JSON.parse does, in every object of a
// result (the first is built differently from the rest).
func TestDecodeIgnoresObjectPrototype(t *testing.T) {
	vm := goja.New()
	if _, err := vm.RunString(`
		globalThis.setterCalls = 0;
		Object.defineProperty(Object.prototype, 'id', { set(v) { setterCalls++; }, get() { return 'inherited'; } });
		Object.defineProperty(Object.prototype, 'qty', { value: 'read-only', writable: false });
		Object.prototype.extra = 'added';
		Object.defineProperty(Object.prototype, 'toString', { set(v) { setterCalls++; } });
	`); err != nil {
		t.Fatal(err)
	}
	rows := `[{"id":1,"qty":2,"extra":3,"toString":4,"__proto__":5,"plain":6},` +
		`{"id":7,"qty":8,"extra":9,"toString":10,"__proto__":11,"plain":12},` +
		`{"plain":13,"__proto__":{"id":14},"id":15,"qty":16}]`
	checkDecodeIn(t, vm, rows)
	r := &VM{vm: vm}
	v, err := r.decodeJSON([]byte(rows))
	if err != nil {
		t.Fatal(err)
	}
	vm.Set("rows", v)
	got, err := vm.RunString(`JSON.stringify([setterCalls, rows.map(o => Reflect.ownKeys(o).map(k => {
		const d = Object.getOwnPropertyDescriptor(o, k);
		return k + '=' + JSON.stringify(d.value) + (d.writable && d.enumerable && d.configurable ? '' : ' (not a plain data property)');
	}).join(' ')), Object.getPrototypeOf(rows[2]) === Object.prototype])`)
	if err != nil {
		t.Fatal(err)
	}
	want := `[0,["id=1 qty=2 extra=3 toString=4 __proto__=5 plain=6",` +
		`"id=7 qty=8 extra=9 toString=10 __proto__=11 plain=12",` +
		`"plain=13 __proto__={\"id\":14} id=15 qty=16"],true]`
	if got.String() != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkDecode)
}

package runtime

import "testing"

// TestTypedArrayGuards pins the typed-array and ArrayBuffer guards: an allocation over the
// heap budget throws V8's RangeError before anything is allocated, whichever way the
// program reaches the constructor; everything under it behaves as before.
func TestTypedArrayGuards(t *testing.T) {
	catch := func(expr string) string {
		return "try { " + expr + "; return 'allocated' } catch (e) { return e.name + ': ' + e.message }"
	}
	tests := []textCase{
		{name: "ArrayBuffer far over the budget", code: catch("new ArrayBuffer(3e10)"), want: "RangeError: Array buffer allocation failed"},
		{name: "ArrayBuffer of 2 GiB", code: catch("new ArrayBuffer(2 ** 31)"), want: "RangeError: Array buffer allocation failed"},
		{name: "Float64Array far over the budget", code: catch("new Float64Array(4e9)"), want: "RangeError: Invalid typed array length: 4000000000"},
		{name: "Uint8Array over the budget", code: catch("new Uint8Array(1.5e9)"), want: "RangeError: Invalid typed array length: 1500000000"},
		{name: "widening copy over the budget", code: catch("new Float64Array(new Uint8Array(8e6))"), want: "RangeError: Invalid typed array length: 8000000"},
		{name: "array-like over the budget", code: catch("new Int32Array({length: 1e10})"), want: "RangeError: Invalid typed array length: 10000000000"},
		{name: "from an array-like over the budget", code: catch("Uint8Array.from({length: 1e10})"), want: "RangeError: Invalid typed array length: 10000000000"},
		{name: "through an instance's constructor", code: catch("new (new Uint8Array(1).constructor)(1e10)"), want: "RangeError: Invalid typed array length: 10000000000"},
		{name: "through a buffer's constructor", code: catch("new (new Int8Array(1).buffer.constructor)(3e10)"), want: "RangeError: Array buffer allocation failed"},
		{name: "through TextEncoder without naming it", code: catch("new (new TextEncoder().encode('a').constructor)(1e10)"), want: "RangeError: Invalid typed array length: 10000000000"},
		{name: "by a computed name on globalThis", code: catch("new globalThis['Uint8' + 'Array'](1e10)"), want: "RangeError: Invalid typed array length: 10000000000"},
		{name: "by a computed name on this", code: catch("new this['Array' + 'Buffer'](3e10)"), want: "RangeError: Array buffer allocation failed"},
		{name: "a subclass", code: catch("class X extends Float32Array {}; new X(1e10)"), want: "RangeError: Invalid typed array length: 10000000000"},
		{
			name: "a valueOf that lies the second time",
			code: "let c = 0; const b = new ArrayBuffer({valueOf() { return c++ ? 3e10 : 8 }}); return [b.byteLength, c].join()",
			want: "8,1",
		},
		{
			name: "a length getter that lies the second time",
			code: "let c = 0; const a = new Uint8Array({get length() { return c++ ? 1e10 : 3 }, 0: 7, 1: 8, 2: 9}); return [a.join(), c].join(' ')",
			want: "7,8,9 1",
		},
		{
			name: "array-likes are read in order, getters and all",
			code: "const seen = []; const src = {length: 2, get 0() { seen.push(0); return 1 }, get 1() { seen.push(1); return 2 }}; return [new Int8Array(src).join(), seen.join()].join(' ')",
			want: "1,2 0,1",
		},
		{
			name: "ordinary use is unchanged",
			code: "return [new Uint8Array([1, 2, 3]).join(), Uint8Array.of(4, 5).join(), new Float64Array(new Uint8Array([6, 7])).join(), " +
				"new DataView(new ArrayBuffer(8)).byteLength, new Int16Array(new ArrayBuffer(8), 2, 2).length, new Uint8Array(new Set([8, 9])).join(), " +
				"new Uint16Array(3).length, new BigInt64Array(2).length, new ArrayBuffer(5).slice(1).byteLength, new Uint8Array(new Uint8Array([1, 2]).buffer).length].join(' ')",
			want: "1,2,3 4,5 6,7 8 2 8,9 3 2 4 2",
		},
		{
			name: "identity, names and shape are unchanged",
			code: "class X extends Uint8Array {}; const x = new X(2); return [x instanceof X, x instanceof Uint8Array, x.constructor === X, " +
				"Uint8Array.prototype.constructor === Uint8Array, typeof Uint8Array, Uint8Array.name, Uint8Array.length, Uint8Array.BYTES_PER_ELEMENT, " +
				"ArrayBuffer.name, new ArrayBuffer(1) instanceof ArrayBuffer, Object.getPrototypeOf(Int8Array) === Object.getPrototypeOf(Uint8Array), " +
				"new Uint8Array(1).map(v => v + 1) instanceof Uint8Array].join()",
			want: "true,true,true,true,function,Uint8Array,3,1,ArrayBuffer,true,true,true",
		},
		{name: "calling without new still throws", code: catch("Uint8Array(1)"), want: "TypeError: Constructor TypedArray requires 'new'"}, // goja's wording,
	}
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	runTextCases(t, p, tests, nil)
}

// TestTypedArraysUnguardedWithoutNeed checks that a program that cannot reach typed arrays
// does not pay for guarding them.
func TestTypedArraysUnguardedWithoutNeed(t *testing.T) {
	p := newTestPool(t, nil)
	r, err := p.acquire()
	if err != nil {
		t.Fatal(err)
	}
	r.guardLazyFor("const x = [1, 2].map(v => v * 2); return x", false)
	if r.lazyInstalled(familyTyped) {
		t.Error("a program that names no typed array, globalThis or this guarded them")
	}
	if r.lazyInstalled(familyJSON) {
		t.Error("a program that names neither JSON, globalThis nor this guarded it")
	}
	r.guardLazyFor("return new Uint8Array(2)", false)
	if !r.lazyInstalled(familyTyped) {
		t.Error("a program naming Uint8Array did not guard typed arrays")
	}
}

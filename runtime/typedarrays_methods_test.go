package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTypedArrayMethodBounds pins the typed-array method guards at a 32 MiB heap budget
// (strings of at most 8M characters, 2M elements).
func TestTypedArrayMethodBounds(t *testing.T) {
	const tooLong = "RangeError: Invalid string length"
	runGuardCases(t, []textCase{
		{name: "join with a long separator", code: catchExpr("new Uint8Array(1e6).join('x'.repeat(100))"), want: tooLong},
		{name: "join of many elements", code: catchExpr("new Uint8Array(9e6).join()"), want: tooLong},
		{name: "join with a separator that lies", code: "let n = 0; try { new Uint8Array(1e6).join({toString() { return n++ ? 'x' : 'x'.repeat(100) }}) } catch (e) { return e.message + ' ' + n }", want: "Invalid string length 1"},
		{name: "join of float64 near the bound", code: "return new Float64Array(2e6).join().length + ' ' + new Float64Array([1.5, -0, NaN, 1e21, -1e-7]).join()", want: "3999999 1.5,0,NaN,1e+21,-1e-7"},
		{name: "join of wide floats over the bound", code: catchExpr("new Float64Array(1.5e6).fill(-1.2345678901234567e-300).join()"), want: tooLong},
		{name: "toString goes through join", code: catchExpr("String(new Uint8Array(1e6).fill(1).map(() => 100)) + new Float64Array(1e6).fill(1/3)"), want: tooLong},
		{name: "toLocaleString of a program's toLocaleString", code: catchExpr("Number.prototype.toLocaleString = function () { return 'x'.repeat(1e6) }; new Uint8Array(100).toLocaleString()"), want: tooLong},
		{name: "toBase64", code: catchExpr("new Uint8Array(7e6).toBase64()"), want: tooLong},
		{name: "toHex", code: catchExpr("new Uint8Array(5e6).toHex()"), want: tooLong},
		{name: "from an array-like", code: catchExpr("Uint8Array.from({length: 5e8})"), want: "RangeError: Invalid typed array length: 500000000"},
		{name: "from a sparse array", code: catchExpr("Uint8Array.from(Array(2 ** 32 - 1))"), want: "RangeError: Invalid array length"},
		{name: "from an endless iterator", code: catchExpr("let i = 0; Uint8Array.from({[Symbol.iterator]() { return {next() { return {value: i++, done: false} }} }})"), want: "RangeError: Invalid typed array length: 524289"},
		{name: "from a typed array over the bound", code: catchExpr("Float64Array.from(new Uint8Array(6e5))"), want: "RangeError: Invalid typed array length: 600000"},
		{name: "the constructor from a sparse array", code: catchExpr("new Uint8Array(Array(2 ** 32 - 1))"), want: "RangeError: Invalid typed array length: 4294967295"},
		{name: "set from an array-like too large", code: catchExpr("new Uint8Array(10).set({length: 11})"), want: "RangeError: Source is too large"},
		{name: "set from an array-like, interruptibly", code: "const t = new Uint8Array(3e6); t.set({length: 3e6, 5: 7}); return t[5] + ' ' + t.length", want: "7 3000000"},
	})
}

// TestTypedArrayMethodsUnchanged compares the guarded typed-array methods with goja's own,
// on both sides of the native thresholds.
func TestTypedArrayMethodsUnchanged(t *testing.T) {
	runDifferential(t, map[string]string{
		"join":                                "return [new Uint8Array([1, 2, 3]).join('-'), new Int8Array([-128, 127]).join(), new Float32Array([0.1, -0, NaN, Infinity]).join(' '), new BigInt64Array([-1n, 2n]).join(), new Uint8Array(0).join(), new Uint16Array(3).join(undefined), new Uint8Array(2).join(null), String(new Uint8ClampedArray([300, -5]))].join(' | ')",
		"join errors":                         catchExpr("Uint8Array.prototype.join.call([1, 2])"),
		"toLocaleString":                      "return [new Uint8Array([1, 2]).toLocaleString(), new Float64Array([1.5, 1e21]).toLocaleString(), new BigUint64Array([3n]).toLocaleString(), new Uint8Array(0).toLocaleString()].join(' | ')",
		"toLocaleString of a program's":       "const log = []; Number.prototype.toLocaleString = function () { log.push(typeof this); return '<' + this + '>' }; return new Int16Array([1, -2]).toLocaleString() + ' ' + log.join()",
		"toLocaleString errors":               "Number.prototype.toLocaleString = 5; try { return new Uint8Array(1).toLocaleString() } catch (e) { return e.name + ': ' + e.message }",
		"sort":                                "return [new Float64Array([3, -0, NaN, 0, -Infinity, 1]).sort().join(), Object.is(new Float64Array([0, -0]).sort()[0], -0), new Uint8Array([3, 1, 2]).sort((a, b) => b - a).join(), new Int32Array([5, -5]).toSorted().join(), new BigInt64Array([3n, -1n]).sort().join()].join(' | ')",
		"sort errors":                         catchExpr("new Uint8Array(2).sort(5)"),
		"toSorted errors":                     catchExpr("new Uint8Array(2).toSorted('x')"),
		"set":                                 "const t = new Uint8Array(6); t.set([1, 2], 1); t.set(new Uint8Array([9, 8]), 4); t.set({length: 1, 0: '7'}); t.set('34', 2); t.set([257.6]); return t.join() + ' ' + t.set([]) ",
		"set errors":                          "const out = []; for (const f of [() => new Uint8Array(2).set([1, 2, 3]), () => new Uint8Array(2).set([1], -1), () => new Uint8Array(2).set(null), () => new BigInt64Array(1).set([1]), () => Uint8Array.prototype.set.call([], [1]), () => new Uint8Array(2).set({length: 2, get 0() { throw new Error('getter') }})]) { try { out.push(String(f())) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"set reads":                           "const log = []; const src = {get length() { log.push('length'); return 2 }, get 0() { log.push('0'); return 5 }, get 1() { log.push('1'); return 6 }}; const t = new Uint8Array(3); t.set(src, {valueOf() { log.push('offset'); return 1 }}); return t.join() + ' ' + log.join()",
		"from":                                "return [Uint8Array.from([1, 2, 3]).join(), Uint8Array.from({length: 3, 1: 9}).join(), Float32Array.from(new Set([1.5, 2])).join(), Int16Array.from([1, 2], function (x, i) { return x * 10 + i + (this === undefined ? 0 : this.k) }, {k: 100}).join(), Uint8Array.from(new Uint16Array([256, 3])).join(), Uint8Array.from([1, 2].values(), x => x + 1).join(), Uint8Array.from({length: 0}).length].join(' | ')",
		"from a subclass":                     "class X extends Uint8Array {}; const x = X.from([1, 2]); return [x instanceof X, x.join()].join()",
		"from errors":                         "const out = []; for (const f of [() => Uint8Array.from(null), () => Uint8Array.from([1], 5), () => Uint8Array.from.call(5, [1]), () => Uint8Array.from.call({}, [1]), () => Uint8Array.from('12'), () => Uint8Array.from({[Symbol.iterator]: 5}), () => Uint8Array.from({[Symbol.iterator]() { return 5 }}), () => Uint8Array.from({[Symbol.iterator]() { return {} }}), () => Uint8Array.from.call(function () { return {} }, [1])]) { try { out.push(String(f())) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"from reads":                          "const log = []; const it = {get [Symbol.iterator]() { log.push('@@iterator'); return function () { let i = 0; return {next() { log.push('next'); return i < 2 ? {value: i++, done: false} : {done: true} }} } }}; const a = Uint8Array.from(it, x => { log.push('map'); return x + 1 }); const al = {get length() { log.push('length'); return 2 }, get 0() { log.push('0'); return 1 }}; Uint8Array.from(al); return a.join() + ' ' + log.join()",
		"the constructor from iterables":      "return [new Uint8Array(new Set([1, 2])).join(), new Uint8Array([5, 6].values()).join(), new Int8Array((function* () { yield 1; yield 2 })()).join(), new Uint8Array('ab').length].join(' | ')",
		"the constructor from a bad iterator": "const out = []; for (const v of [{[Symbol.iterator]() { return {} }}, {[Symbol.iterator]() { return 5 }}, {[Symbol.iterator]: 5}, {[Symbol.iterator]: '%d'}, {[Symbol.iterator]() { return '%d' }}]) { try { out.push(new Uint8Array(v).length) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"base64 and hex":                      "return [new Uint8Array([104, 105]).toBase64(), new Uint8Array([251, 255]).toBase64({alphabet: 'base64url', omitPadding: true}), new Uint8Array([255, 1]).toHex(), Uint8Array.prototype.toBase64.name, Uint8Array.prototype.toHex.length].join()",
		"shape":                               "const P = Object.getPrototypeOf(Uint8Array.prototype); return ['join', 'toLocaleString', 'sort', 'toSorted', 'set'].map(n => P[n].name + P[n].length).join() + ' ' + Object.getPrototypeOf(Uint8Array).from.name + ' ' + (P.toString === Array.prototype.toString) + ' ' + JSON.stringify(Object.getOwnPropertyDescriptor(P, 'join'))",
	})
}

// TestTypedArraySortInGo compares the Go sort of long typed arrays (over nativeSortMax)
// with goja's own default sort, element by element and bit by bit (NaNs with different
// payloads keep their order; -0 sorts before +0).
func TestTypedArraySortInGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"}
	n := nativeSortMax + 1000
	programs := map[string]string{}
	for _, kind := range kinds {
		var vals strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				vals.WriteByte(',')
			}
			switch {
			case strings.HasPrefix(kind, "Big"):
				fmt.Fprintf(&vals, "%dn", rng.Int64N(1<<40)-1<<39)
			case strings.HasPrefix(kind, "Float"):
				switch rng.IntN(10) {
				case 0:
					vals.WriteString("NaN")
				case 1:
					vals.WriteString("-0")
				case 2:
					vals.WriteString("0")
				case 3:
					vals.WriteString("-Infinity")
				default:
					fmt.Fprintf(&vals, "%g", rng.NormFloat64()*1e6)
				}
			default:
				fmt.Fprintf(&vals, "%d", rng.IntN(1<<20)-1<<19)
			}
		}
		// Two NaNs with different payloads, written through the bytes, mark their order.
		nan := ""
		if strings.HasPrefix(kind, "Float") {
			nan = "const bytes = new Uint8Array(a.buffer); const w = a.BYTES_PER_ELEMENT; a[1] = NaN; a[2] = NaN; bytes[w + 1] ^= 1; bytes[2 * w + 2] ^= 1;"
		}
		programs[kind] = "const a = new " + kind + "([" + vals.String() + "]);" + nan + " const b = a.toSorted(); a.sort(); const bytes1 = Array.from(new Uint8Array(a.buffer)).join(), bytes2 = Array.from(new Uint8Array(b.buffer)).join(); return (bytes1 === bytes2) + ' ' + bytes1.length + ' ' + bytes1.slice(0, 200) + ' ' + bytes1.slice(-200)"
	}
	runDifferential(t, programs)
}

// TestSortOrdered checks the Go sort against a stable sort in goja's order on shapes that
// trouble quicksorts: sorted, reversed, all equal, few values, organ pipes, random, and
// floats with NaNs and both zeros.
func TestSortOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1 << 17
	shapes := map[string]func(i int) float64{
		"sorted":   func(i int) float64 { return float64(i) },
		"reversed": func(i int) float64 { return float64(n - i) },
		"equal":    func(int) float64 { return 7 },
		"few":      func(int) float64 { return float64(rng.IntN(3)) },
		"pipes":    func(i int) float64 { return float64(min(i, n-i)) },
		"random":   func(int) float64 { return rng.NormFloat64() },
		"zeros":    func(int) float64 { return []float64{0, math.Copysign(0, -1), 1, -1}[rng.IntN(4)] },
		"nans": func(int) float64 {
			return []float64{math.NaN(), math.Float64frombits(0x7ff8000000000001), 0.5}[rng.IntN(3)]
		},
	}
	less := func(x, y float64) bool { // goja's typedFloatLess
		switch {
		case math.IsNaN(y):
			return !math.IsNaN(x)
		case math.IsNaN(x):
			return false
		case x == 0 && y == 0:
			return math.Signbit(x)
		}
		return x < y
	}
	for name, f := range shapes {
		t.Run(name, func(t *testing.T) {
			a := make([]float64, n)
			ints := make([]int32, n)
			for i := range a {
				a[i] = f(i)
				ints[i] = int32(a[i] * 1000)
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y float64) int {
				if less(x, y) {
					return -1
				}
				if less(y, x) {
					return 1
				}
				return 0
			})
			sortFloats(a, func() {})
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(want[i]) {
					t.Fatalf("float64 element %d = %v (%x), want %v (%x)", i, a[i], math.Float64bits(a[i]), want[i], math.Float64bits(want[i]))
				}
			}
			wantInts := slices.Clone(ints)
			slices.Sort(wantInts)
			sortOrdered(ints, func() {})
			if !slices.Equal(ints, wantInts) {
				t.Fatal("int32 sort differs from slices.Sort")
			}
		})
	}
	// A long sort checks the run's stop flag as it goes, and the check's panic unwinds it.
	long := make([]uint64, 1<<21)
	for i := range long {
		long[i] = rng.Uint64()
	}
	checks := 0
	func() {
		defer func() { _ = recover() }()
		sortOrdered(long, func() {
			if checks++; checks == 2 {
				panic("stop")
			}
		})
	}()
	if checks != 2 {
		t.Errorf("the stop check ran %d times, want 2 (then the sort unwound)", checks)
	}
}

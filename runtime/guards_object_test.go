package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// catchExpr is a program that returns what expr throws (name: message), or "returned".
func catchExpr(expr string) string {
	return "try { " + expr + "; return 'returned' } catch (e) { return e.name + ': ' + e.message }"
}

// runGuardCases runs each case through a pool with a 32 MiB heap budget.
func runGuardCases(t *testing.T, tests []textCase) {
	t.Helper()
	runTextCases(t, newTestPool(t, &Limits{HeapBytes: 32 << 20}), tests, nil)
}

// bareRun runs code as the body of an async function in a plain goja VM, without any of
// runcode's guards, in strict mode as Prepare compiles, and returns what it returns (or
// throws) as text.
func bareRun(code string) (out string) {
	vm := goja.New()
	vm.SetMaxCallStackSize(defaultStackDepth)
	defer func() {
		if x := recover(); x != nil {
			out = fmt.Sprintf("PANIC: %v", x)
		}
	}()
	prg, err := goja.Compile("program.js", "(async () => {"+code+"\n})()", true) // strict, as Prepare compiles
	if err != nil {
		return "ERROR: " + err.Error()
	}
	v, err := vm.RunProgram(prg)
	if err != nil {
		return "ERROR: " + err.Error()
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return "NOT A PROMISE"
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result().String()
	case goja.PromiseStateRejected:
		return "REJECTED: " + p.Result().String()
	}
	return "PENDING"
}

// runDifferential checks that each program returns the same text through runcode's guards
// as in a plain goja VM: under the bounds, a guard changes nothing a program can see.
func runDifferential(t *testing.T, programs map[string]string) {
	t.Helper()
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	for name, code := range programs {
		t.Run(name, func(t *testing.T) {
			want := bareRun(code)
			res := runCode(t, p, code, nil)
			got := res.Text()
			if res.Failure != nil { // its first line: the guarded run's has a stack trace
				got = "REJECTED: " + firstLine(res.Failure.Message)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("guarded run differs from plain goja (-goja +guarded):\n%s", diff)
			}
		})
	}
}

// TestKeyBounds pins the bounds of the Object statics that make a record per key: a
// String, a typed array or a genuine Array with more keys than the heap budget allows
// (32 MiB here: 699050 keys for Object.keys, 52428 entries) throws V8's RangeError before
// anything is built; sparse arrays count only the elements they hold. A descriptor map
// of more than 16384 properties is refused as it is read.
func TestKeyBounds(t *testing.T) {
	runGuardCases(t, []textCase{
		{name: "keys of a long string", code: catchExpr("Object.keys('x'.repeat(1e6))"), want: "RangeError: Invalid array length"},
		{name: "names of a long string", code: catchExpr("Object.getOwnPropertyNames('x'.repeat(1e6))"), want: "RangeError: Invalid array length"},
		{name: "values of a String object", code: catchExpr("Object.values(new String('x'.repeat(1e6)))"), want: "RangeError: Invalid array length"},
		{name: "entries of a typed array", code: catchExpr("Object.entries(new Uint8Array(1e5))"), want: "RangeError: Invalid array length"},
		{name: "keys of a typed array behind proxies", code: catchExpr("Object.keys(new Proxy(new Proxy(new Uint8Array(1e6), {}), {}))"), want: "RangeError: Invalid array length"},
		{name: "entries of a dense array", code: catchExpr("Object.entries(new Array(1e5).fill(0))"), want: "RangeError: Invalid array length"},
		{name: "descriptors of a typed array", code: catchExpr("Object.getOwnPropertyDescriptors(new Uint8Array(1e5))"), want: "RangeError: Too many properties to enumerate"},
		{name: "assign from a long string", code: catchExpr("Object.assign({}, 'x', 'x'.repeat(1e5))"), want: "RangeError: Too many properties to enumerate"},
		{name: "freeze of a long array", code: catchExpr("Object.freeze(new Array(3e5).fill(0))"), want: "RangeError: Too many properties to enumerate"},
		{name: "seal of a long array", code: catchExpr("Object.seal(new Array(3e5).fill(0))"), want: "RangeError: Too many properties to enumerate"},
		{name: "Reflect.ownKeys of a typed array", code: catchExpr("Reflect.ownKeys(new Int8Array(1e6))"), want: "RangeError: Invalid array length"},
		{name: "defineProperties of a huge map", code: catchExpr("const d = {}; for (let i = 0; i < 2e4; i++) d['k' + i] = {value: i}; Object.defineProperties({}, d)"), want: "RangeError: Too many properties to enumerate"},
		{name: "create with a huge map", code: catchExpr("const d = {}; for (let i = 0; i < 2e4; i++) d['k' + i] = {value: i}; Object.create(null, d)"), want: "RangeError: Too many properties to enumerate"},
		{name: "defineProperties within the bound", code: "const d = {}; for (let i = 0; i < 1e4; i++) d['k' + i] = {value: i, enumerable: true}; return Object.keys(Object.defineProperties({}, d)).length", want: "10000"},
		{name: "a sparse array holds only its elements", code: "const a = Array(2 ** 32 - 1); a[5] = 1; a[4e9] = 2; return Object.entries(a).join(';') + ' ' + Object.keys(Array(2 ** 32 - 1)).length", want: "5,1;4000000000,2 0"},
		{name: "a long sparse array of few elements freezes", code: "const a = []; a[1e6] = 1; return Object.isFrozen(Object.freeze(a))", want: "true"},
		{name: "within the bound", code: "return [Object.keys('x'.repeat(1e4)).length, Object.entries(new Uint8Array(1e4)).length, Object.keys(new Array(1e5).fill(0)).length].join()", want: "10000,10000,100000"},
		{name: "ordinary objects are not counted", code: "const o = {}; for (let i = 0; i < 2e4; i++) o['k' + i] = i; return Object.entries(o).length", want: "20000"},
	})
}

// TestObjectStaticsUnchanged compares the guarded Object statics with goja's own on
// ordinary use, errors and the order of what they read.
func TestObjectStaticsUnchanged(t *testing.T) {
	runDifferential(t, map[string]string{
		"keys and friends":        "const o = {b: 1, a: 2, 1: 3, [Symbol('s')]: 4}; Object.defineProperty(o, 'h', {value: 5}); return JSON.stringify([Object.keys(o), Object.values(o), Object.entries(o), Object.getOwnPropertyNames(o), Object.keys('ab'), Object.entries([7, 8]), Object.values(new Uint8Array([1, 2]))])",
		"descriptors":             "return JSON.stringify(Object.getOwnPropertyDescriptors({a: 1, get b() { return 2 }})) + JSON.stringify(Object.getOwnPropertyDescriptors('ab'))",
		"assign":                  "const log = []; const src = {get a() { log.push('a'); return 1 }, b: 2}; const t = Object.assign({}, null, src, 'xy', undefined, [9]); return JSON.stringify(t) + log.join()",
		"freeze and seal":         "const a = Object.freeze([1, 2]); const o = Object.seal({x: 1}); return [Object.isFrozen(a), Object.isSealed(o), Object.freeze(5), Object.seal('s')].join()",
		"errors":                  catchExpr("Object.keys(null)"),
		"assign errors":           catchExpr("Object.assign(undefined, {})"),
		"freeze of a typed array": catchExpr("Object.freeze(new Uint8Array(2))"),
		"keys through a proxy":    "const log = []; const p = new Proxy({a: 1, b: 2}, {ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t) }, getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k) }, get(t, k) { log.push('get ' + k); return t[k] }}); Object.entries(p); Object.assign({}, p); return log.join()",
	})
}

// TestObjectFamiliesLazy checks that a program that cannot reach Proxy, Reflect, Date or
// BigInt does not pay for guarding them, and that one that can does.
func TestObjectFamiliesLazy(t *testing.T) {
	p := newTestPool(t, nil)
	tests := []struct {
		code                string
		proxy, date, bigint bool
	}{
		{code: "const x = [1, 2].map(v => v * 2); return x"},
		{code: "return new Proxy({}, {})", proxy: true},
		{code: "return Reflect.ownKeys({})", proxy: true},
		{code: "return new Date(0).toJSON()", date: true},
		{code: "return 10n", bigint: true},
		{code: "return 0x1fn + 1_000n", bigint: true},
		{code: "return BigInt(1)", bigint: true},
		{code: "return new BigUint64Array(1)", bigint: true},
		{code: "return new DataView(new ArrayBuffer(8)).getBigUint64(0)", bigint: true},
		{code: "return globalThis", proxy: true, date: true, bigint: true},
		{code: "function f() { return this }", proxy: true, date: true, bigint: true},
		{code: "const a1n = 1; return a1n + x9"},
	}
	for _, tt := range tests {
		r, err := p.acquire()
		if err != nil {
			t.Fatal(err)
		}
		r.guardLazyFor(tt.code, false)
		got := [3]bool{r.lazyInstalled(familyProxy), r.lazyInstalled(familyDate), r.lazyInstalled(familyBigInt)}
		if want := [3]bool{tt.proxy, tt.date, tt.bigint}; got != want {
			t.Errorf("%q: guarded (proxy, date, bigint) = %v, want %v", tt.code, got, want)
		}
	}
}

func TestHasBigIntLiteral(t *testing.T) {
	for code, want := range map[string]bool{
		"1n": true, "x = 0n": true, "0xFFn": true, "0b101n": true, "0o7n": true, "1_000n": true, "f(2n)": true,
		"": false, "n": false, "an": false, "a1n": false, "$1n": false, "function in() {}": false, "1.5": false,
		"return token": false, "x9n": false, strings.Repeat("n", 1e5): false, strings.Repeat("9", 1e5) + "n": true,
	} {
		if got := hasBigIntLiteral(code); got != want {
			t.Errorf("hasBigIntLiteral(%q) = %v, want %v", code, got, want)
		}
	}
	// Every BigInt literal goja accepts is found.
	for _, lit := range []string{"0n", "123n", "0x1n", "0XaBn", "0b1n", "0B0n", "0o7n", "0O1n", "9_9n", "0x_1n"} {
		if _, err := goja.Compile("", "("+lit+")", true); err != nil {
			continue // not a literal after all
		}
		if !hasBigIntLiteral("x = " + lit + ";") {
			t.Errorf("hasBigIntLiteral missed %s", lit)
		}
	}
}

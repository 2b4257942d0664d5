package runtime

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// The differential test of JSON.stringify: a generator turns bytes into a program that
// builds a value (objects, arrays, holes, boxed primitives, toJSON, getters, proxies,
// shared references, cycles, BigInts, raw JSON, typed arrays...) and stringifies it with
// a replacer and a space; goja's own stringify and ours must agree on the text, the
// error, and the order of every getter, trap, toJSON and replacer call (each logs).

// stringifyProgram is one generated program; its space is written out or left off.
type stringifyProgram struct {
	prelude, value, replacer, space string
	gap                             string // what space indents by
}

func (p stringifyProgram) src(withSpace bool) string {
	call := "JSON.stringify(value, " + p.replacer
	if withSpace {
		call += ", " + p.space
	}
	return p.prelude + "const value = " + p.value + ";\n" + "return " + call + ");"
}

// jsonGen reads the generator's choices from bytes; past the end every choice is 0.
type jsonGen struct {
	data  []byte
	pos   int
	nodes int
	sizes []int // how many values each registered object expands to, in R's order
}

func (g *jsonGen) pick(n int) int {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return int(b) % n
}

var (
	genNumbers   = []string{"0", "-0", "1", "-1", "1.5", "NaN", "Infinity", "-Infinity", "1e21", "1e-7", "1.5e-7", "0.1", "2**53", "-1e-7", "123456789012", "1/3", "5e-324", "1.7976931348623157e308", "2**31", "-(2**63)"}
	genStrings   = []string{`""`, `"a"`, `"\"\\"`, `"\n\t\b\f\r"`, `"\u0000\u001f\u007f"`, `"é"`, `"😀"`, `"\ud800"`, `"\udc00x"`, `"a\ud83d"`, `"\u2028\u2029"`, `"</script>"`, `"x".repeat(40)`, `"\ud83d\ude00\ud83d"`}
	genKeys      = []string{`"a"`, `"b"`, `"0"`, `"1"`, `"10"`, `"-1"`, `"01"`, `"1.5"`, `"__proto__"`, `""`, `"é"`, `"a\"b"`, `"\n"`, `"\ud800"`, `"toJSON"`, `"4294967295"`, `"4294967294"`, `"constructor"`}
	genFuncs     = []string{"(function f() {})", "(() => 1)", "(async () => 1)", "(class {})", "(function* () {})", "Math.max", "(function () {}).bind(null)"}
	genRawJSON   = []string{`JSON.rawJSON("1e1000")`, `JSON.rawJSON('"x"')`, `JSON.rawJSON("null")`, `JSON.rawJSON(-0)`, `JSON.rawJSON(true)`}
	genOther     = []string{"new Map([[1, 2]])", "new Set([1])", "/x/g", "new Error('e')", "new Uint8Array([1, 2, 3])", "new Float64Array([0.5, NaN, -0])", "new Int16Array(2)", "new ArrayBuffer(4)", "new DataView(new ArrayBuffer(2))", "Promise.resolve(1)", "new WeakMap()", "Math", "JSON", "(function () { return arguments; })(1, 'a')"}
	genReplacers = []string{
		"undefined", "null", "{}", "5",
		"function (k, v) { log.push('r ' + k); return v; }",
		"function (k, v) { return typeof v === 'number' ? v * 2 : v; }",
		"function (k, v) { return k === 'a' || k === '1' ? undefined : v; }",
		"function (k, v) { log.push(typeof this + ':' + Object.keys(this).length); return v; }",
		"function (k, v) { return typeof v === 'string' ? v.length : v; }",
		"function (k, v) { return k === '' ? v : (typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v) : v); }",
		"(k, v) => v === undefined ? 'U' : v",
		"(k, v) => typeof v === 'bigint' ? String(v) : v",
		"['a', 'b', '0', 1, 'a', new String('é'), new Number(10), {}, null, true, 1.5]",
		"[]",
		"['__proto__', '', '\\ud800', 'toJSON']",
		"new Proxy(['a', '1'], {})",
		"Object.assign(['b'], {length: 3})",
	}
	// genSpaces and the gaps they indent by. Left out: the spaces goja gets wrong
	// (Infinity, strings over 10 bytes of UTF-8), which TestStringifyTable pins.
	genSpaces = []struct{ js, gap string }{
		{"undefined", ""}, {"0", ""}, {"1", " "}, {"2", "  "}, {"4", "    "}, {"10", "          "},
		{"11", "          "}, {"-1", ""}, {"2.7", "  "}, {"''", ""}, {"'\\t'", "\t"}, {"'ab'", "ab"},
		{"'0123456789abc'", "0123456789"}, {"new Number(3)", "   "}, {"new String('--')", "--"},
		{"true", ""}, {"null", ""}, {"NaN", ""}, {"'é'", "é"}, {"new Boolean(true)", ""}, {"'\\ud800'", "\ufffd"},
		{"'ééééé'", "ééééé"},
	}
)

// genContainers are the kinds of value below that hold other values.
var genContainers = []int{8, 9, 10, 11, 14, 15, 18, 21, 22, 24, 25}

const genPrelude = `const R = [];
function reg(o) { R.push(o); return o; }
function cyc(o) { if (Array.isArray(o)) o.push(o); else o.self = o; return o; }
const H = {
	get(t, k, r) { log.push('get ' + String(k)); return Reflect.get(t, k, r); },
	ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t); },
	getOwnPropertyDescriptor(t, k) { log.push('gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k); },
};
`

// maxExpanded bounds how many values a generated value expands to with its shared
// references followed: a DAG of shared arrays doubles at every level, which is the
// hostile case goja's own stringify never finishes.
const maxExpanded = 2000

func genStringifyProgram(data []byte) stringifyProgram {
	g := &jsonGen{data: data}
	var pre strings.Builder
	pre.WriteString(genPrelude)
	flags := g.pick(8)
	if flags&1 != 0 {
		pre.WriteString("BigInt.prototype.toJSON = function (k) { log.push('big ' + k); return String(this); };\n")
	}
	if flags&2 != 0 {
		pre.WriteString("Array.prototype[1] = 'P';\n")
	}
	v, _ := g.value(0)
	if flags&4 != 0 {
		v = "(function (v) { if (R.length > 1) R[0].back = v; return v; })(" + v + ")"
	}
	sp := genSpaces[g.pick(len(genSpaces))]
	return stringifyProgram{prelude: pre.String(), value: v, replacer: genReplacers[g.pick(len(genReplacers))], space: sp.js, gap: sp.gap}
}

// value returns a JavaScript expression and how many values it expands to.
func (g *jsonGen) value(depth int) (string, int) {
	g.nodes++
	var kind int
	switch {
	case depth >= 5 || g.nodes > 80:
		kind = g.pick(8) // leaves only
	case depth < 3 && g.pick(3) != 0:
		kind = genContainers[g.pick(len(genContainers))] // near the root, mostly containers
	default:
		kind = g.pick(26)
	}
	switch kind {
	case 0:
		return "null", 1
	case 1:
		return [...]string{"true", "false"}[g.pick(2)], 1
	case 2:
		return strconv.Itoa(g.pick(256) - 128), 1
	case 3:
		return genNumbers[g.pick(len(genNumbers))], 1
	case 4:
		return genStrings[g.pick(len(genStrings))], 1
	case 5:
		return "undefined", 1
	case 6:
		return genFuncs[g.pick(len(genFuncs))], 1
	case 7:
		return [...]string{"Symbol('s')", "1n", "Object(3n)", "-0n"}[g.pick(4)], 1
	case 8, 9:
		var b strings.Builder
		size := 1
		b.WriteString("reg([")
		for i, n := 0, g.pick(7); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if g.pick(6) == 0 {
				continue // a hole
			}
			e, s := g.value(depth + 1)
			b.WriteString(e)
			size += s
		}
		b.WriteString("])")
		return b.String(), g.register(size)
	case 10, 11:
		e, size := g.members(depth)
		return "reg(" + e + ")", g.register(size)
	case 12:
		switch g.pick(4) {
		case 0:
			return "new Number(" + genNumbers[g.pick(len(genNumbers))] + ")", 1
		case 1:
			return "new String(" + genStrings[g.pick(len(genStrings))] + ")", 1
		case 2:
			return "new Boolean(" + [...]string{"0", "1"}[g.pick(2)] + ")", 1
		}
		return "Object.assign(new Number(2), {valueOf() { log.push('valueOf'); return 9; }})", 1
	case 13:
		return "new Date(" + [...]string{"0", "NaN", "1e12", "-1"}[g.pick(4)] + ")", 1
	case 14:
		e, s := g.value(depth + 1)
		return "{toJSON(k) { log.push('toJSON ' + k); return " + e + "; }}", s + 1
	case 15:
		e, s := g.value(depth + 1)
		e2, s2 := g.value(depth + 1)
		return "{get g() { log.push('get g'); return " + e + "; }, x: " + e2 + "}", s + s2 + 1
	case 16:
		// A shared reference to an object built earlier, if one is small enough.
		if len(g.sizes) == 0 {
			return "null", 1
		}
		i := g.pick(len(g.sizes))
		if g.sizes[i] > maxExpanded/8 {
			return "null", 1
		}
		return "R[" + strconv.Itoa(i) + "]", g.sizes[i]
	case 17:
		e, s := g.value(depth + 1)
		return "cyc(" + e + ")", s
	case 18:
		e, s := g.value(depth + 1)
		return "new Proxy(Object(" + e + "), " + [...]string{"{}", "H"}[g.pick(2)] + ")", s
	case 19:
		return genRawJSON[g.pick(len(genRawJSON))], 1
	case 20:
		return genOther[g.pick(len(genOther))], 1
	case 21:
		e, s := g.value(depth + 1)
		return "new (class { constructor() { this.a = " + e + "; } get b() { return 1; } })()", s + 1
	case 22:
		e, s := g.members(depth)
		return "Object.assign(Object.create(null), " + e + ")", s
	case 23:
		e, s := g.value(depth + 1)
		return "(function (o) { if (o !== null && typeof o === 'object') try { Object.defineProperty(o, 'h', {value: 1, enumerable: false}); o[Symbol()] = 2; } catch {} return o; })(" + e + ")", s
	case 24:
		e, s := g.members(depth)
		return "Object.setPrototypeOf(" + e + ", {inherited: 1, toJSON: undefined})", s
	default:
		e, s := g.value(depth + 1)
		return "Object.assign([" + e + "], {x: 1})", s + 1
	}
}

// members is an object literal with computed keys (so "__proto__" is an own property).
func (g *jsonGen) members(depth int) (string, int) {
	var b strings.Builder
	size := 1
	b.WriteString("{")
	for i, n := 0, g.pick(7); i < n; i++ {
		e, s := g.value(depth + 1)
		fmt.Fprintf(&b, "[%s]: %s, ", genKeys[g.pick(len(genKeys))], e)
		size += s
	}
	b.WriteString("}")
	return b.String(), size
}

// register records an object reg() adds to R, in the order the program builds them
// (inner literals complete first, as the generator writes them), and returns size.
func (g *jsonGen) register(size int) int {
	g.sizes = append(g.sizes, min(size, maxExpanded))
	return size
}

// jsonOutcome is what a program did: "ok" or "throw", the text or the error, and the
// log of calls.
type jsonOutcome struct{ status, text, log string }

const jsonTripleWrap = `(function () { const log = []; try { const out = (function () {
%s
})(); return ['ok', String(out), log.join(',')]; } catch (e) { return ['throw', e instanceof Error ? e.name + ': ' + e.message : String(e), log.join(',')]; } })()`

func runTriple(t testing.TB, vm *goja.Runtime, src string) jsonOutcome {
	t.Helper()
	v, err := vm.RunString(fmt.Sprintf(jsonTripleWrap, src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	o := v.ToObject(vm)
	return jsonOutcome{o.Get("0").String(), o.Get("1").String(), o.Get("2").String()}
}

// checkStringify runs the program on both and compares. goja's own text may differ
// only by its indentation bug after an empty container: then ours must be goja's
// compact text indented properly.
func checkStringify(t *testing.T, p stringifyProgram) {
	t.Helper()
	src := p.src(true)
	theirs := runTriple(t, goja.New(), src)
	ours := runTriple(t, newJSONRun(t).vm, src)
	if ours == theirs {
		return
	}
	if ours.status == "ok" && theirs.status == "ok" && ours.log == theirs.log && p.gap != "" {
		compact := runTriple(t, goja.New(), p.src(false))
		if want, ok := indentLike(compact.text, p.gap); ok && want == ours.text {
			return
		}
	}
	t.Errorf("JSON.stringify differs from goja's\nprogram:\n%s\ngoja: %+q\nours: %+q", src, theirs, ours)
}

// TestStringifyDifferential runs generated programs from a fixed seed, so plain
// go test covers what the fuzz target explores.
func TestStringifyDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 400; i++ {
		data := make([]byte, 128)
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		checkStringify(t, genStringifyProgram(data))
		if t.Failed() {
			return
		}
	}
}

// FuzzStringify compares our JSON.stringify with goja's on generated programs.
func FuzzStringify(f *testing.F) {
	for _, seed := range []string{"", "\x08\x01\x02\x03", "\x0a\x03\x08\x04\x10", "\x0e\x0f\x12\x11\x16", "\x08\x04\x08\x04\x08\x04\x10\x00\x10\x01"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStringify(t, genStringifyProgram(data))
	})
}

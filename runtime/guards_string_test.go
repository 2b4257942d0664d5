package runtime

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// showSrc renders a value the same way in a runcode VM and in a bare goja VM: strings
// quoted, -0 apart, arrays element by element (holes too), with an exec result's index
// and groups.
const showSrc = `function show(v) {
	if (Array.isArray(v)) {
		let s = '[';
		for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + (i in v ? show(v[i]) : '<hole>');
		s += ']';
		if ('index' in v) s += '@' + v.index + (v.groups === undefined ? '' : JSON.stringify(v.groups));
		return s;
	}
	if (typeof v === 'string') return JSON.stringify(v);
	if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
	if (typeof v === 'symbol') return v.toString();
	if (v === null || typeof v !== 'object') return String(v);
	return JSON.stringify(v);
}`

// differentialProgram evaluates each expression, rendering its value or its exception.
func differentialProgram(exprs []string) string {
	var b strings.Builder
	b.WriteString("'use strict';\n" + showSrc + "\nconst out = [];\nconst cases = [\n")
	for _, e := range exprs {
		b.WriteString("\t() => (" + e + "),\n")
	}
	b.WriteString("];\nfor (const c of cases) { try { out.push(show(c())) } catch (e) { out.push('threw ' + (e && e.name) + ': ' + (e && e.message)) } }\nreturn out.join('\\u0001');\n")
	return b.String()
}

// differential runs exprs in a runcode VM and in a bare goja VM and reports every
// expression whose value or exception differs.
func differential(t *testing.T, p *Pool, exprs []string) {
	t.Helper()
	prg := differentialProgram(exprs)
	res := runCode(t, p, prg, nil)
	if res.Failure != nil {
		t.Fatalf("the guarded run failed: %s", res.Text())
	}
	vm := goja.New()
	v, err := vm.RunString("(function () {" + prg + "})()")
	if err != nil {
		t.Fatalf("bare goja: %v", err)
	}
	got, want := strings.Split(res.Text(), "\u0001"), strings.Split(v.String(), "\u0001")
	if len(got) != len(exprs) || len(want) != len(exprs) {
		t.Fatalf("got %d and %d results for %d expressions", len(got), len(want), len(exprs))
	}
	for i, e := range exprs {
		if got[i] != want[i] {
			t.Errorf("%s\n  runcode: %.300s\n  goja:    %.300s", e, got[i], want[i])
		}
	}
}

// stringCases are ordinary uses of the guarded String methods: the guards must leave
// every value and exception as goja has them. None names RegExp or has a regular
// expression literal, so the RegExp guards stay uninstalled.
var stringCases = []string{
	// concat
	`'a'.concat('b', 1, null, undefined, {toString() { return 'x' }})`,
	`String.prototype.concat.call(5, 6)`, `''.concat()`, `'é'.concat('ü', '😀')`,
	`String.prototype.concat.call(null)`, `String.prototype.concat.call(undefined, 'x')`,
	`'a'.concat(Symbol())`, `String.prototype.concat.call(Symbol())`, `'a'.concat({valueOf() { return 1 }, toString: undefined})`,
	// replace with a string pattern
	`'aXbXc'.replace('X', '-')`, `'abc'.replace('', '-')`, `'abc'.replace('z', '-')`,
	"'abcabc'.replace('b', \"[$&|$`|$'|$$|$1|$<x>|$0|$|$9$]\")",
	`'abc'.replace('b', (m, p, s) => m + p + s)`, `'abc'.replace('b', function () { return arguments.length })`,
	`'äöü'.replace('ö', 'o')`, `'日本語'.replace('本', '$&$&')`, `'abc'.replace('c', 'x$')`, `'abc'.replace('a', '$')`,
	`'abc'.replace({[Symbol.replace](s, r) { return s + '|' + r }}, 'x')`, `'abc'.replace({[Symbol.replace]: 5}, 'x')`,
	`'abc'.replace({[Symbol.replace]: null, toString() { return 'b' }}, 'x')`, `'abc'.replace({toString() { return 'b' }}, {toString() { return 'y' }})`,
	`'abc'.replace('b', 7)`, `'a-b'.replace(undefined, 'x')`, `'aundefinedb'.replace(undefined, 'x')`, `String.prototype.replace.call(null, 'a', 'b')`,
	`'abc'.replace('b', () => ({toString() { return 'obj' }}))`, `'abc'.replace('b', Symbol())`, `'abc'.replace(Symbol(), 'x')`,
	`(s => s.replace(s.slice(10, 80), '[$&]').length)('ä'.repeat(100))`, "(s => s.replace('ä'.repeat(70) + 'x', '<$`>').length)('ä'.repeat(100) + 'x')",
	`('ä'.repeat(100) + 'x' + 'ä'.repeat(100)).replace('ä'.repeat(70) + 'x', 'Y')`,
	// replaceAll with a string pattern
	`'aaa'.replaceAll('a', 'b')`, `'aaa'.replaceAll('', '-')`, `'aaaa'.replaceAll('aa', 'b')`, `'aaa'.replaceAll('aa', 'b')`,
	`'abcabc'.replaceAll('b', (m, p, s) => p + s.length)`, `'abab'.replaceAll('b', "$'")`, "'abab'.replaceAll('a', '$`')",
	`''.replaceAll('', 'x')`, `''.replaceAll('a', 'x')`, `'äöä'.replaceAll('ä', '$&$&')`, `'a.b.c'.replaceAll('.', '$$')`,
	`'abc'.replaceAll({[Symbol.replace]: (s, r) => r + s}, 'x')`, `'abc'.replaceAll({[Symbol.match]: true, flags: 'x'}, 'y')`,
	`'abc'.replaceAll({[Symbol.match]: true, flags: 'g', [Symbol.replace]: () => 'ok'}, 'y')`, `'abc'.replaceAll({[Symbol.match]: true, flags: null}, 'y')`,
	`'abc'.replaceAll({[Symbol.match]: true}, 'y')`, `String.prototype.replaceAll.call(undefined, 'a', 'b')`,
	`(sep => ['x', 'y', 'z'].join(sep).replaceAll(sep, '-'))('ö'.repeat(64))`, `(sep => ['x', 'y', 'z'].join(sep).replaceAll(sep, (m, p) => p))('ö'.repeat(70) + 'q')`,
	// split with a string separator
	`'a,b,,c'.split(',')`, `'abc'.split('')`, `'abc'.split('', 2)`, `'abc'.split()`, `'abc'.split(undefined, 0)`, `'abc'.split(undefined, 1)`,
	`'a,b'.split(',', 1)`, `'a,b'.split(',', -1)`, `'a,b,c'.split(',', 4294967298)`, `'a,b'.split(',', {valueOf() { return 1 }})`,
	`'äb,c'.split(',')`, `''.split(',')`, `''.split('')`, `'a'.split(Symbol(), 0)`, `'a'.split(Symbol())`, `'a,b'.split(',', 0)`,
	`'anullb'.split(null)`, `'a1b1c'.split(1)`, `'äbä'.split('')`, `'😀x😀'.split('')`, `'ä,ö'.split(',', 1)`, `'abc'.split('abcd')`,
	`'abc'.split({[Symbol.split]: (s, l) => [s, l]}, 3)`, `'abc'.split({[Symbol.split]: 1})`, `String.prototype.split.call(null, ',')`,
	`(sep => ['x', 'y', '', 'z'].join(sep).split(sep))('ö'.repeat(64))`, `(sep => ['x', 'y', 'z'].join(sep).split(sep, 2))('ö'.repeat(64))`,
	`(sep => ['x', 'y', 'z'].join(sep).split(sep, 0))('ö'.repeat(64))`, `(sep => ('q' + sep).split(sep))('ö'.repeat(80))`,
	// indexOf, lastIndexOf, includes
	`'abcabc'.indexOf('c')`, `'abcabc'.indexOf('c', 3)`, `'abcabc'.indexOf('c', -5)`, `'abcabc'.indexOf('c', 99)`, `'abc'.indexOf('', 99)`,
	`'abc'.indexOf('', 1)`, `'abc'.indexOf()`, `'aundefined'.indexOf()`, `'äbcäbc'.indexOf('c', NaN)`, `'äbc'.indexOf('c', Infinity)`,
	`'abcabc'.lastIndexOf('c')`, `'abcabc'.lastIndexOf('c', 4)`, `'abcabc'.lastIndexOf('c', -1)`, `'abcabc'.lastIndexOf('a', 0)`, `'abc'.lastIndexOf('', 1)`,
	`'abc'.lastIndexOf('', 99)`, `'äbcäbc'.lastIndexOf('b', NaN)`, `'äbcäbc'.lastIndexOf('b', undefined)`, `'äbc'.lastIndexOf('b', {valueOf() { return 0 }})`,
	`'abc'.includes('b')`, `'abc'.includes('b', 2)`, `'abc'.includes('')`, `'äbc'.includes('c', -9)`, `'abc'.includes({[Symbol.match]: true})`,
	`'abc'.includes({[Symbol.match]: false, toString() { return 'b' }})`, `'abc'.includes({[Symbol.match]: 0, toString() { return 'c' }}, 1)`,
	`String.prototype.indexOf.call(null, 'a')`, `String.prototype.includes.call(undefined)`, `String.prototype.lastIndexOf.call(null)`,
	`(n => ('ä'.repeat(300) + n + 'ä'.repeat(10)).indexOf(n))('ä'.repeat(99) + 'b')`,
	`(n => ('ä'.repeat(300) + n + 'ä'.repeat(10) + n).lastIndexOf(n))('ä'.repeat(99) + 'b')`,
	`(n => ('ä'.repeat(300) + n + 'ä'.repeat(10) + n).lastIndexOf(n, 400))('ä'.repeat(99) + 'b')`,
	`(n => ('ä'.repeat(300) + n + 'ä'.repeat(10) + n).indexOf(n, 301))('ä'.repeat(99) + 'b')`,
	`(n => ('ä'.repeat(300) + n).includes(n, 300))('ä'.repeat(99) + 'b')`, `(n => ('ä'.repeat(300) + n).includes(n, 302))('ä'.repeat(99) + 'b')`,
	`(n => 'ä'.repeat(50).indexOf(n))('ä'.repeat(99))`, `(n => 'ä'.repeat(150).lastIndexOf(n, 0))('ä'.repeat(99))`, `(n => 'ä'.repeat(150).lastIndexOf(n, 51))('ä'.repeat(99))`,
	// match, matchAll, search with a string pattern (goja compiles it)
	`'a.c'.match('.')`, `'abc'.match('z')`, `'abc'.match()`, `'abc'.match(undefined)`, `'1+1'.match('1+')`, `'abc'.match({toString() { return 'b' }})`,
	`'abc'.search('c')`, `'abc'.search('(')`, `'abc'.search()`, `'abc'.search({[Symbol.search]: s => s.length})`,
	`'abc'.match({[Symbol.match]: s => 'custom ' + s})`, `'abc'.match({[Symbol.match]: 1})`, `'abc'.match({[Symbol.match]: true, source: 'b', flags: 'g'})`,
	`[...'a1b2'.matchAll('\\d')].map(m => m[0] + m.index)`, `[...'abc'.matchAll('')].length`, `[...'abc'.matchAll()].length`,
	`'abc'.matchAll({[Symbol.matchAll]: s => 'all ' + s})`, `'abc'.matchAll({[Symbol.match]: true, flags: 'i'})`,
	`[...'abab'.matchAll({[Symbol.match]: true, flags: 'g', source: 'b'})].map(m => m.index)`, `String.prototype.match.call(null, 'a')`,
	// normalize and the case mappings
	`'\u0041\u030a'.normalize()`, `'\u00c5'.normalize('NFD').length`, `'\ufdfa'.normalize('NFKD').length`, `'ﬁ'.normalize('NFKC')`,
	`'abc'.normalize('bad')`, `'abc'.normalize(undefined)`, `'äbc'.normalize(null)`, `String.prototype.normalize.call(null)`,
	`'ß'.toUpperCase()`, `'İ'.toLowerCase().length`, `'ΑΣ'.toLowerCase()`, `'ΑΣ Α'.toLowerCase()`, `'ﬃ'.toUpperCase()`, `'abc'.toLocaleUpperCase('tr')`,
	`'ǅ'.toLocaleLowerCase()`, `'\u0390'.toUpperCase().length`, `String.prototype.toUpperCase.call(1e21)`, `String.prototype.toLowerCase.call(undefined)`,
	// localeCompare
	`'a'.localeCompare('b')`, `'ä'.localeCompare('a')`, `'a'.localeCompare('a')`, `'B'.localeCompare('a')`, `'a'.localeCompare()`, `String.prototype.localeCompare.call(null, 'a')`,
	// String.raw
	"String.raw`a${1}b${2}c`", `String.raw({raw: ['x', 'y', 'z']}, 1, 2, 3)`, `String.raw({raw: {length: 2, 0: 'a', 1: 'b'}}, 9)`,
	`String.raw({raw: {length: 0}})`, `String.raw({raw: 'abc'}, '-', '+')`, `String.raw()`, `String.raw({})`, `String.raw({raw: {length: 3}})`,
	`String.raw({raw: {length: -1}})`, `String.raw({raw: {length: 2.7, 0: 'a', 1: 'b'}}, 'x', 'y')`, `String.raw({raw: ['a', 'b']}, Symbol())`,
	// parseFloat
	`parseFloat('3.14')`, `parseFloat('  -2.5e3xyz')`, `parseFloat('.5')`, `parseFloat('5.')`, `parseFloat('-.5e-3')`, `parseFloat('Infinity')`,
	`parseFloat('-Infinity')`, `parseFloat('+Infinity')`, `parseFloat('Infinityx')`, `parseFloat('infinity')`, `parseFloat('')`, `parseFloat(' ')`,
	`parseFloat('+')`, `parseFloat('-')`, `parseFloat('.')`, `parseFloat('e5')`, `parseFloat('1e')`, `parseFloat('1e+')`, `parseFloat('1e+5')`,
	`parseFloat('0x10')`, `parseFloat('1_000')`, `parseFloat('\u00a0\u20281.5')`, `parseFloat('\u00851')`, `parseFloat('\ufeff\u30002')`,
	`parseFloat('1e400')`, `parseFloat('-1e400')`, `parseFloat('1e-400')`, `parseFloat('-0')`, `parseFloat('00012')`, `parseFloat('1.2.3')`,
	`parseFloat('١')`, `parseFloat(Symbol())`, `parseFloat({toString() { return '7' }})`, `parseFloat(1e21)`, `parseFloat(1e-7)`, `parseFloat()`,
	`parseFloat('-.e1')`, `parseFloat('.e1')`, `parseFloat('+.5')`, `parseFloat('1.e5')`, `parseFloat('1e5.5')`, `parseFloat('ä1')`, `parseFloat(' 1ä')`,
	`parseFloat('12345678901234567890123456789')`, `parseFloat('0.' + '0'.repeat(400) + '1')`, `parseFloat('\t\n\v\f\r 4')`, `Number.parseFloat('9x')`,
	// encodeURI, encodeURIComponent, escape
	`encodeURI('a b/ä😀#?x=1&y=2')`, `encodeURIComponent('a b/ä😀#?x=1&y=2')`, `escape('a b/ä😀@*_+-.')`, `encodeURI('\ud800')`,
	`encodeURIComponent('\udc00x')`, `encodeURI()`, `escape()`, `encodeURIComponent(Symbol())`, `escape({toString() { return 'é' }})`,
	// the guards keep the methods' shape
	`[String.prototype.concat, String.prototype.replace, String.prototype.replaceAll, String.prototype.split, String.prototype.indexOf,
	  String.prototype.lastIndexOf, String.prototype.includes, String.prototype.match, String.prototype.matchAll, String.prototype.search,
	  String.prototype.normalize, String.prototype.toUpperCase, String.prototype.toLowerCase, String.prototype.toLocaleUpperCase,
	  String.prototype.toLocaleLowerCase, String.prototype.localeCompare, String.raw, parseFloat, encodeURI, encodeURIComponent, escape]
	  .map(f => f.name + '/' + f.length + '/' + typeof f)`,
	`['concat', 'replace', 'split', 'indexOf', 'normalize', 'toUpperCase', 'localeCompare', 'matchAll']
	  .map(k => JSON.stringify(Object.getOwnPropertyDescriptor(String.prototype, k), ['writable', 'enumerable', 'configurable']))`,
	`[JSON.stringify(Object.getOwnPropertyDescriptor(String, 'raw'), ['writable', 'enumerable', 'configurable']),
	  JSON.stringify(Object.getOwnPropertyDescriptor(Number, 'parseFloat'), ['writable', 'enumerable', 'configurable']),
	  Number.parseFloat === parseFloat, ''.constructor.raw === String.raw]`,
	`Object.keys(String.prototype).length`,
}

func TestStringGuardsUnchanged(t *testing.T) {
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	differential(t, p, stringCases)
	r, err := p.acquire()
	if err != nil {
		t.Fatal(err)
	}
	r.guardLazyFor(differentialProgram(stringCases), false)
	if r.lazyInstalled(familyRegExp) {
		t.Error("the string cases installed the RegExp guards")
	}
}

// catchSrc turns a body that throws into the thrown error's name and message.
func catchSrc(body string) string {
	return "try { " + body + "; return 'no error' } catch (e) { return e.name + ': ' + e.message }"
}

// TestStringGuardsBounds pins the String guards over their bounds: a RangeError with
// V8's message, before anything that big is built, whichever conversions are involved.
// With a 32 MiB heap budget, a string may have 8M characters and an array 2M elements.
func TestStringGuardsBounds(t *testing.T) {
	const tooLong, tooMany = "RangeError: Invalid string length", "RangeError: Invalid array length"
	tests := []textCase{
		{"concat", catchSrc("const s = 'x'.repeat(2e6); s.concat(s, s, s, s)"), tooLong},
		{"concat through call", catchSrc("String.prototype.concat.call({toString() { return 'x'.repeat(5e6) }}, 'y'.repeat(4e6))"), tooLong},
		{"replaceAll with $'", catchSrc("'a'.repeat(1e4).replaceAll('a', \"$'\")"), tooLong},
		{"replaceAll with $`", catchSrc("'a'.repeat(1e4).replaceAll('a', '$`')"), tooLong},
		{"replace with many $'", catchSrc("'a'.repeat(1e5).replace('a', \"$'\".repeat(100))"), tooLong},
		{"replaceAll with a big piece", catchSrc("const big = 'x'.repeat(1e6); 'a'.repeat(100).replaceAll('a', () => big)"), tooLong},
		{"replaceAll of the empty string", catchSrc("'a'.repeat(5e6).replaceAll('', 'b')"), tooLong},
		{"split into characters", catchSrc("'x'.repeat(3e6).split('')"), tooMany},
		{"split at a separator", catchSrc("','.repeat(3e6).split(',')"), tooMany},
		{"split of UTF-16 text", catchSrc("'ä'.repeat(3e6).split('')"), tooMany},
		{"normalize NFKD", catchSrc("'ä'.repeat(5e5).normalize('NFKD')"), tooLong},
		{"normalize NFC", catchSrc("'ä'.repeat(3e6).normalize()"), tooLong},
		{"toUpperCase", catchSrc("'ß'.repeat(3e6).toUpperCase()"), tooLong},
		{"toLocaleLowerCase", catchSrc("'İ'.repeat(3e6).toLocaleLowerCase()"), tooLong},
		{"localeCompare", catchSrc("'a'.repeat(3e6).localeCompare('a'.repeat(2e6))"), tooLong},
		{"String.raw of a long array-like", catchSrc("String.raw({raw: {length: 2 ** 53 - 1}})"), tooMany},
		{"String.raw of a long result", catchSrc("String.raw({raw: {length: 1e6}})"), tooLong},
		{"String.raw with big substitutions", catchSrc("const s = 'x'.repeat(3e6); String.raw({raw: ['', '', '', '']}, s, s, s)"), tooLong},
		{"encodeURIComponent", catchSrc("encodeURIComponent('ä'.repeat(2e6))"), tooLong},
		{"encodeURI", catchSrc("encodeURI(' '.repeat(3e6))"), tooLong},
		{"escape", catchSrc("escape('ā'.repeat(2e6))"), tooLong},
		// Under the bounds: the results as goja builds them.
		{"split with a limit", "return 'x'.repeat(3e6).split('', 3).join()", "x,x,x"},
		{"normalize under the bound", "return 'ä'.repeat(2e6).normalize().length", "2000000"},
		{"toUpperCase of ASCII", "return 'a'.repeat(7e6).toUpperCase().length", "7000000"},
		{"encodeURI that fits", "return encodeURI('ä'.repeat(1e6)).length", "6000000"},
		{"parseFloat of a long number", "return String(parseFloat('1'.repeat(5e6) + 'x'))", "Infinity"},
		{"parseFloat of long digits", "return parseFloat('0.' + '3'.repeat(5e6))", "0.3333333333333333"},
	}
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	runTextCases(t, p, tests, nil)
}

// TestStringGuardsConvertOnce pins that every guard converts a receiver or an argument
// as often as goja does (once), in goja's order: a valueOf or toString that answers small
// the first time and huge after changes nothing. Compared with bare goja, which converts
// once too.
func TestStringGuardsConvertOnce(t *testing.T) {
	lying := func(small, big string) string {
		return "{n: 0, toString() { return this.n++ ? " + big + " : " + small + " }}"
	}
	once := func(setup, expr string) string { return "(() => { " + setup + "; return [" + expr + "] })()" }
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	differential(t, p, []string{
		once("const o = "+lying("'b'", "'y'.repeat(9e6)"), "'a'.concat(o), o.n"),
		once("const o = "+lying("'a'", "'y'.repeat(9e6)"), "String.prototype.concat.call(o, 'b'), o.n"),
		once("const p = "+lying("'b'", "'a'")+", q = "+lying("'$&$&'", "\"$'\".repeat(1e4)"), "'abc'.replace(p, q), p.n, q.n"),
		once("const q = "+lying("'-'", "\"$'\".repeat(1e4)"), "'aaa'.replaceAll('a', q), q.n"),
		once("const s = "+lying("','", "''"), "'a,b'.split(s).length, s.n"),
		once("const l = {n: 0, valueOf() { return this.n++ ? 1e9 : 1 }}", "'a,b,c'.split(',', l).length, l.n"),
		once("const s = "+lying("'c'", "'a'"), "'abc'.indexOf(s), s.n"),
		once("const s = "+lying("'c'", "'a'"), "'abc'.lastIndexOf(s), s.n"),
		once("const p = {n: 0, valueOf() { return this.n++ ? 0 : 2 }}", "'abc'.includes('a', p), p.n"),
		once("const o = "+lying("'a'", "'ä'.repeat(1e6)"), "String.prototype.normalize.call(o, 'NFKD'), o.n"),
		once("const f = "+lying("'NFC'", "'bad'"), "'ä'.normalize(f), f.n"),
		once("const o = "+lying("'a'", "'ß'.repeat(5e6)"), "String.prototype.toUpperCase.call(o), o.n"),
		once("const o = "+lying("'b'", "'('.repeat(5000)"), "'abc'.match(o)[0], o.n"),
		once("const o = "+lying("'b'", "'('.repeat(5000)"), "'abc'.search(o), o.n"),
		once("const o = "+lying("'b'", "'('.repeat(5000)"), "[...'abc'.matchAll(o)].length, o.n"),
		once("const o = "+lying("'a'", "'a'.repeat(5e6)"), "'a'.localeCompare(o), o.n"),
		once("const raw = {get length() { return this.n = (this.n || 0) + 1, this.n > 1 ? 2 ** 53 - 1 : 2 }, 0: 'a', 1: 'b'}", "String.raw({raw}, '-'), raw.n"),
		once("const o = "+lying("'a b'", "'ä'.repeat(5e6)"), "encodeURI(o), o.n"),
		once("const o = "+lying("'a b'", "'ā'.repeat(5e6)"), "escape(o), o.n"),
		once("const o = "+lying("'2.5'", "'9'"), "parseFloat(o), o.n"),
		once("const seen = []; const o = {get [Symbol.replace]() { seen.push('r'); return undefined }, toString() { seen.push('s'); return 'b' }}", "'abc'.replace(o, 'x'), seen.join('')"),
		once("const seen = []; const o = {get [Symbol.split]() { seen.push('p'); return undefined }, toString() { seen.push('s'); return 'b' }}; const l = {valueOf() { seen.push('l'); return 5 }}", "'abc'.split(o, l), seen.join('')"),
		once("const seen = []; const o = {get [Symbol.match]() { seen.push('m'); return undefined }, get [Symbol.replace]() { seen.push('r'); return undefined }, toString() { seen.push('s'); return 'b' }}", "'abc'.replaceAll(o, 'x'), seen.join('')"),
	})
}

// TestLongNeedleSearches checks the searches that run here instead of in goja: a long
// needle in UTF-16 text, built so that goja's byte search finds the needle's bytes at
// every odd offset and never at an even one (U+4142 is the bytes 42 41, U+4241 is 41 42):
// goja's cost is the product of the lengths, about half a minute at these sizes.
func TestLongNeedleSearches(t *testing.T) {
	p := newTestPool(t, &Limits{HeapBytes: 64 << 20})
	setup := "const hay = String.fromCharCode(0x4142).repeat(2e6), needle = String.fromCharCode(0x4241).repeat(5e5);"
	tests := []struct{ code, want string }{
		{setup + "return [hay.indexOf(needle), hay.includes(needle), hay.lastIndexOf(needle)].join()", "-1,false,-1"},
		{setup + "return hay.split(needle).length", "1"},
		{setup + "return hay.replaceAll(needle, 'x').length", "2000000"},
		{setup + "const h2 = hay + needle; return [h2.indexOf(needle), h2.lastIndexOf(needle), h2.split(needle).length].join()", "2000000,2000000,2"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, runCode(t, p, tt.code, nil).Text()); diff != "" {
			t.Errorf("%s: text mismatch (-want +got):\n%s", tt.code, diff)
		}
	}
}

// TestUTF16Search compares the Rabin-Karp searches with a plain scan on random text over
// a small alphabet (many near matches).
func TestUTF16Search(t *testing.T) {
	p := newTestPool(t, nil)
	r, err := p.acquire()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []uint16{'a', 'b', 0xe4, 0xd83d, 0xde00}
	random := func(n int) []uint16 {
		u := make([]uint16, n)
		for i := range u {
			u[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return u
	}
	naive := func(s, sub []uint16, from int, last bool) int {
		found := -1
		for i := 0; i+len(sub) <= len(s); i++ {
			if slicesEqual(s[i:i+len(sub)], sub) {
				if !last && i >= from {
					return i
				}
				if last && i <= from {
					found = i
				}
			}
		}
		return found
	}
	for i := 0; i < 3000; i++ {
		s := random(rng.IntN(60))
		sub := random(1 + rng.IntN(4))
		if rng.IntN(3) == 0 && len(s) > 2 {
			a := rng.IntN(len(s) - 1)
			sub = append([]uint16(nil), s[a:a+1+rng.IntN(len(s)-a-1)]...)
		}
		from := rng.IntN(len(s) + 2)
		gs, gsub := goja.StringFromUTF16(s), goja.StringFromUTF16(sub)
		if got, want := r.indexUTF16(gs, gsub, min(from, len(s))), naive(s, sub, min(from, len(s)), false); got != want {
			t.Fatalf("indexUTF16(%x, %x, %d) = %d, want %d", s, sub, from, got, want)
		}
		if got, want := r.lastIndexUTF16(gs, gsub, from), naive(s, sub, from, true); got != want {
			t.Fatalf("lastIndexUTF16(%x, %x, %d) = %d, want %d", s, sub, from, got, want)
		}
	}
}

func slicesEqual(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzParseFloat holds parseFloat, which replaces goja's rather than wrapping it, to goja's
// results: the same number (or NaN, or the same sign of zero) for any text.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"3.14", "  -2.5e3xyz", ".5", "5.", "-.5e-3", "Infinity", "-Infinityx", "+.e1", "1e", "1e+5", "0x10",
		"\u00a0\u20281.5", "\u00851", "1e400", "-0", "00012", "1.2.3", "١", "\ufeff\u30002", "12345678901234567890123456789e-30", "\xff1.5"} {
		f.Add(s)
	}
	p := newTestPool(f, nil)
	r, err := p.acquire()
	if err != nil {
		f.Fatal(err)
	}
	bare := goja.New()
	parse, _ := goja.AssertFunction(bare.Get("parseFloat"))
	f.Fuzz(func(t *testing.T, s string) {
		arg := goja.StringFromUTF16(utf16Units(s))
		got := r.parseFloat(arg)
		want, err := parse(goja.Undefined(), arg)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := got.ToFloat(), want.ToFloat(); !(g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("parseFloat(%q) = %v, goja says %v", s, g, w)
		}
	})
}

// utf16Units reads a fuzz string as UTF-16 code units; a byte that is not UTF-8 stands
// for a lone surrogate.
func utf16Units(s string) []uint16 {
	u := make([]uint16, 0, len(s)+1)
	for _, r := range s {
		if r == 0xFFFD {
			u = append(u, 0xD800)
		} else if r < 0x10000 {
			u = append(u, uint16(r))
		} else {
			r -= 0x10000
			u = append(u, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3ff)))
		}
	}
	return u
}

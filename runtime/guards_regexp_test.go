package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// regexpCases are ordinary uses of RegExp and of the String methods that take one: the
// guards must leave every value, exception and lastIndex as goja has them, on both of
// goja's paths (a RegExp it has not seen modified, and any other object) and with both of
// its engines (Go's regexp, regexp2 for lookarounds and backreferences or text that is
// not ASCII).
var regexpCases = []string{
	// the constructor
	`new RegExp('a+', 'g').source`, `RegExp('a', 'gi').flags`, `(r => RegExp(r) === r)(/x/)`, `(r => new RegExp(r) === r)(/x/)`,
	`(r => RegExp(r, undefined) === r)(/x/g)`, `(r => RegExp(r, 'g') === r)(/x/g)`, `new RegExp(/x/g, 'i').flags`, `new RegExp(/x/gimsuy).flags`,
	`new RegExp(/x\/y/).source`, `new RegExp('a/b\nc').source`, `String(new RegExp('/'))`, `new RegExp({[Symbol.match]: true, source: 'ab', flags: 'g'}).toString()`,
	`new RegExp({[Symbol.match]: true, source: 'ab', flags: 'g'}, 'i').toString()`, `new RegExp({toString() { return 'q' }}).source`, `RegExp().source`,
	`new RegExp(undefined, 'g').flags`, `new RegExp(null).source`, `new RegExp(12).test('x12')`, `new RegExp('a', 'gg')`, `new RegExp('a', 'x')`,
	`new RegExp('(')`, `new RegExp('a', Symbol())`, `new RegExp(Symbol())`, `RegExp.name`, `RegExp.length`, `typeof RegExp`,
	`/a/.constructor === RegExp`, `/a/ instanceof RegExp`, `new RegExp('a') instanceof RegExp`, `({}) instanceof RegExp`, `Object.create(RegExp.prototype) instanceof RegExp`,
	`(() => { class R extends RegExp {}; const r = new R('a', 'g'); return [r instanceof R, r instanceof RegExp, r.constructor === R, r.flags, r.test('a')] })()`,
	`(() => { class R extends RegExp { exec(s) { return super.exec(s) } }; return 'a1b2'.replace(new R('\\d', 'g'), '#') })()`,
	`RegExp[Symbol.species] === RegExp`, `Object.getPrototypeOf(/a/) === RegExp.prototype`, `RegExp.prototype.constructor === RegExp`,
	`Object.getOwnPropertyNames(RegExp).sort()`, `Object.keys(RegExp.prototype)`, `(r => { r.lastIndex = 3; const c = new RegExp(r); return c.lastIndex })(/a/g)`,
	`(() => { const r = /a/; Object.setPrototypeOf(r, null); try { return String(new RegExp(r)) } catch (e) { return e.name } })()`,
	`(() => { const o = {[Symbol.match]: true, get source() { return 'src' }, get flags() { return 'm' }}; return String(RegExp(o)) })()`,
	`(() => { const o = {[Symbol.match]: true, constructor: RegExp, source: 'k'}; return RegExp(o) === o })()`,
	// compile
	`(r => (r.compile('b+', 'g'), r.source + r.flags + r.lastIndex))(/a/y)`, `(r => (r.compile(/c/i), r.source + r.flags))(/a/g)`,
	`(r => r.compile(/c/i, 'g'))(/a/)`, `(r => (r.compile(), r.source))(/a/)`, `RegExp.prototype.compile.call({}, 'a')`, `(r => r.compile('('))(/a/)`,
	`(r => r.compile('a', 'q'))(/a/)`, `(r => r.compile({toString() { return 'z' }}) === r)(/a/)`,
	// replace
	`'a1b2c'.replace(/\d/g, '#')`, `'a1b2c'.replace(/\d/, '#')`, `'aaa'.replace(/a/y, 'b')`, `'baaa'.replace(/a/y, 'b')`, `'aaa'.replace(/a/gy, 'b')`,
	`'aaba'.replace(/a/gy, 'x')`, `'baaa'.replace(/a*/g, 'X')`, `'bäää'.replace(/ä*/g, 'X')`, `'baaa'.replace(/a*?/g, 'X')`, `'abc'.replace(/(?:)/g, '-')`,
	`'😀😀'.replace(/(?:)/gu, '-')`, `'😀😀'.replace(/(?:)/g, '-').length`, `'😀😀'.replace(/./gu, '[$&]')`, `'\ud800x'.replace(/(?:)/gu, '-')`,
	"'abcabc'.replace(/(b)(c)?/g, \"[$&|$1|$2|$3|$`|$'|$$|$0|$01|$10|$]\")", `'2024-01-15'.replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/, '$<d>/$<m>/$<y> $<x> $<')`,
	`'ab'.replace(/(?<x>a)|(?<y>b)/g, '[$<x>|$<y>]')`, `'ab'.replace(/a/, '$<x>')`, `'ab'.replace(/(a)/g, '$11')`,
	`'abc'.replace(/(b)/g, (...a) => JSON.stringify(a))`, `'abc'.replace(/(?<n>b)(x)?/g, (...a) => JSON.stringify(a))`,
	`'aaa'.replace(/a(?=a)/g, 'b')`, `'aabb'.replace(/(\w)\1/g, '<$1>')`, `'abcab'.replace(/(?<=a)b/g, 'B')`, `'xaax'.replace(/(?<!x)a/g, 'b')`,
	`'äaäa'.replace(/a/g, 'b')`, `'äaäa'.replace(/(?:)/g, '|')`, `'aäa'.replace(/(?=a)/g, '^')`, `'aaa'.replace(/a{1001,}/g, 'x')`,
	`(r => ['aXa'.replace(r, 'b'), r.lastIndex])(/a/g)`, `(r => { r.lastIndex = 2; return ['aaaa'.replace(r, 'b'), r.lastIndex] })(/a/y)`,
	`(r => { r.lastIndex = 9; return ['aaaa'.replace(r, 'b'), r.lastIndex] })(/a/y)`, `(r => { r.lastIndex = 1; return ['aaaa'.replace(r, 'b'), r.lastIndex] })(/a/)`,
	`(r => { r.lastIndex = {valueOf() { return 1 }}; return ['baaa'.replace(r, 'c'), r.lastIndex] })(/a/y)`,
	`(r => ['aXa'.replace(r, () => r.lastIndex), r.lastIndex])(/a/g)`, `(r => ['aa'.replace(r, () => { r.lastIndex = 7; return 'x' }), r.lastIndex])(/a/g)`,
	`(r => { Object.freeze(r); return 'aa'.replace(r, 'b') })(/a/g)`, `(r => { Object.freeze(r); return 'aa'.replace(r, 'b') })(/a/)`,
	`'abc'.replace(/b/g, () => ({toString() { return 'T' }}))`, `'abc'.replace(/b/g, Symbol())`, `'abc'.replace(/b/g)`,
	`RegExp.prototype[Symbol.replace].call(/b/g, 'abc', '-')`, `RegExp.prototype[Symbol.replace].call(null, 'a', 'b')`,
	// replace, goja's generic path
	`(r => (Object.defineProperty(r, 'x', {value: 1}), 'aaa'.replace(r, 'b')))(/a/g)`, `(r => (r.exec = RegExp.prototype.exec, 'aaa'.replace(r, '[$&]')))(/a/g)`,
	`(r => (Object.defineProperty(r, 'x', {value: 1}), ['baaa'.replace(r, 'X'), r.lastIndex]))(/a*/g)`,
	`(r => { r.exec = function (s) { return this.n++ < 2 ? {0: 'a', index: this.n, length: 1} : null }; r.n = 0; return 'xyz'.replace(r, '<$&>') })(/a/g)`,
	`(r => { r.exec = () => ({0: 'q', index: 1, length: 3, 1: 'one', 2: undefined, groups: {g: 'G'}}); return 'abc'.replace(r, '[$1|$2|$3|$<g>|$<h>]') })(/a/)`,
	`(r => { r.exec = () => ({0: 'q', index: 1, length: 2, 1: 5, groups: {g: 7}}); return 'abc'.replace(r, (...a) => JSON.stringify(a)) })(/a/)`,
	`(r => { r.exec = () => 3; return 'abc'.replace(r, 'x') })(/a/)`, `(r => { r.exec = 3; return 'abc'.replace(r, 'x') })(/a/)`,
	`RegExp.prototype[Symbol.replace].call({exec() { return null }, flags: 'g'}, 'abc', 'x')`,
	`RegExp.prototype[Symbol.replace].call({exec() { return this.i++ < 3 ? {0: '', index: this.i} : null }, i: 0, flags: 'gu', lastIndex: 0}, 'abcd', '-')`,
	`(() => { const d = Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags'); Object.defineProperty(RegExp.prototype, 'flags', {get() { return 'g' }}); try { return 'aaa'.replace(/a/, 'b') } finally { Object.defineProperty(RegExp.prototype, 'flags', d) } })()`,
	`(() => { const e = RegExp.prototype.exec; RegExp.prototype.exec = function (s) { return e.call(this, s) }; try { return ['aaa'.replace(/a/g, 'b'), 'a1b2'.split(/\d/), 'a1b2'.match(/\d/g)] } finally { RegExp.prototype.exec = e } })()`,
	// match
	`'a1b2'.match(/\d/g)`, `'a1b2'.match(/\d/)`, `'ab'.match(/\d/g)`, `'ab'.match(/(?<l>[a-z])/)`, `'aaa'.match(/a*?/g)`, `'baaa'.match(/a*/g)`,
	`'bäää'.match(/ä*/g)`, `'aaa'.match(/a(?=a)/g)`, `'😀😀'.match(/(?:)/gu)`, `'aXa'.match(/a/gy)`, `'aaXa'.match(/a/gy)`, `(r => ['aXa'.match(r), r.lastIndex])(/a/g)`,
	`(r => { r.lastIndex = 1; return ['aab'.match(r), r.lastIndex] })(/a/y)`, `(r => (Object.defineProperty(r, 'x', {value: 1}), 'aaa'.match(r)))(/a/g)`,
	`RegExp.prototype[Symbol.match].call({exec() { return this.i++ < 2 ? ['x'] : null }, i: 0, flags: 'g'}, 'abc')`,
	`RegExp.prototype[Symbol.match].call({exec: 1, flags: ''}, 'abc')`, `RegExp.prototype[Symbol.match].call({exec() { return 1 }, flags: 'g'}, 'abc')`,
	// matchAll
	`[...'a1b2'.matchAll(/\d/g)].map(m => m[0] + m.index)`, `'a1b2'.matchAll(/\d/)`, `[...'a1b2'.matchAll(/(?<d>\d)/g)].map(m => m.groups.d)`,
	`(r => { r.lastIndex = 2; return [...'aaaa'.matchAll(r)].length })(/a/g)`, `(r => { r.lastIndex = 2; return [[...'aaaa'.matchAll(r)].length, r.lastIndex] })(/a/gy)`,
	`[...'😀😀'.matchAll(/(?:)/gu)].map(m => m.index)`, `[...'aaa'.matchAll(/(?=a)/g)].map(m => m.index)`, `Object.prototype.toString.call('a'.matchAll(/a/g))`,
	`(() => { class R extends RegExp {}; const it = 'abab'.matchAll(new R('b', 'g')); return [...it].map(m => m.index) })()`,
	`RegExp.prototype[Symbol.matchAll].call({flags: 'g', lastIndex: 1, constructor: undefined, toString() { return 'b' }}, 'abab').next().value.index`,
	`(() => { const r = /b/g; r.constructor = {[Symbol.species]: function (p, f) { return new RegExp('a', f) }}; return [...'abab'.matchAll(r)].map(m => m[0]) })()`,
	// split
	`'a1b2c'.split(/\d/)`, `'a1b2c'.split(/(\d)/)`, `'a1b2c'.split(/(\d)|(x)/)`, `'a1b2c'.split(/\d/, 2)`, `'a1b2c'.split(/(\d)/, 2)`, `'a1b2c'.split(/\d/, 0)`,
	`'abc'.split(/(?:)/)`, `'abc'.split(/(?:)/, 2)`, `''.split(/x/)`, `''.split(/(?:)/)`, `'abc'.split(/$/)`, `'abc'.split(/^/)`, `'abc'.split(/(?=c)|^/)`,
	`'xax'.split(/(?:)|a/)`, `'a,b'.split(/,/y)`, `'😀😀'.split(/(?:)/u)`, `'😀😀'.split(/(?:)/).length`, `'a1b2'.split(/(?=\d)/)`, `'a1b2'.split(/(?<=\d)/)`,
	`'äxäxä'.split(/x/)`, `'äxäxä'.split(/(x)/)`, `'baaa'.split(/a*/)`, `'bäää'.split(/ä*/)`, `'aaa'.split(/a*?/)`, `'a1b2c3'.split(/\d/, {valueOf() { return 2 }})`,
	`'a1b2c'.split(/\d/, -1)`, `'a1b2c'.split(/\d/, 4294967297)`, `(r => ['a1b2'.split(r), r.lastIndex])(/\d/g)`, `(r => { r.lastIndex = 3; return ['a1b2'.split(r), r.lastIndex] })(/\d/y)`,
	`(r => (Object.defineProperty(r, 'x', {value: 1}), 'a1b2'.split(r)))(/\d/)`, `(r => (r.exec = function (s) { return RegExp.prototype.exec.call(this, s) }, 'a1b2'.split(r)))(/\d/)`,
	`(() => { class S extends RegExp { static get [Symbol.species]() { return RegExp } }; return 'a1b2'.split(new S('\\d')) })()`,
	`(() => { const r = /\d/; r.constructor = undefined; return 'a1b2'.split(r) })()`,
	`(() => { const r = /\d/; r.constructor = {[Symbol.species]: null}; return 'a1b2'.split(r) })()`,
	`(() => { const r = /\d/; r.constructor = {[Symbol.species]: 5}; return 'a1b2'.split(r) })()`,
	`(() => { const seen = []; const r = /\d/; r.constructor = {[Symbol.species]: function (p, f) { seen.push(f); return new RegExp(p, f) }}; return ['a1b2'.split(r), seen] })()`,
	`(() => { const r = /\d/; r.constructor = {[Symbol.species]: function () { return {exec() { return null }, lastIndex: 0} }}; return 'a1b2'.split(r) })()`,
	`RegExp.prototype[Symbol.split].call({constructor: undefined, flags: '', toString() { return ',' }}, 'a,b')`,
	`RegExp.prototype[Symbol.split].call({constructor: undefined, [Symbol.match]: true, source: ',', flags: 'g'}, 'a,b,c', 2)`,
	`RegExp.prototype[Symbol.split].call('a%d', 'x')`,
	// search
	`'abc'.search(/c/)`, `'abc'.search(/z/)`, `(r => { r.lastIndex = 2; return ['abc'.search(r), r.lastIndex] })(/a/g)`, `'abc'.search({[Symbol.search]: 1})`,
	`(r => (Object.defineProperty(r, 'x', {value: 1}), 'abc'.search(r)))(/c/)`,
	// String methods given RegExps
	`'a.b'.replaceAll(/\./g, '!')`, `'a.b'.replaceAll(/\./, '!')`, `'a.b'.includes(/\./)`, `'a.b'.startsWith(/a/)`, `'ab'.match(/b/).index`,
	`(r => (r[Symbol.match] = false, 'a/b/'.includes(r)))(/b/)`, `(r => (r[Symbol.match] = undefined, 'ab'.match(r)))(/b/)`,
	`'abab'.replaceAll(/(?<x>b)/g, '[$<x>]')`, `'aaa'.replaceAll(/a/gy, 'b')`,
	// the guards keep the methods' shape
	`[RegExp.prototype.compile, RegExp.prototype[Symbol.replace], RegExp.prototype[Symbol.match], RegExp.prototype[Symbol.split],
	  RegExp.prototype[Symbol.matchAll], 'a'.matchAll(/a/g).next].map(f => f.name + '/' + f.length)`,
	`[Symbol.replace, Symbol.match, Symbol.split, Symbol.matchAll].map(k => JSON.stringify(Object.getOwnPropertyDescriptor(RegExp.prototype, k), ['writable', 'enumerable', 'configurable']))`,
	`JSON.stringify(Object.getOwnPropertyDescriptor(globalThis, 'RegExp'), ['writable', 'enumerable', 'configurable'])`,
	`[Object.getOwnPropertyNames(RegExp).join(), Object.getPrototypeOf(RegExp) === Function.prototype]`,
	`['prototype', 'length', 'name'].map(k => JSON.stringify(Object.getOwnPropertyDescriptor(RegExp, k)))`,
	`(d => [d.get.name, d.enumerable, d.configurable, d.get.call(5)])(Object.getOwnPropertyDescriptor(RegExp, Symbol.species))`,
	`[RegExp.call({}, 'a').source, RegExp.call(undefined, 'a', 'g').flags, globalThis.RegExp('b').source, Reflect.construct(RegExp, ['a'], Object) instanceof RegExp]`,
}

func TestRegExpGuardsUnchanged(t *testing.T) {
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	differential(t, p, regexpCases)
	// The same on long enough texts that the Go engine's matches are counted first, and on
	// texts that are not ASCII.
	var long []string
	for _, c := range []string{
		`'a1b2c'.repeat(K).replace(/\d/g, '#').length`, `'a1b2c'.repeat(K).replace(/(\d)/g, '<$1>').slice(-20)`,
		`'a1b2c'.repeat(K).match(/\d/g).length`, `'a1b2c'.repeat(K).split(/\d/).length`, `'a1b2c'.repeat(K).split(/(\d)/, 7)`,
		`'a1b2c'.repeat(K).replace(/\d/g, () => 'xy').length`, `'baaa'.repeat(K).replace(/a*/g, 'X').length`, `'baaa'.repeat(K).split(/a*/).length`,
		`'ä1b2c'.repeat(K).replace(/\d/g, '#').length`, `'ä1b2c'.repeat(K).match(/\d/g).length`, `'ä1b2c'.repeat(K).split(/(\d)/).length`,
		`'a1b2c'.repeat(K).replace(/(?=\d)/g, '^').length`, `'bäää'.repeat(K).replace(/ä*/g, 'X').length`, `'bäää'.repeat(K).split(/ä*/).length`,
		`[...'a1b2c'.repeat(K).matchAll(/\d/g)].length`,
	} {
		long = append(long, strings.ReplaceAll(c, "K", "20000"))
	}
	differential(t, p, long)
}

// TestRegExpGuardsBounds pins the RegExp guards over their bounds, with a 32 MiB heap
// budget (strings of 8M characters, arrays of 2M elements).
func TestRegExpGuardsBounds(t *testing.T) {
	const tooLong, tooMany = "RangeError: Invalid string length", "RangeError: Invalid array length"
	nested := func(n string) string { return "'('.repeat(" + n + ") + ')'.repeat(" + n + ")" }
	tests := []textCase{
		{"nested pattern", catchSrc("new RegExp(" + nested("1001") + ")"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/: nesting deeper than 1000 levels"},
		{"deeply nested pattern", catchSrc("RegExp(" + nested("6e5") + ", 'g')"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/g: Regular expression too large"},
		{"nested to the bound", "return new RegExp('(?:'.repeat(1000) + ')'.repeat(1000)).test('')", "true"},
		{"long pattern", catchSrc("new RegExp('a'.repeat(2 ** 20 + 1))"), "SyntaxError: Invalid regular expression: /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…/: Regular expression too large"},
		{"parentheses in a class do not nest", "return new RegExp('[' + '('.repeat(5000) + ']').test('(')", "true"},
		{"escaped parentheses do not nest", "return new RegExp('\\\\('.repeat(5000)).test('('.repeat(5000))", "true"},
		{"compile", catchSrc("/a/.compile(" + nested("2000") + ")"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/: nesting deeper than 1000 levels"},
		{"String match", catchSrc("'x'.match(" + nested("2000") + ")"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/: nesting deeper than 1000 levels"},
		{"String matchAll", catchSrc("'x'.matchAll(" + nested("2000") + ")"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/g: nesting deeper than 1000 levels"},
		{"String search", catchSrc("'x'.search({toString() { return " + nested("2000") + " }})"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/: nesting deeper than 1000 levels"},
		{"a RegExp-like pattern", catchSrc("new RegExp({[Symbol.match]: true, source: " + nested("2000") + "})"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/undefined: nesting deeper than 1000 levels"},
		{"split's species constructor", catchSrc("RegExp.prototype[Symbol.split].call({constructor: undefined, flags: '', toString() { return " + nested("2000") + " }}, 'x')"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/y: nesting deeper than 1000 levels"},
		{"matchAll's species constructor", catchSrc("RegExp.prototype[Symbol.matchAll].call({constructor: undefined, flags: 'g', toString() { return " + nested("2000") + " }}, 'x')"), "SyntaxError: Invalid regular expression: /((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…/g: nesting deeper than 1000 levels"},
		{"global replace with $'", catchSrc("'a'.repeat(1e4).replace(/a/g, \"$'\")"), tooLong},
		{"global replace with $` over UTF-16 text", catchSrc("'ä'.repeat(1e4).replace(/ä/g, '$`')"), tooLong},
		{"replace with many $&", catchSrc("'a'.repeat(2e5).replace(/a+/, '$&'.repeat(100))"), tooLong},
		{"replace with a big piece", catchSrc("const big = 'x'.repeat(1e6); 'a'.repeat(100).replace(/a/g, () => big)"), tooLong},
		{"regexp2 replace with a big piece", catchSrc("const big = 'x'.repeat(1e6); 'a'.repeat(100).replace(/a(?=a|$)/g, () => big)"), tooLong},
		{"generic replace with $'", catchSrc("const r = /a/g; Object.defineProperty(r, 'x', {value: 1}); 'a'.repeat(1e4).replace(r, \"$'\")"), tooLong},
		{"match of every position", catchSrc("'a'.repeat(3e6).match(/a/g)"), tooMany},
		{"match of many groups", catchSrc("'a'.repeat(3e6).match(/(a)(a)?(a)?(a)?(a)?(a)?(a)?(a)?(a)?(a)?/g).length"), tooMany},
		{"replace with many groups", catchSrc("'a'.repeat(3e6).replace(/(a)(a)?(a)?(a)?(a)?(a)?(a)?(a)?(a)?(a)?/g, '')"), tooMany},
		{"split of every position", catchSrc("'x'.repeat(3e6).split(/(?:)/)"), tooMany},
		{"regexp2 split of every position", catchSrc("'x'.repeat(6e5).split(/(?=x)/)"), tooMany},
		{"generic match of an endless exec", catchSrc("RegExp.prototype[Symbol.match].call({exec() { return ['a'] }, flags: 'g'}, 'abc')"), tooMany},
		{"generic replace of a native endless exec", catchSrc("RegExp.prototype[Symbol.replace].call({exec: Object, flags: 'g'}, 'abc', '')"), tooMany},
		// Under the bounds.
		{"split with a limit", "return 'x'.repeat(4e6).split(/(?:)/, 2).join()", "x,x"},
		{"regexp2 split with a limit", "return 'x'.repeat(4e6).split(/(?=x)/, 2).join()", "x,x"},
		{"replace with one $'", "return 'a'.repeat(1e3).replace(/a/g, \"$'\").length", "499500"},
		{"match of many", "return 'ab'.repeat(1e5).match(/a/g).length", "100000"},
	}
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	runTextCases(t, p, tests, nil)
}

// TestRegExpGuardsConvertOnce pins the RegExp guards against values that answer
// differently the second time: each is read as often as goja reads it (compared with bare
// goja), and a huge second answer changes nothing.
func TestRegExpGuardsConvertOnce(t *testing.T) {
	huge := "'('.repeat(2e6) + ')'.repeat(2e6)"
	once := func(setup, expr string) string { return "(() => { " + setup + "; return [" + expr + "] })()" }
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	differential(t, p, []string{
		once("const o = {n: 0, toString() { return this.n++ ? "+huge+" : 'a' }}", "new RegExp(o).source, o.n"),
		once("const f = {n: 0, toString() { return this.n++ ? 'gg' : 'g' }}", "new RegExp('a', f).flags, f.n"),
		once("const o = {n: 0, get [Symbol.match]() { return this.n++ ? false : true }, source: 'b', flags: '', toString() { return "+huge+" }}", "new RegExp(o).source, o.n"),
		once("const o = {n: 0, get [Symbol.match]() { this.n++; return this.n > 1 }, source: 'b', flags: '', toString() { return 'c' }}", "RegExp(o).source, o.n"),
		once("const o = {n: 0, toString() { return this.n++ ? "+huge+" : 'q' }}", "/a/.compile(o).source, o.n"),
		once("let n = 0; const r = /,/; Object.defineProperty(r, 'constructor', {get() { n++; return n > 1 ? undefined : RegExp }})", "'a,b'.split(r).join('|'), n"),
		once("const seen = []; const r = /a/g; Object.defineProperty(r, 'flags', {get() { seen.push('flags'); return 'g' }}); Object.defineProperty(r, 'constructor', {get() { seen.push('constructor'); return RegExp }}); r.lastIndex = {valueOf() { seen.push('lastIndex'); return 1 }}", "[...'aaa'.matchAll(r)].length, seen.join()"),
		once("const seen = []; const o = {get [Symbol.match]() { seen.push('match'); return seen.length > 1 }, source: 'b', flags: 'g', toString() { return 'x' }}", "'abb'.match(o), seen.length"),
		once("const seen = []; const o = {get [Symbol.match]() { seen.push('match'); return seen.length > 1 ? true : undefined }, source: 'b', flags: 'g', toString() { return 'x' }}", "'abb'.match(o), seen.length"),
		once("const seen = []; const r = /b/g; Object.defineProperty(r, 'flags', {get() { seen.push('flags'); return 'g' }}); Object.defineProperty(r, 'exec', {value: function (s) { seen.push('exec'); return RegExp.prototype.exec.call(this, s) }})", "'abb'.replace(r, 'x'), seen.join()"),
		once("const seen = []; const r = /b/; Object.defineProperty(r, 'flags', {get() { seen.push('flags'); return 'y' }}); r.constructor = {get [Symbol.species]() { seen.push('species'); return RegExp }}", "'abb'.split(r), seen.join()"),
	})
}

// TestRegExpLoopInterruptible checks that a global operation on a pattern that needs
// regexp2, too slow to finish within the compute budget, ends the run with a timeout and
// hands the VM goroutine back (one native call per match: the pool's Close would
// otherwise wait for the whole operation).
func TestRegExpLoopInterruptible(t *testing.T) {
	p, err := NewPool(&PoolOptions{Size: 1, Grace: 50 * time.Millisecond, Limits: &Limits{Compute: 100 * time.Millisecond, HeapBytes: 256 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{
		"return 'a'.repeat(3e6).replace(/(?=a)/g, '').length",
		"return 'ab'.repeat(2e5).replace(/(?=(a+)+b)a/g, 'x').length",
		"return 'ä'.repeat(3e6).split(/(?:)/).length",
	} {
		res, err := p.Run(context.Background(), code, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Failure.Kind != KindTimeout {
			t.Errorf("%s: %.200s, want a timeout", code, res.Text())
		}
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}

// TestRegExpGuardsLazy checks when the RegExp guards are installed: not for a program that
// cannot reach a RegExp, and before it runs for one that can.
func TestRegExpGuardsLazy(t *testing.T) {
	p := newTestPool(t, nil)
	for _, tt := range []struct {
		code string
		want bool
	}{
		{"return 'a/b'.split('/').length / 2", false},
		{"// a comment / with slashes\nreturn 1", false},
		{"return 'x'.match('a')", false},
		{"return /a/.test('a')", true},
		{"return new RegExp('a')", true},
		{"return globalThis['Reg' + 'Exp']", true},
		{"return (function () { return this })", true},
	} {
		prg, err := Prepare(tt.code, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.acquire()
		if err != nil {
			t.Fatal(err)
		}
		r.guardLazyFor(prg.code, prg.regexps)
		if got := r.lazyInstalled(familyRegExp); got != tt.want {
			t.Errorf("%q: RegExp guarded = %v, want %v", tt.code, got, tt.want)
		}
	}
	// eval and the Function constructors scan the source they compile.
	res := runCode(t, p, "return [eval('/a/').constructor === eval('RegExp'), typeof Function('return /b/')().exec, eval('new RegExp(\"(\".repeat(2000) + \")\".repeat(2000))')].join()", nil)
	if !strings.Contains(res.Text(), "nesting deeper than 1000 levels") {
		t.Errorf("a RegExp built by eval'd code: %s", res.Text())
	}
	// A regular expression literal is bounded by the program's nesting scan.
	res = runCode(t, p, "return /"+strings.Repeat("(", MaxNesting+1)+strings.Repeat(")", MaxNesting+1)+"/", nil)
	if res.Failure == nil || !strings.Contains(res.Failure.Message, nestingMessage) {
		t.Errorf("a literal nested past MaxNesting: %s", res.Text())
	}
}

// TestRegExpInternals pins what regexpState reads of goja's internals: if goja's layout
// changes, the guards fall back to the generic path for every RegExp (see
// guards_regexp_internals.go) and this test says so.
func TestRegExpInternals(t *testing.T) {
	if regexpFields() == nil {
		t.Fatal("goja's RegExp layout is not the one regexpState expects")
	}
	p := newTestPool(t, nil)
	r, err := p.acquire()
	if err != nil {
		t.Fatal(err)
	}
	r.installLazy(familyRegExp)
	if r.text.re.stdProto == 0 {
		t.Fatal("goja's RegExp.prototype marker was not found")
	}
	get := func(src string) *goja.Object {
		v, err := r.vm.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		return v.(*goja.Object)
	}
	for _, tt := range []struct {
		src   string
		want  regexpState
		flags string
	}{
		{"/a/g", regexpState{ok: true, standard: true, global: true}, "g"},
		{"/a(?=b)/imsuy", regexpState{ok: true, standard: true, regexp2: true, ignoreCase: true, multiline: true, dotAll: true, unicode: true, sticky: true}, "imsuy"},
		{"(() => { const r = /a/; Object.defineProperty(r, 'x', {value: 1}); return r })()", regexpState{ok: true}, ""},
		{"(() => { const r = /a/; Object.setPrototypeOf(r, Object.create(RegExp.prototype)); return r })()", regexpState{ok: true}, ""},
		{"({})", regexpState{}, ""},
	} {
		got := r.regexpState(get(tt.src))
		got.goRe, got.groups = nil, 0
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(regexpState{})); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.src, diff)
		}
		if got.ok && got.flags() != tt.flags {
			t.Errorf("%s: flags %q, want %q", tt.src, got.flags(), tt.flags)
		}
	}
	src, _ := r.regexpInternals(get("/a\\/b/"))
	if src.String() != "a\\/b" {
		t.Errorf("source %q", src.String())
	}
	src, _ = r.regexpInternals(get("new RegExp('ä/x\\n')"))
	if src.String() != "ä/x\n" {
		t.Errorf("source %q", src.String())
	}
	// Redefining exec on RegExp.prototype takes every RegExp off goja's fast path.
	get("RegExp.prototype.exec = RegExp.prototype.exec, /x/")
	if r.regexpState(get("/a/")).standard {
		t.Error("a RegExp is standard after RegExp.prototype.exec was redefined")
	}
}

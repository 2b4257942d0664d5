package runtime

import "testing"

// TestBigIntBounds pins the BigInt guards: a string of more than 100000 digits is a
// SyntaxError before goja's quadratic parse, toString of more than 2^23 bits and asUintN
// of a negative value over the budget are V8's RangeError, and asIntN/asUintN with a huge
// bit count no longer build 2 ** bits.
func TestBigIntBounds(t *testing.T) {
	const tooLong = "SyntaxError: Cannot convert a string of more than 100000 digits to a BigInt"
	runGuardCases(t, []textCase{
		{name: "a long string", code: catchExpr("BigInt('1'.repeat(100001))"), want: tooLong},
		{name: "a long string with spaces", code: catchExpr("BigInt(' ' + '1'.repeat(100001) + ' ')"), want: tooLong},
		{name: "a long hex string", code: catchExpr("BigInt('0x' + 'f'.repeat(100000))"), want: tooLong},
		{name: "spaces do not count", code: "return String(BigInt(' '.repeat(200000) + '12345' + ' '.repeat(10)))", want: "12345"},
		{name: "a long string through asIntN", code: catchExpr("BigInt.asIntN(64, '9'.repeat(200000))"), want: tooLong},
		{name: "a long string from toString, once", code: "let n = 0; try { BigInt.asUintN(8, {toString() { return n++ ? '1' : '1'.repeat(200000) }, valueOf: null}) } catch (e) { return e.name + ' ' + n }", want: "SyntaxError 1"},
		{name: "toString over 2^23 bits", code: catchExpr("(1n << 8388608n).toString()"), want: "RangeError: Maximum BigInt size exceeded"},
		{name: "toString with a radix", code: catchExpr("(1n << 8388608n).toString(2)"), want: "RangeError: Maximum BigInt size exceeded"},
		{name: "toLocaleString", code: catchExpr("(-(1n << 8388608n)).toLocaleString()"), want: "RangeError: Maximum BigInt size exceeded"},
		{name: "toString of a wrapper", code: catchExpr("Object(1n << 8388608n).toString()"), want: "RangeError: Maximum BigInt size exceeded"},
		{name: "toString within the bound", code: "return (1n << 8388607n).toString(32).length", want: "1677722"},
		{name: "asUintN of a negative value over the budget", code: catchExpr("BigInt.asUintN(2 ** 37, -1n)"), want: "RangeError: Maximum BigInt size exceeded"},
		{name: "asUintN with a huge bit count", code: "return [BigInt.asUintN(2 ** 37, 5n) === 5n, BigInt.asUintN(2 ** 53 - 1, 0n) === 0n, BigInt.asUintN(2 ** 40, true) === 1n, BigInt.asUintN(2 ** 40, '77') === 77n].join()", want: "true,true,true,true"},
		{name: "asIntN with a huge bit count", code: "return [BigInt.asIntN(2 ** 37, -5n) === -5n, BigInt.asIntN(2 ** 40, 5n) === 5n, BigInt.asIntN(2 ** 53 - 1, -(2n ** 100n)) === -(2n ** 100n)].join()", want: "true,true,true"},
		{name: "asUintN of a number", code: catchExpr("BigInt.asUintN(2 ** 40, 5)"), want: "TypeError: Cannot convert 5 to a BigInt"},
		{name: "BigInt reached only through eval", code: catchExpr("const B = eval('1' + 'n').constructor; B('1'.repeat(100001))"), want: tooLong},
		{name: "bits converted once", code: "let n = 0; const bits = {valueOf() { return n++ ? 2 ** 40 : 8 }}; return String(BigInt.asUintN(bits, 257n)) + ' ' + n", want: "1 1"},
	})
}

// TestBigIntUnchanged compares the guarded BigInt with goja's own.
func TestBigIntUnchanged(t *testing.T) {
	runDifferential(t, map[string]string{
		"conversions": "return [BigInt(0), BigInt(-5), BigInt('123'), BigInt(' 0x1F '), BigInt('0b101'), BigInt(true), BigInt(5n), BigInt({valueOf() { return '77' }}), BigInt({valueOf() { return 7n }}), BigInt(Object(9n)), BigInt('1'.repeat(100000)) % 7n, BigInt()].map(String).join()",
		"errors":      "const out = []; for (const v of [1.5, NaN, Infinity, '12x', '1.5', undefined, null, Symbol('s'), {}, {[Symbol.toPrimitive]: 5}, {[Symbol.toPrimitive]() { return {} }}, {valueOf() { return Symbol() }}]) { try { out.push(String(BigInt(v))) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"new":         catchExpr("new BigInt(1)"),
		"shape": "return [typeof BigInt, BigInt.name, BigInt.length, Object.getOwnPropertyNames(BigInt).join(), Function.prototype.toString.call(BigInt), (1n).constructor === BigInt, BigInt.prototype.constructor === BigInt, Object.getPrototypeOf(1n) === BigInt.prototype, 1n instanceof BigInt, Object(1n) instanceof BigInt, ({}) instanceof BigInt, " +
			"JSON.stringify(Object.getOwnPropertyDescriptor(BigInt, 'prototype')), JSON.stringify(Object.getOwnPropertyDescriptor(BigInt.prototype, 'constructor').writable), BigInt.asIntN.name, BigInt.asIntN.length, BigInt.prototype.toString.name, BigInt.prototype.toString.length].join(' | ')",
		"statics":         "return [BigInt.asIntN(8, 255n), BigInt.asIntN(8, 127n), BigInt.asUintN(8, -1n), BigInt.asUintN(0, 5n), BigInt.asIntN(1, 1n), BigInt.asUintN(64, -1n), BigInt.asIntN(3, '5'), BigInt.asUintN(4, {valueOf() { return 17n }})].map(String).join()",
		"static errors":   "const out = []; for (const f of [() => BigInt.asUintN(8), () => BigInt.asUintN(-1, 1n), () => BigInt.asUintN(2 ** 53, 1n), () => BigInt.asIntN(8, 1.5), () => BigInt.asIntN(8, 'x')]) { try { out.push(String(f())) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"toString":        "return [(255n).toString(), (255n).toString(16), (-255n).toString(2), (0n).toLocaleString(), Object(7n).toString()].join()",
		"toString errors": "const out = []; for (const f of [() => (1n).toString(1), () => BigInt.prototype.toString.call(1), () => BigInt.prototype.toString.call({})]) { try { out.push(f()) } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
	})
}

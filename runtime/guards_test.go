package runtime

import "testing"

// TestGuardsBehave pins what a program sees of the guarded built-ins: their names,
// lengths, sources and descriptors are the originals', their ordinary results and the
// originals' own errors are unchanged, and an oversized call throws a catchable RangeError
// of the intrinsic class, whatever the program did to the global RangeError.
func TestGuardsBehave(t *testing.T) {
	tests := []textCase{
		{name: "names, lengths and sources", code: `const fs = [String.prototype.repeat, String.prototype.padStart, String.prototype.padEnd, Array.prototype.fill, Array.prototype.join, Array.from]
return fs.map(f => [f.name, f.length, String(f), typeof f, Object.getPrototypeOf(f) === Function.prototype,
	...['name', 'length'].map(k => JSON.stringify(Object.getOwnPropertyDescriptor(f, k)))].join(' ')).join('\n')`,
			want: `repeat 1 function repeat() { [native code] } function true {"value":"repeat","writable":false,"enumerable":false,"configurable":true} {"value":1,"writable":false,"enumerable":false,"configurable":true}
padStart 1 function padStart() { [native code] } function true {"value":"padStart","writable":false,"enumerable":false,"configurable":true} {"value":1,"writable":false,"enumerable":false,"configurable":true}
padEnd 1 function padEnd() { [native code] } function true {"value":"padEnd","writable":false,"enumerable":false,"configurable":true} {"value":1,"writable":false,"enumerable":false,"configurable":true}
fill 1 function fill() { [native code] } function true {"value":"fill","writable":false,"enumerable":false,"configurable":true} {"value":1,"writable":false,"enumerable":false,"configurable":true}
join 1 function join() { [native code] } function true {"value":"join","writable":false,"enumerable":false,"configurable":true} {"value":1,"writable":false,"enumerable":false,"configurable":true}
from 1 function from() { [native code] } function true {"value":"from","writable":false,"enumerable":false,"configurable":true} {"value":1,"writable":false,"enumerable":false,"configurable":true}`},
		{name: "where they live", code: `return [[String.prototype, 'repeat'], [String.prototype, 'padStart'], [String.prototype, 'padEnd'], [Array.prototype, 'fill'], [Array.prototype, 'join'], [Array, 'from']]
	.map(([o, k]) => JSON.stringify(Object.getOwnPropertyDescriptor(o, k), (k, v) => typeof v === 'function' ? v.name : v)).join('\n')`,
			want: `{"value":"repeat","writable":true,"enumerable":false,"configurable":true}
{"value":"padStart","writable":true,"enumerable":false,"configurable":true}
{"value":"padEnd","writable":true,"enumerable":false,"configurable":true}
{"value":"fill","writable":true,"enumerable":false,"configurable":true}
{"value":"join","writable":true,"enumerable":false,"configurable":true}
{"value":"from","writable":true,"enumerable":false,"configurable":true}`},
		{name: "ordinary results", code: `return JSON.stringify(['ab'.repeat(3), '5'.padStart(3, '0'), 'x'.padEnd(3, '-'), [1, 2, 3, 4].fill(0, 1, -1), [1, [2, 3]].join('; '), String([1, 2]),
	Array.from({length: 3}), Array.from('hé'), Array.from({length: 2}, (_, i) => i * 2), Array.from(new Set([1, 1, 2])),
	String.prototype.repeat.call(5, 2), Array.prototype.join.call({length: 2, 0: 'a', 1: 'b'}, '+'), Array.prototype.fill.call({length: 2}, 7)])`,
			want: `["ababab","005","x--",[1,0,0,4],"1; 2,3","1,2",[null,null,null],["h","é"],[0,2],[1,2],"55","a+b",{"0":7,"1":7,"length":2}]`},
		{name: "the originals' own errors", code: `const out = []
for (const f of [() => 'x'.repeat(-1), () => 'x'.repeat(Infinity), () => String.prototype.repeat.call(null, 2), () => Array.prototype.fill.call(undefined), () => Array.from([], 5), () => Array.from(null)]) {
	try { f(); out.push('no error') } catch (e) { out.push(String(e)) }
}
return out.join('\n')`,
			want: "RangeError: Invalid count value\nRangeError: Invalid string length\nTypeError: Value is not object coercible\nTypeError: Cannot convert undefined or null to object\nTypeError: 5 is not a function\nTypeError: Cannot convert undefined or null to object"},
		{name: "oversized calls throw catchable RangeErrors", code: `const out = []
for (const f of [() => 'x'.repeat(1e10), () => 'x'.padStart(1e10), () => 'x'.padEnd(1e10), () => new Array(1e9).fill(0), () => [].fill.call({length: 1e10}, 1, 5), () => new Array(1e8).join('ab'), () => Array.from({length: 1e10})]) {
	try { f(); out.push('no error') } catch (e) { out.push([e instanceof RangeError, e.constructor === RangeError, Object.getPrototypeOf(e) === RangeError.prototype, Object.keys(e).length, String(e)].join(' ')) }
}
return out.join('\n')`,
			want: "true true true 0 RangeError: Invalid string length\ntrue true true 0 RangeError: Invalid string length\ntrue true true 0 RangeError: Invalid string length\ntrue true true 0 RangeError: Invalid array length\ntrue true true 0 RangeError: Invalid array length\ntrue true true 0 RangeError: Invalid string length\ntrue true true 0 RangeError: Invalid array length"},
		{name: "the RangeError's stack and message descriptor", code: `try { 'x'.repeat(1e10) } catch (e) { return e.stack + '\n' + JSON.stringify(Object.getOwnPropertyDescriptor(e, 'message')) }`,
			want: "RangeError: Invalid string length\n\tat repeat (native)\n\tat program.js:1:31(5)\n\tat program.js:2:3(2)\n\n{\"value\":\"Invalid string length\",\"writable\":true,\"enumerable\":false,\"configurable\":true}"},
		{name: "a replaced global RangeError changes nothing", code: `const R = RangeError; globalThis.RangeError = function () { throw new Error('hijacked') }
try { 'x'.repeat(1e10) } catch (e) { return [e instanceof R, e.name, e.message].join() }`,
			want: "true,RangeError,Invalid string length"},
		{name: "an uncaught one fails the run with its stack", code: "return 'x'.padEnd(1e10).length",
			want: "Error: code run failed (exception): RangeError: Invalid string length\n    at padEnd (native)\n    at program.js:1:18"},
		{name: "DOM-named errors", code: `try { atob('!') } catch (e) { return [e.name, e.message, e instanceof Error, e.constructor === Error, Object.getPrototypeOf(e) === Error.prototype, e.stack.split('\n')[0]].join() }`,
			want: "InvalidCharacterError,The string to be decoded is not correctly encoded.,true,true,true,InvalidCharacterError: The string to be decoded is not correctly encoded."},
	}
	runTextCases(t, newTestPool(t, nil), tests, nil)
}

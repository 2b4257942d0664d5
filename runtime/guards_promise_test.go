package runtime

import "testing"

// TestPromiseBounds pins the input bound of the Promise combinators: past HeapBytes/4096
// elements (8192 at 32 MiB) the returned promise rejects with V8's RangeError and the
// program's iterator is closed; within it, and for what the combinators read and in
// which order, nothing changes.
func TestPromiseBounds(t *testing.T) {
	await := func(expr string) string {
		return "try { await " + expr + "; return 'resolved' } catch (e) { return e.name + ': ' + e.message }"
	}
	runGuardCases(t, []textCase{
		{name: "all", code: await("Promise.all(Array.from({length: 1e4}, (_, i) => i))"), want: "RangeError: Too many elements passed to Promise.all"},
		{name: "allSettled", code: await("Promise.allSettled(new Array(1e4).fill(0))"), want: "RangeError: Too many elements passed to Promise.allSettled"},
		{name: "any", code: await("Promise.any(new Set(Array.from({length: 1e4}, (_, i) => i)))"), want: "RangeError: Too many elements passed to Promise.any"},
		{name: "race", code: await("Promise.race('x'.repeat(1e4))"), want: "RangeError: Too many elements passed to Promise.race"},
		{name: "a sparse array", code: await("Promise.all(Array(2 ** 32 - 1))"), want: "RangeError: Invalid array length"},
		{name: "an endless iterator is closed", code: "let closed = false, n = 0; const it = {[Symbol.iterator]() { return {next() { return {value: n++, done: false} }, return() { closed = true; return {} }} }}; try { await Promise.all(it) } catch (e) { return [e.message, closed, n].join() }", want: "Too many elements passed to Promise.all,true,8193"},
		{name: "at the bound", code: "return (await Promise.all(new Array(8192).fill(1))).length", want: "8192"},
		{name: "a subclass", code: "class P extends Promise {}; const p = P.all([1, 2]); return (p instanceof P) + ' ' + (await p).join()", want: "true 1,2"},
	})
}

// TestPromiseCombinatorsUnchanged compares the guarded combinators with goja's own.
func TestPromiseCombinatorsUnchanged(t *testing.T) {
	const logged = "const log = []; const iterable = (n) => ({[Symbol.iterator]() { log.push('iterator'); let i = 0; return {get next() { log.push('get next'); return () => { log.push('next ' + i); return i < n ? {value: i++, done: false} : {done: true} } }, get return() { log.push('get return'); return () => { log.push('return'); return {} } }} }});"
	runDifferential(t, map[string]string{
		"results":             "const r = await Promise.all([1, Promise.resolve(2), 3]); const s = await Promise.allSettled([1, Promise.reject(new Error('x'))]); const a = await Promise.any([Promise.reject(1), 5]); const ra = await Promise.race([new Promise(() => {}), 7]); return [r.join(), JSON.stringify(s.map(x => x.status)), a, ra].join(' | ')",
		"empty":               "return [(await Promise.all([])).length, (await Promise.allSettled([])).length, await Promise.any([]).catch(e => e.constructor.name + ' ' + e.errors.length)].join()",
		"the reads":           logged + "const r = await Promise.all(iterable(2)); await Promise.race(iterable(1)); return log.join(',') + ' ' + r.join()",
		"thenables":           "const log = []; const t = {then(ok) { log.push('then'); ok(5) }}; const r = await Promise.all([t, t]); return log.join() + ' ' + r.join()",
		"resolve throws":      logged + "const P = function (ex) { return new Promise(ex) }; P.resolve = () => { throw new Error('no') }; try { await Promise.all.call(P, iterable(3)) } catch (e) { log.push(e.message) } return log.join(',')",
		"a throwing iterator": "let n = 0; const it = {[Symbol.iterator]() { return {next() { if (n++ > 1) throw new Error('boom ' + n); return {value: n, done: false} }} }}; try { await Promise.all(it); return 'no' } catch (e) { return e.message }",
		"not iterable":        "const out = []; for (const v of [5, {}, {[Symbol.iterator]: 5}, {[Symbol.iterator]: '%d'}, {[Symbol.iterator]() { return 5 }}, {[Symbol.iterator]() { return {} }}, undefined]) { try { await Promise.all(v); out.push('ok') } catch (e) { out.push(e.name + ': ' + e.message) } } return out.join(' | ')",
		"this":                catchExpr("Promise.all.call(5, [])"),
		"strings":             "return (await Promise.all('abc')).join() + (await Promise.race('xyz'))",
		"shape":               "return ['all', 'allSettled', 'any', 'race'].map(n => [Promise[n].name, Promise[n].length, JSON.stringify(Object.getOwnPropertyDescriptor(Promise, n).writable)].join(':')).join()",
	})
}

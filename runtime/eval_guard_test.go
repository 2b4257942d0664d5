package runtime

import (
	"strings"
	"testing"
)

// eval and the Function constructors keep working, and a source that nests too deeply
// throws a catchable SyntaxError instead of reaching goja's parser.
func TestEvalGuards(t *testing.T) {
	p := newTestPool(t, nil)
	const deep = "'['.repeat(300) + ']'.repeat(300)"
	const catchIt = "; return [e instanceof SyntaxError, e.name, e.message] }"
	const want = "[\n  true,\n  \"SyntaxError\",\n  \"nesting deeper than 256 levels\"\n]"
	tests := []textCase{
		{"eval evaluates", "return eval('1 + 1')", "2"},
		{"eval is indirect: global scope", "const a = 1; eval('var g = typeof a'); return globalThis.g", "undefined"},
		{"eval passes a non-string through", "return [eval(42), eval() === undefined]", "[\n  42,\n  true\n]"},
		{"eval keeps its shape", "const d = Object.getOwnPropertyDescriptor(globalThis, 'eval'); return [eval.name, eval.length, d.writable, d.enumerable, d.configurable]",
			"[\n  \"eval\",\n  1,\n  true,\n  false,\n  true\n]"},
		{"eval of a deep source", "try { eval(" + deep + ") } catch (e) { " + catchIt, want},
		{"indirect eval of a deep source", "try { (0, globalThis.eval)(" + deep + ") } catch (e) { " + catchIt, want},
		{"eval of a killer source", "try { eval('['.repeat(400000) + ']'.repeat(400000)) } catch (e) { return e.message }", "nesting deeper than 256 levels"},
		{"Function builds functions", "return [new Function('a', 'b', 'return a + b')(1, 2), Function('return 7')(), new Function()() === undefined]", "[\n  3,\n  7,\n  true\n]"},
		{"Function keeps its shape", "return [Function.name, Function.length, Function.prototype === Object.getPrototypeOf(function () {}), (function () {}).constructor === Function, Function.prototype.constructor === Function, new Function('') instanceof Function, typeof Function, Object.keys(globalThis).includes('Function'), JSON.stringify(Object.getOwnPropertyDescriptor(Function, 'prototype'))]",
			"[\n  \"Function\",\n  1,\n  true,\n  true,\n  true,\n  true,\n  \"function\",\n  false,\n  \"{\\\"writable\\\":false,\\\"enumerable\\\":false,\\\"configurable\\\":false}\"\n]"},
		{"Function can be subclassed", "class F extends Function {}; const f = new F('return 1'); return [f instanceof F, f instanceof Function, f()]", "[\n  true,\n  true,\n  1\n]"},
		{"Function of a deep body", "try { new Function('return ' + " + deep + ") } catch (e) { " + catchIt, want},
		{"Function of deep parameters", "try { Function('a = ' + " + deep + ", 'return a') } catch (e) { " + catchIt, want},
		{"Function of parameters deep only together", "try { new Function('a = ' + '['.repeat(200), '['.repeat(100) + ']'.repeat(300), '') } catch (e) { " + catchIt, want},
		{"Function converts each argument once", "let n = 0; const p = { toString() { return n++ ? " + deep + " : 'x' } }; return [new Function(p, 'return x')(5), n]", "[\n  5,\n  1\n]"},
		{"Function rejects a symbol", "try { new Function(Symbol('s')) } catch (e) { return e instanceof TypeError }", "true"},
		{"AsyncFunction", "const AF = (async function () {}).constructor; return [AF.name, AF.length, AF === Object.getPrototypeOf(async () => {}).constructor, AF.prototype === Object.getPrototypeOf(async function () {}), await new AF('a', 'return a * 2')(21), AF('') instanceof AF]",
			"[\n  \"AsyncFunction\",\n  1,\n  true,\n  true,\n  42,\n  true\n]"},
		{"AsyncFunction of a deep body", "const AF = (async function () {}).constructor; try { new AF('return ' + " + deep + ") } catch (e) { " + catchIt, want},
		{"GeneratorFunction", "const GF = (function* () {}).constructor; return [GF.name, GF.length, [...new GF('yield 1; yield 2')()], GF('') instanceof GF]",
			"[\n  \"GeneratorFunction\",\n  1,\n  [\n    1,\n    2\n  ],\n  true\n]"},
		{"GeneratorFunction of a deep body", "const GF = (function* () {}).constructor; try { GF(" + deep + ") } catch (e) { " + catchIt, want},
		{"GeneratorFunction reached through eval", "const GF = eval('(function* () {})').constructor; try { GF(" + deep + ") } catch (e) { " + catchIt, want},
		{"GeneratorFunction reached through Function", "const GF = Function('return function* () {}')().constructor; try { GF(" + deep + ") } catch (e) { " + catchIt, want},
		{"GeneratorFunction reached through an object method", "const GF = Object.getPrototypeOf({ *g() {} }.g).constructor; try { GF(" + deep + ") } catch (e) { " + catchIt, want},
	}
	runTextCases(t, p, tests, nil)
}

// An uncaught guard error fails the run like any SyntaxError a program throws.
func TestEvalGuardUncaught(t *testing.T) {
	p := newTestPool(t, nil)
	res := runCode(t, p, "eval("+strings.Repeat("'('", 1)+".repeat(300))", nil)
	if res.Failure == nil || !strings.HasPrefix(res.Failure.Message, "SyntaxError: nesting deeper than 256 levels\n    at ") {
		t.Errorf("failure = %+v, want the SyntaxError with its stack", res.Failure)
	}
}

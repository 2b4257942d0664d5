package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompletion(t *testing.T) {
	lossy := &Failure{Kind: KindInvalidOutput, Message: "program completion must be lossless JSON"}
	tests := []struct {
		name    string
		code    string
		want    string // Result.Value
		failure *Failure
	}{
		{name: "undefined means no result", code: "return undefined", want: ""},
		{name: "null is a result", code: "return null", want: "null"},
		{name: "numbers use JS formatting", code: "return [1, 1.5, 1e21, 1e-7, 123456789012345680000, 0.1 + 0.2]", want: "[1,1.5,1e+21,1e-7,123456789012345680000,0.30000000000000004]"},
		{name: "strings escape like JSON.stringify", code: `return "q\"b\\\n\t\u0001é€😀\u2028"`, want: "\"q\\\"b\\\\\\n\\t\\u0001é€😀\u2028\""},
		{name: "surrogate pairs and U+FFFD are kept", code: `return {'\ufffd': '\ud83d\ude00\ufffd'}`, want: "{\"\ufffd\":\"😀\ufffd\"}"},
		{name: "lone surrogates", code: `return '\ud800x'`, failure: lossy},
		{name: "a trailing lone surrogate", code: `return ['x\ud83d']`, failure: lossy},
		{name: "a lone low surrogate", code: `return {s: '\ude00'}`, failure: lossy},
		{name: "lone surrogates in keys", code: `return {a: {'k\udc00': 1}}`, failure: lossy},
		{name: "symbol keys", code: `return {a: 1, [Symbol('s')]: 2}`, failure: lossy},
		{name: "symbol keys on arrays", code: `const a = [1]; a[Symbol.iterator] = null; return a`, failure: lossy},
		{name: "non-enumerable symbol keys are not data", code: `const o = {a: 1}; Object.defineProperty(o, Symbol('s'), {value: 2}); return o`, want: `{"a":1}`},
		{name: "extra properties on arrays", code: `const a = [1, 2]; a.total = 3; return {a}`, failure: lossy},
		{name: "a regexp match keeps its extra properties", code: `return 'a-b'.match(/-/)`, failure: lossy},
		{name: "non-enumerable array properties are not data", code: `const a = [1]; Object.defineProperty(a, 'x', {value: 2}); return a`, want: `[1]`},
		{name: "key order is the object's", code: "return {b: 1, a: 2, 10: 3, 2: 4}", want: `{"2":4,"10":3,"b":1,"a":2}`},
		{name: "null-prototype objects", code: "const o = Object.create(null); o.k = 1; o.__proto__ = 2; return o", want: `{"k":1,"__proto__":2}`},
		{name: "shared references are not cycles", code: "const x = {v: 1}; return [x, x]", want: `[{"v":1},{"v":1}]`},
		{name: "getters are read", code: "return {get g() { return 7 }}", want: `{"g":7}`},
		{name: "deep nesting", code: "let v = 1; for (let i = 0; i < 1000; i++) v = [v]; return v", want: strings.Repeat("[", 1000) + "1" + strings.Repeat("]", 1000)},
		{name: "nesting past MaxDepth", code: "let v = 1; for (let i = 0; i < 1001; i++) v = [v]; return v", failure: lossy},
		{name: "nesting a million deep", code: "let v = 1; for (let i = 0; i < 1e6; i++) v = {v}; return v", failure: lossy},
		{name: "-0", code: "return -0", failure: lossy},
		{name: "NaN", code: "return [NaN]", failure: lossy},
		{name: "Infinity", code: "return {x: Infinity}", failure: lossy},
		{name: "sparse arrays", code: "return [1, , 3]", failure: lossy},
		{name: "undefined inside", code: "return {a: undefined}", failure: lossy},
		{name: "cycles", code: "const o = {}; o.o = o; return o", failure: lossy},
		{name: "class instances", code: "class P { constructor() { this.x = 1 } }; return new P()", failure: lossy},
		{name: "array subclasses", code: "class L extends Array {}; return new L()", failure: lossy},
		{name: "Dates", code: "return {d: new Date(0)}", failure: lossy},
		{name: "Maps", code: "return new Map()", failure: lossy},
		{name: "BigInt", code: "return 1n", failure: lossy},
		{name: "functions", code: "return {f() {}}", failure: lossy},
		{name: "symbols", code: "return Symbol('s')", failure: lossy},
		{name: "throwing getters", code: "return {get g() { throw new Error('no') }}", failure: lossy},
		{name: "proxies", code: "return new Proxy({}, {})", failure: lossy},
	}
	p := newTestPool(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCode(t, p, tt.code, nil)
			if diff := cmp.Diff(tt.failure, res.Failure); diff != "" {
				t.Fatalf("failure mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, string(res.Value)); diff != "" {
				t.Errorf("value mismatch (-want +got):\n%s", diff)
			}
			if len(res.Value) > 0 && !json.Valid(res.Value) {
				t.Errorf("value is not valid JSON: %s", res.Value)
			}
		})
	}
}

// TestOutputLimit pins the output ledger at its exact byte boundaries: the logs array as
// JSON text plus the completion's JSON (or the failure message as a JSON string).
func TestOutputLimit(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		limit    int
		wantLogs []string
		failure  *Failure
	}{
		{name: "a multi-byte result fits exactly", code: "return '€'", limit: 7},
		{name: "a multi-byte result one byte over", code: "return '€'", limit: 6, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 6 bytes"}},
		{name: "logs plus result fit exactly", code: "console.log('abc'); return 'xy'", limit: 11, wantLogs: []string{"abc"}},
		{name: "logs plus result one over keeps the logs", code: "console.log('abc'); return 'xy'", limit: 10, wantLogs: []string{"abc"}, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 10 bytes"}},
		{name: "multi-byte log fits exactly", code: "console.log('€€')", limit: 10, wantLogs: []string{"€€"}},
		{name: "multi-byte log one over", code: "console.log('€€')", limit: 9, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 9 bytes"}},
		{name: "the fitting prefix of logs is kept", code: "console.log('a'); console.log('b'); console.log('c')", limit: 10, wantLogs: []string{"a", "b"}, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 10 bytes"}},
		{name: "a thrown string fits exactly", code: "throw 'boom'", limit: 8, failure: &Failure{Kind: KindException, Message: "boom"}},
		{name: "a thrown string one over", code: "throw 'boom'", limit: 7, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 7 bytes"}},
		{name: "escapes count as encoded", code: "console.log('\\n')", limit: 6, wantLogs: []string{"\n"}},
		{name: "a giant result stops early", code: "return 'x'.repeat(1e6)", limit: 1000, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 1000 bytes"}},
		{name: "a giant log stops early", code: "console.log('ok'); console.log('x'.repeat(1e6))", limit: 1000, wantLogs: []string{"ok"}, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 1000 bytes"}},
		{name: "a huge shared value stops formatting early", code: "const x = Array(100).fill(Array(100).fill(Array(100).fill(Array(100).fill(1)))); console.log('ok'); console.log(x)", limit: 1 << 20, wantLogs: []string{"ok"}, failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 1048576 bytes"}},
		{name: "a flood stops the program", code: "console.log('first'); for (;;) console.log('flood')", limit: 100, wantLogs: append([]string{"first"}, strings.Split(strings.TrimSuffix(strings.Repeat("flood ", 11), " "), " ")...), failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 100 bytes"}},
	}
	p := newTestPool(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCode(t, p, tt.code, &RunOptions{Limits: &Limits{OutputBytes: tt.limit}})
			if diff := cmp.Diff(tt.failure, res.Failure); diff != "" {
				t.Errorf("failure mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLogs, res.Logs); diff != "" {
				t.Errorf("logs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResultText(t *testing.T) {
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{name: "logs and a string result", res: Result{Logs: []string{"saw echo:one"}, Value: []byte(`"echo:two"`)}, want: "saw echo:one\necho:two"},
		{name: "an object result is indented", res: Result{Value: []byte(`{"n":42,"ok":true,"e":[],"o":{}}`)}, want: "{\n  \"n\": 42,\n  \"ok\": true,\n  \"e\": [],\n  \"o\": {}\n}"},
		{name: "null", res: Result{Value: []byte(`null`)}, want: "null"},
		{name: "numbers keep JS formatting", res: Result{Value: []byte(`[1e+21,1e-7]`)}, want: "[\n  1e+21,\n  1e-7\n]"},
		{name: "no output", res: Result{}, want: "(run_code completed with no output)"},
		{
			name: "containers five levels deep are compact",
			res:  Result{Value: []byte(`[[[[[{"a":[1,"x,\"]"]}]]]],{"k":"v"}]`)},
			want: "[\n  [\n    [\n      [\n        [\n          {\"a\":[1,\"x,\\\"]\"]}\n        ]\n      ]\n    ]\n  ],\n  {\n    \"k\": \"v\"\n  }\n]",
		},
		{name: "a 5000-deep value renders in linear size", res: Result{Value: []byte(strings.Repeat("[", 5000) + strings.Repeat("]", 5000))}, want: "[\n  [\n    [\n      [\n        [\n          " + strings.Repeat("[", 4995) + strings.Repeat("]", 4995) + "\n        ]\n      ]\n    ]\n  ]\n]"},
		{name: "an empty string result and no logs", res: Result{Value: []byte(`""`)}, want: "(run_code completed with no output)"},
		{name: "logs only", res: Result{Logs: []string{"a", "b"}}, want: "a\nb"},
		{name: "failure without logs", res: Result{Failure: &Failure{Kind: KindTimeout, Message: "compute budget exhausted (60000ms busy)"}}, want: "Error: code run failed (timeout): compute budget exhausted (60000ms busy)"},
		{
			name: "failure with captured output",
			res:  Result{Logs: []string{"captured before failure"}, Failure: &Failure{Kind: KindOutputLimit, Message: "outer output exceeded 8 bytes"}},
			want: "Error: code run failed (output-limit): outer output exceeded 8 bytes\nCaptured output:\ncaptured before failure",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.res.Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamespaceCalls(t *testing.T) {
	tests := []struct {
		name  string
		code  string
		want  string // Result.Text()
		calls []string
	}{
		{name: "a call resolves with the host's JSON", code: "return await tools.echo({b: 1, a: [true, null, 'x']})", want: "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    \"x\"\n  ]\n}", calls: []string{`echo {"b":1,"a":[true,null,"x"]}`}},
		{
			name:  "calls start in submission order",
			code:  "const r = await Promise.all([tools.echo({n: 1}), tools.echo({n: 2}), tools.echo({n: 3})]); return r.map(x => x.n).join()",
			want:  "1,2,3",
			calls: []string{`echo {"n":1}`, `echo {"n":2}`, `echo {"n":3}`},
		},
		{name: "two calls under Promise.all overlap", code: "return (await Promise.all([tools.meet({}), tools.meet({})])).join()", want: "met,met", calls: []string{"meet {}", "meet {}"}},
		{
			name:  "a failed call rejects with the error class",
			code:  "try { await tools.fail({}) } catch (e) { return [e instanceof ToolCallError, e instanceof Error, e.name, e.toolName, e.code, e.message, String(e)] }",
			want:  "[\n  true,\n  true,\n  \"ToolCallError\",\n  \"fail\",\n  \"TOOL_FAILED\",\n  \"deliberate failure\",\n  \"ToolCallError: deliberate failure\"\n]",
			calls: []string{"fail {}"},
		},
		{name: "a plain Go error carries no fields", code: "try { await tools.plain({}) } catch (e) { return [e.toolName, 'code' in e, e.message] }", want: "[\n  \"plain\",\n  false,\n  \"plain failure\"\n]", calls: []string{"plain {}"}},
		{
			name: "the error class survives replaced intrinsics",
			// The class's name is not in the text, so it is built at the first failure.
			code:  "const E = Error; Error = function Fake() {}; Object.defineProperty = null; try { await tools.fail({}) } catch (e) { const C = e.constructor; return [e instanceof E, C.name, Object.getOwnPropertyDescriptor(C, 'name').writable, Object.getPrototypeOf(C) === E, Object.prototype.toString.call(e), String(e)] }",
			want:  "[\n  true,\n  \"ToolCallError\",\n  false,\n  true,\n  \"[object Error]\",\n  \"ToolCallError: deliberate failure\"\n]",
			calls: []string{"fail {}"},
		},
		{name: "a logged failure shows its fields", code: "try { await tools.fail({}) } catch (e) { console.log(e) }", want: "ToolCallError: deliberate failure\n    at tools.fail (program.js:1:23) {\n  toolName: 'fail',\n  code: 'TOOL_FAILED'\n}", calls: []string{"fail {}"}},
		{name: "an uncaught failure fails the run", code: "await tools.fail({})", want: "Error: code run failed (exception): ToolCallError: deliberate failure\n    at tools.fail (program.js:1:17)", calls: []string{"fail {}"}},
		{name: "no arguments", code: "try { await tools.echo() } catch (e) { return e.message }", want: "tool arguments must be lossless JSON (call the tool with an arguments object, e.g. `{}`)"},
		{name: "lossy arguments are rejected before dispatch", code: "try { await tools.echo({a: {b: [1, 2n]}}) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a BigInt at $.a.b[1]"},
		{name: "cyclic arguments", code: "const a = {}; a.self = a; try { await tools.echo(a) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a cycle at $.self"},
		{name: "Date arguments", code: "try { await tools.echo({'my key': new Date()}) } catch (e) { return e.message }", want: `tool arguments must be lossless JSON: a Date at $["my key"]`},
		{name: "symbol-keyed arguments", code: "try { await tools.echo({a: [{[Symbol('s')]: 1}]}) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a symbol key at $.a[0]"},
		{name: "array properties in arguments", code: "const ids = [1]; ids.more = true; try { await tools.echo({ids}) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: an array property at $.ids.more"},
		{name: "lone surrogates in arguments", code: "try { await tools.echo({q: 'a\\ud800'}) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a lone surrogate at $.q"},
		{name: "lone surrogates in argument keys", code: "try { await tools.echo({'\\udfff': 1}) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a lone surrogate in a key at $"},
		{name: "function arguments", code: "try { await tools.echo({f: () => 1}) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a function at $.f"},
		{name: "null-prototype arguments are plain JSON", code: "const a = Object.create(null); a.x = 1; return await tools.echo(a)", want: "{\n  \"x\": 1\n}", calls: []string{`echo {"x":1}`}},
		{name: "an invalid JSON result rejects", code: "try { await tools.bad({}) } catch (e) { return e.message }", want: "tool result must be lossless JSON", calls: []string{"bad {}"}},
		{
			name:  "exotic member names are ordinary keys",
			code:  "return [await tools['my-tool']({}), await tools.__proto__({}), await tools.constructor({})].map(x => typeof x).join()",
			want:  "object,object,object",
			calls: []string{"my-tool {}", "__proto__ {}", "constructor {}"},
		},
		{
			name: "the namespace object is read-only with a null prototype",
			code: "const r = [Object.getPrototypeOf(tools) === null, typeof tools.toString, typeof tools.run_code, 'echo' in tools, 'nope' in tools, tools.echo === tools.echo, tools.echo.name];\ntry { tools.echo = 1 } catch (e) { r.push(e.name) }\ntry { tools = 1 } catch (e) { r.push(e.name) }\nreturn r",
			want: "[\n  true,\n  \"undefined\",\n  \"undefined\",\n  true,\n  false,\n  true,\n  \"echo\",\n  \"TypeError\",\n  \"TypeError\"\n]",
		},
		{name: "keys list the members", code: "return Object.keys(tools).join()", want: "echo,fail,plain,hang,meet,bad,boom,sleep,my-tool,__proto__,constructor,$all"},
		{
			name:  "a $ member gets every argument as an array",
			code:  "return [await tools.$all('q', {limit: 2}, undefined), await tools.$all()]",
			want:  "[\n  [\n    \"q\",\n    {\n      \"limit\": 2\n    }\n  ],\n  []\n]",
			calls: []string{`$all ["q",{"limit":2}]`, `$all []`},
		},
		{name: "a $ member's lossy arguments are rejected", code: "try { await tools.$all('q', () => 1) } catch (e) { return e.message }", want: "tool arguments must be lossless JSON: a function at $[1]"},
		{
			name:  "a result after the program ended is dropped",
			code:  "tools.hang({}); return 'done'",
			want:  "Warning: 1 tool call was started but not awaited before the program ended (hang); its result was lost. Put await before each call (await tools.name(args)), or await Promise.all([...]) for calls meant to run together.\ndone",
			calls: []string{"hang {}"},
		},
		{
			name:  "deep arguments round-trip",
			code:  "let v = 1; for (let i = 0; i < 1000; i++) v = {v}; let r = await tools.echo(v), d = 0; while (typeof r === 'object') { r = r.v; d++ } return d",
			want:  "1000",
			calls: []string{`echo ` + strings.Repeat(`{"v":`, 1000) + "1" + strings.Repeat("}", 1000)},
		},
		{
			name: "arguments nested past MaxDepth are refused before the call",
			code: "let v = 1; for (let i = 0; i < 1001; i++) v = {v}; try { await tools.echo(v) } catch (e) { return e.message }",
			want: "tool arguments must be lossless JSON: nesting deeper than 1000 levels",
		},
		{
			name: "arguments over ArgBytes are refused before the call",
			code: "try { await tools.echo({s: 'x'.repeat(17 << 20)}) } catch (e) { return e.message }",
			want: "tool arguments are over the limit of 16777216 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPool(t, nil)
			var ft fakeTools
			ns := ft.namespace(t, "my-tool", "__proto__", "constructor", "$all")
			res := runCode(t, p, tt.code, &RunOptions{Namespaces: []*Namespace{ns}})
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.calls, ft.calls()); diff != "" {
				t.Errorf("calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNamespacePanics(t *testing.T) {
	p := newTestPool(t, nil)
	var ft fakeTools
	res := runCode(t, p, "await tools.boom({})", &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}})
	checkFailure(t, res, KindException, `internal error: tool "boom" panicked: wait exploded`)
	start := func(context.Context, string, json.RawMessage, func(json.RawMessage, error)) {
		panic("start exploded")
	}
	ns, err := NewNamespace("tools", []string{"x"}, start, nil)
	if err != nil {
		t.Fatal(err)
	}
	res = runCode(t, p, "try { await tools.x({}) } catch { return 'caught' }", &RunOptions{Namespaces: []*Namespace{ns}})
	checkFailure(t, res, KindException, `internal error: tools "x" panicked: start exploded`)
	if got := runCode(t, p, "return 'healthy'", nil).Text(); got != "healthy" {
		t.Errorf("a run after the panics = %q, want healthy", got)
	}
}

// TestNamespaceFailure: a call whose outcome is a *Failure (wrapped or not) ends the run
// with it, whether done comes inside StartFunc or later; the program cannot catch it.
func TestNamespaceFailure(t *testing.T) {
	p := newTestPool(t, nil)
	over := &Failure{Kind: KindMemoryLimit, Message: "held too much"}
	for _, tt := range []struct {
		name  string
		start StartFunc
	}{
		{"inside start", func(_ context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
			done(nil, over)
		}},
		{"later, wrapped", Async(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			return nil, fmt.Errorf("tool x: %w", over)
		})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns, err := NewNamespace("tools", []string{"x"}, tt.start, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := runCode(t, p, "try { await tools.x({}) } catch { return 'caught' }", &RunOptions{Namespaces: []*Namespace{ns}})
			checkFailure(t, res, KindMemoryLimit, "held too much")
		})
	}
}

func TestNewNamespaceRejects(t *testing.T) {
	start := Async(func(context.Context, string, json.RawMessage) (json.RawMessage, error) { return nil, nil })
	tests := []struct {
		name    string
		global  string
		members []string
		opts    *NamespaceOptions
	}{
		{name: "not an identifier", global: "my-tools"},
		{name: "a host global", global: "console"},
		{name: "an ECMAScript global", global: "JSON"},
		{name: "a keyword", global: "class"},
		{name: "a bad error class", global: "tools", opts: &NamespaceOptions{ErrorClass: "Tool Error"}},
		{name: "an error class named like the global", global: "tools", opts: &NamespaceOptions{ErrorClass: "tools"}},
		{name: "a member property shadowing Error", global: "tools", opts: &NamespaceOptions{MemberProperty: "message"}},
		{name: "a duplicate member", global: "tools", members: []string{"a", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewNamespace(tt.global, tt.members, start, tt.opts)
			var ne *NamespaceError
			if !errors.As(err, &ne) || !errors.Is(err, ErrInvalidNamespace) {
				t.Errorf("NewNamespace error = %v, want a *NamespaceError", err)
			}
		})
	}
}

func TestNamespaceOfManyMembers(t *testing.T) {
	members := make([]string, 1000)
	for i := range members {
		members[i] = fmt.Sprintf("t%d", i)
	}
	ns, err := NewNamespace("tools", members, Async(func(_ context.Context, m string, _ json.RawMessage) (json.RawMessage, error) {
		return json.Marshal(m)
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPool(t, nil)
	res := runCode(t, p, "return [await tools.t0({}), await tools.t999({}), Object.keys(tools).length]", &RunOptions{Namespaces: []*Namespace{ns}})
	if diff := cmp.Diff(`["t0","t999",1000]`, string(res.Value)); diff != "" {
		t.Errorf("value mismatch (-want +got):\n%s", diff)
	}
}

// TestNestedHostPanic: a Go panic in a host function that another host function called
// (through a JavaScript callback) fails the run; no JavaScript catch in between sees it.
func TestNestedHostPanic(t *testing.T) {
	p := newTestPool(t, nil)
	code := `try { [1].map(() => { try { console.log('x') } catch { return 'inner' } }) } catch { return 'outer' }
		return 'went on'`
	res := runCode(t, p, code, &RunOptions{OnLog: func(string) { panic("log exploded") }})
	checkFailure(t, res, KindException, "internal error: a host function panicked: log exploded")
	if got := runCode(t, p, "return [1, 2].map(x => x * 2).join()", nil).Text(); got != "2,4" {
		t.Errorf("a run after the panic = %q, want 2,4", got)
	}
}

package runtime

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// hostGlobals are the globals of docs/run_code.md, "Programs", beyond ECMAScript's.
var hostGlobals = []string{
	"console", "setTimeout", "clearTimeout", "URL", "URLSearchParams",
	"TextEncoder", "TextDecoder", "atob", "btoa", "structuredClone",
}

// TestGlobalsExactly pins the globals a run has beyond a bare goja VM: the host globals
// (docs/run_code.md, "Programs") and the namespaces, nothing else. Host globals a
// program has not read yet live on the global object's prototype (hostScope), so both
// levels count.
func TestGlobalsExactly(t *testing.T) {
	bare := goja.New()
	base, missing := map[string]bool{}, map[string]bool{}
	for _, o := range []*goja.Object{bare.GlobalObject(), bare.NewObject().Prototype()} {
		for _, n := range o.GetOwnPropertyNames() {
			base[n] = true
		}
	}
	for _, n := range bare.GlobalObject().GetOwnPropertyNames() {
		missing[n] = true
	}
	p := newTestPool(t, nil)
	var ft fakeTools
	res := runCode(t, p, "const g = globalThis; return Object.getOwnPropertyNames(g).concat(Object.getOwnPropertyNames(Object.getPrototypeOf(g)))", &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}})
	var names []string
	if err := json.Unmarshal(res.Value, &names); err != nil {
		t.Fatalf("%s: %v", res.Text(), err)
	}
	var extra []string
	for _, n := range names {
		if !base[n] {
			extra = append(extra, n)
		}
		delete(missing, n)
	}
	want := append([]string{"ToolCallError", "tools"}, hostGlobals...)
	slices.Sort(want)
	slices.Sort(extra)
	if diff := cmp.Diff(want, extra); diff != "" {
		t.Errorf("globals beyond ECMAScript mismatch (-want +got):\n%s", diff)
	}
	// goja's own GoError is the one global of a bare VM that a run does not have.
	if diff := cmp.Diff(map[string]bool{"GoError": true}, missing); diff != "" {
		t.Errorf("bare globals missing from a run (-want +got):\n%s", diff)
	}
}

func TestGoErrorIsNotAGlobal(t *testing.T) {
	p := newTestPool(t, nil)
	res := runCode(t, p, "return [typeof GoError, 'GoError' in globalThis, Object.getOwnPropertyNames(globalThis).includes('GoError'), JSON.parse('1')]", nil)
	if diff := cmp.Diff("[\n  \"undefined\",\n  false,\n  false,\n  1\n]", res.Text()); diff != "" {
		t.Errorf("text mismatch (-want +got):\n%s", diff)
	}
}

// TestHostGlobalsSettle pins how host globals leave the global object's prototype: a name
// the program's text contains is an own property before it runs (so strict-mode
// assignment works), one spelled only at run time is built on first read, and a deleted
// one stays gone.
func TestHostGlobalsSettle(t *testing.T) {
	p := newTestPool(t, nil)
	var ft fakeTools
	opts := &RunOptions{Namespaces: []*Namespace{ft.namespace(t)}}
	tests := []textCase{
		{"named in the text is own", "return Object.getOwnPropertyNames(globalThis).includes('URL')", "true"},
		{"never named is not built", "const n = 'UR' + 'L'; return Object.getOwnPropertyNames(globalThis).includes(n)", "false"},
		{"computed read builds it", "const n = 'UR' + 'L'; const f = globalThis[n]; return [typeof f, Object.getOwnPropertyNames(globalThis).includes(n), f === globalThis[n]].join()", "function,true,true"},
		{"own property flags", "const d = Object.getOwnPropertyDescriptor(globalThis, 'console'); return [d.writable, d.enumerable, d.configurable].join()", "true,false,true"},
		{"strict assignment", "console = 1; setTimeout = 2; structuredClone = 3; ToolCallError = 4; return [console, setTimeout, structuredClone, ToolCallError].join()", "1,2,3,4"},
		{"assignment through globalThis", "globalThis['UR' + 'L'] = 5; return globalThis['UR' + 'L']", "5"},
		{"delete", "delete globalThis.console; return typeof console", "undefined"},
		{"delete unread", "const n = 'bt' + 'oa'; delete Object.getPrototypeOf(globalThis)[n]; return typeof globalThis[n]", "undefined"},
		{"error class on demand", "const n = 'ToolCall' + 'Error'; return typeof globalThis[n]", "function"},
	}
	runTextCases(t, p, tests, opts)
}

func TestGlobalsPresentAndAbsent(t *testing.T) {
	p := newTestPool(t, nil)
	for _, name := range append([]string{"JSON", "Promise", "Map", "BigInt", "Proxy", "Reflect", "Symbol", "Uint8Array"}, hostGlobals...) {
		code := "return typeof " + name
		if got := runCode(t, p, code, nil).Text(); got != "function" && got != "object" {
			t.Errorf("typeof %s = %q, want a function or an object", name, got)
		}
	}
	for _, name := range []string{"require", "process", "fetch", "module", "exports", "global", "Deno", "Bun", "setInterval", "setImmediate", "queueMicrotask", "XMLHttpRequest", "WebSocket", "__dirname", "Buffer"} {
		if got := runCode(t, p, "return typeof "+name, nil).Text(); got != "undefined" {
			t.Errorf("typeof %s = %q, want undefined", name, got)
		}
	}
	if res := runCode(t, p, "return await import('fs')", nil); res.Failure == nil || res.Failure.Kind != KindException {
		t.Errorf("import() = %s, want an exception", res.Text())
	}
}

func TestGlobalsBehave(t *testing.T) {
	tests := []textCase{
		{name: "URL", code: "const u = new URL('https://example.com:8080/a/b?x=1&y=two#h'); return [u.hostname, u.port, u.pathname, u.searchParams.get('y'), u.hash].join(' ')", want: "example.com 8080 /a/b two #h"},
		{name: "URLSearchParams", code: "const q = new URLSearchParams({a: '1', b: 'x y'}); q.append('a', '2'); return q.toString()", want: "a=1&b=x+y&a=2"},
		{name: "TextEncoder", code: "return Array.from(new TextEncoder().encode('é€')).join()", want: "195,169,226,130,172"},
		{name: "TextDecoder", code: "return new TextDecoder().decode(new Uint8Array([0xEF, 0xBB, 0xBF, 104, 105, 0xFF]))", want: "hi\uFFFD"},
		{name: "TextDecoder fatal", code: "try { new TextDecoder('utf-8', {fatal: true}).decode(new Uint8Array([0xFF])) } catch (e) { return e.name }", want: "TypeError"},
		{name: "btoa and atob", code: "return [btoa('hi\\u00ff'), atob(' aGn/ '), atob('aGk')].join()", want: "aGn/,hi\u00ff,hi"},
		{name: "btoa rejects wide characters", code: "try { btoa('€') } catch (e) { return e.name }", want: "InvalidCharacterError"},
		{name: "structuredClone", code: "const o = {d: new Date(0), m: new Map([[1, {x: 1}]]), s: new Set([1])}; o.self = o; const c = structuredClone(o); return [c !== o, c.self === c, c.d.getTime(), c.m.get(1).x, c.s.has(1), c.m.get(1) !== o.m.get(1)].join()", want: "true,true,0,1,true,true"},
		{name: "structuredClone rejects functions", code: "try { structuredClone({f() {}}) } catch (e) { return e.name }", want: "DataCloneError"},
		{name: "setTimeout needs a function", code: "try { setTimeout('code') } catch (e) { return e.name }", want: "TypeError"},
		{name: "lazy globals can be reassigned", code: "URL = 1; return URL", want: "1"},
	}
	runTextCases(t, newTestPool(t, nil), tests, nil)
}

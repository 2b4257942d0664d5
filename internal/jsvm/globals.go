package jsvm

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja_nodejs/url"
)

// hostGlobals are the globals a run has beyond the ECMAScript built-ins and its namespaces,
// in the order a ReferenceError lists them.
var hostGlobals = []string{
	"console", "setTimeout", "clearTimeout", "URL", "URLSearchParams",
	"TextEncoder", "TextDecoder", "atob", "btoa", "structuredClone",
}

// preludeSrc captures the intrinsics the console calls, so a program that overwrites
// Map.prototype.entries or Date.prototype.toISOString afterwards cannot change what the
// console prints; it uses no method a program could replace (no push, no for-of). It runs
// when the console first formats an object, not when the VM is built: touching Map, Set
// and typed arrays is costly (BENCHMARKS.md, "internal/jsvm design notes").
const preludeSrc = `(function () {
	'use strict';
	const getProto = Object.getPrototypeOf, apply = Reflect.apply;
	const desc = Object.getOwnPropertyDescriptor;
	const mapSize = desc(Map.prototype, 'size').get, setSize = desc(Set.prototype, 'size').get;
	const mapEntries = Map.prototype.entries, setValues = Set.prototype.values;
	const mapNext = getProto(new Map().entries()).next, setNext = getProto(new Set().values()).next;
	const getTime = Date.prototype.getTime, toISO = Date.prototype.toISOString;
	function entries(o, max) {
		let isMap = true;
		try { apply(mapSize, o, []); } catch { isMap = false; }
		const out = [apply(isMap ? mapSize : setSize, o, [])];
		const it = apply(isMap ? mapEntries : setValues, o, []);
		for (let i = 0; i < max; i++) {
			const n = apply(isMap ? mapNext : setNext, it, []);
			if (n.done) break;
			out[out.length] = n.value;
		}
		return out;
	}
	function date(d) {
		const t = apply(getTime, d, []);
		return t !== t ? 'Invalid Date' : apply(toISO, d, []);
	}
	const typedTag = desc(getProto(Uint8Array.prototype), Symbol.toStringTag).get;
	function typedName(o) { return apply(typedTag, o, []) || 'Object'; }
	const fnSource = Function.prototype.toString, fnProto = Function.prototype;
	const AsyncFn = getProto(async function () {}), GenFn = getProto(function* () {});
	// fnLabel names a function the way util.inspect does: [class A extends B],
	// [AsyncFunction: f], [GeneratorFunction: g] or [Function: h].
	function fnLabel(f) {
		const name = typeof f.name === 'string' ? f.name : '';
		let src = '';
		try { src = apply(fnSource, f, []); } catch {}
		if (src.startsWith('class') && /^class[\s{]/.test(src)) {
			let s = '[class ' + (name || '(anonymous)');
			const base = getProto(f);
			if (base !== fnProto && base !== null && typeof base === 'function' && base.name) s += ' extends ' + base.name;
			return s + ']';
		}
		const p = getProto(f);
		const kind = p === AsyncFn ? 'AsyncFunction' : p === GenFn ? 'GeneratorFunction' : 'Function';
		return '[' + kind + (name ? ': ' + name : ' (anonymous)') + ']';
	}
	return [entries, date, null, typedName, Map.prototype, Set.prototype, getProto(Uint8Array.prototype), fnLabel, Object.keys];
})()`

// encodingSrc defines TextEncoder and TextDecoder (UTF-8 only) around two host helpers.
const encodingSrc = `(function (encode, decode) {
	'use strict';
	class TextEncoder {
		get encoding() { return 'utf-8'; }
		encode(input = '') { return new Uint8Array(encode(String(input))); }
		encodeInto(src, dest) {
			const bytes = new Uint8Array(encode(String(src)));
			let n = Math.min(bytes.length, dest.length);
			while (n > 0 && n < bytes.length && (bytes[n] & 0xC0) === 0x80) n--;
			dest.set(bytes.subarray(0, n));
			return { read: new TextDecoder().decode(bytes.subarray(0, n)).length, written: n };
		}
	}
	class TextDecoder {
		#fatal; #ignoreBOM;
		constructor(label = 'utf-8', options = undefined) {
			const l = String(label).trim().toLowerCase();
			if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') {
				throw new RangeError('The "' + label + '" encoding is not supported');
			}
			this.#fatal = !!(options && options.fatal);
			this.#ignoreBOM = !!(options && options.ignoreBOM);
		}
		get encoding() { return 'utf-8'; }
		get fatal() { return this.#fatal; }
		get ignoreBOM() { return this.#ignoreBOM; }
		decode(input = undefined) {
			if (input === undefined) return '';
			if (ArrayBuffer.isView(input)) return decode(input.buffer, input.byteOffset, input.byteLength, this.#fatal, this.#ignoreBOM);
			if (input instanceof ArrayBuffer) return decode(input, 0, input.byteLength, this.#fatal, this.#ignoreBOM);
			throw new TypeError('The "input" argument must be an ArrayBuffer or an ArrayBufferView');
		}
	}
	return [TextEncoder, TextDecoder];
})`

// cloneSrc defines structuredClone for the values a program can build: primitives, plain
// and null-prototype objects (class instances clone as plain objects, as in HTML), arrays,
// Date, RegExp, Map, Set, ArrayBuffer, typed arrays and errors, with cycles and shared
// references preserved. Functions and symbols throw a DataCloneError.
const cloneSrc = `(function () {
	'use strict';
	const keys = Object.keys, define = Object.defineProperty, isArray = Array.isArray, apply = Reflect.apply;
	const getTime = Date.prototype.getTime;
	function fail(v) {
		const e = new Error(String(typeof v === 'function' ? 'function ' + (v.name || 'anonymous') : v) + ' could not be cloned.');
		e.name = 'DataCloneError';
		throw e;
	}
	function put(o, k, v) { define(o, k, { value: v, writable: true, enumerable: true, configurable: true }); }
	function clone(v, seen) {
		if (typeof v === 'symbol' || typeof v === 'function') fail(v);
		if (v === null || typeof v !== 'object') return v;
		if (seen.has(v)) return seen.get(v);
		let out;
		if (isArray(v)) {
			out = new Array(v.length);
			seen.set(v, out);
			for (const k of keys(v)) put(out, k, clone(v[k], seen));
			return out;
		}
		if (v instanceof Date) out = new Date(apply(getTime, v, []));
		else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
		else if (v instanceof ArrayBuffer) out = v.slice(0);
		else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
		else if (v instanceof Map) {
			out = new Map(); seen.set(v, out);
			for (const [k, x] of v) out.set(clone(k, seen), clone(x, seen));
			return out;
		} else if (v instanceof Set) {
			out = new Set(); seen.set(v, out);
			for (const x of v) out.add(clone(x, seen));
			return out;
		} else if (v instanceof Error) {
			out = new Error(v.message);
			put(out, 'name', v.name);
			seen.set(v, out);
			return out;
		} else {
			out = {};
			seen.set(v, out);
			for (const k of keys(v)) put(out, k, clone(v[k], seen));
			return out;
		}
		seen.set(v, out);
		return out;
	}
	return function structuredClone(value) {
		if (arguments.length === 0) throw new TypeError('structuredClone: 1 argument required, but only 0 present.');
		return clone(value, new Map());
	};
})()`

// The preludes are compiled on first use, once per process, not at package init: most
// runs need none of them.
var (
	preludePrg  = compileOnce("prelude.js", preludeSrc)
	encodingPrg = compileOnce("encoding.js", encodingSrc)
	clonePrg    = compileOnce("clone.js", cloneSrc)
)

func compileOnce(name, src string) func() *goja.Program {
	return sync.OnceValue(func() *goja.Program { return goja.MustCompile(name, src, true) })
}

// lazyRegexp compiles expr on first use, not at package init, which every process pays.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// globals are a VM's intrinsics and host globals as built so far.
type globals struct {
	in              intrinsics
	scope           *hostScope
	urlExports      *goja.Object
	encodingExports *goja.Object
}

// helpers runs the prelude on first use. VM goroutine only.
func (r *VM) helpers() *intrinsics {
	if r.in.entries == nil {
		v, err := r.vm.RunProgram(preludePrg())
		if err != nil {
			panic(err)
		}
		h := v.ToObject(r.vm)
		fn := func(i string) goja.Callable { f, _ := goja.AssertFunction(h.Get(i)); return f }
		r.in.entries, r.in.date, r.in.typedName, r.in.fnLabel, r.in.keys = fn("0"), fn("1"), fn("3"), fn("7"), fn("8")
		r.in.mapProto, r.in.setProto, r.in.typedProto = h.Get("4").ToObject(r.vm), h.Get("5").ToObject(r.vm), h.Get("6").ToObject(r.vm)
	}
	return &r.in
}

// installGlobals installs the host globals and the guards into a fresh VM.
func (r *VM) installGlobals() error {
	vm := r.vm
	// eval and new Function parse too: never let them load a source map from the host.
	vm.SetParserOptions(parser.WithDisableSourceMaps)
	r.in.objectProto = vm.NewObject().Prototype()
	r.in.arrayProto = vm.NewArray().Prototype()
	r.in.errorCtor = vm.Get("Error").ToObject(vm)
	r.scope = &hostScope{r: r, names: slices.Clone(hostGlobals)}
	scope := vm.NewDynamicObject(r.scope)
	if err := scope.SetPrototype(r.in.objectProto); err != nil {
		return err
	}
	if err := vm.GlobalObject().SetPrototype(scope); err != nil {
		return err
	}
	return installGuards(r)
}

// removeGoError deletes goja's undocumented GoError global. It runs just before the
// program, not when the VM is built: deleting from goja's global template copies its name
// list, which every idle VM would then keep.
func (r *VM) removeGoError() {
	r.vm.GlobalObject().Delete("GoError")
}

// hostScope is the global object's prototype. It holds the host globals (and the
// namespaces' error classes) until a program first reads one, which is then built and
// settles as an own data property of the global object (writable, configurable, not
// enumerable, as in Node), so an idle VM carries one small object instead of twenty
// natives. A settled, deleted or shadowed name never comes back from here.
//
// Trap: goja's strict-mode assignment to an undeclared name (`URL = x`) checks only the
// global object's own properties and throws a ReferenceError otherwise, so settleNamed
// settles every name the program's text contains before it runs. Only a bare assignment
// in eval'd or Function code to a name the text never contains still throws.
type hostScope struct {
	r     *VM
	names []string // the host globals, then the error classes; blanked once gone
	extra map[string]func() goja.Value
}

// lazy adds a global built by make on first read.
func (h *hostScope) lazy(name string, make func() goja.Value) {
	if h.extra == nil {
		h.extra = map[string]func() goja.Value{}
	}
	h.names = append(h.names, name)
	h.extra[name] = make
}

// settleNamed settles the names that code contains anywhere (a string or a comment
// counts too: the only cost is building the global earlier than needed).
func (h *hostScope) settleNamed(code string) {
	for _, n := range h.names {
		if n != "" && strings.Contains(code, n) {
			h.Get(n)
		}
	}
}

func (h *hostScope) index(key string) int {
	if key == "" {
		return -1
	}
	return slices.Index(h.names, key)
}

func (h *hostScope) Get(key string) goja.Value {
	i := h.index(key)
	if i < 0 {
		return nil
	}
	h.names[i] = ""
	var v goja.Value
	if make := h.extra[key]; make != nil {
		v = make()
	} else {
		v = h.r.makeHostGlobal(key)
	}
	_ = h.r.vm.GlobalObject().DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return v
}

func (h *hostScope) Has(key string) bool { return h.index(key) >= 0 }

// Set refuses: an assignment through the global object never reaches it (the global
// takes an own property), only a program writing to the prototype itself.
func (h *hostScope) Set(string, goja.Value) bool { return false }

func (h *hostScope) Delete(key string) bool {
	if i := h.index(key); i >= 0 {
		h.names[i] = ""
	}
	return true
}

func (h *hostScope) Keys() []string {
	var keys []string
	for _, n := range h.names {
		if n != "" {
			keys = append(keys, n)
		}
	}
	return keys
}

// makeHostGlobal builds one host global (docs/run_code.md, "Programs").
func (r *VM) makeHostGlobal(name string) goja.Value {
	switch name {
	case "console":
		return r.newConsole()
	case "setTimeout":
		return r.native(r.timers.setTimeout)
	case "clearTimeout":
		return r.native(r.timers.clearTimeout)
	case "atob":
		return r.native(r.atob)
	case "btoa":
		return r.native(r.btoa)
	case "URL", "URLSearchParams":
		return r.urlModule().Get(name)
	case "TextEncoder":
		return r.encoding().Get("0")
	case "TextDecoder":
		return r.encoding().Get("1")
	case "structuredClone":
		v, err := r.vm.RunProgram(clonePrg())
		if err != nil {
			panic(err)
		}
		return v
	}
	panic("runtime: no host global " + name)
}

// urlModule builds goja_nodejs's WHATWG URL classes without enabling require: its Require
// function only fills a module's exports, so it is called on a bare module object.
func (r *VM) urlModule() *goja.Object {
	if r.urlExports == nil {
		module := r.vm.NewObject()
		exports := r.vm.NewObject()
		_ = module.Set("exports", exports)
		url.Require(r.vm, module)
		r.urlExports = exports
	}
	return r.urlExports
}

func (r *VM) encoding() *goja.Object {
	if r.encodingExports == nil {
		v, err := r.vm.RunProgram(encodingPrg())
		if err != nil {
			panic(err)
		}
		f, _ := goja.AssertFunction(v)
		res, err := f(goja.Undefined(), r.native(r.utf8Encode), r.native(r.utf8Decode))
		if err != nil {
			panic(err)
		}
		r.encodingExports = res.ToObject(r.vm)
	}
	return r.encodingExports
}

func (r *VM) utf8Encode(call goja.FunctionCall) goja.Value {
	// Measured before it is made: UTF-8 can take 1.5 times a UTF-16 string's bytes, and
	// the Go string and the buffer would each hold that much before a later check.
	v, max := call.Argument(0).ToString(), r.maxStringBytes()
	if in, ok := v.(goja.String); ok {
		if n := in.Length(); n > max || 3*n > max && utf8Length(in) > max {
			panic(r.rangeError("Invalid typed array length"))
		}
	}
	s := v.String() // goja turns lone surrogates into U+FFFD, as the spec wants
	if len(s) > max {
		panic(r.rangeError("Invalid typed array length"))
	}
	return r.vm.ToValue(r.vm.NewArrayBuffer([]byte(s)))
}

// utf8Length is the length of s in UTF-8, lone surrogates counted as U+FFFD.
func utf8Length(s goja.String) int {
	n, units := 0, s.Length()
	for i := 0; i < units; i++ {
		switch c := s.CharAt(i); {
		case c < 0x80:
			n++
		case c < 0x800:
			n += 2
		case utf16.IsSurrogate(rune(c)) && c < 0xDC00 && i+1 < units && s.CharAt(i+1) >= 0xDC00 && s.CharAt(i+1) <= 0xDFFF:
			n += 4
			i++
		default:
			n += 3
		}
	}
	return n
}

func (r *VM) utf8Decode(call goja.FunctionCall) goja.Value {
	buf, ok := call.Argument(0).Export().(goja.ArrayBuffer)
	if !ok {
		panic(r.vm.NewTypeError("The \"input\" argument must be an ArrayBuffer or an ArrayBufferView"))
	}
	off, n := int(call.Argument(1).ToInteger()), int(call.Argument(2).ToInteger())
	b := buf.Bytes()
	if off < 0 || n < 0 || off+n > len(b) {
		panic(r.rangeError("offset is out of bounds"))
	}
	b = b[off : off+n]
	if !call.Argument(4).ToBoolean() && len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		b = b[3:]
	}
	if utf8.Valid(b) {
		return r.vm.ToValue(string(b))
	}
	if call.Argument(3).ToBoolean() {
		panic(r.vm.NewTypeError("The encoded data was not valid for encoding utf-8"))
	}
	var sb strings.Builder
	for len(b) > 0 {
		c, size := utf8.DecodeRune(b)
		sb.WriteRune(c) // utf8.RuneError is U+FFFD
		b = b[size:]
	}
	return r.vm.ToValue(sb.String())
}

// btoa encodes a string of code points up to U+00FF as base64, as in HTML.
func (r *VM) btoa(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) == 0 {
		panic(r.vm.NewTypeError("btoa: 1 argument required, but only 0 present."))
	}
	s := call.Argument(0).String()
	b := make([]byte, 0, len(s))
	for _, c := range s {
		if c > 0xFF {
			panic(r.domError("InvalidCharacterError", "Invalid character"))
		}
		b = append(b, byte(c))
	}
	return r.vm.ToValue(base64.StdEncoding.EncodeToString(b))
}

// atob decodes base64 (ASCII whitespace ignored, padding optional) into a string of code
// points up to U+00FF, as in HTML.
func (r *VM) atob(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) == 0 {
		panic(r.vm.NewTypeError("atob: 1 argument required, but only 0 present."))
	}
	s := strings.Map(func(c rune) rune {
		if c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' {
			return -1
		}
		return c
	}, call.Argument(0).String())
	if len(s)%4 == 0 && strings.HasSuffix(s, "=") {
		s = strings.TrimRight(s, "=")
	}
	if len(s)%4 == 1 || strings.Contains(s, "=") {
		panic(r.domError("InvalidCharacterError", "The string to be decoded is not correctly encoded."))
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		panic(r.domError("InvalidCharacterError", "The string to be decoded is not correctly encoded."))
	}
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return r.vm.ToValue(string(rs))
}

// domError builds an Error whose name is a DOMException name, as browsers throw.
func (r *VM) domError(name, msg string) *goja.Object {
	e, err := r.vm.New(r.in.errorCtor, r.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	_ = e.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return e
}

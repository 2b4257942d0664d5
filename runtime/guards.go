package runtime

import (
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// The built-in guards, in one place. goja checks its interrupt flag only between bytecode
// instructions, so a native built-in runs to its end whatever the budgets say; these
// wrappers bound the work and the memory one native call can take, from the program's
// own sizes, before the original runs. Over a bound they throw a catchable RangeError, as
// V8 does for an invalid string or array length or a too-deep recursion.
//
// Two rules hold for every guard. A value it checked is the value the original gets: it
// converts an argument or a receiver once and passes the primitive on, or hands the
// original a receiver whose length cannot change between reads (stableReceiver), so a
// valueOf, toString, getter or Proxy trap that answers differently the second time cannot
// slip a larger size past the check. And every guard counts itself as one level of native
// nesting (enterNative), so a recursion that runs through built-ins without JavaScript
// frames (an array nested a million levels deep turned into a string, a built-in used as
// its own getter) ends with a RangeError instead of a Go stack overflow, which would end
// the process.
//
// The families, where they are, and where their tests are:
//   - strings: repeat, padStart/padEnd (result length) here, guards_test.go; the rest in
//     guards_string.go;
//   - regular expressions: guards_regexp*.go;
//   - arrays: every Array.prototype method that walks the receiver's length, join and
//     toLocaleString (result size), concat, flat and flatMap (a JavaScript
//     implementation), sort and toSorted (length; the default sort through an
//     interruptible comparator), fill, Array.from of array-likes: here, guards_test.go;
//   - calls: Function.prototype.apply, Reflect.apply and Reflect.construct (argument
//     count), bind (name growth): here, guards_test.go;
//   - re-entrancy: getters, setters and Proxy traps that are built-ins run through a
//     counted thunk; conversions through Error, Object and Date methods counted:
//     guards_reentry.go, guards_proxy.go;
//   - Object statics (keys, entries, assign, freeze, defineProperties…): guards_object.go;
//   - Promise.all and its kin (input count): guards_promise.go;
//   - BigInt (parse, toString, asIntN/asUintN): guards_bigint.go;
//   - typed arrays and ArrayBuffer: typedarrays*.go;
//   - JSON: json*.go; eval and the Function constructors: eval_guard.go.
// The hostile corpus (internal/hostile) runs a shape of each family in both isolation
// modes.

// maxNativeDepth bounds how deeply guarded built-ins may re-enter one another. Each level
// costs about a kilobyte of Go stack; a thousand stay far below Go's limit.
const maxNativeDepth = 1000

// maxApplyArgs bounds the argument list apply and Reflect build from an array-like (V8's
// own limit is of the same order).
const maxApplyArgs = 1 << 17

// nativeSortMax is the longest array sorted by goja's native default sort, which no
// interrupt can stop; longer ones are sorted through a JavaScript comparator with the
// same order, which the compute budget can interrupt.
const nativeSortMax = 1 << 14

// maxBoundName caps the name of a bound function: each bind prepends "bound ", so a long
// bind chain would otherwise grow names quadratically and exhaust memory.
const maxBoundName = 256

func (r *run) maxStringBytes() int { return int(r.limits.HeapBytes / 4) }
func (r *run) maxElements() int64  { return r.limits.HeapBytes / 16 }

// installGuards replaces the built-ins that can allocate or spin inside one native call
// with checking wrappers. It runs once per VM, when the pool builds it.
func installGuards(r *run) error {
	installStringGuards(r)
	installTextGuards(r)
	installArrayGuards(r)
	installCallGuards(r)
	installObjectGuards(r)
	return installEvalGuards(r)
}

// Lazy families. Guarding a built-in costs every pooled VM its original and a wrapper
// (about 1.4 KB together), so a family that a program can reach only through a global's
// name is guarded only for the runs that can reach it: before the program runs, when its
// text contains one of the family's words or a word through which a program reads the
// global object by a computed name (globalThis, or this at the top level), and when eval
// or a Function constructor is about to run code whose text does (eval_guard.go).
// Families reachable from ordinary values (arrays, strings, functions, any object) are
// guarded when the VM is built.
var lazyFamilies = []struct {
	words   []string
	matches func(code string) bool // more than words, if set
	literal bool                   // a regular expression literal reaches it too
	install func(*run)
}{
	{words: typedTriggers, install: (*run).guardTypedArrays},
	{words: []string{"JSON"}, install: (*run).guardJSON},
	// Reflect.defineProperty defines accessors as Object.defineProperty does, and the
	// Proxy guards capture Reflect's originals before a program could replace them.
	{words: []string{"Proxy", "Reflect"}, install: (*run).guardProxy},
	{words: []string{"Date"}, install: (*run).guardDate},
	// BigInt values also come from literals, from BigInt64Array and BigUint64Array and
	// from DataView's getBigInt64 and getBigUint64.
	{words: []string{"BigInt", "BigUint64Array", "DataView"}, matches: hasBigIntLiteral, install: (*run).guardBigInt},
	{words: regexpWords, literal: true, install: (*run).guardRegExps},
	{words: uriWords, install: (*run).guardURIs},
}

// globalWords reach the global object, and so every lazy family.
var globalWords = []string{"globalThis", "this"}

// guardLazyFor installs every lazy family code can reach; regexLiteral says whether it
// holds a regular expression literal (the nesting scan knows). VM goroutine only.
func (r *run) guardLazyFor(code string, regexLiteral bool) {
	all := containsAny(code, globalWords)
	for _, f := range lazyFamilies {
		if all || containsAny(code, f.words) || f.literal && regexLiteral || f.matches != nil && f.matches(code) {
			f.install(r)
		}
	}
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// enterNative counts one level of guarded-built-in nesting; leaveNative undoes it. Over
// maxNativeDepth it throws the RangeError a deep JavaScript recursion gets.
func (r *run) enterNative() {
	if r.nativeDepth >= maxNativeDepth {
		panic(r.rangeError("Maximum call stack size exceeded"))
	}
	r.nativeDepth++
}

func (r *run) leaveNative() { r.nativeDepth-- }

// callOriginal calls a guarded built-in's original as one level of native nesting,
// rethrowing its exception (or interrupt) unchanged.
func (r *run) callOriginal(orig goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	r.enterNative()
	defer r.leaveNative()
	v, err := orig(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

// guardCall replaces obj[name] with wrap, keeping the original's name, length and
// attributes (writable, configurable, not enumerable).
func (r *run) guardCall(obj *goja.Object, name string, wrap func(goja.FunctionCall, goja.Callable) goja.Value) {
	origV := obj.Get(name)
	orig, ok := goja.AssertFunction(origV)
	if !ok {
		return
	}
	length := origV.ToObject(r.vm).Get("length")
	f := r.native(r.counted(func(call goja.FunctionCall) goja.Value { return wrap(call, orig) })).ToObject(r.vm)
	_ = f.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = obj.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

func (r *run) rangeError(msg string) *goja.Object {
	e, err := r.vm.New(r.in.rangeCtor, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.NewTypeError(msg)
	}
	return e
}

func (r *run) tooLongString() { panic(r.rangeError("Invalid string length")) }
func (r *run) tooLongArray()  { panic(r.rangeError("Invalid array length")) }

// ---- strings ----

func installStringGuards(r *run) {
	vm := r.vm
	// Reach String.prototype through an instance: going through the String constructor
	// would build it and its statics, about 5 KB per idle VM most programs never touch.
	proto := vm.ToValue("").ToObject(vm).Prototype()
	r.guardCall(proto, "repeat", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		s := r.thisString(call.This)
		n := call.Argument(0).ToNumber()
		if f := n.ToFloat(); f > 0 && float64(strLen(s))*f > float64(r.maxStringBytes()) {
			r.tooLongString()
		}
		return r.callOriginal(orig, s, n)
	})
	for _, name := range []string{"padStart", "padEnd"} {
		r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			s := r.thisString(call.This)
			n := call.Argument(0).ToNumber()
			if n.ToFloat() > float64(r.maxStringBytes()) {
				r.tooLongString()
			}
			args := []goja.Value{n}
			if len(call.Arguments) > 1 {
				fill := call.Arguments[1]
				if !goja.IsUndefined(fill) {
					fill = r.strOf(fill)
				}
				args = append(args, fill)
			}
			return r.callOriginal(orig, s, args...)
		})
	}
}

// thisString converts a String method's receiver once, as RequireObjectCoercible and
// ToString would (undefined and null pass through: the original throws its TypeError).
func (r *run) thisString(this goja.Value) goja.Value {
	if goja.IsUndefined(this) || goja.IsNull(this) {
		return this
	}
	return r.strOf(this)
}

// strLen is the length of a string value, 0 for anything else.
func strLen(v goja.Value) int {
	if s, ok := v.(goja.String); ok {
		return s.Length()
	}
	return 0
}

// ---- arrays ----

// arrayScans are the Array.prototype methods that walk the receiver's length in Go. On an
// array-like such as {length: 2 ** 53 - 1} or a sparse array of length 4e9 they skip
// absent elements natively, or allocate for every index, far past any budget. (find and
// its kin call the callback for every index, so the budget interrupts them.) The
// iterators (entries, keys, values) are bounded when made: spread, destructuring,
// Array.from, Promise.all and the collection constructors iterate them natively.
var arrayScans = []string{
	"copyWithin", "entries", "every", "filter", "forEach", "includes", "indexOf", "keys",
	"lastIndexOf", "map", "reduce", "reduceRight", "reverse", "shift", "slice", "some",
	"splice", "toReversed", "toSpliced", "unshift", "values", "with",
}

func installArrayGuards(r *run) {
	vm := r.vm
	proto := r.in.arrayProto
	r.in.join, _ = goja.AssertFunction(proto.Get("join"))
	for _, name := range arrayScans {
		r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			recv, n, back := r.stableReceiver(call.This)
			if n > r.maxElements() {
				r.tooLongArray()
			}
			return back(r.callOriginal(orig, recv, call.Arguments...))
		})
	}
	// Array.prototype[Symbol.iterator] is values itself.
	_ = proto.DefineDataPropertySymbol(goja.SymIterator, proto.Get("values"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)

	r.guardCall(proto, "fill", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		recv, n, back := r.stableReceiver(call.This)
		start, end := relIndex(call.Argument(1), n, 0), relIndex(call.Argument(2), n, n)
		if end-start > r.maxElements() {
			r.tooLongArray()
		}
		return back(r.callOriginal(orig, recv, call.Argument(0), vm.ToValue(start), vm.ToValue(end)))
	})
	for _, name := range []string{"sort", "toSorted"} {
		r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			recv, n, back := r.stableReceiver(call.This)
			if n > r.maxElements() {
				r.tooLongArray()
			}
			args := call.Arguments
			if goja.IsUndefined(call.Argument(0)) && n > nativeSortMax {
				args = []goja.Value{r.helpers().compare}
			}
			return back(r.callOriginal(orig, recv, args...))
		})
	}
	r.guardCall(proto, "concat", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		recv, n, back := r.stableReceiver(call.This)
		args := make([]goja.Value, len(call.Arguments))
		for i, a := range call.Arguments {
			if _, ok := a.(*goja.Object); ok {
				var an int64
				a, an, _ = r.stableReceiver(a)
				n += an // counted whether or not it is spread: the bound is what matters
			} else {
				n++
			}
			args[i] = a
		}
		if n > r.maxElements() {
			r.tooLongArray()
		}
		return back(r.callOriginal(orig, recv, args...))
	})
	r.guardCall(proto, "join", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		sep := goja.Value(vm.ToValue(","))
		if s := call.Argument(0); !goja.IsUndefined(s) {
			sep = r.strOf(s)
		}
		parts := r.joinParts(call.This, func(v goja.Value) goja.Value { return r.strOf(v) })
		r.checkJoined(parts, sep)
		return r.callOriginal(orig, r.vm.NewArray(parts...), sep)
	})
	r.guardCall(proto, "toLocaleString", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		parts := r.joinParts(call.This, func(v goja.Value) goja.Value {
			o := v.ToObject(vm)
			f, ok := goja.AssertFunction(o.Get("toLocaleString"))
			if !ok {
				panic(vm.NewTypeError("toLocaleString is not a function"))
			}
			res, err := f(v)
			if err != nil {
				panic(err)
			}
			return r.strOf(res)
		})
		r.checkJoined(parts, vm.ToValue(","))
		return r.callOriginal(r.arrayJoin(), r.vm.NewArray(parts...), vm.ToValue(","))
	})
	r.guardCall(vm.Get("Array").ToObject(vm), "from", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		// Array.from({length: n}) builds n elements in one native call. The iterator
		// is read once here and the decision passed on as a receiver whose length and
		// iterator cannot change.
		src, ok := call.Argument(0).(*goja.Object)
		if !ok || isIterable(src) {
			return r.callOriginal(orig, call.This, call.Arguments...)
		}
		recv, n, _ := r.stableReceiver(src)
		if n > r.maxElements() {
			r.tooLongArray()
		}
		args := append([]goja.Value{recv}, call.Arguments[1:]...)
		return r.callOriginal(orig, call.This, args...)
	})
	r.installFlat(proto)
}

// arrayJoin is the original Array.prototype.join (the guard hands it only primitive
// strings whose total size it checked).
func (r *run) arrayJoin() goja.Callable {
	if r.in.join == nil {
		panic("runtime: Array.prototype.join was not captured")
	}
	return r.in.join
}

// joinParts converts the receiver's elements to strings, once each, in order (holes,
// undefined and null are empty), checking the run's stop flag as it goes.
func (r *run) joinParts(this goja.Value, str func(goja.Value) goja.Value) []any {
	if goja.IsUndefined(this) || goja.IsNull(this) {
		panic(r.vm.NewTypeError("Array.prototype.join called on null or undefined"))
	}
	_, n, _ := r.stableReceiver(this)
	if n > r.maxElements() {
		r.tooLongArray()
	}
	r.enterNative() // converting an element can re-enter join through its toString
	defer r.leaveNative()
	o := this.ToObject(r.vm)
	parts := make([]any, n)
	var total int64
	for i := int64(0); i < n; i++ {
		if i&1023 == 1023 && r.failed() {
			panic(r.rangeError("Invalid string length")) // the run is over; unwind
		}
		v := o.Get(strconv.FormatInt(i, 10))
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			parts[i] = ""
			continue
		}
		s := str(v)
		total += int64(s.(goja.String).Length())
		if total > int64(r.maxStringBytes()) {
			r.tooLongString()
		}
		parts[i] = s
	}
	return parts
}

// checkJoined bounds the separators a join adds to its parts.
func (r *run) checkJoined(parts []any, sep goja.Value) {
	var total int64
	for _, p := range parts {
		if s, ok := p.(goja.String); ok {
			total += int64(s.Length())
		}
	}
	if n := int64(len(parts)); n > 1 {
		total += (n - 1) * int64(sep.(goja.String).Length())
	}
	if total > int64(r.maxStringBytes()) {
		r.tooLongString()
	}
}

func isIterable(o *goja.Object) bool {
	it := o.GetSymbol(goja.SymIterator)
	return it != nil && !goja.IsUndefined(it) && !goja.IsNull(it)
}

// stableReceiver returns a receiver for an array method whose length the method cannot
// see change between reads, that length (ToLength of it, read once), and the function that
// maps the method's result back (a method that returns its receiver returns the
// program's object, not the stand-in). A genuine Array or a primitive is its own stable
// receiver (an Array's length is a plain data property, a primitive cannot change); any
// other object is seen through a proxy that answers length (and Symbol.isConcatSpreadable)
// with what was read once, and passes everything else to the object itself.
func (r *run) stableReceiver(this goja.Value) (goja.Value, int64, func(goja.Value) goja.Value) {
	same := func(v goja.Value) goja.Value { return v }
	o, ok := this.(*goja.Object)
	if !ok {
		if s, ok := this.(goja.String); ok {
			return this, int64(s.Length()), same
		}
		return this, 0, same
	}
	if o.ClassName() == "Array" && o.ExportType() != proxyType {
		return this, toLength(o.Get("length")), same
	}
	n := toLength(o.Get("length"))
	spreadable := o.GetSymbol(goja.SymIsConcatSpreadable)
	iterator := o.GetSymbol(goja.SymIterator)
	p := r.vm.NewProxy(o, &goja.ProxyTrapConfig{
		Get: func(t *goja.Object, key string, _ goja.Value) goja.Value {
			if key == "length" {
				return r.vm.ToValue(n)
			}
			return t.Get(key)
		},
		GetSym: func(t *goja.Object, sym *goja.Symbol, _ goja.Value) goja.Value {
			switch sym {
			case goja.SymIsConcatSpreadable:
				return spreadable
			case goja.SymIterator:
				return iterator
			}
			return t.GetSymbol(sym)
		},
		Set: func(t *goja.Object, key string, v goja.Value, _ goja.Value) bool {
			if err := t.Set(key, v); err != nil {
				return false
			}
			if key == "length" {
				n = toLength(t.Get("length"))
			}
			return true
		},
	})
	pv := r.vm.ToValue(p)
	return pv, n, func(v goja.Value) goja.Value {
		if v == pv {
			return this
		}
		return v
	}
}

// toLength is ECMAScript's ToLength of a property value (absent counts as 0).
func toLength(v goja.Value) int64 {
	if v == nil {
		return 0
	}
	f := v.ToNumber().ToFloat()
	switch {
	case !(f > 0):
		return 0
	case f >= 1<<53-1:
		return 1<<53 - 1
	}
	return int64(f)
}

// relIndex resolves a relative start/end argument the way Array.prototype.fill does,
// converting it once.
func relIndex(v goja.Value, n, def int64) int64 {
	if goja.IsUndefined(v) {
		return def
	}
	f := v.ToNumber().ToFloat()
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if f < 0 {
		return max(n+int64(max(f, -1<<53)), 0)
	}
	return int64(min(f, float64(n)))
}

// flatSrc implements flat and flatMap in JavaScript (ECMAScript's FlattenIntoArray with
// ArraySpeciesCreate): goja's native version recurses in Go without a cycle check, so
// `a[0] = a; a.flat(Infinity)` overflowed the Go stack, and a nested DAG made it build
// billions of elements in one call. Here recursion is JavaScript's (bounded by the call
// stack), every element is a step the compute budget can interrupt, and the result is
// bounded by the heap budget's element count.
const flatSrc = `(function (maxElements, maxDepth, rangeError) {
	'use strict';
	const isArray = Array.isArray, define = Object.defineProperty, species = Symbol.species;
	const getProto = Object.getPrototypeOf, ArrayProto = Array.prototype, ObjectProto = Object.prototype;
	const keysOf = Object.getOwnPropertyNames;
	const hasIndexAccessors = () => keysOf(ArrayProto).some(isIndex) || keysOf(ObjectProto).some(isIndex);
	const isIndex = (k) => String(k >>> 0) === k;
	const toLen = (v) => { v = Number(v); return v > 0 ? Math.min(Math.floor(v), 2 ** 53 - 1) : 0; };
	// speciesCreate is ArraySpeciesCreate(o, 0); plain tells into that the result is a
	// fresh Array (no prototype in between can intercept index writes then).
	function speciesCreate(o) {
		if (!isArray(o)) return [];
		let c = o.constructor;
		if (c !== null && (typeof c === 'object' || typeof c === 'function')) {
			c = c[species];
			if (c === null) c = undefined;
		}
		if (c === undefined) return [];
		if (typeof c !== 'function') throw new TypeError('object.constructor[Symbol.species] is not a constructor');
		return new c(0);
	}
	// into is FlattenIntoArray with an explicit stack: a nesting deeper than the call
	// stack allows (a cycle under flat(Infinity)) is a catchable RangeError, as in V8.
	function into(target, source, len, depth, fn, thisArg) {
		let at = 0;
		// CreateDataProperty on a fresh Array is a plain write unless a program put an
		// index accessor on Array.prototype or Object.prototype; checked once.
		const plain = getProto(target) === ArrayProto && !hasIndexAccessors();
		const stack = [{src: source, len, i: 0, depth}];
		while (stack.length > 0) {
			const top = stack[stack.length - 1];
			if (top.i >= top.len) { stack.length--; continue; }
			const i = top.i++, k = String(i);
			if (!(k in top.src)) continue;
			let e = top.src[k];
			if (fn !== undefined && stack.length === 1) e = fn.call(thisArg, e, i, top.src);
			if (top.depth > 0 && isArray(e)) {
				if (stack.length >= maxDepth) throw rangeError('Maximum call stack size exceeded');
				stack[stack.length] = {src: e, len: toLen(e.length), i: 0, depth: top.depth - 1};
				continue;
			}
			if (at >= maxElements) throw rangeError('Invalid array length');
			if (plain) target[at] = e;
			else define(target, String(at), {value: e, writable: true, enumerable: true, configurable: true});
			at++;
		}
	}
	function flat(depth = undefined) {
		const o = Object(this), len = toLen(o.length);
		let d = 1;
		if (depth !== undefined) { d = Math.trunc(Number(depth)) || 0; if (d < 0) d = 0; }
		const a = speciesCreate(o);
		into(a, o, len, d);
		return a;
	}
	function flatMap(fn, thisArg = undefined) {
		const o = Object(this), len = toLen(o.length);
		if (typeof fn !== 'function') throw new TypeError('flatMap mapper function is not callable');
		const a = speciesCreate(o);
		into(a, o, len, 1, fn, thisArg);
		return a;
	}
	return [flat, flatMap];
})`

var flatPrg = compileOnce("flat.js", flatSrc)

// installFlat replaces flat and flatMap with flatSrc's, built when a program first calls
// one (the VM holds two small wrappers until then).
func (r *run) installFlat(proto *goja.Object) {
	for i, name := range []string{"flat", "flatMap"} {
		r.guardCall(proto, name, func(call goja.FunctionCall, _ goja.Callable) goja.Value {
			if r.in.flat[i] == nil {
				v, err := r.vm.RunProgram(flatPrg())
				if err != nil {
					panic(err)
				}
				mk, _ := goja.AssertFunction(v)
				fns, err := mk(goja.Undefined(), r.vm.ToValue(r.maxElements()), r.vm.ToValue(r.limits.StackDepth), r.native(func(c goja.FunctionCall) goja.Value {
					return r.rangeError(c.Argument(0).String())
				}))
				if err != nil {
					panic(err)
				}
				o := fns.ToObject(r.vm)
				r.in.flat[0], _ = goja.AssertFunction(o.Get("0"))
				r.in.flat[1], _ = goja.AssertFunction(o.Get("1"))
			}
			return r.callOriginal(r.in.flat[i], call.This, call.Arguments...)
		})
	}
}

// ---- calls ----

func installCallGuards(r *run) {
	vm := r.vm
	fnProto := r.in.errorCtor.Prototype() // Error, like every function, inherits from it
	r.guardCall(fnProto, "apply", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.callOriginal(orig, call.This, call.Argument(0), r.argList(call.Argument(1)))
	})
	r.guardCall(fnProto, "bind", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		v := r.callOriginal(orig, call.This, call.Arguments...)
		if f, ok := v.(*goja.Object); ok {
			if name := f.Get("name"); name != nil && len(name.String()) > maxBoundName {
				_ = f.DefineDataProperty("name", vm.ToValue(name.String()[:maxBoundName]), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
		}
		return v
	})
	reflect := vm.Get("Reflect").ToObject(vm)
	r.guardCall(reflect, "apply", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.callOriginal(orig, call.This, call.Argument(0), call.Argument(1), r.argList(call.Argument(2)))
	})
	r.guardCall(reflect, "construct", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		args := []goja.Value{call.Argument(0), r.argList(call.Argument(1))}
		if len(call.Arguments) > 2 {
			args = append(args, call.Arguments[2])
		}
		return r.callOriginal(orig, call.This, args...)
	})
}

// argList bounds an argument list built from an array-like (CreateListFromArrayLike
// makes one Go slice of its length at once) and hands the original a genuine array of
// exactly the elements read. undefined and null mean no arguments, as for apply; anything
// else that is not an object is left for the original to reject.
func (r *run) argList(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	recv, n, _ := r.stableReceiver(o)
	if n > maxApplyArgs {
		panic(r.rangeError("Maximum call stack size exceeded"))
	}
	if recv == v {
		return v // a genuine array: the original reads its elements directly
	}
	src := recv.ToObject(r.vm)
	items := make([]any, n)
	for i := int64(0); i < n; i++ {
		items[i] = src.Get(strconv.FormatInt(i, 10))
		if items[i] == nil {
			items[i] = goja.Undefined()
		}
	}
	return r.vm.NewArray(items...)
}

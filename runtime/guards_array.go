package runtime

import (
	"math"
	"strconv"

	"github.com/dop251/goja"
)

// The array guards (see guards.go for the rules every guard keeps).

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

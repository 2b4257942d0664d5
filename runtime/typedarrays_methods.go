package runtime

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/dop251/goja"
)

// The %TypedArray% methods that build a string, sort, or copy from an array-like or an
// iterable in one native call, guarded with the typed-array constructors (typedarrays.go):
//   - join, toLocaleString, and Uint8Array's toBase64 and toHex: the result's size, within
//     the string bound (join's result can be a program-chosen separator a million times;
//     toLocaleString calls each element's toLocaleString, which a program can replace);
//   - sort and toSorted without a comparator: goja's sort.Stable over an interface takes
//     about 1.7 s for 2M elements and cannot be interrupted; above nativeSortMax the guard
//     sorts in Go, in place, checking the run's stop flag;
//   - set from an array-like, and %TypedArray%.from: copied in JavaScript (interruptible)
//     or through a bounded iterable, and bounded by the heap budget's element count.

// typedSrc defines the JavaScript the typed-array method guards copy through, so that
// every element is a step the compute budget can interrupt:
//   - copyInto is set's copy from an array-like, element by element as goja's does;
//   - fillFrom is from's copy from an array-like, through the map function if any.
//
// call(fn, this, ...args) is a host function: Function.prototype.call may be the
// program's.
const typedSrc = `(function (call) {
	'use strict';
	function copyInto(ta, src, offset, n) {
		for (let i = 0; i < n; i++) ta[offset + i] = src[i];
	}
	function fillFrom(ta, src, n, map, thisArg) {
		if (map === undefined) {
			for (let i = 0; i < n; i++) ta[i] = src[i];
		} else {
			for (let i = 0; i < n; i++) ta[i] = call(map, thisArg, src[i], i);
		}
		return ta;
	}
	return [copyInto, fillFrom];
})`

var typedPrg = compileOnce("typed.js", typedSrc)

// typedHelpers are typedSrc's functions, built on first use. VM goroutine only.
type typedHelpers struct {
	copyInto, fillFrom goja.Callable
}

func (r *run) typedHelpers() *typedHelpers {
	if r.objects.typed != nil {
		return r.objects.typed
	}
	v, err := r.vm.RunProgram(typedPrg())
	if err != nil {
		panic(err)
	}
	mk, _ := goja.AssertFunction(v)
	call := r.native(func(c goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(c.Argument(0))
		if !ok {
			panic(r.vm.NewTypeError("%s is not a method", c.Argument(0).String()))
		}
		var args []goja.Value
		if len(c.Arguments) > 2 {
			args = c.Arguments[2:]
		}
		res, err := fn(c.Argument(1), args...)
		if err != nil {
			panic(err)
		}
		return res
	})
	fns, err := mk(goja.Undefined(), call)
	if err != nil {
		panic(err)
	}
	o := fns.ToObject(r.vm)
	t := &typedHelpers{}
	t.copyInto, _ = goja.AssertFunction(o.Get("0"))
	t.fillFrom, _ = goja.AssertFunction(o.Get("1"))
	r.objects.typed = t
	return t
}

// iterator is goja's getIterator of src with the iterator method the caller read (not
// undefined or null), with its messages: the iterator the method returns, and its next
// method, nil when that is not callable (goja throws for it only when it would call it).
func (r *run) iterator(src, method goja.Value) (it *goja.Object, next goja.Callable) {
	it = r.toObj(r.call(r.method(method), src))
	next, _ = goja.AssertFunction(it.Get("next"))
	return it, next
}

// collect reads src into a list of at most limit elements with the iterator method the
// caller read, as goja's own iteration does (its GetIterator and its messages), checking
// the run's stop flag as it goes; over(n) throws for the n-th element, after closing the
// iterator.
func (r *run) collect(src *goja.Object, method goja.Value, limit int64, over func(int64)) []goja.Value {
	it, next := r.iterator(src, method)
	var vals []goja.Value
	for {
		if next == nil {
			panic(r.vm.NewTypeError("iterator.next is missing or not a function"))
		}
		step := r.toObj(r.call(next, it))
		if done := step.Get("done"); done != nil && done.ToBoolean() {
			return vals
		}
		v := step.Get("value")
		if v == nil {
			v = goja.Undefined()
		}
		if int64(len(vals)) >= limit || len(vals)&1023 == 1023 && r.failed() {
			if ret, ok := goja.AssertFunction(it.Get("return")); ok {
				_, _ = ret(it) // closing after an error ignores what return does
			}
			over(int64(len(vals)) + 1)
		}
		vals = append(vals, v)
	}
}

// typedView returns the elements of a typed array (goja exports a slice sharing its
// buffer), or ok false for anything else, a proxy included.
func typedView(v goja.Value) (elems reflect.Value, ok bool) {
	o, isObj := v.(*goja.Object)
	if !isObj {
		return reflect.Value{}, false
	}
	t := o.ExportType()
	if t == nil || t.Kind() != reflect.Slice || !isTypedArrayType(t) {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(o.Export()), true
}

// maxElementChars is the longest string an element of each typed-array kind converts to
// ("-128", "-2147483648", "-2.2250738585072014e-308", "-9223372036854775808").
func maxElementChars(k reflect.Kind) int64 {
	switch k {
	case reflect.Int8:
		return 4
	case reflect.Uint8:
		return 3
	case reflect.Int16:
		return 6
	case reflect.Uint16:
		return 5
	case reflect.Int32:
		return 11
	case reflect.Uint32:
		return 10
	case reflect.Int64, reflect.Uint64:
		return 20
	}
	return 25 // a float32 converts through its float64 value
}

// nativeCopyMax is the longest array-like that %TypedArray%.from copies natively.
const nativeCopyMax = 1 << 16

// guardTypedArrayMethods guards the %TypedArray% methods that build a string, sort, or copy
// from an array-like or an iterable in one native call, and Uint8Array's base64 and hex
// encoders. It runs with guardTypedArrays.
func (r *run) guardTypedArrayMethods() {
	vm := r.vm
	u8, ok := vm.GlobalObject().Get("Uint8Array").(*goja.Object)
	if !ok {
		return
	}
	taCtor := u8.Prototype() // %TypedArray%
	u8Proto, _ := u8.Get("prototype").(*goja.Object)
	if taCtor == nil || u8Proto == nil {
		return
	}
	taProto := u8Proto.Prototype()
	if taProto == nil {
		return
	}
	toReversed, _ := goja.AssertFunction(taProto.Get("toReversed"))

	r.guardCall(taProto, "join", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		elems, ok := typedView(call.This)
		if !ok {
			return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
		}
		sep := goja.Value(vm.ToValue(","))
		if s := call.Argument(0); !goja.IsUndefined(s) {
			sep = r.strOf(s)
		}
		n, sepLen := int64(elems.Len()), int64(sep.(goja.String).Length())
		seps := max(n-1, 0) * sepLen
		switch max := int64(r.maxStringBytes()); {
		case n+seps > max: // every element is at least one character
			r.tooLongString()
		case n*maxElementChars(elems.Type().Elem().Kind())+seps > max:
			return r.joinTyped(elems, sep.(goja.String))
		}
		return r.callOriginal(orig, call.This, sep)
	})
	r.guardCall(taProto, "toLocaleString", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		elems, ok := typedView(call.This)
		if !ok {
			return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
		}
		return r.localeTyped(call.This.ToObject(vm), elems.Len())
	})
	r.guardCall(taProto, "sort", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		elems, ok := typedView(call.This)
		if !ok || !goja.IsUndefined(call.Argument(0)) || elems.Len() <= nativeSortMax {
			return r.callOriginal(orig, call.This, call.Arguments...)
		}
		r.sortTyped(elems)
		return call.This
	})
	r.guardCall(taProto, "toSorted", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		elems, ok := typedView(call.This)
		if !ok || !goja.IsUndefined(call.Argument(0)) || elems.Len() <= nativeSortMax || toReversed == nil {
			return r.callOriginal(orig, call.This, call.Arguments...)
		}
		// A new typed array of the same kind (toReversed, like toSorted, ignores species),
		// holding a copy of the elements' bits (toReversed's own copy converts each
		// element, which can change a NaN's bits), sorted in place.
		c := r.callOriginal(toReversed, call.This)
		if sorted, ok := typedView(c); ok {
			reflect.Copy(sorted, elems)
			r.sortTyped(sorted)
		}
		return c
	})
	r.guardCall(taProto, "set", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.setTyped(call, orig)
	})
	r.guardCall(taCtor, "from", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.fromTyped(call, orig)
	})
	encoded := func(name string, size func(n int64) int64) {
		r.guardCall(u8Proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			if elems, ok := typedView(call.This); ok && size(int64(elems.Len())) > int64(r.maxStringBytes()) {
				r.tooLongString()
			}
			return r.callOriginal(orig, call.This, call.Arguments...)
		})
	}
	encoded("toBase64", func(n int64) int64 { return (n + 2) / 3 * 4 })
	encoded("toHex", func(n int64) int64 { return 2 * n })
}

// joinTyped is TypedArray.prototype.join for a result that may be over the string bound:
// built here, element by element as goja converts them, checking the size and the run's
// stop flag as it goes.
func (r *run) joinTyped(elems reflect.Value, sep goja.String) goja.Value {
	var b goja.StringBuilder
	total, max := int64(0), int64(r.maxStringBytes())
	sepLen := int64(sep.Length())
	for i := 0; i < elems.Len(); i++ {
		if i&0xffff == 0xffff && r.failed() {
			r.tooLongString() // the run is over; unwind
		}
		if i > 0 {
			b.WriteString(sep)
			total += sepLen
		}
		s := r.typedElementString(elems.Index(i))
		total += int64(len(s))
		if total > max {
			r.tooLongString()
		}
		b.WriteUTF8String(s)
	}
	return b.String()
}

// typedElementString converts a typed-array element as JavaScript's ToString does.
func (r *run) typedElementString(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	}
	return r.vm.ToValue(v.Float()).String()
}

// localeTyped is TypedArray.prototype.toLocaleString as goja does it (each element's
// toLocaleString, joined with commas), with the result's size and the run's stop flag
// checked as it goes: a program's toLocaleString can return anything.
func (r *run) localeTyped(o *goja.Object, n int) goja.Value {
	vm := r.vm
	var b goja.StringBuilder
	total, max := int64(0), int64(r.maxStringBytes())
	for i := 0; i < n; i++ {
		if i&1023 == 1023 && r.failed() {
			r.tooLongString() // the run is over; unwind
		}
		if i > 0 {
			b.WriteRune(',')
			total++
		}
		item := o.Get(strconv.Itoa(i))
		if item == nil || goja.IsUndefined(item) || goja.IsNull(item) {
			continue
		}
		f, ok := goja.AssertFunction(item.ToObject(vm).Get("toLocaleString"))
		if !ok {
			panic(vm.NewTypeError("Property 'toLocaleString' of object %s is not a function", item.String()))
		}
		res, err := f(item)
		if err != nil {
			panic(err)
		}
		s := r.strOf(res)
		total += int64(s.Length())
		if total > max {
			r.tooLongString()
		}
		b.WriteString(s)
	}
	return b.String()
}

// setTyped is TypedArray.prototype.set: a typed-array source is copied natively (a copy
// of memory); any other source is copied in JavaScript, element by element as goja
// does, so that the budget can interrupt it (a 5e8-element array-like did not finish).
// The source, its length and the offset are each converted once, in goja's order.
func (r *run) setTyped(call goja.FunctionCall, orig goja.Callable) goja.Value {
	vm := r.vm
	target, ok := typedView(call.This)
	src := call.Argument(0)
	if !ok || goja.IsUndefined(src) || goja.IsNull(src) {
		return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
	}
	srcObj := src.ToObject(vm)
	offset := call.Argument(1).ToNumber()
	if _, isTyped := typedView(srcObj); isTyped {
		return r.callOriginal(orig, call.This, srcObj, offset)
	}
	off := offset.ToFloat()
	if math.IsNaN(off) {
		off = 0
	}
	off = math.Trunc(off)
	if off < 0 {
		return r.callOriginal(orig, call.This, srcObj, offset) // throws its RangeError
	}
	n := toLength(srcObj.Get("length"))
	if float64(n)+off > float64(target.Len()) {
		panic(r.rangeError("Source is too large"))
	}
	if n > 0 {
		if _, err := r.typedHelpers().copyInto(goja.Undefined(), call.This, srcObj, vm.ToValue(int64(off)), vm.ToValue(n)); err != nil {
			panic(err)
		}
	}
	return goja.Undefined()
}

// fromTyped is %TypedArray%.from. A typed-array source within the bound is copied
// natively. An iterable source is handed to the original as a bounded iterable with the
// iterator method read here (so the original reads it once, from that). An array-like
// source's length is read once: a short one goes to the original through a view with that
// length, a longer one is copied in JavaScript, so that the budget can interrupt it.
func (r *run) fromTyped(call goja.FunctionCall, orig goja.Callable) goja.Value {
	vm := r.vm
	c, isObj := call.This.(*goja.Object)
	mapFn := call.Argument(1)
	src, isSrc := call.Argument(0).(*goja.Object)
	if _, isFn := goja.AssertFunction(mapFn); !isObj || !isSrc || !goja.IsUndefined(mapFn) && !isFn {
		return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
	}
	// goja collects an iterable's values into a list before it makes the typed array, and
	// each value costs it more than the 16 bytes maxElements counts.
	limit := r.maxElements() / 4
	over := func(n int64) { panic(r.rangeError(fmt.Sprintf("Invalid typed array length: %d", n))) }
	if elems, ok := typedView(src); ok {
		if n := int64(elems.Len()); n > limit {
			over(n)
		}
		return r.callOriginal(orig, call.This, call.Arguments...)
	}
	args := append([]goja.Value(nil), call.Arguments...)
	if m := src.GetSymbol(goja.SymIterator); m != nil && !goja.IsUndefined(m) && !goja.IsNull(m) {
		if _, ok := goja.AssertFunction(m); !ok {
			panic(vm.NewTypeError("%s is not a method", m.String()))
		}
		args[0] = r.boundedIterable(src, m, limit, func() { over(limit + 1) })
		return r.callOriginal(orig, call.This, args...)
	}
	n := toLength(src.Get("length"))
	if n > limit {
		over(n)
	}
	if n <= nativeCopyMax {
		args[0] = r.lengthView(src, n)
		return r.callOriginal(orig, call.This, args...)
	}
	ctor, ok := goja.AssertConstructor(c)
	if !ok {
		return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
	}
	ta := construct(ctor, c, vm.ToValue(n))
	if elems, ok := typedView(ta); !ok {
		panic(vm.NewTypeError("Invalid TypedArray: %s", ta.String()))
	} else if int64(elems.Len()) < n {
		panic(vm.NewTypeError("Derived TypedArray constructor created an array which was too small"))
	}
	v, err := r.typedHelpers().fillFrom(goja.Undefined(), ta, src, vm.ToValue(n), mapFn, call.Argument(2))
	if err != nil {
		panic(err)
	}
	return v
}

// lengthView is o seen with a length of n and no iterator, as they were read once.
func (r *run) lengthView(o *goja.Object, n int64) goja.Value {
	return r.vm.ToValue(r.vm.NewProxy(o, &goja.ProxyTrapConfig{
		Get: func(t *goja.Object, key string, _ goja.Value) goja.Value {
			if key == "length" {
				return r.vm.ToValue(n)
			}
			return t.Get(key)
		},
		GetSym: func(t *goja.Object, sym *goja.Symbol, _ goja.Value) goja.Value {
			if sym == goja.SymIterator {
				return goja.Undefined()
			}
			return t.GetSymbol(sym)
		},
	}))
}

package runtime

import (
	"fmt"
	"math"
	"reflect"

	"github.com/dop251/goja"
)

// Typed arrays and ArrayBuffer allocate their whole store in one Go make, sized by the
// program, before any interrupt can be checked: `new ArrayBuffer(3e10)` ends the process
// with Go's unrecoverable "out of memory", and a smaller one slips past the heap budget.
// Their constructors are therefore replaced by proxies whose construct trap sizes the
// allocation against the run's heap budget first (V8's RangeError messages over it). The
// trap normalises what it checked before the original sees it (a length is converted to a
// number once; an array-like or iterable source is read by the trap itself), so a
// valueOf, getter or iterator that answers differently the second time cannot slip a
// larger size past the check. The prototypes' constructor properties point to the proxies,
// so instances, subclasses and species lead back to them, never to the originals.
//
// Materialising the thirteen constructors costs a VM about 90 µs and 33 KB, most of an
// idle VM, so it happens only for a run that can reach them: one whose text names them,
// globalThis or this (through which a program can read the global object by a computed
// name), one that builds TextEncoder or TextDecoder (whose results are typed arrays), and
// one that calls eval or a Function constructor (code whose text is only known then).

// typedArrayKinds are the typed-array constructors and their element sizes.
var typedArrayKinds = []struct {
	name string
	size int64
}{
	{"Int8Array", 1}, {"Uint8Array", 1}, {"Uint8ClampedArray", 1}, {"Int16Array", 2},
	{"Uint16Array", 2}, {"Int32Array", 4}, {"Uint32Array", 4}, {"Float32Array", 4},
	{"Float64Array", 8}, {"BigInt64Array", 8}, {"BigUint64Array", 8},
}

// typedTriggers are the words through which a program's text reaches the typed-array
// constructors (a lazy family, see guards.go).
var typedTriggers = func() []string {
	t := []string{"ArrayBuffer", "DataView"}
	for _, k := range typedArrayKinds {
		t = append(t, k.name)
	}
	return t
}()

// guardTypedArrays replaces ArrayBuffer and the typed-array constructors with guarded
// proxies, once per VM. VM goroutine only.
func (r *run) guardTypedArrays() {
	vm := r.vm
	g := vm.GlobalObject()
	replace := func(name string, trap func(orig goja.Constructor) func(*goja.Object, []goja.Value, *goja.Object) *goja.Object) {
		orig, ok := g.Get(name).(*goja.Object)
		if !ok {
			return
		}
		ctor, ok := goja.AssertConstructor(orig)
		if !ok {
			return
		}
		p := vm.NewProxy(orig, &goja.ProxyTrapConfig{Construct: r.guardedTrap(trap(ctor))})
		// goja's instanceof cannot use a proxy as its right-hand side (Function.prototype's
		// Symbol.hasInstance throws for one), so the constructor answers it itself.
		_ = orig.DefineDataPropertySymbol(goja.SymHasInstance, r.hasInstance(), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		pv := vm.ToValue(p)
		if proto, ok := orig.Get("prototype").(*goja.Object); ok {
			_ = proto.DefineDataProperty("constructor", pv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		_ = g.DefineDataProperty(name, pv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	replace("ArrayBuffer", r.arrayBufferTrap)
	for _, k := range typedArrayKinds {
		replace(k.name, func(orig goja.Constructor) func(*goja.Object, []goja.Value, *goja.Object) *goja.Object {
			return r.typedArrayTrap(k.size, orig)
		})
	}
	r.guardTypedArrayMethods()
	r.countBufferMethods()
}

// bufferGetter reads ArrayBuffer.prototype's byteLength getter.
var bufferGetter = compileOnce("buffergetter.js", "(function (p) { return Object.getOwnPropertyDescriptor(p, 'byteLength').get })")

// countBufferMethods counts ArrayBuffer.prototype's slice and byteLength getter as levels of
// native nesting: they convert their receiver, so installed as a plain object's toString or
// valueOf they would call themselves through ToPrimitive without a JavaScript frame (see
// reentrant in guards_reentry.go). VM goroutine, while guardTypedArrays runs.
func (r *run) countBufferMethods() {
	vm := r.vm
	proto := vm.ToValue(vm.NewArrayBuffer(nil)).ToObject(vm).Prototype()
	if proto == nil {
		return
	}
	r.guardCall(proto, "slice", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.callOriginal(orig, call.This, call.Arguments...)
	})
	get, err := vm.RunProgram(bufferGetter())
	if err != nil {
		return
	}
	mk, _ := goja.AssertFunction(get)
	g, err := mk(goja.Undefined(), proto)
	if err != nil {
		return
	}
	orig, ok := goja.AssertFunction(g)
	if !ok {
		return
	}
	counted := r.native(r.counted(func(call goja.FunctionCall) goja.Value {
		return r.callOriginal(orig, call.This)
	})).ToObject(vm)
	_ = counted.DefineDataProperty("name", vm.ToValue("get byteLength"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = counted.DefineDataProperty("length", vm.ToValue(0), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = proto.DefineAccessorProperty("byteLength", counted, nil, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// ordinaryHasInstance is OrdinaryHasInstance with the receiver as the constructor:
// whether the receiver's prototype property is on the value's prototype chain; a
// prototype that is not an object throws a TypeError with msg.
func (r *run) ordinaryHasInstance(msg string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		o, ok := call.Argument(0).(*goja.Object)
		c, isObj := call.This.(*goja.Object)
		if !ok || !isObj {
			return r.vm.ToValue(false)
		}
		proto, ok := c.Get("prototype").(*goja.Object)
		if !ok {
			panic(r.vm.NewTypeError(msg))
		}
		for p := o.Prototype(); p != nil; p = p.Prototype() {
			if p == proto {
				return r.vm.ToValue(true)
			}
		}
		return r.vm.ToValue(false)
	}
}

// hasInstance is OrdinaryHasInstance with the receiver as the constructor: whether the
// receiver's prototype property is on the value's prototype chain.
func (r *run) hasInstance() goja.Value {
	if r.in.hasInstance == nil {
		r.in.hasInstance = r.native(r.ordinaryHasInstance("Function has non-object prototype in instanceof check"))
		_ = r.in.hasInstance.ToObject(r.vm).DefineDataProperty("name", r.vm.ToValue("[Symbol.hasInstance]"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return r.in.hasInstance
}

// guardedTrap turns a Go panic in a trap into the run's failure, as run.native does for
// host functions; goja's own throws pass through.
func (r *run) guardedTrap(trap func(*goja.Object, []goja.Value, *goja.Object) *goja.Object) func(*goja.Object, []goja.Value, *goja.Object) *goja.Object {
	return func(t *goja.Object, args []goja.Value, nt *goja.Object) (o *goja.Object) {
		defer func() {
			if x := recover(); x != nil {
				if isGojaPanic(x) {
					panic(x)
				}
				r.fail(KindException, fmt.Sprintf("internal error: a typed-array guard panicked: %v", x))
				o = r.vm.NewObject()
			}
		}()
		return trap(t, args, nt)
	}
}

// maxBufferBytes bounds one ArrayBuffer or typed array: the run's whole heap budget.
func (r *run) maxBufferBytes() int64 { return r.limits.HeapBytes }

func (r *run) arrayBufferTrap(orig goja.Constructor) func(*goja.Object, []goja.Value, *goja.Object) *goja.Object {
	return func(_ *goja.Object, args []goja.Value, nt *goja.Object) *goja.Object {
		args = append([]goja.Value(nil), args...)
		if len(args) > 0 {
			n := args[0].ToNumber() // once: a valueOf runs here, not again in the original
			if f := n.ToFloat(); f > float64(r.maxBufferBytes()) {
				panic(r.rangeError("Array buffer allocation failed"))
			}
			args[0] = n
		}
		return construct(orig, nt, args...)
	}
}

func (r *run) typedArrayTrap(size int64, orig goja.Constructor) func(*goja.Object, []goja.Value, *goja.Object) *goja.Object {
	return func(_ *goja.Object, args []goja.Value, nt *goja.Object) *goja.Object {
		tooLong := func(n float64) {
			if n*float64(size) > float64(r.maxBufferBytes()) {
				panic(r.rangeError(fmt.Sprintf("Invalid typed array length: %s", formatLength(n))))
			}
		}
		src, isObj := argument(args, 0).(*goja.Object)
		if !isObj {
			if len(args) == 0 || goja.IsUndefined(args[0]) {
				return construct(orig, nt)
			}
			n := args[0].ToNumber()
			tooLong(n.ToFloat())
			return construct(orig, nt, n)
		}
		switch t := src.ExportType(); {
		case t == reflect.TypeOf(goja.ArrayBuffer{}):
			return construct(orig, nt, args...) // a view: nothing is allocated
		case t != nil && t.Kind() == reflect.Slice && isTypedArrayType(t):
			// A copy of another typed array: its own length, which a program cannot redefine.
			tooLong(float64(reflect.ValueOf(src.Export()).Len()))
			return construct(orig, nt, src)
		}
		// An iterable or an array-like: read here, once, within the bounds, and copied
		// into an array of the length that was checked.
		limit := min(r.maxElements(), r.maxBufferBytes()/size)
		if it := src.GetSymbol(goja.SymIterator); it != nil && !goja.IsUndefined(it) && !goja.IsNull(it) {
			// A genuine Array with its own iterator has as many elements as its length;
			// anything else is iterated with the method read above (goja's ForOf would
			// read it again), checking the run's stop flag as it goes.
			if src.ClassName() == "Array" && it == r.objects.arrayValues {
				if n := toLength(src.Get("length")); n > limit {
					tooLong(float64(n))
					panic(r.rangeError(fmt.Sprintf("Invalid typed array length: %d", n)))
				}
			}
			vals := r.collect(src, it, limit, func(n int64) {
				tooLong(float64(n))
				panic(r.rangeError(fmt.Sprintf("Invalid typed array length: %d", n)))
			})
			return r.fillTyped(construct(orig, nt, r.vm.ToValue(len(vals))), r.vm.NewArray(toAny(vals)...), len(vals))
		}
		length := 0.0
		if n := src.Get("length"); n != nil {
			length = n.ToNumber().ToFloat()
		}
		if !(length > 0) {
			length = 0
		}
		length = math.Floor(length)
		tooLong(length)
		if length > float64(limit) {
			panic(r.rangeError(fmt.Sprintf("Invalid typed array length: %s", formatLength(length))))
		}
		return r.fillTyped(construct(orig, nt, r.vm.ToValue(int64(length))), src, int(length))
	}
}

// fillSrc copies n elements of src into a new typed array in JavaScript, index by index
// as the specification's array-like path does, so the compute budget can interrupt it.
const fillSrc = `(function (ta, src, n) {
	'use strict';
	for (let i = 0; i < n; i++) ta[i] = src[i];
	return ta;
})`

var fillPrg = compileOnce("fill.js", fillSrc)

func (r *run) fillTyped(ta *goja.Object, src goja.Value, n int) *goja.Object {
	if n == 0 {
		return ta
	}
	if r.in.fillTyped == nil {
		v, err := r.vm.RunProgram(fillPrg())
		if err != nil {
			panic(err)
		}
		r.in.fillTyped, _ = goja.AssertFunction(v)
	}
	if _, err := r.in.fillTyped(goja.Undefined(), ta, src, r.vm.ToValue(n)); err != nil {
		panic(err)
	}
	return ta
}

func toAny(vals []goja.Value) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// construct calls a constructor with a new.target, rethrowing its exception.
func construct(c goja.Constructor, nt *goja.Object, args ...goja.Value) *goja.Object {
	o, err := c(nt, args...)
	if err != nil {
		panic(err)
	}
	return o
}

func argument(args []goja.Value, i int) goja.Value {
	if i < len(args) {
		return args[i]
	}
	return goja.Undefined()
}

// isTypedArrayType reports whether t is what goja exports a typed array as.
func isTypedArrayType(t reflect.Type) bool {
	switch t.Elem().Kind() {
	case reflect.Int8, reflect.Uint8, reflect.Int16, reflect.Uint16, reflect.Int32, reflect.Uint32,
		reflect.Float32, reflect.Float64, reflect.Int64, reflect.Uint64:
		return true
	}
	return false
}

// formatLength writes a length as JavaScript would.
func formatLength(n float64) string {
	if n == math.Trunc(n) && math.Abs(n) < 1e21 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprint(n)
}

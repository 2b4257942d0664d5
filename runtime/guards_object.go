package runtime

import (
	"fmt"
	"reflect"

	"github.com/dop251/goja"
)

// Object guards: the Object statics, Object.prototype and Error.prototype, guarded when
// the VM is built because every object leads to them (through .constructor and the
// prototype chain); the lazy families of this file and its siblings (Proxy and Reflect,
// Date, BigInt), guarded only for runs that can reach them; and the bounds on statics
// that make one record per key of their argument.
//
// Object.keys and its kin build one value per own key in one native call. A String or a
// typed array has one key per element without holding any memory for it, so
// Object.entries(new Uint8Array(4e8)) asks for hundreds of gigabytes at once; a genuine
// Array holds 16 bytes per element and its entries take 640. The guards bound the number
// of keys such a call may produce by the run's heap budget divided by what one key costs
// the call (measured, rounded up; for the slowest statics by the time one key takes, so
// that one call stays within about two seconds at the default budget). Ordinary objects
// are not bounded: each of their properties is a record the program already paid for.

// keyCost is what one key of a static's argument costs the call, in bytes of the heap
// budget (see the file comment): keys 42 B and 0.2 µs, entries 640 B and 1.4 µs,
// descriptors 645 B and 4 µs, assign 110-125 B and 2.1 µs, freeze and seal 48 B and
// 0.64 µs per key in goja.
const (
	keyCostKeys        = 48
	keyCostEntries     = 640
	keyCostDescriptors = 1024
	keyCostAssign      = 512
	keyCostFreeze      = 160
)

// objectGuards is the state of the object guards of one run (the run struct's objects
// field). VM goroutine only.
type objectGuards struct {
	// The intrinsics the guards call, captured when the VM is built.
	defineProperty, defineProperties, bind goja.Callable
	bigint                                 goja.Callable // the original BigInt, once guarded

	// thunks maps a getter or setter that is not an ordinary function to its counted
	// thunk, and isThunk marks the thunks (guards_reentry.go).
	thunks  map[*goja.Object]*goja.Object
	isThunk map[*goja.Object]bool

	proxy      *proxyState   // guards_proxy.go, once Proxy is guarded
	boundedFns *boundedFns   // guards_promise.go, once a bounded iterable is made
	typed      *typedHelpers // typedarrays.go, once a typed-array guard needs them
	// arrayValues is Array.prototype[Symbol.iterator] (the guarded values).
	arrayValues goja.Value
	standIn     goja.Value // guards_reentry.go's stand-in accessor
	hasInstance goja.Value // guards_proxy.go's hasInstanceTrap
}

// recoverTrap turns a Go panic in a trap of a guard's own proxy into the run's failure,
// as run.native does for host functions; goja's own throws pass through. Deferred.
func (r *run) recoverTrap() {
	if x := recover(); x != nil {
		if isGojaPanic(x) {
			panic(x)
		}
		r.fail(KindException, fmt.Sprintf("internal error: a guard panicked: %v", x))
		panic(r.vm.NewTypeError("run stopped"))
	}
}

// installObjectGuards guards the Object statics, Object.prototype, Error.prototype and the
// Promise combinators. It runs once per VM, when the pool builds it.
func installObjectGuards(r *run) {
	vm := r.vm
	r.objects = &objectGuards{}
	object := vm.Get("Object").ToObject(vm)
	r.objects.defineProperty, _ = goja.AssertFunction(object.Get("defineProperty"))
	r.objects.defineProperties, _ = goja.AssertFunction(object.Get("defineProperties"))
	r.objects.bind, _ = goja.AssertFunction(r.in.errorCtor.Prototype().Get("bind"))
	r.objects.arrayValues = r.in.arrayProto.GetSymbol(goja.SymIterator)
	r.installDescriptorGuards(object)
	r.installKeyBounds(object)
	r.installConversionCounters()
	r.installPromiseBounds()
}

// installKeyBounds bounds the statics that make a record per key of their argument.
func (r *run) installKeyBounds(object *goja.Object) {
	bound := func(name string, cost int64, msg string) {
		r.guardCall(object, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			r.checkKeys(call.Argument(0), cost, msg)
			return r.callOriginal(orig, call.This, call.Arguments...)
		})
	}
	bound("keys", keyCostKeys, msgArrayLength)
	bound("values", keyCostKeys, msgArrayLength)
	bound("getOwnPropertyNames", keyCostKeys, msgArrayLength)
	bound("entries", keyCostEntries, msgArrayLength)
	bound("getOwnPropertyDescriptors", keyCostDescriptors, msgTooManyProperties)
	bound("freeze", keyCostFreeze, msgTooManyProperties)
	bound("seal", keyCostFreeze, msgTooManyProperties)
	r.guardCall(object, "assign", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		for _, src := range call.Arguments[min(1, len(call.Arguments)):] {
			r.checkKeys(src, keyCostAssign, msgTooManyProperties)
		}
		return r.callOriginal(orig, call.This, call.Arguments...)
	})
}

// V8's messages for a result too large to build.
const (
	msgArrayLength       = "Invalid array length"
	msgTooManyProperties = "Too many properties to enumerate"
)

// checkKeys throws a RangeError with msg when v has more index keys than the heap budget
// allows at cost bytes each. Only values whose keys cost the program nothing or little
// are counted: Strings, typed arrays and genuine Arrays, also behind proxies (a proxy's
// key checks walk its target's keys).
func (r *run) checkKeys(v goja.Value, cost int64, msg string) {
	limit := r.limits.HeapBytes / cost
	n := r.indexKeys(v, limit)
	if n > limit {
		panic(r.rangeError(msg))
	}
}

// indexKeys is an upper bound on the own index keys of v, counted no further than past
// limit, without running program code: a String's or a typed array's length, a genuine
// Array's present elements (its length when that is within limit, else counted), the
// innermost target's for a chain of proxies, 0 for anything else.
func (r *run) indexKeys(v goja.Value, limit int64) int64 {
	switch s := v.(type) {
	case goja.String:
		return int64(s.Length())
	case *goja.Object:
		o := s
		for o.ExportType() == proxyType {
			t := o.Export().(goja.Proxy).Target()
			if t == nil {
				return 0 // revoked
			}
			o = t
		}
		if t := o.ExportType(); t != nil && t.Kind() == reflect.Slice && isTypedArrayType(t) {
			return int64(reflect.ValueOf(o.Export()).Len())
		}
		switch o.ClassName() {
		case "String":
			return toLength(o.Get("length")) // a String object's own, non-writable length
		case "Array":
			n := toLength(o.Get("length"))
			if n > limit {
				return r.countElements(o, limit)
			}
			return n
		}
	}
	return 0
}

// countElementsSrc counts an array's enumerable keys (its elements first) up to a limit,
// one interruptible step each: a sparse array of length 2 ** 32 - 1 holds only the
// elements it has.
const countElementsSrc = `(function (a, limit) {
	'use strict';
	let n = 0;
	for (const k in a) if (++n > limit) break;
	return n;
})`

var countElementsPrg = compileOnce("count.js", countElementsSrc)

func (r *run) countElements(a *goja.Object, limit int64) int64 {
	v, err := r.vm.RunProgram(countElementsPrg())
	if err != nil {
		panic(err)
	}
	count, _ := goja.AssertFunction(v)
	n, err := count(goja.Undefined(), a, r.vm.ToValue(limit))
	if err != nil {
		panic(err)
	}
	return n.ToInteger()
}

// ---- lazy families ----

// hasBigIntLiteral reports whether code may contain a BigInt literal: a numeric token
// (it starts with a digit) ending in n, such as 1n, 0x1fn or 1_000n. It reads text, not
// tokens, so a match in a string or a comment counts too; only a missed literal would
// matter.
func hasBigIntLiteral(code string) bool {
	start := -1 // where the current token of word bytes starts
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !isWordByte(c) {
			start = -1
			continue
		}
		if start < 0 {
			start = i
		}
		if c == 'n' && i > start && code[start] >= '0' && code[start] <= '9' {
			return true
		}
	}
	return false
}

// isWordByte reports whether b can continue a numeric or identifier token.
func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == '$'
}

package jsvm

import (
	"github.com/dop251/goja"
)

// The guards. goja checks its interrupt flag only between bytecode instructions, so one
// native built-in runs to its end whatever the budgets say. These few wrappers turn the
// ordinary mistakes of a confused model, where one call would allocate far more than the
// heap budget, into the catchable RangeError V8 throws, before the original runs:
//
//   - repeat: 'x'.repeat(1e10), a string longer than a quarter of the heap budget;
//   - padStart, padEnd: a target length past the same bound;
//   - join: a separator or an array long enough that the result cannot fit;
//   - fill: filling Array(1e9), more elements than the heap budget can hold;
//   - Array.from: Array.from({length: 1e10}), the same.
//
// Deep recursion is bounded by goja's own call-stack limit (Limits.StackDepth). A typed
// array or ArrayBuffer over the budget is not guarded: wrapping their constructors means
// building them in every VM, which would cost more than the rest of a VM does; the heap
// sampler ends such a run with memory-limit (in process, a store larger than the machine's
// memory ends the process; in a worker, the worker). Nothing here defends an in-process
// host against a program written to exhaust it: a worker process is that boundary
// (runtime/worker).

func (r *VM) maxStringBytes() int { return int(r.limits.HeapBytes / 4) }
func (r *VM) maxElements() int64  { return r.limits.HeapBytes / 16 }

// installGuards wraps the built-ins above. It runs once per VM, when the pool builds it.
func installGuards(r *VM) error {
	vm := r.vm
	// String.prototype through an instance: the String constructor would build its
	// statics too, which most programs never touch.
	strProto := vm.ToValue("").ToObject(vm).Prototype()
	arrProto := r.in.arrayProto

	r.guard(strProto, "repeat", func(call goja.FunctionCall) {
		n := call.Argument(0).ToFloat()
		if n > 0 && float64(r.thisLen(call, true))*n > float64(r.maxStringBytes()) {
			panic(r.rangeError("Invalid string length"))
		}
	})
	for _, name := range []string{"padStart", "padEnd"} {
		r.guard(strProto, name, func(call goja.FunctionCall) {
			if call.Argument(0).ToFloat() > float64(r.maxStringBytes()) {
				panic(r.rangeError("Invalid string length"))
			}
		})
	}
	r.guard(arrProto, "fill", func(call goja.FunctionCall) {
		n := r.thisLen(call, false)
		start, end := relIndex(call.Argument(1), n, 0), relIndex(call.Argument(2), n, n)
		if end-start > r.maxElements() {
			panic(r.rangeError("Invalid array length"))
		}
	})
	r.guard(arrProto, "join", func(call goja.FunctionCall) {
		n := r.thisLen(call, false)
		sep := int64(1)
		if s := call.Argument(0); !goja.IsUndefined(s) {
			sep = int64(len(s.String()))
		}
		if n > r.maxElements() || (n-1)*sep > int64(r.maxStringBytes()) {
			panic(r.rangeError("Invalid string length"))
		}
	})
	r.guard(vm.Get("Array").ToObject(vm), "from", func(call goja.FunctionCall) {
		// Array.from({length: n}) builds n elements in one native call; an iterable is
		// stepped by goja's interruptible iteration instead.
		src, ok := call.Argument(0).(*goja.Object)
		if !ok {
			return
		}
		if it := src.GetSymbol(goja.SymIterator); it != nil && !goja.IsUndefined(it) {
			return
		}
		if l := src.Get("length"); l != nil && l.ToFloat() > float64(r.maxElements()) {
			panic(r.rangeError("Invalid array length"))
		}
	})
	return nil
}

// guard wraps obj[name] with a check that runs before the original.
func (r *VM) guard(obj *goja.Object, name string, check func(goja.FunctionCall)) {
	r.guardCall(obj, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		check(call)
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err) // the original's exception (or interrupt), unchanged
		}
		return v
	})
}

// guardCall replaces obj[name] with wrap, keeping the original's name and length.
func (r *VM) guardCall(obj *goja.Object, name string, wrap func(goja.FunctionCall, goja.Callable) goja.Value) {
	origV := obj.Get(name)
	orig, ok := goja.AssertFunction(origV)
	if !ok {
		return
	}
	length := origV.ToObject(r.vm).Get("length")
	f := r.native(func(call goja.FunctionCall) goja.Value { return wrap(call, orig) }).ToObject(r.vm)
	_ = f.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = obj.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// thisLen is the length of the receiver: its string length, or its "length" property.
func (r *VM) thisLen(call goja.FunctionCall, str bool) int64 {
	if goja.IsUndefined(call.This) || goja.IsNull(call.This) {
		return 0 // the original throws the right TypeError
	}
	if str {
		if s, ok := call.This.(goja.String); ok {
			return int64(s.Length())
		}
		return int64(len(call.This.String()))
	}
	return call.This.ToObject(r.vm).Get("length").ToInteger()
}

// relIndex resolves a relative start or end argument as Array.prototype.fill does.
func relIndex(v goja.Value, n, def int64) int64 {
	if goja.IsUndefined(v) {
		return def
	}
	i := v.ToInteger()
	if i < 0 {
		return max(n+i, 0)
	}
	return min(i, n)
}

// rangeError builds a RangeError with the intrinsic constructor.
func (r *VM) rangeError(msg string) *goja.Object {
	e, err := r.vm.New(r.in.rangeCtor, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.NewTypeError(msg)
	}
	return e
}

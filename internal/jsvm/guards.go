package jsvm

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/dop251/goja"
)

// The guards. One native built-in runs to its end whatever the budgets say, so these
// wrappers throw V8's catchable RangeError before a call that would allocate far more
// than the heap budget: repeat, padStart and padEnd past a quarter of it; a join whose
// result cannot fit; fill and Array.from({length}) past HeapBytes/16 elements; and
// ArrayBuffer and typed arrays over HeapBytes bytes (goja allocates them in one make).
//
// The buffer constructors are wrapped at run start, only those the program's text names:
// building all twelve in every VM would double a VM's cost (BENCHMARKS.md). One reached
// without being named (eval, a computed name) is goja's own: an oversized buffer then ends
// the run with memory-limit, or in process one past the machine's memory ends the process.
// These guard against mistakes, not hostility: a worker process is that boundary.

func (r *VM) maxStringBytes() int { return int(r.limits.HeapBytes / 4) }
func (r *VM) maxElements() int64  { return r.limits.HeapBytes / 16 }

// installGuards wraps the built-ins above, once per VM, when it is built. The checks take
// the VM as an argument: closures over nothing cost no allocation.
func installGuards(r *VM) error {
	vm := r.vm
	// String.prototype through an instance: the constructor would build its statics too.
	strProto := vm.ToValue("").ToObject(vm).Prototype()
	arrProto := r.in.arrayProto

	r.guard(strProto, "repeat", func(r *VM, call goja.FunctionCall) {
		n := call.Argument(0).ToFloat()
		if n > 0 && float64(r.thisLen(call, true))*n > float64(r.maxStringBytes()) {
			panic(r.rangeError("Invalid string length"))
		}
	})
	for _, name := range []string{"padStart", "padEnd"} {
		r.guard(strProto, name, func(r *VM, call goja.FunctionCall) {
			if call.Argument(0).ToFloat() > float64(r.maxStringBytes()) {
				panic(r.rangeError("Invalid string length"))
			}
		})
	}
	r.guard(arrProto, "fill", func(r *VM, call goja.FunctionCall) {
		n := r.thisLen(call, false)
		start, end := relIndex(call.Argument(1), n, 0), relIndex(call.Argument(2), n, n)
		if end-start > r.maxElements() {
			panic(r.rangeError("Invalid array length"))
		}
	})
	r.guard(arrProto, "join", func(r *VM, call goja.FunctionCall) {
		n := r.thisLen(call, false)
		sep := int64(1)
		if s := call.Argument(0); !goja.IsUndefined(s) {
			sep = int64(len(s.String()))
		}
		if n > r.maxElements() || (n-1)*sep > int64(r.maxStringBytes()) {
			panic(r.rangeError("Invalid string length"))
		}
	})
	r.guard(vm.Get("Array").ToObject(vm), "from", func(r *VM, call goja.FunctionCall) {
		// An iterable is stepped by goja's interruptible iteration; {length: n} is not.
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

// bufferCtors are the constructors whose one number argument is a size goja allocates
// in one Go make: ArrayBuffer's in bytes, a typed array's in elements.
var bufferCtors = [...]string{"ArrayBuffer", "Uint8Array", "Uint8ClampedArray", "Int8Array",
	"Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float32Array", "Float64Array",
	"BigInt64Array", "BigUint64Array"}

// guardBuffers replaces each buffer constructor that code names with a Proxy whose
// construct trap checks the size first. A Proxy keeps the rest of the original (name,
// length, prototype, statics, subclassing, the TypeError of a call without new), and the
// prototype's constructor points at it so species-created arrays are checked too. Once
// per run, before the program, on the VM goroutine.
func (r *VM) guardBuffers(code string) {
	if !strings.Contains(code, "Array") {
		return
	}
	vm := r.vm
	global := vm.GlobalObject()
	// goja's instanceof fails on the Proxy itself, so each original gets an own
	// Symbol.hasInstance that runs Function's with the original (found by its Proxy) as this.
	var wrapped []struct{ proxy, orig *goja.Object }
	var hasInstance goja.Value
	for _, name := range bufferCtors {
		if !strings.Contains(code, name) {
			continue
		}
		orig, ok := global.Get(name).(*goja.Object)
		if !ok {
			continue
		}
		construct, ok := goja.AssertConstructor(orig)
		if !ok {
			continue
		}
		if hasInstance == nil {
			has, ok := goja.AssertFunction(orig.GetSymbol(goja.SymHasInstance))
			if !ok {
				return
			}
			hasInstance = r.native(func(call goja.FunctionCall) goja.Value {
				this := call.This
				for _, w := range wrapped {
					if w.proxy == this {
						this = w.orig
					}
				}
				v, err := has(this, call.Arguments...)
				if err != nil {
					panic(err)
				}
				return v
			})
		}
		size := 1.0
		if b := orig.Get("BYTES_PER_ELEMENT"); b != nil {
			size = b.ToFloat()
		}
		p := vm.NewProxy(orig, &goja.ProxyTrapConfig{
			Construct: func(_ *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object {
				if len(args) > 0 {
					r.checkBuffer(args[0], size)
				}
				o, err := construct(newTarget, args...)
				if err != nil {
					panic(err) // the original's exception (or interrupt), unchanged
				}
				return o
			},
		})
		pv := vm.ToValue(p).(*goja.Object)
		wrapped = append(wrapped, struct{ proxy, orig *goja.Object }{pv, orig})
		_ = orig.DefineDataPropertySymbol(goja.SymHasInstance, hasInstance, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		_ = global.Set(name, pv)
		if proto, ok := orig.Get("prototype").(*goja.Object); ok {
			_ = proto.Set("constructor", pv)
		}
	}
}

// checkBuffer throws the RangeError when a constructor's first argument asks for more
// bytes than the heap budget; an object argument is left to the original.
func (r *VM) checkBuffer(arg goja.Value, size float64) {
	if _, ok := arg.(*goja.Object); ok || goja.IsUndefined(arg) {
		return
	}
	if _, ok := arg.Export().(*big.Int); ok {
		return // a BigInt length: the original throws its TypeError
	}
	if n := arg.ToFloat() * size; n > float64(r.limits.HeapBytes) {
		panic(r.rangeError(fmt.Sprintf("Array buffer allocation failed: %.0f bytes is over the run's heap budget of %d MiB",
			n, r.limits.HeapBytes>>20)))
	}
}

// guard replaces obj[name] with a function of the original's name and length that runs
// check, then the original's Go function, called directly as goja's Export documents for
// a function called from one implemented in Go: the original's object is then garbage.
func (r *VM) guard(obj *goja.Object, name string, check func(*VM, goja.FunctionCall)) {
	orig, _ := obj.Get(name).(*goja.Object)
	if orig == nil {
		return
	}
	call, ok := orig.Export().(func(goja.FunctionCall) goja.Value)
	if !ok {
		return
	}
	f := r.native(func(c goja.FunctionCall) goja.Value {
		check(r, c)
		return call(c) // its exceptions (or an interrupt) unwind unchanged
	}).ToObject(r.vm)
	_ = f.DefineDataProperty("name", orig.Get("name"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", orig.Get("length"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
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

// rangeError builds a RangeError: goja's own, which a fresh array's length of -1 throws,
// with msg as its message. A program cannot redirect it by replacing the global, and a VM
// builds the class only when it first throws one.
func (r *VM) rangeError(msg string) *goja.Object {
	var ex *goja.Exception
	if !errors.As(r.vm.NewArray().Set("length", -1), &ex) {
		return r.vm.NewTypeError(msg)
	}
	e := ex.Value().ToObject(r.vm)
	_ = e.Set("message", msg) // before anything reads its stack, which is built from it
	return e
}

package runtime

import (
	"github.com/dop251/goja"
)

// Promise.all, allSettled, any and race read their whole iterable in one native call, and
// each element costs about 2.7 KB of promises, reactions and closures that no interrupt
// stops: Promise.all(Array(2 ** 32 - 1)) ended the process. Each is guarded with a bound
// on its input count: the original gets a bounded iterable in place of the program's,
// which takes the program's iterator the moment the original asks for it (goja's own
// GetIterator, with goja's messages) and forwards next and return to it, counting the
// calls. Past the bound it closes the program's iterator and throws, which the original
// turns into a rejection, as for any iterator that throws. Every operation on the
// program's iterable happens when and as often as it did before.

// promiseElementCost is what one element of a Promise combinator's input costs, in bytes
// of the heap budget (about 2.7 KB measured, with headroom).
const promiseElementCost = 4096

// installPromiseBounds guards the Promise combinators. They are reachable from any
// promise's constructor, and every program is an async function, so this happens when
// the VM is built.
func (r *run) installPromiseBounds() {
	promise, ok := r.vm.Get("Promise").(*goja.Object)
	if !ok {
		return
	}
	for _, name := range []string{"all", "allSettled", "any", "race"} {
		r.guardCall(promise, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			src := call.Argument(0)
			if goja.IsUndefined(src) || goja.IsNull(src) {
				return r.callOriginal(orig, call.This, call.Arguments...) // goja's own rejection
			}
			limit := r.limits.HeapBytes / promiseElementCost
			args := append([]goja.Value{r.boundedIterable(src, nil, limit, func() {
				panic(r.rangeError("Too many elements passed to Promise." + name))
			})}, call.Arguments[1:]...)
			return r.callOriginal(orig, call.This, args...)
		})
	}
}

// boundedIter is the state of one bounded iterable (a goja dynamic object, which is its
// own iterator): the program's iterable, its iterator method if the guard already read it,
// and the program's iterator once the consumer asked for it.
type boundedIter struct {
	src, method goja.Value
	limit       int64
	over        func() // throws
	fns         *boundedFns

	it    *goja.Object
	next  goja.Callable
	calls int64
}

// boundedFns are the functions every bounded iterable of a run shares.
type boundedFns struct {
	proto      *goja.Object // its prototype: [Symbol.iterator] only
	next, ret  goja.Value
	iterMethod goja.Value
}

func (b *boundedIter) Get(key string) goja.Value {
	switch key {
	case "next":
		return b.fns.next
	case "return":
		return b.fns.ret
	}
	return goja.Undefined()
}

func (b *boundedIter) Set(string, goja.Value) bool { return false }
func (b *boundedIter) Has(string) bool             { return false }
func (b *boundedIter) Delete(string) bool          { return false }
func (b *boundedIter) Keys() []string              { return nil }

// boundedIterable wraps src (not undefined or null) for a native consumer: at most limit
// elements, then over throws. method is src's iterator method when the caller already
// read it, nil to read it when the consumer asks.
func (r *run) boundedIterable(src, method goja.Value, limit int64, over func()) goja.Value {
	fns := r.boundedFns()
	o := r.vm.NewDynamicObject(&boundedIter{src: src, method: method, limit: limit, over: over, fns: fns})
	_ = o.SetPrototype(fns.proto)
	return o
}

func (r *run) boundedFns() *boundedFns {
	if r.objects.boundedFns != nil {
		return r.objects.boundedFns
	}
	vm := r.vm
	fns := &boundedFns{}
	state := func(this goja.Value) *boundedIter {
		if o, ok := this.(*goja.Object); ok {
			if b, ok := o.Export().(*boundedIter); ok {
				return b
			}
		}
		panic(vm.NewTypeError("Illegal invocation"))
	}
	// GetIterator(src) as goja does it (runtime.go getIterator), with its messages.
	fns.iterMethod = r.native(func(call goja.FunctionCall) goja.Value {
		b := state(call.This)
		m := b.method
		if m == nil {
			m = b.src.ToObject(vm).GetSymbol(goja.SymIterator)
		}
		if m == nil || goja.IsUndefined(m) || goja.IsNull(m) {
			panic(vm.NewTypeError("object is not iterable"))
		}
		b.it, b.next = r.iterator(b.src, m)
		return call.This
	})
	fns.next = r.native(func(call goja.FunctionCall) goja.Value {
		b := state(call.This)
		if b.it == nil || b.next == nil {
			panic(vm.NewTypeError("iterator.next is missing or not a function"))
		}
		b.calls++
		if b.calls > b.limit+1 { // the call after limit elements
			if m, ok := goja.AssertFunction(b.it.Get("return")); ok {
				_, _ = m(b.it) // closing after an error ignores what return does
			}
			b.over()
		}
		res, err := b.next(b.it)
		if err != nil {
			panic(err)
		}
		return res
	})
	fns.ret = r.native(func(call goja.FunctionCall) goja.Value {
		b := state(call.This)
		if b.it == nil {
			return goja.Undefined()
		}
		f := r.method(b.it.Get("return"))
		if f == nil {
			return vm.NewObject()
		}
		return r.call(f, b.it)
	})
	fns.proto = r.freshObject()
	_ = fns.proto.DefineDataPropertySymbol(goja.SymIterator, fns.iterMethod, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	r.objects.boundedFns = fns
	return fns
}

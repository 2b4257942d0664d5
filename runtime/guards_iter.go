package runtime

import (
	"github.com/dop251/goja"
)

// The iterator guards (see guards.go for the rules every guard keeps).
//
// goja steps iterators natively: spread, destructuring, Array.from, the collection
// constructors, Promise.all and yield* call an iterator's next method from Go, in a loop
// no interrupt reaches while the iterator is a built-in one. So:
//   - the built-in array, string, Map and Set iterators' next methods stop a run that has
//     failed (a budget fired) at its next element, instead of running on after the run
//     has answered, allocating for every element ([...'x'.repeat(1e8)]);
//   - a generator's next, return and throw count a level of native nesting: goja resumes
//     a generator on Go frames of its own that the call stack limit does not count, so a
//     generator that recurses through itself (function* g() { yield* g() }) would
//     otherwise grow the Go stack until the process dies. Like GeneratorFunction, they
//     are guarded only for a run whose code has generator syntax (eval_guard.go).
//
// Every for-of over an array or a string steps through one of these, so they call the
// original's Go function directly, without the wrapping a goja.Callable adds.

// installIteratorGuards guards the array and string iterators' next methods when a VM
// is built.
func installIteratorGuards(r *run) {
	vm := r.vm
	if values, ok := goja.AssertFunction(r.in.arrayProto.Get("values")); ok {
		r.guardNextOf(values, vm.NewArray())
	}
	if iter, ok := goja.AssertFunction(vm.ToValue("").ToObject(vm).GetSymbol(goja.SymIterator)); ok {
		r.guardNextOf(iter, vm.ToValue(""))
	}
}

// guardCollectionIterators guards the Map and Set iterators' next methods, lazily (see
// lazyFamilies): only Map and Set values lead to them.
func (r *run) guardCollectionIterators() {
	for _, name := range []string{"Map", "Set"} {
		ctor, ok := r.vm.GlobalObject().Get(name).(*goja.Object)
		if !ok {
			continue
		}
		inst, err := r.vm.New(ctor)
		if err != nil {
			continue
		}
		if values, ok := goja.AssertFunction(inst.Get("values")); ok {
			r.guardNextOf(values, inst)
		}
	}
}

// guardNextOf guards next on the prototype of the iterator that method returns for
// this: a failed run stops at the next step instead of iterating on.
func (r *run) guardNextOf(method goja.Callable, this goja.Value) {
	it, err := method(this)
	if err != nil {
		return
	}
	r.guardNative(it.ToObject(r.vm).Prototype(), "next", func(call goja.FunctionCall, next func(goja.FunctionCall) goja.Value) goja.Value {
		if r.failed() {
			r.stopNow()
		}
		return next(call)
	})
}

// guardGeneratorMethods guards next, return and throw of %GeneratorPrototype%, what
// every generator inherits (guardGenerators calls it with GeneratorFunction's guard).
func (r *run) guardGeneratorMethods(proto *goja.Object) {
	for _, name := range []string{"next", "return", "throw"} {
		r.guardNative(proto, name, func(call goja.FunctionCall, orig func(goja.FunctionCall) goja.Value) goja.Value {
			return orig(call)
		})
	}
}

// guardNative replaces obj[name], a goja built-in, with wrap called with the built-in's
// own Go function, counted as one level of native nesting. The original's throws and
// panics pass through as they would from the original.
func (r *run) guardNative(obj *goja.Object, name string, wrap func(goja.FunctionCall, func(goja.FunctionCall) goja.Value) goja.Value) {
	orig, ok := obj.Get(name).Export().(func(goja.FunctionCall) goja.Value)
	if !ok {
		return
	}
	r.replaceMethod(obj, name, r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		return wrap(call, orig)
	}))
}

// stopPrg is the JavaScript instruction stopNow runs.
var stopPrg = compileOnce("stop.js", "0")

// stopNow ends a run that has failed from inside a native call, the way its next
// JavaScript instruction would: goja checks for an interrupt only between instructions,
// so it interrupts the VM again, runs one, and rethrows goja's uncatchable
// InterruptedError. VM goroutine only.
func (r *run) stopNow() {
	r.vm.Interrupt(errStop)
	_, err := r.vm.RunProgram(stopPrg())
	if err == nil {
		err = errStop
	}
	panic(err)
}

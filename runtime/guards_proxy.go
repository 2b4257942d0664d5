package runtime

import (
	"github.com/dop251/goja"
)

// The Proxy and Reflect family, guarded lazily (see lazyObjectFamilies). goja calls a
// proxy's traps from Go, so a trap that is a built-in re-entering the same proxy (a bound
// Reflect.get on the proxy itself) recursed in Go until the process died. The global
// Proxy is replaced by a constructor that hands goja's Proxy a forwarding handler instead
// of the program's: a goja dynamic object whose trap properties are looked up in the
// program's handler each time goja reads them (when the trap runs, as the specification
// does). A trap the program's handler has is answered with a shared native function that
// calls it with the program's handler as this, as one counted level of native nesting; a
// trap it lacks (undefined or null) is answered with undefined, so goja falls back to the
// target exactly as it would have; anything else is passed to goja, which throws its own
// "is not a method" TypeError. Everything else stays goja's own: the proxy object, its
// invariant checks and their messages, revocation, typeof, Array.isArray.
//
// The forwarding handler is Go rather than JavaScript so that a trap's stack trace and
// the number of frames it costs are unchanged, and so that the recursion ends with a
// catchable RangeError (the native depth bound) instead of the uncatchable call-stack
// overflow. A chain of proxies without traps recurses in goja's own code, about 220
// bytes of Go stack per level; it is bounded when built: a proxy whose target is a chain
// as deep as the run's call-stack limit is refused with that RangeError.
//
// Proxy keeps its shape: name "Proxy", length 2, no prototype property, a TypeError
// without new, Proxy.revocable, and Function.prototype.toString's "[native code]" text.
// It is a bound function of a goja proxy around the original constructor, which is what
// gives it all of these at once.

// proxyTraps are the traps of a Proxy handler.
var proxyTraps = [...]string{
	"getPrototypeOf", "setPrototypeOf", "isExtensible", "preventExtensions", "getOwnPropertyDescriptor",
	"defineProperty", "has", "get", "set", "deleteProperty", "ownKeys", "apply", "construct",
}

func trapIndex(name string) int {
	for i, t := range proxyTraps {
		if t == name {
			return i
		}
	}
	return -1
}

// proxyState is the guarded Proxy of one run.
type proxyState struct {
	traps [len(proxyTraps)]goja.Value // the forwarding trap functions, shared by every proxy
	has   goja.Callable               // the original Reflect.has, to convert property keys
}

// forwarder is one proxy's forwarding handler (a goja dynamic object): the program's
// handler, and the trap goja has just looked up and is about to call.
type forwarder struct {
	handler *goja.Object
	depth   int                          // proxies in the chain down from this one's, this one included
	traps   *[len(proxyTraps)]goja.Value // proxyState.traps
	pending [len(proxyTraps)]goja.Callable
}

// Get answers goja's lookup of a trap. No program code runs between a lookup and the call
// goja makes with its result, so one pending slot per trap suffices.
func (f *forwarder) Get(key string) goja.Value {
	i := trapIndex(key)
	if i < 0 {
		return goja.Undefined()
	}
	v := f.handler.Get(key)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return goja.Undefined()
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return v // goja's own TypeError: "... is not a method"
	}
	f.pending[i] = fn
	return f.traps[i]
}

func (f *forwarder) Set(string, goja.Value) bool { return false }
func (f *forwarder) Has(string) bool             { return false }
func (f *forwarder) Delete(string) bool          { return false }
func (f *forwarder) Keys() []string              { return nil }

// guardProxy replaces Proxy and guards Reflect.defineProperty and Reflect.ownKeys, once
// per VM.
func (r *run) guardProxy() {
	vm := r.vm
	g := vm.GlobalObject()
	reflect, ok := g.Get("Reflect").(*goja.Object)
	if !ok {
		return
	}
	st := &proxyState{}
	st.has, _ = goja.AssertFunction(reflect.Get("has"))
	r.objects.proxy = st
	r.guardReflect(reflect)

	origV, ok := g.Get("Proxy").(*goja.Object)
	if !ok {
		return
	}
	orig, ok := goja.AssertConstructor(origV)
	if !ok {
		return
	}
	revocable, _ := goja.AssertFunction(origV.Get("revocable"))
	for i := range proxyTraps {
		st.traps[i] = r.native(func(call goja.FunctionCall) goja.Value {
			h, ok := call.This.Export().(*forwarder)
			if !ok || h.pending[i] == nil {
				panic(vm.NewTypeError("Illegal invocation"))
			}
			fn := h.pending[i]
			h.pending[i] = nil
			return r.callOriginal(fn, h.handler, call.Arguments...)
		})
	}
	inner := vm.NewProxy(origV, &goja.ProxyTrapConfig{
		Construct: r.guardedTrap(func(_ *goja.Object, args []goja.Value, nt *goja.Object) *goja.Object {
			h := r.forwardingHandler(args)
			if h == nil {
				return construct(orig, nt, args...) // throws its TypeError
			}
			return construct(orig, nt, args[0], h)
		}),
		GetSym: r.hasInstanceTrap,
	})
	bound, err := r.objects.bind(vm.ToValue(inner), goja.Null())
	if err != nil {
		panic(err)
	}
	p := bound.ToObject(vm)
	r.nameFunction(p, "Proxy")
	_ = p.DefineDataProperty("length", vm.ToValue(2), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	rev := r.native(func(call goja.FunctionCall) goja.Value {
		h := r.forwardingHandler(call.Arguments)
		if h == nil {
			return r.callOriginal(revocable, goja.Undefined(), call.Arguments...) // throws its TypeError
		}
		return r.callOriginal(revocable, goja.Undefined(), call.Arguments[0], h)
	}).ToObject(vm)
	r.nameFunction(rev, "revocable")
	_ = rev.DefineDataProperty("length", vm.ToValue(2), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = p.DefineDataProperty("revocable", rev, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = g.DefineDataProperty("Proxy", p, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// forwardingHandler returns the forwarding handler for Proxy's arguments, or nil when
// they are not two objects (the original throws its TypeError then). It throws the
// RangeError of a deep recursion for a target chain as deep as the call-stack limit.
func (r *run) forwardingHandler(args []goja.Value) *goja.Object {
	if len(args) < 2 {
		return nil
	}
	target, ok := args[0].(*goja.Object)
	handler, ok2 := args[1].(*goja.Object)
	if !ok || !ok2 {
		return nil
	}
	depth := 1
	if target.ExportType() == proxyType {
		depth++
		if th := target.Export().(goja.Proxy).Handler(); th != nil {
			if h, ok := th.Export().(*forwarder); ok {
				depth = h.depth + 1
			}
		}
	}
	if depth > r.limits.StackDepth {
		panic(r.rangeError("Maximum call stack size exceeded"))
	}
	o := r.vm.NewDynamicObject(&forwarder{handler: handler, depth: depth, traps: &r.objects.proxy.traps})
	_ = o.SetPrototype(nil)
	return o
}

// guardReflect guards Reflect.defineProperty (its descriptor, as Object.defineProperty)
// and Reflect.ownKeys (its key count, as Object.keys).
func (r *run) guardReflect(reflect *goja.Object) {
	r.guardDefineProperty(reflect, true)
	r.guardCall(reflect, "ownKeys", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		r.checkKeys(call.Argument(0), keyCostKeys, msgArrayLength)
		return r.callOriginal(orig, call.This, call.Arguments...)
	})
}

// propertyKey is ECMAScript's ToPropertyKey of v, done once by goja itself: the original
// Reflect.has converts it and hands it to a scratch proxy's has trap. Primitives are
// returned as they are (converting them runs no program code).
func (r *run) propertyKey(v goja.Value) goja.Value {
	if _, ok := v.(*goja.Object); !ok {
		return v
	}
	var key goja.Value
	p := r.vm.NewProxy(r.vm.NewObject(), &goja.ProxyTrapConfig{
		Has:    func(_ *goja.Object, k string) bool { key = r.vm.ToValue(k); return false },
		HasSym: func(_ *goja.Object, k *goja.Symbol) bool { key = k; return false },
	})
	if _, err := r.objects.proxy.has(goja.Undefined(), r.vm.ToValue(p), v); err != nil {
		panic(err)
	}
	return key
}

// hasInstanceTrap answers Symbol.hasInstance for a guard's own proxy around a built-in
// constructor (the target of a bound function the program sees): goja cannot use a proxy
// in instanceof, so this is goja's OrdinaryHasInstance, with its message; every other
// symbol is the target's.
func (r *run) hasInstanceTrap(t *goja.Object, sym *goja.Symbol, _ goja.Value) goja.Value {
	if sym != goja.SymHasInstance {
		return t.GetSymbol(sym)
	}
	if r.objects.hasInstance == nil {
		r.objects.hasInstance = r.native(r.ordinaryHasInstance("prototype is not an object"))
	}
	return r.objects.hasInstance
}

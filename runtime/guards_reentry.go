package runtime

import (
	"reflect"
	"sync"

	"github.com/dop251/goja"
)

// Native re-entrancy. goja calls a getter, a setter, a Proxy trap or a bound function's
// target directly from Go. When that function is itself a built-in that reads the same
// property again (Array.prototype.at as the getter of length, Object.prototype.toString as
// the getter of Symbol.toStringTag, Reflect.get bound to its own object, a Proxy whose get
// trap is a bound Reflect.get on the proxy), the recursion runs in Go with no JavaScript
// frame, so the call-stack limit never sees it, and it ends the process with Go's fatal
// stack overflow. Without forking goja, these guards put a counted level on every such
// edge:
//   - Object.defineProperty and Reflect.defineProperty read the descriptor once, as goja
//     does, into a fresh null-prototype descriptor (a polluted Object.prototype.get
//     cannot slip into it) for the original; Object.defineProperties and Object.create
//     (its second argument) have goja's own code read the map, and define each property
//     from the descriptor goja read. In both, a getter or setter that is not an ordinary
//     ECMAScript function is replaced by a counted thunk: a native function of the same
//     name and length that calls it with the same this and arguments as one level of
//     native nesting (enterNative). The thunk is what the property then holds: reading
//     the descriptor back gives the thunk, not the original, and a proxy's
//     defineProperty trap called by Object.defineProperty gets the fresh null-prototype
//     descriptor (the differences a program can observe).
//   - Proxy is replaced (lazily) by a constructor that gives goja's Proxy a forwarding
//     handler: each trap looks up the program's handler trap when the trap runs, as the
//     specification does, and calls it as one level of native nesting, or reports no trap
//     so that goja falls back to the target itself. A proxy chain deeper than the
//     call-stack limit is refused when it is built.
//   - Error.prototype.toString, Object.prototype.toLocaleString and
//     Date.prototype.toJSON, which convert properties of their receiver through methods
//     a program controls, count one level each.
// Over maxNativeDepth levels the RangeError of a deep recursion is thrown, and it is
// catchable.
//
// What is left: a built-in that converts its receiver or an argument to a primitive, or
// formats it into an error message, can be installed as that object's toString, valueOf
// or Symbol.toPrimitive (o.toString = String.prototype.trim; String(o)) and recurse the
// same way through goja's ToPrimitive, which no wrapper reaches. A scan of every
// built-in found 52 that still do (String.prototype's 29 methods, RegExp.prototype's
// toString and Symbol methods, Number.prototype's toFixed, toPrecision, toExponential and
// valueOf, Function.prototype.call and toString, Promise.prototype.catch and finally,
// Array.prototype's at, find, findIndex, findLast, findLastIndex, push, pop and
// toString, ArrayBuffer.prototype.slice and byteLength). A counting guard closes one
// built-in's cycle, at about 1.4 KB of every pooled VM; a counter in goja's
// toPrimitive would close them all.

// counted makes fn count one level of native nesting for all it does, its own
// conversions included: guardCall's wrappers go through it, so that a guard used as an
// object's valueOf or toString (o.length = o; o.valueOf = Array.prototype.forEach), which
// converts before it calls its original, cannot recurse without being counted.
func (r *run) counted(fn func(goja.FunctionCall) goja.Value) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		return fn(call)
	}
}

// ordinaryFuncs are the Go code pointers of what goja exports its ECMAScript functions as
// (the Call or Construct method of each kind of function object), found once per process
// from sample functions of every kind. A function whose export is one of them is an
// ordinary ECMAScript function: calling it runs JavaScript and costs a frame of the
// call stack. Anything else (a built-in, a bound function, a proxy, a host function, or a
// kind the samples miss) is not, and goes through a thunk. If a sample built-in ever
// exported the same way, the set is empty and every accessor goes through a thunk.
var ordinaryFuncs = sync.OnceValue(func() map[uintptr]bool {
	vm := goja.New()
	code := func(src string) uintptr {
		v, err := vm.RunString(src)
		if err != nil {
			return 0
		}
		e := reflect.ValueOf(v.Export())
		if e.Kind() != reflect.Func {
			return 0
		}
		return e.Pointer()
	}
	set := map[uintptr]bool{}
	for _, src := range []string{
		"(function () {})", "(() => {})", "({m() {}}).m", "(class {})", "(class extends Object {})",
		"(async function () {})", "(async () => {})", "({async m() {}}).m", "(function* () {})",
		"({*m() {}}).m", "Object.getOwnPropertyDescriptor({get x() { return 1 }}, 'x').get",
		"Object.getOwnPropertyDescriptor({set x(v) {}}, 'x').set", "(class { static m() {} }).m",
		"new Function('')",
	} {
		if p := code(src); p != 0 {
			set[p] = true
		}
	}
	for _, src := range []string{"Math.max", "Math.max.bind(null)", "(function () {}).bind(null)", "Array.prototype.at", "Reflect.get.bind(null, {}, 'x')"} {
		if set[code(src)] {
			return map[uintptr]bool{}
		}
	}
	if set[reflect.ValueOf(vm.ToValue(func(goja.FunctionCall) goja.Value { return nil }).Export()).Pointer()] {
		return map[uintptr]bool{}
	}
	return set
})

// isOrdinary reports whether f is an ordinary ECMAScript function (see ordinaryFuncs).
func isOrdinary(f *goja.Object) bool {
	e := reflect.ValueOf(f.Export())
	return e.Kind() == reflect.Func && ordinaryFuncs()[e.Pointer()]
}

// safeAccessor returns what a descriptor's get or set may hold: v itself if it is not a
// function (the original rejects it, or it is undefined) or an ordinary one, else its
// counted thunk.
func (r *run) safeAccessor(v goja.Value) goja.Value {
	f, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	call, ok := goja.AssertFunction(f)
	if !ok || isOrdinary(f) || r.objects.isThunk[f] {
		return v
	}
	if t := r.objects.thunks[f]; t != nil {
		return t
	}
	t := r.native(func(c goja.FunctionCall) goja.Value {
		return r.callOriginal(call, c.This, c.Arguments...)
	}).ToObject(r.vm)
	name, length := goja.Value(r.vm.ToValue("")), goja.Value(r.vm.ToValue(0))
	if f.ExportType() != proxyType { // a proxy's name would be read through its trap
		if v := f.Get("name"); v != nil && goja.IsString(v) {
			name = v
		}
		if v := f.Get("length"); v != nil && goja.IsNumber(v) {
			length = v
		}
	}
	_ = t.DefineDataProperty("name", name, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = t.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	if r.objects.thunks == nil {
		r.objects.thunks, r.objects.isThunk = map[*goja.Object]*goja.Object{}, map[*goja.Object]bool{}
	}
	r.objects.thunks[f], r.objects.isThunk[t] = t, true
	return t
}

// descriptorFields are a property descriptor's fields in the order goja reads them.
var descriptorFields = []string{"value", "writable", "enumerable", "configurable", "get", "set"}

// readDescriptor reads descriptor object d once, field by field in goja's order, into a
// fresh null-prototype descriptor with safe accessors. An absent field stays absent; the
// original validates what was read.
func (r *run) readDescriptor(d *goja.Object) *goja.Object {
	fresh := r.freshObject()
	for _, k := range descriptorFields {
		v := d.Get(k)
		if v == nil {
			continue
		}
		if k == "get" || k == "set" {
			v = r.safeAccessor(v)
		}
		_ = fresh.Set(k, v)
	}
	return fresh
}

func (r *run) freshObject() *goja.Object {
	o := r.vm.NewObject()
	_ = o.SetPrototype(nil)
	return o
}

// guardDefineProperty guards obj.defineProperty (Object's or Reflect's): the original gets
// the descriptor as readDescriptor copied it. goja checks the target and the descriptor
// first; Reflect's then converts the key before it reads the descriptor (keyFirst),
// Object's after, so the key goes to the original as it is.
func (r *run) guardDefineProperty(obj *goja.Object, keyFirst bool) {
	r.guardCall(obj, "defineProperty", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		_, isObj := call.Argument(0).(*goja.Object)
		d, isDesc := call.Argument(2).(*goja.Object)
		if !isObj || !isDesc {
			return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
		}
		key := call.Argument(1)
		if keyFirst {
			key = r.propertyKey(key)
		}
		return r.callOriginal(orig, call.This, call.Argument(0), key, r.readDescriptor(d))
	})
}

// installDescriptorGuards guards the Object statics that define properties from
// descriptors.
func (r *run) installDescriptorGuards(object *goja.Object) {
	r.guardDefineProperty(object, false)
	r.guardCall(object, "defineProperties", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		o, ok := call.Argument(0).(*goja.Object)
		if !ok {
			return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
		}
		r.defineAll(o, r.readDescriptors(call.Argument(1)))
		return o
	})
	r.guardCall(object, "create", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		props := call.Argument(1)
		if goja.IsUndefined(props) {
			return r.callOriginal(orig, call.This, call.Arguments...)
		}
		o := r.callOriginal(orig, call.This, call.Argument(0)).ToObject(r.vm) // checks the prototype
		r.defineAll(o, r.readDescriptors(props))
		return o
	})
}

// keyedDescriptor is one property of a descriptor map: its key (a string, or a symbol)
// and its descriptor as goja read it.
type keyedDescriptor struct {
	key  string
	sym  *goja.Symbol
	desc goja.PropertyDescriptor
}

// descriptorCost is what one property of a descriptor map costs Object.defineProperties
// and Object.create, in bytes of the heap budget (about 2 KB allocated each, measured).
const descriptorCost = 2048

// readDescriptors reads a descriptor map as Object.defineProperties does, by letting the
// original itself read it onto a scratch proxy whose defineProperty traps record each
// key and descriptor: the order of reads, getters and traps, and every TypeError, are
// goja's own. Past the heap budget's worth of properties it throws V8's RangeError, and
// it stops when the run does. A trap defines a non-configurable property on the scratch
// target too, which goja's invariant check inspects after the trap; an accessor gets a
// stand-in function there, because that check wrongly refuses a non-configurable
// accessor whose functions are the same as the ones being defined.
func (r *run) readDescriptors(props goja.Value) []keyedDescriptor {
	var out []keyedDescriptor
	limit := int(r.limits.HeapBytes / descriptorCost)
	scratch := r.vm.NewObject()
	standIn := func(v goja.Value) goja.Value {
		if v == nil || goja.IsUndefined(v) {
			return v
		}
		if r.objects.standIn == nil {
			r.objects.standIn = r.native(func(goja.FunctionCall) goja.Value { return goja.Undefined() })
		}
		return r.objects.standIn
	}
	record := func(p keyedDescriptor) bool {
		if len(out) >= limit || len(out)&1023 == 1023 && r.failed() {
			panic(r.rangeError(msgTooManyProperties))
		}
		out = append(out, p)
		if p.desc.Configurable != goja.FLAG_FALSE {
			return true
		}
		var err error
		switch d, accessor := p.desc, p.desc.Getter != nil || p.desc.Setter != nil; {
		case p.sym != nil && accessor:
			err = scratch.DefineAccessorPropertySymbol(p.sym, standIn(d.Getter), standIn(d.Setter), d.Configurable, d.Enumerable)
		case p.sym != nil:
			err = scratch.DefineDataPropertySymbol(p.sym, d.Value, d.Writable, d.Configurable, d.Enumerable)
		case accessor:
			err = scratch.DefineAccessorProperty(p.key, standIn(d.Getter), standIn(d.Setter), d.Configurable, d.Enumerable)
		default:
			err = scratch.DefineDataProperty(p.key, d.Value, d.Writable, d.Configurable, d.Enumerable)
		}
		return err == nil
	}
	p := r.vm.NewProxy(scratch, &goja.ProxyTrapConfig{
		DefineProperty: func(_ *goja.Object, key string, desc goja.PropertyDescriptor) bool {
			return record(keyedDescriptor{key: key, desc: desc})
		},
		DefinePropertySym: func(_ *goja.Object, key *goja.Symbol, desc goja.PropertyDescriptor) bool {
			return record(keyedDescriptor{sym: key, desc: desc})
		},
	})
	if _, err := r.objects.defineProperties(goja.Undefined(), r.vm.ToValue(p), props); err != nil {
		panic(err)
	}
	return out
}

// defineAll defines each read property on o, in order, with safe accessors, as goja's
// defineProperties does (a proxy's defineProperty trap gets a fresh descriptor object).
func (r *run) defineAll(o *goja.Object, props []keyedDescriptor) {
	for i, p := range props {
		if i&1023 == 1023 && r.failed() {
			panic(r.rangeError(msgTooManyProperties)) // the run is over; unwind
		}
		var err error
		switch d := p.desc; {
		case d.Getter != nil || d.Setter != nil:
			get, set := d.Getter, d.Setter
			if get != nil {
				get = r.safeAccessor(get)
			}
			if set != nil {
				set = r.safeAccessor(set)
			}
			if p.sym != nil {
				err = o.DefineAccessorPropertySymbol(p.sym, get, set, d.Configurable, d.Enumerable)
			} else {
				err = o.DefineAccessorProperty(p.key, get, set, d.Configurable, d.Enumerable)
			}
		case p.sym != nil:
			err = o.DefineDataPropertySymbol(p.sym, d.Value, d.Writable, d.Configurable, d.Enumerable)
		default:
			err = o.DefineDataProperty(p.key, d.Value, d.Writable, d.Configurable, d.Enumerable)
		}
		if err != nil {
			panic(err)
		}
	}
}

// ---- conversions ----

// installConversionCounters counts the built-ins that convert their receiver's properties
// through methods a program controls (e = new Error(); e.message = e; String(e)).
func (r *run) installConversionCounters() {
	count := func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.callOriginal(orig, call.This, call.Arguments...)
	}
	r.guardCall(r.in.errorCtor.Get("prototype").ToObject(r.vm), "toString", count)
	r.guardCall(r.in.objectProto, "toLocaleString", count)
}

// guardDate counts Date.prototype.toJSON, which calls its receiver's toISOString: a
// program can make that toJSON itself. Once per VM.
func (r *run) guardDate() {
	date, ok := r.vm.GlobalObject().Get("Date").(*goja.Object)
	if !ok {
		return
	}
	if proto, ok := date.Get("prototype").(*goja.Object); ok {
		r.guardCall(proto, "toJSON", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			return r.callOriginal(orig, call.This, call.Arguments...)
		})
	}
}

// reentrant are built-ins that convert their receiver and so, installed as a plain
// object's own toString, valueOf or Symbol.toPrimitive, call themselves through goja's
// ToPrimitive without a JavaScript frame: `o.toString = String.prototype.trim; String(o)`
// overflowed the Go stack. Each is wrapped only to count as a level of native nesting.
// The list is what a scan of every built-in found (installed as each of those, with the
// object as its own length, then converted); the methods other guards wrap anyway are not
// repeated here, and ArrayBuffer's slice and byteLength are counted with the typed arrays.
var reentrant = []struct {
	proto string // reached through an instance of it
	names []string
}{
	{"String", []string{"at", "charAt", "charCodeAt", "codePointAt", "endsWith", "slice", "startsWith",
		"substring", "substr", "trim", "trimEnd", "trimStart", "trimLeft", "trimRight"}},
	{"Number", []string{"toExponential", "toFixed", "toPrecision", "valueOf"}},
	{"Function", []string{"call"}},
	// These convert the receiver's length: `o.length = o` with one of them as o's
	// Symbol.toPrimitive (or valueOf) loops the same way.
	{"Array", []string{"at", "find", "findIndex", "findLast", "findLastIndex", "pop", "push"}},
}

// installReentrantGuards counts the built-ins of reentrant. Two names of one function (as
// trimLeft is trimStart) stay one function.
func installReentrantGuards(r *run) {
	vm := r.vm
	protos := map[string]*goja.Object{
		"String":   vm.ToValue("").ToObject(vm).Prototype(),
		"Number":   vm.ToValue(0).ToObject(vm).Prototype(),
		"Function": r.in.errorCtor.Prototype(),
		"Array":    r.in.arrayProto,
	}
	for _, fam := range reentrant {
		proto := protos[fam.proto]
		wrapped := map[*goja.Object]goja.Value{} // original -> its wrapper
		for _, name := range fam.names {
			orig, ok := proto.Get(name).(*goja.Object)
			if !ok {
				continue
			}
			if w, ok := wrapped[orig]; ok {
				_ = proto.DefineDataProperty(name, w, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
				continue
			}
			r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
				return r.callOriginal(orig, call.This, call.Arguments...)
			})
			wrapped[orig] = proto.Get(name)
		}
	}
}

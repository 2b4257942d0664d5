package runtime

import (
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// Object guards: the Object statics, Object.prototype and Error.prototype, guarded when
// the VM is built because every object leads to them (through .constructor and the
// prototype chain), and the lazy families of this file and its siblings (Proxy and
// Reflect, Date), guarded only for runs that can reach them.

// objectGuards is the state of the object guards of one run (the run struct's objects
// field). VM goroutine only.
type objectGuards struct {
	// Lazy families already installed.
	proxyGuarded, dateGuarded bool

	// The intrinsics the guards call, captured when the VM is built.
	defineProperty, defineProperties, bind goja.Callable

	// thunks maps a getter or setter that is not an ordinary function to its counted
	// thunk, and isThunk marks the thunks (guards_reentry.go).
	thunks  map[*goja.Object]*goja.Object
	isThunk map[*goja.Object]bool

	proxy       *proxyState // guards_proxy.go, once Proxy is guarded
	standIn     goja.Value  // guards_reentry.go's stand-in accessor
	hasInstance goja.Value  // guards_proxy.go's hasInstanceTrap
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

// installObjectGuards guards the Object statics, Object.prototype and Error.prototype. It
// runs once per VM, when the pool builds it.
func installObjectGuards(r *run) {
	vm := r.vm
	r.objects = &objectGuards{}
	object := vm.Get("Object").ToObject(vm)
	r.objects.defineProperty, _ = goja.AssertFunction(object.Get("defineProperty"))
	r.objects.defineProperties, _ = goja.AssertFunction(object.Get("defineProperties"))
	r.objects.bind, _ = goja.AssertFunction(r.in.errorCtor.Prototype().Get("bind"))
	r.installDescriptorGuards(object)
	r.installConversionCounters()
}

// ---- lazy families ----

// lazyObjectFamilies are the families of these files that a program can reach only
// through a global's name: each is installed before a run whose text contains one of its
// words (or a BigInt literal, for BigInt), or globalThis or this (through which a program
// reads the global object by a computed name), and before eval or a Function constructor
// runs code whose text does.
var lazyObjectFamilies = []struct {
	words   []string
	matches func(code string) bool
	install func(*run)
}{
	// Reflect.defineProperty defines accessors as Object.defineProperty does, and the
	// guards convert property keys with the original Reflect.has, captured here before
	// a program could replace it: Reflect is guarded with Proxy.
	{words: []string{"Proxy", "Reflect"}, install: (*run).guardProxy},
	{words: []string{"Date"}, install: (*run).guardDate},
}

// guardObjectsFor installs each lazy family of these files that code can reach. VM
// goroutine only.
func (r *run) guardObjectsFor(code string) {
	all := strings.Contains(code, "globalThis") || strings.Contains(code, "this")
	for _, f := range lazyObjectFamilies {
		if all || containsWord(code, f.words) || f.matches != nil && f.matches(code) {
			f.install(r)
		}
	}
}

func containsWord(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

package runtime

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// The built-in guards, in one place. goja checks its interrupt flag only between bytecode
// instructions, so a native built-in runs to its end whatever the budgets say; these
// wrappers bound the work and the memory one native call can take, from the program's
// own sizes, before the original runs. Over a bound they throw a catchable RangeError, as
// V8 does for an invalid string or array length or a too-deep recursion.
//
// Two rules hold for every guard. A value it checked is the value the original gets: it
// converts an argument or a receiver once and passes the primitive on, or hands the
// original a receiver whose length cannot change between reads (stableReceiver), so a
// valueOf, toString, getter or Proxy trap that answers differently the second time cannot
// slip a larger size past the check. And every guard counts itself as one level of native
// nesting (enterNative), so a recursion that runs through built-ins without JavaScript
// frames (an array nested a million levels deep turned into a string, a built-in used as
// its own getter) ends with a RangeError instead of a Go stack overflow, which would end
// the process.
//
// The families, where they are, and where their tests are:
//   - strings: repeat, padStart/padEnd (result length) here, guards_test.go; the rest in
//     guards_string.go;
//   - regular expressions: guards_regexp*.go;
//   - arrays: every Array.prototype method that walks the receiver's length, join and
//     toLocaleString (result size), concat, flat and flatMap (a JavaScript
//     implementation), sort and toSorted (length; the default sort through an
//     interruptible comparator), fill, Array.from of array-likes: guards_array.go,
//     guards_test.go;
//   - calls: Function.prototype.apply, Reflect.apply and Reflect.construct (argument
//     count), bind (name growth): here, guards_test.go;
//   - re-entrancy: getters, setters and Proxy traps that are built-ins run through a
//     counted thunk; conversions through Error, Object and Date methods counted:
//     guards_reentry.go, guards_proxy.go;
//   - Object statics (keys, entries, assign, freeze, defineProperties…): guards_object.go;
//   - Promise.all and its kin (input count): guards_promise.go;
//   - BigInt (parse, toString, asIntN/asUintN): guards_bigint.go;
//   - typed arrays and ArrayBuffer: typedarrays*.go;
//   - the array and string iterators (a failed run stops at their next step) and the
//     generator methods (native nesting): guards_iter.go;
//   - JSON: json*.go; eval and the Function constructors: eval_guard.go.
// The hostile corpus (internal/hostile) runs a shape of each family in both isolation
// modes.

// maxNativeDepth bounds how deeply guarded built-ins may re-enter one another. Each level
// costs about a kilobyte of Go stack; a thousand stay far below Go's limit.
const maxNativeDepth = 1000

// maxApplyArgs bounds the argument list apply and Reflect build from an array-like (V8's
// own limit is of the same order).
const maxApplyArgs = 1 << 17

// nativeSortMax is the longest array sorted by goja's native default sort, which no
// interrupt can stop; longer ones are sorted through a JavaScript comparator with the
// same order, which the compute budget can interrupt.
const nativeSortMax = 1 << 14

// maxBoundName caps the name of a bound function: each bind prepends "bound ", so a long
// bind chain would otherwise grow names quadratically and exhaust memory.
const maxBoundName = 256

func (r *run) maxStringBytes() int { return int(r.limits.HeapBytes / 4) }
func (r *run) maxElements() int64  { return r.limits.HeapBytes / 16 }

// installGuards replaces the built-ins that can allocate or spin inside one native call
// with checking wrappers. It runs once per VM, when the pool builds it.
func installGuards(r *run) error {
	installReentrantGuards(r)
	installStringGuards(r)
	installTextGuards(r)
	installArrayGuards(r)
	installCallGuards(r)
	installObjectGuards(r)
	installIteratorGuards(r)
	return installEvalGuards(r)
}

// Lazy families. Guarding a built-in costs every pooled VM its original and a wrapper
// (about 1.4 KB together), so a family that a program can reach only through a global's
// name is guarded only for the runs that can reach it: before the program runs, when its
// text contains one of the family's words or a word through which a program reads the
// global object by a computed name (globalThis, or this at the top level), and when eval
// or a Function constructor is about to run code whose text does (eval_guard.go).
// Families reachable from ordinary values (arrays, strings, functions, any object) are
// guarded when the VM is built.
// A VM installs each family once (installLazy), whatever reaches it first.
var lazyFamilies = [...]struct {
	words   []string
	matches func(code string) bool // more than words, if set
	literal bool                   // a regular expression literal reaches it too
	install func(*run)
}{
	familyTyped: {words: typedTriggers, install: (*run).guardTypedArrays},
	familyJSON:  {words: []string{"JSON"}, install: (*run).guardJSON},
	// Reflect.defineProperty defines accessors as Object.defineProperty does, and the
	// Proxy guards capture Reflect's originals before a program could replace them.
	familyProxy: {words: []string{"Proxy", "Reflect"}, install: (*run).guardProxy},
	familyDate:  {words: []string{"Date"}, install: (*run).guardDate},
	// BigInt values also come from literals, from BigInt64Array and BigUint64Array and
	// from DataView's getBigInt64 and getBigUint64.
	familyBigInt: {words: []string{"BigInt", "BigUint64Array", "DataView"}, matches: hasBigIntLiteral, install: (*run).guardBigInt},
	familyRegExp: {words: regexpWords, literal: true, install: (*run).guardRegExps},
	familyURI:    {words: uriWords, install: (*run).guardURIs},
	// Map and Set iterators come only from Map and Set values (structuredClone makes one
	// only from another).
	familyCollections: {words: []string{"Map", "Set"}, install: (*run).guardCollectionIterators},
}

// lazyFamily is a family's index in lazyFamilies and its bit in run.lazy.
type lazyFamily uint8

const (
	familyTyped lazyFamily = iota
	familyJSON
	familyProxy
	familyDate
	familyBigInt
	familyRegExp
	familyURI
	familyCollections
)

// installLazy installs family f on this VM unless it already is. VM goroutine only.
func (r *run) installLazy(f lazyFamily) {
	if r.lazy&(1<<f) != 0 {
		return
	}
	r.lazy |= 1 << f
	lazyFamilies[f].install(r)
}

// lazyInstalled reports whether family f is installed on this VM.
func (r *run) lazyInstalled(f lazyFamily) bool { return r.lazy&(1<<f) != 0 }

// globalWords reach the global object, and so every lazy family.
var globalWords = []string{"globalThis", "this"}

// guardLazyFor installs every lazy family code can reach; regexLiteral says whether it
// holds a regular expression literal (the nesting scan knows). VM goroutine only.
func (r *run) guardLazyFor(code string, regexLiteral bool) {
	code = withEscapesDecoded(code)
	all := containsAny(code, globalWords)
	for i, f := range lazyFamilies {
		if all || containsAny(code, f.words) || f.literal && regexLiteral || f.matches != nil && f.matches(code) {
			r.installLazy(lazyFamily(i))
		}
	}
}

// withEscapesDecoded returns code followed by a copy with its Unicode escapes decoded,
// if it has any: an identifier may spell its name with them (\u004aSON is JSON,
// \u{46}loat64Array is Float64Array), and a family's words must be found either way.
// Escapes in strings and comments are decoded too, which can only install more.
func withEscapesDecoded(code string) string {
	if !strings.Contains(code, `\u`) {
		return code
	}
	var b strings.Builder
	b.Grow(2*len(code) + 1)
	b.WriteString(code)
	b.WriteByte('\n')
	for rest := code; ; {
		i := strings.Index(rest, `\u`)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i+2:]
		c, n := unicodeEscape(rest)
		if n == 0 {
			b.WriteString(`\u`) // not an escape: kept as written
			continue
		}
		b.WriteRune(c)
		rest = rest[n:]
	}
	return b.String()
}

// unicodeEscape decodes what follows a \u: four hex digits, or hex digits in braces
// naming a code point (any number of them: leading zeros are allowed). n is how many
// bytes it took, 0 if it is not an escape. It reads each byte once.
func unicodeEscape(s string) (c rune, n int) {
	if !strings.HasPrefix(s, "{") {
		if len(s) < 4 {
			return 0, 0
		}
		v, err := strconv.ParseUint(s[:4], 16, 32)
		if err != nil {
			return 0, 0
		}
		return rune(v), 4
	}
	n = 1
	for n < len(s) && isHex(s[n]) {
		n++
	}
	if n == 1 || n == len(s) || s[n] != '}' {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[1:n], 16, 32)
	if err != nil || v > 0x10FFFF {
		return 0, 0
	}
	return rune(v), n + 1
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// enterNative counts one level of guarded-built-in nesting; leaveNative undoes it. Over
// maxNativeDepth it throws the RangeError a deep JavaScript recursion gets.
func (r *run) enterNative() {
	if r.nativeDepth >= maxNativeDepth {
		panic(r.rangeError("Maximum call stack size exceeded"))
	}
	r.nativeDepth++
}

func (r *run) leaveNative() { r.nativeDepth-- }

// callOriginal calls a guarded built-in's original (or a function a thunk stands for) as
// one level of native nesting, rethrowing its exception (or interrupt) unchanged. Under
// guardCall, which counts a level at entry, a guarded call counts two.
func (r *run) callOriginal(orig goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	r.enterNative()
	defer r.leaveNative()
	v, err := orig(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

// guardCall replaces obj[name] with wrap, keeping the original's name, length and
// attributes (writable, configurable, not enumerable).
func (r *run) guardCall(obj *goja.Object, name string, wrap func(goja.FunctionCall, goja.Callable) goja.Value) {
	orig, ok := goja.AssertFunction(obj.Get(name))
	if !ok {
		return
	}
	r.replaceMethod(obj, name, r.native(r.counted(func(call goja.FunctionCall) goja.Value { return wrap(call, orig) })))
}

// replaceMethod replaces obj[name] with f under the original's name and length, with
// a method's attributes (writable, configurable, not enumerable).
func (r *run) replaceMethod(obj *goja.Object, name string, f goja.Value) {
	length := obj.Get(name).ToObject(r.vm).Get("length")
	fo := f.ToObject(r.vm)
	_ = fo.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = fo.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = obj.DefineDataProperty(name, fo, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

func (r *run) rangeError(msg string) *goja.Object {
	e, err := r.vm.New(r.in.rangeCtor, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.NewTypeError(msg)
	}
	return e
}

func (r *run) tooLongString() { panic(r.rangeError("Invalid string length")) }
func (r *run) tooLongArray()  { panic(r.rangeError("Invalid array length")) }

// ---- strings ----

func installStringGuards(r *run) {
	vm := r.vm
	// Reach String.prototype through an instance: going through the String constructor
	// would build it and its statics, about 5 KB per idle VM most programs never touch.
	proto := vm.ToValue("").ToObject(vm).Prototype()
	r.guardCall(proto, "repeat", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		s := r.thisString(call.This)
		n := call.Argument(0).ToNumber()
		if f := n.ToFloat(); f > 0 && float64(strLen(s))*f > float64(r.maxStringBytes()) {
			r.tooLongString()
		}
		return r.callOriginal(orig, s, n)
	})
	for _, name := range []string{"padStart", "padEnd"} {
		r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			s := r.thisString(call.This)
			n := call.Argument(0).ToNumber()
			if n.ToFloat() > float64(r.maxStringBytes()) {
				r.tooLongString()
			}
			args := []goja.Value{n}
			if len(call.Arguments) > 1 {
				fill := call.Arguments[1]
				if !goja.IsUndefined(fill) {
					fill = r.strOf(fill)
				}
				args = append(args, fill)
			}
			return r.callOriginal(orig, s, args...)
		})
	}
}

// thisString converts a String method's receiver once, as RequireObjectCoercible and
// ToString would (undefined and null pass through: the original throws its TypeError).
func (r *run) thisString(this goja.Value) goja.Value {
	if goja.IsUndefined(this) || goja.IsNull(this) {
		return this
	}
	return r.strOf(this)
}

// strLen is the length of a string value, 0 for anything else.
func strLen(v goja.Value) int {
	if s, ok := v.(goja.String); ok {
		return s.Length()
	}
	return 0
}

// ---- calls ----

func installCallGuards(r *run) {
	vm := r.vm
	fnProto := r.in.errorCtor.Prototype() // Error, like every function, inherits from it
	r.guardCall(fnProto, "apply", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.callOriginal(orig, call.This, call.Argument(0), r.argList(call.Argument(1)))
	})
	r.guardCall(fnProto, "bind", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		v := r.callOriginal(orig, call.This, call.Arguments...)
		if f, ok := v.(*goja.Object); ok {
			if name := f.Get("name"); name != nil && len(name.String()) > maxBoundName {
				_ = f.DefineDataProperty("name", vm.ToValue(name.String()[:maxBoundName]), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
		}
		return v
	})
	reflect := vm.Get("Reflect").ToObject(vm)
	r.guardCall(reflect, "apply", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		return r.callOriginal(orig, call.This, call.Argument(0), call.Argument(1), r.argList(call.Argument(2)))
	})
	r.guardCall(reflect, "construct", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		args := []goja.Value{call.Argument(0), r.argList(call.Argument(1))}
		if len(call.Arguments) > 2 {
			args = append(args, call.Arguments[2])
		}
		return r.callOriginal(orig, call.This, args...)
	})
}

// argList bounds an argument list built from an array-like (CreateListFromArrayLike
// makes one Go slice of its length at once) and hands the original a genuine array of
// exactly the elements read. undefined and null mean no arguments, as for apply; anything
// else that is not an object is left for the original to reject.
func (r *run) argList(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	recv, n, _ := r.stableReceiver(o)
	if n > maxApplyArgs {
		panic(r.rangeError("Maximum call stack size exceeded"))
	}
	if recv == v {
		return v // a genuine array: the original reads its elements directly
	}
	src := recv.ToObject(r.vm)
	items := make([]any, n)
	for i := int64(0); i < n; i++ {
		items[i] = src.Get(strconv.FormatInt(i, 10))
		if items[i] == nil {
			items[i] = goja.Undefined()
		}
	}
	return r.vm.NewArray(items...)
}

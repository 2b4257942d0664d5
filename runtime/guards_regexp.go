package runtime

import (
	"fmt"

	"github.com/dop251/goja"
)

// The RegExp guards. goja compiles a pattern by recursing once per group (a 20 MB pattern
// of nested parentheses overflowed the Go stack, which ends the process) with Go's regexp
// compiler behind it, which is super-linear on huge patterns; and it runs a global
// replace, match or split as one native call: all the matches, then the result, with no
// interrupt between them. When the pattern needs goja's backtracking engine (regexp2:
// lookarounds, backreferences, counted repeats over 1000) or the text is not ASCII,
// regexp2 first allocates 48 bytes per input character and then gives each match its own
// 100 ms timeout. So:
//
//   - a pattern is checked before anything compiles it: over MaxPatternLength characters,
//     or with groups nested deeper than MaxPatternNesting, it is a SyntaxError
//     (patternError). Literals in program text are bounded already by the nesting scan
//     of Prepare (MaxNesting);
//   - a global replace, match or split that goja would run with regexp2, or whose matches
//     could outgrow the heap budget, finds its matches here (fastMatches, with goja's own
//     compiled pattern: regexp2 one match per call, the run's stop flag checked between,
//     nothing allocated per input character up front, at most a quarter of the heap budget
//     of matches) and builds its result as goja would, counted before it is written; what
//     stays small and linear (Go's regexp over short enough text) goes to goja as it is
//     (guards_regexp_ops.go);
//   - an operation on a RegExp goja does not take its fast path for runs goja's generic
//     algorithm, ported with its property reads in order and the same bounds: goja's own
//     calls exec natively for every match and collects them all first
//     (guards_regexp_split.go);
//   - split and matchAll read the species constructor once and never let goja's own
//     RegExp constructor compile a pattern the guards did not check.
//
// RegExp.prototype is reachable only from a RegExp, and a RegExp only from a literal, the
// RegExp constructor (by name, or through the global object) or eval and the Function
// constructors, so the RegExp guards are installed when a run can reach one (like the
// typed-array guards): building goja's RegExp machinery costs an idle VM more than all
// the String guards together. The String methods that compile a pattern from a string
// (match, matchAll, search) are guarded with the VM.
//
// The constructor is replaced by a proxy whose traps read the pattern and flags as goja
// would (Symbol.match, source and flags of a RegExp-like object, each once), check the
// pattern, and hand goja's constructor the two strings. RegExp.prototype.constructor
// leads to the proxy, so species lookups, subclasses and instanceof lead back to it. A
// proxy, because only its traps tell RegExp(x) (which may answer x itself) from
// new RegExp(x): goja's Go constructors get the same call for both. Two things show it,
// as for the typed arrays: String(RegExp) has no name in it, and RegExp has an own
// Symbol.hasInstance (goja's instanceof cannot use a proxy otherwise).
//
// Reading goja's internals: whether goja takes its fast path for a RegExp, which of its
// engines the pattern needs, and the compiled pattern itself are not in goja's API.
// regexpState reads them with reflect, read-only, from the goja version go.mod pins
// (guards_regexp_internals.go); TestRegExpInternals fails if that layout changes, and an
// unknown layout sends every RegExp through the generic algorithm.

// MaxPatternLength bounds the characters of a pattern compiled at run time.
const MaxPatternLength = 1 << 20

// MaxPatternNesting bounds how deeply a pattern compiled at run time nests its groups: Go's
// own regexp parser refuses more than 1000 levels, so only patterns that need goja's
// backtracking engine could nest deeper before.
const MaxPatternNesting = 1000

// patternError is the SyntaxError's message for a pattern over a bound, in V8's format
// (the pattern shortened to its first 64 characters).
func patternError(p goja.String, flags, reason string) string {
	src := p
	more := ""
	if src.Length() > 64 {
		src, more = src.Substring(0, 64), "…"
	}
	return fmt.Sprintf("Invalid regular expression: /%s%s/%s: %s", src.String(), more, flags, reason)
}

// checkPattern throws the SyntaxError for a pattern over MaxPatternLength characters or
// nested deeper than MaxPatternNesting, counting groups as goja's pattern translator does:
// every '(' outside a character class and not escaped.
func (r *run) checkPattern(p goja.String, flags goja.Value) {
	f := ""
	if s, ok := flags.(goja.String); ok {
		f = s.String()
	}
	n := p.Length()
	if n > MaxPatternLength {
		panic(r.syntaxError(patternError(p, f, "Regular expression too large")))
	}
	depth, class := 0, false
	for i := 0; i < n; i++ {
		switch c := p.CharAt(i); {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			if depth++; depth > MaxPatternNesting {
				panic(r.syntaxError(patternError(p, f, fmt.Sprintf("nesting deeper than %d levels", MaxPatternNesting))))
			}
		case c == ')':
			depth = max(depth-1, 0)
		}
	}
}

// regexpWords and uriWords name what a program's text reaches the RegExp guards and the
// URI functions' guards through (lazy families, see guards.go); a regular expression
// literal reaches the RegExp guards too.
var (
	regexpWords = []string{"RegExp"}
	uriWords    = []string{"encodeURI", "escape"}
)

// regexpIntrinsics are the RegExp originals the guards call, captured when they are
// installed, before any program can reach RegExp.
type regexpIntrinsics struct {
	ctor      goja.Constructor // goja's RegExp constructor
	fn        goja.Callable    // the same, called as a function
	proxy     *goja.Object     // the guard programs see as RegExp
	exec      goja.Callable
	stdProto  uintptr      // goja's marker of an unmodified RegExp.prototype (regexpState)
	shim      *goja.Object // see regexpMatchAll
	shimValue *goja.Object
}

// guardRegExps installs the RegExp guards, once per VM. VM goroutine only.
func (r *run) guardRegExps() {
	t := r.textState()
	vm := r.vm
	g := vm.GlobalObject()
	orig := g.Get("RegExp").ToObject(vm)
	re := &t.re
	re.ctor, _ = goja.AssertConstructor(orig)
	re.fn, _ = goja.AssertFunction(orig)
	proto := orig.Get("prototype").ToObject(vm)
	re.exec, _ = goja.AssertFunction(proto.Get("exec"))
	re.stdProto = stdRegexpProto(vm)

	p := vm.NewProxy(orig, &goja.ProxyTrapConfig{
		Apply: r.guardedApply(func(_ *goja.Object, _ goja.Value, args []goja.Value) goja.Value {
			return r.regexpCall(args)
		}),
		Construct: r.guardedTrap(func(_ *goja.Object, args []goja.Value, nt *goja.Object) *goja.Object {
			r.enterNative()
			defer r.leaveNative()
			pattern, flags := argument(args, 0), argument(args, 1)
			src, f, clone := r.regexpSource(pattern, flags, r.isRegExp(pattern))
			return r.keepProto(construct(re.ctor, nt, src, f), clone)
		}),
	})
	// goja's instanceof cannot use a proxy as its right-hand side (see typedarrays.go).
	_ = orig.DefineDataPropertySymbol(goja.SymHasInstance, r.hasInstance(), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	re.proxy = vm.ToValue(p).ToObject(vm)
	_ = proto.DefineDataProperty("constructor", re.proxy, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = g.DefineDataProperty("RegExp", re.proxy, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)

	r.guardCall(proto, "compile", func(call goja.FunctionCall, compile goja.Callable) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		this, ok := call.This.(*goja.Object)
		pattern, flags := call.Argument(0), call.Argument(1)
		if !ok || this.ClassName() != "RegExp" || isRegExpObject(pattern) {
			return r.call(compile, call.This, call.Arguments...) // goja throws, or copies a compiled pattern
		}
		src := goja.Value(goja.Undefined())
		if !goja.IsUndefined(pattern) {
			src = r.strOf(pattern)
		}
		if !goja.IsUndefined(flags) {
			flags = r.strOf(flags)
		}
		if s, ok := src.(goja.String); ok {
			r.checkPattern(s, flags)
		}
		return r.call(compile, this, src, flags)
	})
	r.guardRegExpOp(proto, goja.SymReplace, "[Symbol.replace]", r.regexpReplace)
	r.guardRegExpOp(proto, goja.SymMatch, "[Symbol.match]", r.regexpMatch)
	r.guardSymbol(proto, goja.SymSplit, "[Symbol.split]", func(call goja.FunctionCall, _ goja.Callable) goja.Value {
		return r.regexpSplit(call)
	})
	r.guardRegExpOp(proto, goja.SymMatchAll, "[Symbol.matchAll]", r.regexpMatchAll)
}

// guardRegExpOp is guardSymbol for a RegExp.prototype method that takes a string: the
// guard counts one level of native nesting, a receiver that is not an object goes to the
// original (which throws its TypeError), and op gets the receiver and the string,
// converted once.
func (r *run) guardRegExpOp(proto *goja.Object, sym *goja.Symbol, name string, op func(call goja.FunctionCall, orig goja.Callable, rx *goja.Object, s goja.String) goja.Value) {
	r.guardSymbol(proto, sym, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		rx, ok := call.This.(*goja.Object)
		if !ok {
			return r.call(orig, call.This, call.Arguments...) // goja throws
		}
		return op(call, orig, rx, r.strOf(call.Argument(0)))
	})
}

// guardSymbol is guardCall for a method keyed by a symbol.
func (r *run) guardSymbol(obj *goja.Object, sym *goja.Symbol, name string, wrap func(goja.FunctionCall, goja.Callable) goja.Value) {
	origV := obj.GetSymbol(sym)
	orig, ok := goja.AssertFunction(origV)
	if !ok {
		return
	}
	length := origV.ToObject(r.vm).Get("length")
	f := r.native(func(call goja.FunctionCall) goja.Value { return wrap(call, orig) }).ToObject(r.vm)
	_ = f.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = obj.DefineDataPropertySymbol(sym, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// guardedApply is guardedTrap for a proxy's apply trap.
func (r *run) guardedApply(trap func(*goja.Object, goja.Value, []goja.Value) goja.Value) func(*goja.Object, goja.Value, []goja.Value) goja.Value {
	return func(t *goja.Object, this goja.Value, args []goja.Value) (v goja.Value) {
		defer func() {
			if x := recover(); x != nil {
				if isGojaPanic(x) {
					panic(x)
				}
				r.fail(KindException, fmt.Sprintf("internal error: a RegExp guard panicked: %v", x))
				v = goja.Undefined()
			}
		}()
		return trap(t, this, args)
	}
}

// regexpCall is RegExp called as a function: goja returns a RegExp argument itself when no
// flags come with it and its constructor is RegExp, and otherwise constructs, reading the
// argument's Symbol.match a second time as it does.
func (r *run) regexpCall(args []goja.Value) goja.Value {
	r.enterNative()
	defer r.leaveNative()
	re := &r.text.re
	pattern, flags := argument(args, 0), argument(args, 1)
	if r.isRegExp(pattern) && goja.IsUndefined(flags) {
		if o, ok := pattern.(*goja.Object); ok && o.Get("constructor") == goja.Value(re.proxy) {
			return pattern
		}
	}
	src, f, clone := r.regexpSource(pattern, flags, r.isRegExp(pattern))
	return r.keepProto(r.call(re.fn, goja.Undefined(), src, f).ToObject(r.vm), clone)
}

// regexpSource reads a pattern and flags the way goja's newRegExp does before it compiles
// (isRe is the pattern's IsRegExp, read by the caller), converts each once, checks the
// pattern, and returns the strings goja would compile: a RegExp's own compiled source and
// flags, whatever a program defined on it. clone is that RegExp when goja would copy it,
// whose prototype goja's copy keeps.
func (r *run) regexpSource(pattern, flags goja.Value, isRe bool) (goja.String, goja.Value, *goja.Object) {
	var src goja.String
	var clone *goja.Object
	o, isObj := pattern.(*goja.Object)
	switch {
	case isRe && isObj && o.ClassName() == "RegExp":
		var own string
		src, own = r.regexpInternals(o)
		if isUndefined(flags) {
			flags, clone = r.vm.ToValue(own), o
		} else {
			flags = r.strOf(flags)
		}
	case isRe && isObj:
		src = r.strOf(nilSafe(o.Get("source")))
		if isUndefined(flags) {
			flags = r.strOf(nilSafe(o.Get("flags")))
		} else {
			flags = r.strOf(flags)
		}
	default:
		src = r.vm.ToValue("").(goja.String)
		if !isUndefined(pattern) {
			src = r.strOf(pattern)
		}
		if isUndefined(flags) {
			flags = r.vm.ToValue("")
		} else {
			flags = r.strOf(flags)
		}
	}
	r.checkPattern(src, flags)
	return src, flags, clone
}

// keepProto gives a copy of a RegExp the prototype of the RegExp it copies, as goja's copy
// has, when that differs from the one the constructor gave it.
func (r *run) keepProto(o, clone *goja.Object) *goja.Object {
	if clone != nil {
		if p := clone.Prototype(); p != o.Prototype() {
			_ = o.SetPrototype(p)
		}
	}
	return o
}

func isUndefined(v goja.Value) bool { return v == nil || goja.IsUndefined(v) }

// toObj is goja's internal toObject, which, unlike ToObject, wraps no primitive.
func (r *run) toObj(v goja.Value) *goja.Object {
	if o, ok := v.(*goja.Object); ok {
		return o
	}
	s := "undefined"
	if v != nil {
		s = v.String()
	}
	panic(r.vm.NewTypeError("Value is not an object: %s", s))
}

func nilSafe(v goja.Value) goja.Value {
	if v == nil {
		return goja.Undefined()
	}
	return v
}

func isRegExpObject(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	return ok && o.ClassName() == "RegExp"
}

// ---- String.prototype.match, matchAll and search ----

// guardPatternTakers guards the String methods that compile a pattern from a string.
func (r *run) guardPatternTakers(proto *goja.Object) {
	for _, m := range []struct {
		name string
		sym  *goja.Symbol
	}{{"match", goja.SymMatch}, {"search", goja.SymSearch}} {
		r.guardStringMethod(proto, m.name, func(call goja.FunctionCall, take goja.Callable) goja.Value {
			arg := call.Argument(0)
			o, ok := arg.(*goja.Object)
			switch {
			case ok:
				if f := r.method(o.GetSymbol(m.sym)); f != nil {
					return r.call(f, o, call.This)
				}
				if o.ClassName() == "RegExp" {
					return r.call(take, call.This, o) // compiled already; goja uses it as it is
				}
				if r.isRegExp(o) {
					// goja builds a RegExp from the object's source and flags.
					src, flags, _ := r.regexpSource(o, goja.Undefined(), true)
					r.installLazy(familyRegExp)
					return r.call(take, call.This, construct(r.text.re.ctor, nil, src, flags))
				}
				arg = r.strOf(o)
			case !goja.IsUndefined(arg):
				arg = r.strOf(arg)
			}
			if s, ok := arg.(goja.String); ok {
				r.checkPattern(s, goja.Undefined())
			}
			return r.call(take, call.This, arg)
		})
	}
	r.guardStringMethod(proto, "matchAll", func(call goja.FunctionCall, matchAll goja.Callable) goja.Value {
		arg := call.Argument(0)
		if o, ok := arg.(*goja.Object); ok {
			if r.isRegExp(o) {
				flags := nilSafe(o.Get("flags"))
				if isNullish(flags) {
					panic(r.vm.NewTypeError("Value is not object coercible"))
				}
				if !containsUnit(r.strOf(flags), 'g') {
					panic(r.vm.NewTypeError("RegExp doesn't have global flag set"))
				}
			}
			if f := r.method(o.GetSymbol(goja.SymMatchAll)); f != nil {
				return r.call(f, o, call.This)
			}
		}
		// goja builds RegExp(arg, 'g'), reading arg's Symbol.match again.
		isRe := r.isRegExp(arg)
		var src goja.String
		if o, ok := arg.(*goja.Object); ok && isRe {
			if o.ClassName() == "RegExp" {
				src, _ = r.regexpInternals(o)
			} else {
				src = r.strOf(nilSafe(o.Get("source")))
			}
		} else if !goja.IsUndefined(arg) {
			src = r.strOf(arg)
		} else {
			src = r.vm.ToValue("").(goja.String)
		}
		r.checkPattern(src, r.vm.ToValue("g"))
		v := r.call(matchAll, call.This, src)
		r.guardIteratorOf(v)
		return v
	})
}

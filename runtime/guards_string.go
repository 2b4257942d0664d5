package runtime

import (
	"fmt"
	"math"
	"strings"

	"github.com/dop251/goja"
)

// The String guards. A string is reachable from any program, so String.prototype's
// methods are guarded when the VM is built; each guard is one more function object in
// every pooled VM (and the original it wraps, which goja builds from a lazy template the
// moment a property is redefined), so one guard covers every hazard of its method.
//
//   - concat, replace, replaceAll, split: the size of the result, counted before it is
//     built (a replacement's $ patterns expanded, a function replacer's pieces as they
//     come back);
//   - indexOf, lastIndexOf, includes, and the searches of split and replaceAll: goja
//     searches a UTF-16 string for a long needle in time proportional to both lengths, so
//     such searches run here, in linear time;
//   - match, matchAll, search: a string pattern is checked before goja compiles it
//     (guards_regexp.go);
//   - normalize and the case mappings: the expansion of the result (guards_string_conv.go),
//     as are localeCompare, String.raw, parseFloat, encodeURI, encodeURIComponent and
//     escape.
//
// Arguments and receivers are converted once, in the order goja converts them, and the
// original gets the primitives (or the guard does the work itself), so a valueOf or
// toString that answers differently the second time changes nothing. Where a guard does
// the work itself, it does what goja does: the tests compare the two.

// textGuards is one VM's state for the string and regexp guards, made on first use.
type textGuards struct {
	iterNext bool // %RegExpStringIteratorPrototype%.next is guarded
	emulate  bool // tests: never let goja run a global RegExp operation as it is

	re regexpIntrinsics // captured when the RegExp guards are installed

	// replacers are the function replacers of the native replaces in progress,
	// innermost last; replacer is the one native function goja calls for all of them.
	replacers []*pieceCount
	replacer  goja.Value

	// regexp2 holds the regexp2 patterns compiled for goja patterns that had none yet
	// (regexp2Of), by the address of goja's pattern.
	regexp2 map[uintptr]compiled2
}

func (r *run) textState() *textGuards {
	if r.text == nil {
		r.text = &textGuards{}
	}
	return r.text
}

// installTextGuards guards String.prototype, String.raw and parseFloat when a VM is built.
func installTextGuards(r *run) {
	vm := r.vm
	// Through an instance, as installStringGuards does: the String constructor is built
	// only for String.raw, below.
	proto := vm.ToValue("").ToObject(vm).Prototype()
	// The original indexOf, for the searches of replace, replaceAll and split.
	indexOf, _ := goja.AssertFunction(proto.Get("indexOf"))

	r.guardStringMethod(proto, "concat", func(call goja.FunctionCall, concat goja.Callable) goja.Value {
		this := r.strOf(call.This)
		args := make([]goja.Value, len(call.Arguments))
		total := int64(this.Length())
		for i, a := range call.Arguments {
			s := r.strOf(a)
			total += int64(s.Length())
			args[i] = s
		}
		if total > int64(r.maxStringBytes()) {
			r.tooLongString()
		}
		return r.call(concat, this, args...)
	})
	r.guardSearches(proto)
	r.guardReplaces(proto, indexOf)
	r.guardStringMethod(proto, "split", func(call goja.FunctionCall, split goja.Callable) goja.Value {
		return r.stringSplit(call, split, indexOf)
	})
	r.guardPatternTakers(proto)
	r.guardConversions(proto)
	r.guardStringRaw()
	r.guardParseFloat()
}

// ---- conversions ----

// strOf is ECMAScript's ToString, which goja's exported Value.ToString is not quite: it
// leaves a symbol as it is, where ToString throws.
func (r *run) strOf(v goja.Value) goja.String {
	if s, ok := v.(goja.String); ok {
		return s
	}
	if _, ok := v.(*goja.Symbol); ok {
		panic(r.vm.NewTypeError("Cannot convert a Symbol value to a string"))
	}
	s := v.ToString() // runs an object's toString or valueOf, once
	switch s := s.(type) {
	case goja.String:
		return s
	case *goja.Symbol:
		panic(r.vm.NewTypeError("Cannot convert a Symbol value to a string"))
	}
	return r.vm.ToValue(s.String()).(goja.String)
}

// guardStringMethod is guardCall for a String.prototype method whose guard converts its
// receiver: the guard counts one more level of native nesting, and a receiver that is
// undefined or null goes to the original as it is, which throws its TypeError.
func (r *run) guardStringMethod(proto *goja.Object, name string, wrap func(goja.FunctionCall, goja.Callable) goja.Value) {
	r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		if isNullish(call.This) {
			return r.call(orig, call.This, call.Arguments...)
		}
		return wrap(call, orig)
	})
}

func isNullish(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }

// call calls f, rethrowing its exception (or interrupt) unchanged. Unlike callOriginal it
// does not count a level of native nesting: the guards that use it count one themselves.
func (r *run) call(f goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	v, err := f(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

// method is ECMAScript's GetMethod of a value already read: nil for undefined and null,
// the function for a callable, goja's TypeError otherwise.
func (r *run) method(v goja.Value) goja.Callable {
	if isNullish(v) {
		return nil
	}
	if f, ok := goja.AssertFunction(v); ok {
		return f
	}
	panic(r.vm.NewTypeError(fmt.Sprintf("%s is not a method", v.String())))
}

// toUint32 is ECMAScript's ToUint32 of a number value.
func toUint32(v goja.Value) uint32 {
	f := v.ToFloat()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return uint32(int64(math.Mod(math.Trunc(f), 1<<32)))
}

// ---- searches ----

// longNeedle is the needle length from which a search of a UTF-16 string runs here
// rather than in goja: below it goja's search (a byte search that restarts after every
// misaligned hit) costs at most a small multiple of the haystack's length.
const longNeedle = 64

// cheapSearch reports whether goja's own search of sub in s is linear in practice.
func cheapSearch(s, sub goja.String) bool {
	return sub.Length() < longNeedle || isASCII(s)
}

func (r *run) guardSearches(proto *goja.Object) {
	vm := r.vm
	r.guardStringMethod(proto, "indexOf", func(call goja.FunctionCall, indexOf goja.Callable) goja.Value {
		s, sub := r.strOf(call.This), r.strOf(call.Argument(0))
		pos := call.Argument(1).ToNumber()
		if cheapSearch(s, sub) {
			return r.call(indexOf, s, sub, pos)
		}
		from := clampInt(pos.ToInteger(), 0, int64(s.Length()))
		return vm.ToValue(r.indexUTF16(s, sub, from))
	})
	r.guardStringMethod(proto, "lastIndexOf", func(call goja.FunctionCall, lastIndexOf goja.Callable) goja.Value {
		s, sub := r.strOf(call.This), r.strOf(call.Argument(0))
		pos := call.Argument(1).ToNumber()
		if cheapSearch(s, sub) {
			return r.call(lastIndexOf, s, sub, pos)
		}
		from := s.Length()
		if f := pos.ToFloat(); !math.IsNaN(f) {
			from = clampInt(pos.ToInteger(), 0, int64(from))
		}
		return vm.ToValue(r.lastIndexUTF16(s, sub, from))
	})
	r.guardStringMethod(proto, "includes", func(call goja.FunctionCall, includes goja.Callable) goja.Value {
		s := r.strOf(call.This)
		if r.isRegExp(call.Argument(0)) {
			panic(vm.NewTypeError("First argument to String.prototype.includes must not be a regular expression"))
		}
		sub := r.strOf(call.Argument(0))
		pos := call.Argument(1)
		if !goja.IsUndefined(pos) {
			pos = pos.ToNumber()
		}
		if cheapSearch(s, sub) {
			return r.call(includes, s, sub, pos)
		}
		from := 0
		if !goja.IsUndefined(pos) {
			from = clampInt(pos.ToInteger(), 0, int64(s.Length()))
		}
		return vm.ToValue(r.indexUTF16(s, sub, from) >= 0)
	})
}

func clampInt(v, lo, hi int64) int {
	return int(min(max(v, lo), hi))
}

// searcher finds one needle in one haystack repeatedly, each time with the cheapest
// search that stays linear: Go's strings.Index for ASCII text, goja's own for a short
// needle, the Rabin-Karp search of indexUTF16 for a long one.
type searcher struct {
	r        *run
	s, sub   goja.String
	ascii    bool   // s is ASCII
	both     bool   // so is sub
	gs, gsub string // s and sub as Go strings, when both are ASCII
	indexOf  goja.Callable
}

func (r *run) searcher(s, sub goja.String, indexOf goja.Callable) *searcher {
	x := &searcher{r: r, s: s, sub: sub, ascii: isASCII(s), indexOf: indexOf}
	if x.ascii && isASCII(sub) {
		x.both, x.gs, x.gsub = true, s.String(), sub.String()
	}
	return x
}

// index is the first position at or after from where sub occurs, or -1.
func (x *searcher) index(from int) int {
	n := x.s.Length()
	switch {
	case from > n:
		return -1
	case x.sub.Length() == 0:
		return from
	case x.ascii:
		if !x.both {
			return -1 // a needle that is not ASCII is not in ASCII text
		}
		if i := strings.Index(x.gs[from:], x.gsub); i >= 0 {
			return from + i
		}
		return -1
	case x.sub.Length() < longNeedle:
		return int(x.r.call(x.indexOf, x.s, x.sub, x.r.vm.ToValue(from)).ToInteger())
	}
	return x.r.indexUTF16(x.s, x.sub, from)
}

// isRegExp is ECMAScript's IsRegExp, as goja does it: an object's Symbol.match, read
// once, decides when it is defined, and otherwise whether it is a RegExp.
func (r *run) isRegExp(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	if m := o.GetSymbol(goja.SymMatch); m != nil && !goja.IsUndefined(m) {
		return m.ToBoolean()
	}
	return o.ClassName() == "RegExp"
}

// ---- replace and replaceAll with a string pattern ----

func (r *run) guardReplaces(proto *goja.Object, indexOf goja.Callable) {
	r.guardStringMethod(proto, "replace", func(call goja.FunctionCall, replace goja.Callable) goja.Value {
		search, replaceValue := call.Argument(0), call.Argument(1)
		if o, ok := search.(*goja.Object); ok {
			if m := r.method(o.GetSymbol(goja.SymReplace)); m != nil {
				return r.call(m, o, call.This, replaceValue)
			}
		}
		s, sub := r.strOf(call.This), r.strOf(search)
		pos := r.searcher(s, sub, indexOf).index(0)
		fn, repl := r.replaceValue(replaceValue)
		if pos < 0 {
			return s
		}
		return r.replaceFound(s, sub, pos, func(int) int { return -1 }, fn, repl)
	})
	r.guardStringMethod(proto, "replaceAll", func(call goja.FunctionCall, replaceAll goja.Callable) goja.Value {
		search, replaceValue := call.Argument(0), call.Argument(1)
		if o, ok := search.(*goja.Object); ok {
			if r.isRegExp(o) {
				flags := o.Get("flags")
				if isNullish(flags) {
					panic(r.vm.NewTypeError("Value is not object coercible"))
				}
				if !containsUnit(r.strOf(flags), 'g') {
					panic(r.vm.NewTypeError("String.prototype.replaceAll called with a non-global RegExp argument"))
				}
			}
			if m := r.method(o.GetSymbol(goja.SymReplace)); m != nil {
				return r.call(m, o, call.This, replaceValue)
			}
		}
		s, sub := r.strOf(call.This), r.strOf(search)
		x := r.searcher(s, sub, indexOf)
		advance := max(1, sub.Length())
		first := x.index(0)
		fn, repl := r.replaceValue(replaceValue)
		if first < 0 {
			return s
		}
		return r.replaceFound(s, sub, first, func(pos int) int { return x.index(pos + advance) }, fn, repl)
	})
}

// replaceValue is goja's getReplaceValue: a callable replaces by its results, anything
// else is converted to a string once.
func (r *run) replaceValue(v goja.Value) (goja.Callable, goja.String) {
	if o, ok := v.(*goja.Object); ok {
		if f, ok := goja.AssertFunction(o); ok {
			return f, nil
		}
	}
	return nil, r.strOf(v)
}

// replaceFound builds s with the occurrences of sub at first, next(first) and so on
// replaced, as goja's stringReplace does for a string pattern, throwing the RangeError
// before a result over the string bound is built: with a replacement string, the
// occurrences are counted first; a function replacer's pieces are counted as they come
// back. goja finds every occurrence before it calls a function replacer; finding them as
// it goes is the same, since a replacer cannot change s or sub.
func (r *run) replaceFound(s, sub goja.String, first int, next func(int) int, fn goja.Callable, repl goja.String) goja.Value {
	n, m := s.Length(), sub.Length()
	limit := int64(r.maxStringBytes())
	var t *template
	x := substitution{s: s}
	at := func(pos int) *substitution {
		x.position, x.matched = pos, s.Substring(pos, pos+m)
		return &x
	}
	if fn == nil {
		t = newTemplate(repl, 1, false)
		total := int64(n)
		for pos, i := first, 0; pos >= 0; pos, i = next(pos), i+1 {
			if i&1023 == 1023 && r.failed() {
				r.tooLongString() // the run is over; unwind
			}
			if total += int64(t.expand(nil, at(pos)) - m); total > limit {
				r.tooLongString()
			}
		}
	}
	var b goja.StringBuilder
	total, last := int64(0), 0
	for pos, i := first, 0; pos >= 0; pos, i = next(pos), i+1 {
		if i&1023 == 1023 && r.failed() {
			r.tooLongString()
		}
		b.WriteSubstring(s, last, pos)
		if fn == nil {
			t.expand(&b, at(pos))
		} else {
			piece := r.strOf(r.call(fn, goja.Undefined(), s.Substring(pos, pos+m), r.vm.ToValue(pos), s))
			if total += int64(pos-last) + int64(piece.Length()); total > limit {
				r.tooLongString()
			}
			b.WriteString(piece)
		}
		last = pos + m
	}
	if fn != nil && total+int64(n-last) > limit {
		r.tooLongString()
	}
	b.WriteSubstring(s, last, n)
	return b.String()
}

// ---- split with a string separator ----

func (r *run) stringSplit(call goja.FunctionCall, split, indexOf goja.Callable) goja.Value {
	sep, limitValue := call.Argument(0), call.Argument(1)
	if o, ok := sep.(*goja.Object); ok {
		if m := r.method(o.GetSymbol(goja.SymSplit)); m != nil {
			return r.call(m, o, call.This, limitValue)
		}
	}
	s := r.strOf(call.This)
	limit := int64(math.MaxUint32)
	if !goja.IsUndefined(limitValue) {
		limitValue = limitValue.ToNumber()
		limit = int64(toUint32(limitValue))
	}
	// goja converts the separator before it looks at the limit, but throws for a symbol
	// only after.
	sepV := sep.ToString()
	if limit == 0 || goja.IsUndefined(sepV) {
		return r.call(split, s, sepV, limitValue)
	}
	sub := r.strOf(sepV)
	n, m := s.Length(), sub.Length()
	// Each piece is a string of its own: split('') holds about 49 bytes a character.
	if m == 0 {
		if min(int64(n), limit) > r.maxStrings() {
			r.tooLongArray()
		}
		return r.call(split, s, sub, limitValue)
	}
	x := r.searcher(s, sub, indexOf)
	if cheapSearch(s, sub) {
		if limit > r.maxStrings() && int64(n/m) >= r.maxStrings() {
			// Count first: goja builds every piece before its array.
			pieces := int64(1)
			for pos := x.index(0); pos >= 0; pos = x.index(pos + m) {
				if pieces++; pieces > r.maxStrings() {
					r.tooLongArray()
				}
			}
		}
		return r.call(split, s, sub, limitValue)
	}
	// A long separator in a UTF-16 string: goja's search is quadratic, so split here.
	var parts []any
	last := 0
	for pos := x.index(0); pos >= 0 && int64(len(parts)) < limit; pos = x.index(pos + m) {
		if int64(len(parts)) >= r.maxStrings() {
			r.tooLongArray()
		}
		parts = append(parts, s.Substring(last, pos))
		last = pos + m
	}
	if int64(len(parts)) < limit {
		parts = append(parts, s.Substring(last, n))
	}
	return r.vm.NewArray(parts...)
}

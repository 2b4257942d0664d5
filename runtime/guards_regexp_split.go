package runtime

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// RegExp.prototype[Symbol.split] and [Symbol.matchAll], the iterator matchAll returns, and
// goja's generic paths of replace, match and split, ported with their bounds.

// species is goja's speciesConstructorObj for a RegExp: the constructor o's constructor
// property names as its species, or none (isDefault) for RegExp itself, which the guard
// that programs see as RegExp stands for.
func (r *run) species(o *goja.Object) (c goja.Constructor, isDefault bool) {
	v := o.Get("constructor")
	if v != nil && !goja.IsUndefined(v) {
		v = r.toObj(v).GetSymbol(goja.SymSpecies)
	}
	if isNullish(v) {
		return nil, true
	}
	obj := r.toObj(v)
	c, ok := goja.AssertConstructor(obj)
	if !ok {
		panic(r.vm.NewTypeError("Value is not a constructor"))
	}
	if obj == r.text.re.proxy {
		return nil, true
	}
	return c, false
}

// newSpecies is new C(rx, flags) for the species constructor C that species returned; for
// RegExp itself, the pattern is checked and the RegExp built by the guarded constructor.
func (r *run) newSpecies(c goja.Constructor, isDefault bool, rx *goja.Object, flags goja.String) *goja.Object {
	if isDefault {
		src, f, _ := r.regexpSource(rx, flags, r.isRegExp(rx))
		return construct(r.text.re.ctor, nil, src, f)
	}
	return construct(c, nil, rx, flags)
}

// ---- [Symbol.split] ----

// regexpSplit is goja's split, always done here: goja reads the species constructor, and
// a second read could lead it to its own constructor with an unchecked pattern, or to a
// splitter whose matches it would collect natively.
func (r *run) regexpSplit(call goja.FunctionCall) goja.Value {
	r.enterNative()
	defer r.leaveNative()
	rx := r.toObj(call.This)
	s := r.strOf(call.Argument(0))
	limitValue := call.Argument(1)
	st := r.regexpState(rx)
	c, isDefault := r.species(rx)
	search := rx
	if !st.standard || !isDefault {
		flags := r.strOf(nilSafe(rx.Get("flags")))
		unicode := containsUnit(flags, 'u')
		if !containsUnit(flags, 'y') {
			flags = flags.Concat(r.vm.ToValue("y").(goja.String))
		}
		splitter := r.newSpecies(c, isDefault, rx, flags)
		if st = r.regexpState(splitter); !st.standard {
			return r.splitGeneric(splitter, s, limitValue, unicode)
		}
		search = splitter
	}
	limit := int64(-1)
	if !goja.IsUndefined(limitValue) {
		limit = int64(toUint32(limitValue))
	}
	if limit == 0 {
		return r.vm.NewArray()
	}
	// goja's post-processing of the matches of a search for the pattern, without sticky.
	n := s.Length()
	var out []any
	pieces := int64(0)
	push := func(v goja.Value) bool {
		if int64(len(out)) >= r.maxStrings() {
			r.tooLongArray()
		}
		out = append(out, v)
		pieces++
		return pieces != limit
	}
	want := r.maxStrings() + 3 // each match makes a piece, but for an empty one at either end
	if limit >= 0 {
		want = min(want, limit+2)
	}
	found, _ := r.fastMatches(search, st, s, false, want)
	if n == 0 {
		if len(found) == 0 {
			out = append(out, s)
		}
		return r.vm.NewArray(out...)
	}
	undef := goja.Undefined()
	last := 0
each:
	for _, m := range found {
		if m[0] == m[1] && (m[0] == 0 || m[0] == n) {
			continue
		}
		if last != m[0] {
			if !push(s.Substring(last, m[0])) {
				break
			}
		} else if !push(s.Substring(0, 0)) {
			break
		}
		last = m[1]
		for j := 2; j+1 < len(m); j += 2 {
			v := goja.Value(undef)
			if m[j] >= 0 {
				v = s.Substring(m[j], m[j+1])
			}
			if !push(v) {
				break each
			}
		}
	}
	if pieces != limit {
		out = append(out, s.Substring(last, n))
	}
	return r.vm.NewArray(out...)
}

// ---- [Symbol.matchAll] ----

// regexpMatchAll does what goja's matchAll does up to the matcher (reading flags, the
// species constructor and lastIndex of the receiver once each, building the matcher with a
// checked pattern when the species is RegExp), then has goja's own matchAll make its
// iterator from a stand-in receiver that answers with those.
func (r *run) regexpMatchAll(_ goja.FunctionCall, orig goja.Callable, this *goja.Object, s goja.String) goja.Value {
	flags := r.strOf(nilSafe(this.Get("flags")))
	c, isDefault := r.species(this)
	matcher := r.newSpecies(c, isDefault, this, flags)
	lastIndex := toLength(this.Get("lastIndex"))
	re := &r.text.re
	if re.shim == nil {
		vm := r.vm
		species := vm.ToValue(func(goja.ConstructorCall) *goja.Object { return re.shimValue }).ToObject(vm)
		holder := vm.NewObject()
		_ = holder.SetPrototype(nil)
		_ = holder.DefineDataPropertySymbol(goja.SymSpecies, species, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		re.shim = vm.NewObject()
		_ = re.shim.SetPrototype(nil)
		_ = re.shim.Set("constructor", holder)
	}
	_ = re.shim.Set("flags", flags)
	_ = re.shim.Set("lastIndex", lastIndex)
	re.shimValue = matcher
	defer func() { re.shimValue = nil }()
	v := r.call(orig, re.shim, s)
	r.guardIteratorOf(v)
	return v
}

// guardIteratorOf guards the next method of a RegExp String Iterator's prototype, once per
// VM: a spread or Array.from of a matchAll calls it natively for every match, so it checks
// the run's stop flag.
func (r *run) guardIteratorOf(it goja.Value) {
	t := r.textState()
	o, ok := it.(*goja.Object)
	if t.iterNext || !ok || o.Prototype() == nil {
		return
	}
	t.iterNext = true
	r.guardCall(o.Prototype(), "next", func(call goja.FunctionCall, next goja.Callable) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		if r.failed() {
			r.tooLongArray() // the run is over; unwind
		}
		return r.call(next, call.This, call.Arguments...)
	})
}

// ---- goja's generic paths ----

// execResult is goja's RegExpExec with exec read already: an object, or nil for null.
func (r *run) execResult(exec goja.Callable, rx *goja.Object, s goja.String) *goja.Object {
	v := r.call(exec, rx, s)
	if goja.IsNull(v) {
		return nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		panic(r.vm.NewTypeError("RegExp exec method returned something other than an Object or null"))
	}
	return o
}

// execOf reads rx's exec as goja's generic paths do.
func (r *run) execOf(rx *goja.Object) goja.Callable {
	f, ok := goja.AssertFunction(r.toObj(rx.Get("exec")))
	if !ok {
		panic(r.vm.NewTypeError("exec is not a function"))
	}
	return f
}

// globalMatches is goja's getGlobalRegexpMatches: every exec result, in order.
func (r *run) globalMatches(rx *goja.Object, s goja.String, unicode bool) []*goja.Object {
	r.setLastIndex(rx, 0)
	exec := r.execOf(rx)
	var all []*goja.Object
	for {
		if r.failed() {
			r.tooLongArray() // the run is over; unwind
		}
		res := r.execResult(exec, rx, s)
		if res == nil {
			return all
		}
		if int64(len(all)) >= r.maxResults() {
			r.tooLongArray()
		}
		all = append(all, res)
		if r.strOf(nilSafe(res.Get("0"))).Length() == 0 {
			i := toLength(rx.Get("lastIndex"))
			r.setLastIndex(rx, advanceIndex64(s, i, unicode))
		}
	}
}

func advanceIndex64(s goja.String, i int64, unicode bool) int64 {
	if i+1 >= int64(s.Length()) {
		return i + 1
	}
	return int64(advanceIndex(s, int(i), unicode))
}

func (r *run) matchGeneric(rx *goja.Object, s goja.String) goja.Value {
	flags := nilSafe(rx.Get("flags")).String()
	if !strings.ContainsRune(flags, 'g') {
		exec := r.execOf(rx)
		if res := r.execResult(exec, rx, s); res != nil {
			return res
		}
		return goja.Null()
	}
	all := r.globalMatches(rx, s, strings.ContainsRune(flags, 'u'))
	if len(all) == 0 {
		return goja.Null()
	}
	out := make([]any, len(all))
	for i, res := range all {
		out[i] = nilSafe(res.Get("0")).ToString()
	}
	return r.vm.NewArray(out...)
}

func (r *run) replaceGeneric(rx *goja.Object, s goja.String, fn goja.Callable, repl goja.String) goja.Value {
	flags := nilSafe(rx.Get("flags")).String()
	var results []*goja.Object
	if strings.ContainsRune(flags, 'g') {
		results = r.globalMatches(rx, s, strings.ContainsRune(flags, 'u'))
	} else {
		exec := r.method(rx.Get("exec"))
		if exec == nil {
			panic(r.vm.NewTypeError("exec is not a function"))
		}
		if res := r.execResult(exec, rx, s); res != nil {
			results = append(results, res)
		}
	}
	n := s.Length()
	limit := int64(r.maxStringBytes())
	empty := s.Substring(0, 0)
	var b goja.StringBuilder
	var t *template // the replacement read for the last match's captures and groups
	total, next, elements := int64(0), 0, int64(0)
	for i, obj := range results {
		if i&1023 == 1023 && r.failed() {
			r.tooLongString()
		}
		nCaptures := max(toLength(obj.Get("length"))-1, 0)
		if elements += nCaptures + 1; elements > r.maxElements() {
			r.tooLongArray()
		}
		matched := r.strOf(nilSafe(obj.Get("0")))
		position := clampInt(nilSafe(obj.Get("index")).ToInteger(), 0, int64(n))
		captures := []goja.Value{matched}
		for k := int64(1); k <= nCaptures; k++ {
			c := nilSafe(obj.Get(strconv.FormatInt(k, 10)))
			if !goja.IsUndefined(c) {
				c = c.ToString()
			}
			captures = append(captures, c)
		}
		var piece goja.String
		var x *substitution
		var seen struct {
			values []goja.String
			next   int
			replay bool
		}
		if fn != nil {
			args := append(captures, r.vm.ToValue(position), s)
			if g := nilSafe(obj.Get("groups")); !goja.IsUndefined(g) {
				args = append(args, g)
			}
			piece = r.strOf(r.call(fn, goja.Undefined(), args...))
		} else {
			var named *goja.Object
			if g := nilSafe(obj.Get("groups")); !goja.IsUndefined(g) {
				named = g.ToObject(r.vm)
			}
			x = &substitution{s: s, position: position, matched: matched}
			x.capture = func(i int) goja.String {
				if goja.IsUndefined(captures[i]) {
					return empty
				}
				return r.strOf(captures[i])
			}
			if named != nil {
				// expand runs twice (to count, then to write): each reference is read
				// once, on the first run, in goja's order, and replayed on the second.
				x.named = func(ref goja.String) goja.String {
					if seen.replay {
						seen.next++
						return seen.values[seen.next-1]
					}
					v := empty
					if c := nilSafe(named.Get(ref.String())); !goja.IsUndefined(c) {
						v = r.strOf(c)
					}
					seen.values = append(seen.values, v)
					return v
				}
			}
		}
		if position < next {
			continue
		}
		size := 0
		if fn != nil {
			size = piece.Length()
		} else {
			if t == nil || t.captures != len(captures) || t.named != (x.named != nil) {
				t = newTemplate(repl, len(captures), x.named != nil)
			}
			size = t.expand(nil, x)
		}
		if total += int64(position-next) + int64(size); total > limit {
			r.tooLongString()
		}
		b.WriteSubstring(s, next, position)
		if fn != nil {
			b.WriteString(piece)
		} else {
			seen.replay = true
			t.expand(&b, x)
		}
		next = position + matched.Length()
	}
	if next < n {
		if total+int64(n-next) > limit {
			r.tooLongString()
		}
		b.WriteSubstring(s, next, n)
	}
	return b.String()
}

// splitGeneric is goja's generic split, for a splitter goja does not take its fast path
// for: a sticky exec at every position.
func (r *run) splitGeneric(splitter *goja.Object, s goja.String, limitValue goja.Value, unicode bool) goja.Value {
	var out []any
	lim := int64(1<<53 - 2)
	if !goja.IsUndefined(limitValue) {
		lim = toLength(limitValue)
	}
	if lim == 0 {
		return r.vm.NewArray()
	}
	push := func(v goja.Value) bool {
		if int64(len(out)) >= r.maxStrings() {
			r.tooLongArray()
		}
		out = append(out, v)
		return int64(len(out)) != lim
	}
	size := s.Length()
	exec := r.method(splitter.Get("exec"))
	if exec == nil {
		panic(r.vm.NewTypeError("exec is not a function"))
	}
	if size == 0 {
		if r.execResult(exec, splitter, s) == nil {
			out = append(out, s)
		}
		return r.vm.NewArray(out...)
	}
	p, q := 0, 0
	for q < size {
		if r.failed() {
			r.tooLongArray() // the run is over; unwind
		}
		r.setLastIndex(splitter, int64(q))
		z := r.execResult(exec, splitter, s)
		if z == nil {
			q = advanceIndex(s, q, unicode)
			continue
		}
		e := toLength(splitter.Get("lastIndex"))
		if e == int64(p) {
			q = advanceIndex(s, q, unicode)
			continue
		}
		if !push(s.Substring(p, q)) {
			return r.vm.NewArray(out...)
		}
		p = int(min(e, int64(size)))
		captures := max(toLength(z.Get("length"))-1, 0)
		for i := int64(1); i <= captures; i++ {
			if !push(nilSafe(z.Get(strconv.FormatInt(i, 10)))) {
				return r.vm.NewArray(out...)
			}
		}
		q = p
	}
	out = append(out, s.Substring(p, size))
	return r.vm.NewArray(out...)
}

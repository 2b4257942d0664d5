package runtime

import (
	"math"
	"strconv"

	"github.com/dop251/goja"
)

// RegExp.prototype[Symbol.replace] and [Symbol.match] (split and matchAll are in
// guards_regexp_split.go).
//
// goja takes one of two paths. For a RegExp it has not seen modified ("standard"), a fast
// path finds every match in one native call and then builds the result; for anything
// else, a generic path calls the object's exec for each match, natively, and collects
// them all first. The guards keep each path's results and bound its work:
//
//   - fast path, Go's regexp (ASCII text, or a unicode RegExp over well-formed text, with a
//     pattern Go's regexp can run): linear time; when even a match at every position
//     fits in memory, goja runs it as it is;
//   - any other fast path: fastMatches finds the same matches with goja's own compiled
//     pattern (for regexp2, one match per call, without regexp2's 48 bytes per input
//     character up front and with the stop flag checked between matches), and the result
//     is built here as goja builds it, counted before it is written;
//   - generic path: goja's algorithm, ported, with the same property reads in the same
//     order, and the same bounds (guards_regexp_split.go).
//
// A string result over maxStringBytes is the RangeError "Invalid string length"; more
// matches than goja could hold, or an array over its bound, "Invalid array length".

// goFastBytes bounds what goja's fast path may hold for the matches of one global
// operation it runs as it is, at about matchBytes per match (its index pairs and a
// result record); enumBytes bounds what fastMatches holds, at about findBytes per match
// (the index pairs alone), leaving the rest of the budget to the result.
func (r *run) goFastBytes() int64 { return r.limits.HeapBytes / 2 }
func (r *run) enumBytes() int64   { return r.limits.HeapBytes / 4 }

func matchBytes(groups int) int64 { return findBytes(groups) + 96 }
func findBytes(groups int) int64  { return int64(16*(groups+1) + 24) }

// maxStrings bounds the strings a guard builds and keeps itself (a split's pieces, a
// match's matches): each is a string value of its own besides its slot, about 48 bytes
// where maxElements counts 16, so the run fails with the RangeError, not over its heap.
func (r *run) maxStrings() int64 { return r.maxElements() / 4 }

// maxResults bounds the exec results a guard keeps (arrays with index, input and groups,
// or whatever objects a program's exec returns: a few hundred bytes each).
func (r *run) maxResults() int64 { return r.maxElements() / 32 }

// goEngine reports whether goja's fast path runs st's pattern over s with Go's regexp.
func goEngine(st regexpState, s goja.String) bool {
	return !st.regexp2 && (isASCII(s) || st.unicode && wellFormed(s))
}

// wellFormed reports whether s has no lone surrogates.
func wellFormed(s goja.String) bool {
	for i, n := 0, s.Length(); i < n; i++ {
		c := s.CharAt(i)
		switch {
		case c >= 0xD800 && c <= 0xDBFF:
			if i+1 >= n || s.CharAt(i+1) < 0xDC00 || s.CharAt(i+1) > 0xDFFF {
				return false
			}
			i++
		case c >= 0xDC00 && c <= 0xDFFF:
			return false
		}
	}
	return true
}

// nativeFits reports whether goja's fast path may run a global operation as it is: its
// engine is Go's, and its matches fit in memory even with one at every position.
func (r *run) nativeFits(st regexpState, s goja.String) bool {
	return goEngine(st, s) && int64(s.Length()+1)*matchBytes(st.groups) <= r.goFastBytes() && !r.text.emulate
}

// advanceIndex is ECMAScript's AdvanceStringIndex.
func advanceIndex(s goja.String, pos int, unicode bool) int {
	next := pos + 1
	if !unicode || next >= s.Length() {
		return next
	}
	if c := s.CharAt(pos); c >= 0xD800 && c <= 0xDBFF {
		if d := s.CharAt(next); d >= 0xDC00 && d <= 0xDFFF {
			return next + 1
		}
	}
	return next
}

func (r *run) setLastIndex(rx *goja.Object, i int64) {
	if err := rx.Set("lastIndex", i); err != nil {
		panic(err)
	}
}

// ---- [Symbol.replace] ----

func (r *run) regexpReplace(call goja.FunctionCall, orig goja.Callable, rx *goja.Object, s goja.String) goja.Value {
	fn, repl := r.replaceValue(call.Argument(1))
	st := r.regexpState(rx)
	if !st.standard {
		return r.replaceGeneric(rx, s, fn, repl)
	}
	replacement := goja.Value(repl)
	if fn != nil {
		replacement = call.Argument(1)
	}
	if !st.global {
		// One match, which the regexp2 timeout bounds; its expansion may not be.
		if fn == nil && !r.expansionFits(s, repl, 1) {
			return r.replaceOnce(rx, s, repl)
		}
		return r.call(orig, rx, s, replacement)
	}
	if r.nativeFits(st, s) && (fn != nil || r.expansionFits(s, repl, int64(s.Length()+1))) {
		if fn != nil {
			return r.replaceCounting(orig, rx, s, fn, st.groups)
		}
		return r.call(orig, rx, s, repl)
	}
	found, names := r.fastMatches(rx, st, s, st.sticky, math.MaxInt64)
	r.setLastIndex(rx, 0) // goja sets it after finding the matches
	return r.buildReplace(s, found, names, fn, repl)
}

// expansionFits reports whether k replacements with repl certainly keep the result of
// replacing in s within the string bound: each $ pattern expands to at most len(s).
func (r *run) expansionFits(s, repl goja.String, k int64) bool {
	dollars := int64(0)
	for i, n := 0, repl.Length(); i < n; i++ {
		if repl.CharAt(i) == '$' {
			dollars++
		}
	}
	n := int64(s.Length())
	return n+k*(int64(repl.Length())+dollars*n) <= int64(r.maxStringBytes())
}

// pieceCount is the state of a function replacer goja calls natively: the pieces it
// returned so far, counted into the size of the result.
type pieceCount struct {
	fn     goja.Callable
	groups int // the pattern's capture groups: the position argument follows them
	total  int64
	last   int
}

// replaceCounting runs goja's native replace with a function replacer, through a native
// function that calls the program's replacer, converts each piece once and counts it.
// One such function serves every replace of the run; replacers in progress stack up.
func (r *run) replaceCounting(orig goja.Callable, rx *goja.Object, s goja.String, fn goja.Callable, groups int) goja.Value {
	t := r.textState()
	if t.replacer == nil {
		t.replacer = r.native(func(call goja.FunctionCall) goja.Value {
			c := t.replacers[len(t.replacers)-1]
			piece := r.strOf(r.call(c.fn, goja.Undefined(), call.Arguments...))
			pos := int(call.Argument(c.groups + 1).ToInteger())
			if c.total += int64(pos-c.last) + int64(piece.Length()); c.total > int64(r.maxStringBytes()) {
				r.tooLongString()
			}
			c.last = pos + strLen(call.Argument(0))
			return piece
		})
	}
	t.replacers = append(t.replacers, &pieceCount{fn: fn, groups: groups})
	defer func() { t.replacers = t.replacers[:len(t.replacers)-1] }()
	v := r.call(orig, rx, s, t.replacer)
	if strLen(v) > r.maxStringBytes() {
		r.tooLongString()
	}
	return v
}

// replaceOnce is the fast path's replace of one match by a RegExp that is not global, for
// a replacement whose expansion needs counting: exec finds the match as goja's fast path
// does (from lastIndex when sticky, which it updates).
func (r *run) replaceOnce(rx *goja.Object, s, repl goja.String) goja.Value {
	res, ok := r.call(r.text.re.exec, rx, s).(*goja.Object)
	if !ok {
		return s
	}
	index := int(res.Get("index").ToInteger())
	x, captures := execSubstitution(s, index, res)
	t := newTemplate(repl, captures, x.named != nil)
	end := index + x.matched.Length()
	n, size := s.Length(), t.expand(nil, x)
	if int64(n-(end-index))+int64(size) > int64(r.maxStringBytes()) {
		r.tooLongString()
	}
	var b goja.StringBuilder
	b.WriteSubstring(s, 0, index)
	t.expand(&b, x)
	b.WriteSubstring(s, end, n)
	return b.String()
}

// execSubstitution is a result of the original exec as goja's fast path substitutes it,
// and its count of captures (the groups plus one).
func execSubstitution(s goja.String, index int, res *goja.Object) (*substitution, int) {
	caps := make([]goja.Value, int(toLength(res.Get("length"))))
	for i := range caps {
		caps[i] = res.Get(strconv.Itoa(i))
	}
	empty := s.Substring(0, 0)
	str := func(v goja.Value) goja.String {
		if v, ok := v.(goja.String); ok {
			return v
		}
		return empty
	}
	x := &substitution{s: s, position: index, matched: str(caps[0])}
	x.capture = func(i int) goja.String { return str(caps[i]) }
	if g, ok := res.Get("groups").(*goja.Object); ok {
		x.named = func(ref goja.String) goja.String { return str(g.Get(ref.String())) }
	}
	return x, len(caps)
}

// ---- [Symbol.match] ----

func (r *run) regexpMatch(_ goja.FunctionCall, orig goja.Callable, rx *goja.Object, s goja.String) goja.Value {
	st := r.regexpState(rx)
	if !st.standard {
		return r.matchGeneric(rx, s)
	}
	if !st.global || r.nativeFits(st, s) {
		return r.call(orig, rx, s)
	}
	r.setLastIndex(rx, 0) // goja sets it before finding the matches
	found, _ := r.fastMatches(rx, st, s, st.sticky, r.maxStrings()+1)
	if int64(len(found)) > r.maxStrings() {
		r.tooLongArray()
	}
	if len(found) == 0 {
		return goja.Null()
	}
	all := make([]any, len(found))
	for i, m := range found {
		all[i] = s.Substring(m[0], m[1])
	}
	return r.vm.NewArray(all...)
}

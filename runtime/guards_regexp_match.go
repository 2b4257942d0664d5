package runtime

import (
	"reflect"
	"unsafe"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// fastMatches is goja's findAllSubmatchIndex(s, 0, -1, sticky) for a RegExp goja takes its
// fast path for, with goja's own compiled pattern: the same engine (Go's regexp for ASCII
// text, and for a unicode RegExp over well-formed text; regexp2 otherwise), the same
// matches in the same order, each as goja's UTF-16 index pairs (the match, then each
// group; -1 for a group that took no part), with the groups' names. Unlike goja it
// allocates nothing per input character up front, runs regexp2 one match per call with
// the run's stop flag checked between, and stops after want matches (goja finds them all;
// the callers need no more). More than enumBytes' worth of matches is the array
// RangeError; text that regexp2 would need more than half the heap budget to hold as
// runes (4 bytes a character, 12 for a unicode RegExp) the string RangeError. A regexp2
// timeout means no match at all, as in goja.
func (r *run) fastMatches(o *goja.Object, st regexpState, s goja.String, sticky bool, want int64) (found [][]int, names []string) {
	most := r.enumBytes() / findBytes(st.groups)
	limit := min(want, most+1)
	check := func(n int) {
		if int64(n) > most {
			r.tooLongArray()
		}
	}
	if !st.regexp2 && isASCII(s) {
		found = st.goRe.FindAllStringSubmatchIndex(s.String(), int(limit))
		check(len(found))
		return stickyPrefix(found, sticky), st.goRe.SubexpNames()
	}
	if !st.regexp2 && st.unicode && wellFormed(s) {
		str := s.String()
		found = st.goRe.FindAllStringSubmatchIndex(str, int(limit))
		check(len(found))
		found = stickyPrefix(found, sticky)
		utf16Offsets(str, found)
		return found, st.goRe.SubexpNames()
	}
	re := r.regexp2Of(o, st)
	if re == nil {
		panic(r.vm.NewTypeError("internal error: a RegExp without a compiled pattern"))
	}
	if per := int64(4 + 8*btoi(st.unicode && !isASCII(s))); int64(s.Length())*per > r.limits.HeapBytes/2 {
		r.tooLongString()
	}
	most = r.enumBytes() / findBytes(len(re.GetGroupNumbers())-1)
	limit = min(want, most+1)
	// goja's findAllSubmatchIndexUTF16, or findAllSubmatchIndexUnicode for a unicode
	// RegExp over text that is not ASCII: the text as runes (code units, or code points
	// with the UTF-16 position of each).
	n := s.Length()
	var runes []rune
	var posMap []int
	if st.unicode && !isASCII(s) {
		runes, posMap = make([]rune, 0, n), make([]int, 0, n+1)
		for i := 0; i < n; {
			c, size := rune(s.CharAt(i)), 1
			if c >= 0xD800 && c <= 0xDBFF && i+1 < n {
				if d := rune(s.CharAt(i + 1)); d >= 0xDC00 && d <= 0xDFFF {
					c, size = (c-0xD800)<<10+(d-0xDC00)+0x10000, 2
				}
			}
			runes, posMap = append(runes, c), append(posMap, i)
			i += size
		}
		posMap = append(posMap, n)
	} else {
		runes = make([]rune, n)
		for i := range runes {
			runes[i] = rune(s.CharAt(i))
		}
	}
	at := func(i int) int {
		if posMap != nil {
			return posMap[i]
		}
		return i
	}
	m, err := re.FindRunesMatchStartingAt(runes, 0)
	start := 0
	for m != nil && err == nil && int64(len(found)) < limit {
		if r.failed() {
			r.tooLongArray() // the run is over; unwind
		}
		groups := m.Groups()
		idx := make([]int, 0, 2*len(groups))
		if names == nil {
			names = make([]string, len(groups))
			for i, g := range groups {
				names[i] = g.Name
			}
		}
		for _, g := range groups {
			if len(g.Captures) > 0 {
				idx = append(idx, at(g.RuneIndex), at(g.RuneIndex+g.RuneLength))
			} else {
				idx = append(idx, -1, 0)
			}
		}
		if sticky {
			if idx[0] != start {
				break
			}
			start = idx[1]
		}
		found = append(found, idx)
		m, err = re.FindNextMatch(m)
	}
	if err != nil {
		return nil, nil
	}
	check(len(found))
	return found, names
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stickyPrefix is goja's sticky rule for Go's matches: they must follow one another from
// the start.
func stickyPrefix(found [][]int, sticky bool) [][]int {
	if !sticky {
		return found
	}
	pos := 0
	for i, m := range found {
		if m[0] != pos {
			return found[:i]
		}
		pos = m[1]
	}
	return found
}

// utf16Offsets turns the UTF-8 byte offsets of Go's matches in str into UTF-16 offsets.
func utf16Offsets(str string, found [][]int) {
	// Offsets come in increasing order of each match's start; a group lies within its
	// match. Walk once for the starts, and from each start for its offsets.
	b8, b16 := 0, 0
	walk := func(from8, from16, to int) int {
		for from8 < to {
			c := str[from8]
			switch {
			case c < 0x80:
				from8, from16 = from8+1, from16+1
			case c < 0xE0:
				from8, from16 = from8+2, from16+1
			case c < 0xF0:
				from8, from16 = from8+3, from16+1
			default:
				from8, from16 = from8+4, from16+2
			}
		}
		return from16
	}
	for _, m := range found {
		start8 := m[0]
		start16 := walk(b8, b16, start8)
		b8, b16 = start8, start16
		for i, v := range m {
			if v >= 0 {
				m[i] = walk(start8, start16, v)
			}
		}
	}
}

// regexp2Of is the regexp2 pattern goja runs for o: the one goja compiled, or, for a
// pattern that Go's regexp runs when it can, the same pattern compiled as goja compiles
// it when it needs regexp2 (its createRegexp2), kept for the run.
func (r *run) regexp2Of(o *goja.Object, st regexpState) *regexp2.Regexp {
	rx, l := regexpObject(o)
	if l == nil || l.regexp2 == nil {
		return nil
	}
	pat := rx.FieldByIndex(l.pattern)
	if pat.IsNil() {
		return nil
	}
	if w := pat.Elem().FieldByIndex(l.regexp2); !w.IsNil() {
		if re := w.Elem().FieldByIndex(l.regexp2Rx); !re.IsNil() {
			return (*regexp2.Regexp)(unsafe.Pointer(re.Pointer()))
		}
	}
	t := r.textState()
	key := pat.Pointer()
	if c, ok := t.regexp2[key]; ok {
		return c.re
	}
	opts := regexp2.ECMAScript
	if st.multiline {
		opts |= regexp2.Multiline
	}
	if st.dotAll {
		opts |= regexp2.Singleline
	}
	if st.ignoreCase {
		opts |= regexp2.IgnoreCase
	}
	if st.unicode {
		opts |= regexp2.Unicode
	}
	re, err := regexp2.Compile(pat.Elem().FieldByIndex(l.src).String(), opts)
	if err != nil {
		return nil
	}
	if t.regexp2 == nil {
		t.regexp2 = map[uintptr]compiled2{}
	}
	t.regexp2[key] = compiled2{keep: pat, re: re}
	return re
}

// compiled2 is a regexp2 pattern compiled for a goja pattern, which keep holds on to (so
// its address names no other pattern while the run lasts).
type compiled2 struct {
	keep reflect.Value
	re   *regexp2.Regexp
}

// groupsObject is goja's createRegexpGroupsObj: an object without a prototype holding the
// named groups of a match, or undefined when the pattern names none.
func (r *run) groupsObject(values []goja.Value, names []string) goja.Value {
	var g *goja.Object
	for i := 1; i < len(values) && i < len(names); i++ {
		if names[i] == "" {
			continue
		}
		if g == nil {
			g = r.vm.NewObject()
			_ = g.SetPrototype(nil)
		}
		_ = g.Set(names[i], values[i])
	}
	if g == nil {
		return nil
	}
	return g
}

// buildReplace is goja's stringReplace: s with each match found replaced by fn's result
// or repl with its $ patterns expanded, counted before it is written; over the string
// bound it throws the RangeError.
func (r *run) buildReplace(s goja.String, found [][]int, names []string, fn goja.Callable, repl goja.String) goja.Value {
	if len(found) == 0 {
		return s
	}
	n := s.Length()
	limit := int64(r.maxStringBytes())
	empty := s.Substring(0, 0)
	undef := goja.Undefined()
	var named map[string]int // createRegexpGroupsMap
	for i := 1; i < len(names); i++ {
		if names[i] != "" {
			if named == nil {
				named = map[string]int{}
			}
			named[names[i]] = 2 * i
		}
	}
	var t *template
	x := substitution{s: s}
	at := func(m []int) *substitution {
		sub := func(j int) goja.String {
			if m[2*j] < 0 {
				return empty
			}
			return s.Substring(m[2*j], m[2*j+1])
		}
		x.position, x.matched, x.capture = m[0], sub(0), sub
		if named != nil {
			x.named = func(ref goja.String) goja.String {
				if k, ok := named[ref.String()]; ok && k < len(m)-1 && m[k] >= 0 {
					return s.Substring(m[k], m[k+1])
				}
				return empty
			}
		}
		return &x
	}
	if fn == nil {
		// Count the result first.
		t = newTemplate(repl, len(found[0])/2, named != nil)
		total := int64(n)
		for i, m := range found {
			if i&1023 == 1023 && r.failed() {
				r.tooLongString() // the run is over; unwind
			}
			if total += int64(t.expand(nil, at(m)) - (m[1] - m[0])); total > limit {
				r.tooLongString()
			}
		}
	}
	var b goja.StringBuilder
	total, last := int64(0), 0
	for i, m := range found {
		if i&1023 == 1023 && r.failed() {
			r.tooLongString()
		}
		if m[0] != last {
			b.WriteSubstring(s, last, m[0])
		}
		if fn == nil {
			t.expand(&b, at(m))
		} else {
			args := make([]goja.Value, len(m)/2, len(m)/2+3)
			for j := range args {
				if m[2*j] < 0 {
					args[j] = undef
				} else {
					args[j] = s.Substring(m[2*j], m[2*j+1])
				}
			}
			groups := r.groupsObject(args, names)
			args = append(args, r.vm.ToValue(m[0]), s)
			if groups != nil {
				args = append(args, groups)
			}
			piece := r.strOf(r.call(fn, undef, args...))
			if total += int64(max(m[0]-last, 0)) + int64(piece.Length()); total > limit {
				r.tooLongString()
			}
			b.WriteString(piece)
		}
		last = m[1]
	}
	if last != n {
		if fn != nil && total+int64(n-last) > limit {
			r.tooLongString()
		}
		b.WriteSubstring(s, last, n)
	}
	return b.String()
}

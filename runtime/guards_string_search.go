package runtime

import (
	"math/bits"
	"math/rand/v2"
	"reflect"

	"github.com/dop251/goja"
)

// Helpers of the String guards: what kind of string goja holds, a linear UTF-16 search,
// and the expansion of a replacement's $ patterns.

// isASCII reports whether goja holds s as ASCII text: then goja searches, splits and
// matches it with Go's strings and regexp packages, in linear time. goja holds ASCII text
// as a Go string type (kind string), other text as UTF-16 code units (kind slice), and a
// string that came from Go as a pointer to its Go text, scanned when first needed.
func isASCII(s goja.String) bool {
	switch reflect.TypeOf(s).Kind() {
	case reflect.String:
		return true
	case reflect.Slice:
		return false
	}
	str := s.String()
	for i := 0; i < len(str); i++ {
		if str[i] >= 0x80 {
			return false
		}
	}
	return true
}

// containsUnit reports whether s contains the code unit c.
func containsUnit(s goja.String, c uint16) bool {
	for i, n := 0, s.Length(); i < n; i++ {
		if s.CharAt(i) == c {
			return true
		}
	}
	return false
}

// The UTF-16 search is Rabin-Karp over code units with a random base modulo the prime
// 2^61-1: linear time expected whatever the input, since a program cannot know the base
// to build collisions, and no memory besides the two strings. A candidate is confirmed
// unit by unit.
const mersenne61 = 1<<61 - 1

var searchBase = rand.Uint64N(mersenne61-256) + 256

func mulmod61(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	s := (hi<<3 | lo>>61) + lo&mersenne61
	if s >= mersenne61 {
		s -= mersenne61
	}
	return s
}

func addmod61(a, b uint64) uint64 {
	s := a + b
	if s >= mersenne61 {
		s -= mersenne61
	}
	return s
}

func submod61(a, b uint64) uint64 {
	if a >= b {
		return a - b
	}
	return a + mersenne61 - b
}

// hashUnits hashes s[from:from+m] and returns the hash and base^(m-1).
func hashUnits(s goja.String, from, m int) (h, top uint64) {
	top = 1
	for i := 0; i < m; i++ {
		h = addmod61(mulmod61(h, searchBase), uint64(s.CharAt(from+i)))
		if i > 0 {
			top = mulmod61(top, searchBase)
		}
	}
	return h, top
}

func sameUnits(s goja.String, at int, sub goja.String) bool {
	for j, m := 0, sub.Length(); j < m; j++ {
		if s.CharAt(at+j) != sub.CharAt(j) {
			return false
		}
	}
	return true
}

// indexUTF16 is the first position at or after from where sub occurs in s, or -1. It
// checks the run's stop flag as it goes.
func (r *run) indexUTF16(s, sub goja.String, from int) int {
	n, m := s.Length(), sub.Length()
	start := from
	if m == 0 {
		return min(start, n)
	}
	if start+m > n {
		return -1
	}
	want, top := hashUnits(sub, 0, m)
	h, _ := hashUnits(s, start, m)
	for i := start; ; i++ {
		if h == want && sameUnits(s, i, sub) {
			return i
		}
		if i+m >= n {
			return -1
		}
		if i&0xffff == 0xffff && r.failed() {
			r.tooLongString() // the run is over; unwind
		}
		h = addmod61(mulmod61(submod61(h, mulmod61(uint64(s.CharAt(i)), top)), searchBase), uint64(s.CharAt(i+m)))
	}
}

// lastIndexUTF16 is the last position at or before from where sub occurs in s, or -1.
func (r *run) lastIndexUTF16(s, sub goja.String, from int) int {
	n, m := s.Length(), sub.Length()
	start := min(from, n-m)
	if m == 0 {
		return min(from, n)
	}
	if start < 0 {
		return -1
	}
	// Hash windows right to left: the window at i is sub's hash with the highest power
	// on s[i], so sliding left multiplies the new unit by base^(m-1).
	want, top := hashUnits(sub, 0, m)
	h, _ := hashUnits(s, start, m)
	for i := start; ; i-- {
		if h == want && sameUnits(s, i, sub) {
			return i
		}
		if i == 0 {
			return -1
		}
		if i&0xffff == 0 && r.failed() {
			r.tooLongString()
		}
		// Drop s[i+m-1] (weight 1), shift, add s[i-1] with weight base^(m-1).
		h = submod61(h, uint64(s.CharAt(i+m-1)))
		h = mulmod61(h, inverseBase)
		h = addmod61(h, mulmod61(uint64(s.CharAt(i-1)), top))
	}
}

// inverseBase is searchBase's inverse modulo 2^61-1 (Fermat: b^(p-2)).
var inverseBase = func() uint64 {
	result, b, e := uint64(1), searchBase, uint64(mersenne61-2)
	for e > 0 {
		if e&1 == 1 {
			result = mulmod61(result, b)
		}
		b = mulmod61(b, b)
		e >>= 1
	}
	return result
}()

// substitution is one match as a replacement's $ patterns see it.
type substitution struct {
	s        goja.String // the subject
	position int
	matched  goja.String
	capture  func(i int) goja.String       // group i (1 ≤ i < captures); "" for an unmatched group
	named    func(goja.String) goja.String // a named group, "" when absent; nil when the match has no groups
}

// template is a replacement read once for its $ patterns, as goja's writeSubstitution
// reads it for matches with captures (the groups plus one) and with or without named
// groups: $$, $&, $`, $', $n and $nn up to the group count, $<name> when there are named
// groups, and any other $ as itself.
type template struct {
	repl     goja.String
	captures int
	named    bool
	parts    []part
}

type partKind uint8

const (
	partText    partKind = iota // repl[a:b]
	partPrefix                  // $`
	partSuffix                  // $'
	partMatch                   // $&
	partCapture                 // $n: group a
	partNamed                   // $<name>: name repl[a:b]
)

type part struct {
	kind partKind
	a, b int
}

func newTemplate(repl goja.String, captures int, named bool) *template {
	t := &template{repl: repl, captures: captures, named: named}
	rl := repl.Length()
	lit := 0 // start of the literal run not yet recorded
	text := func(a, b int) {
		if b > a {
			t.parts = append(t.parts, part{partText, a, b})
		}
	}
	for i := 0; i < rl; i++ {
		if repl.CharAt(i) != '$' || i == rl-1 {
			continue
		}
		text(lit, i)
		switch repl.CharAt(i + 1) {
		case '$':
			text(i, i+1)
		case '`':
			t.parts = append(t.parts, part{kind: partPrefix})
		case '\'':
			t.parts = append(t.parts, part{kind: partSuffix})
		case '&':
			t.parts = append(t.parts, part{kind: partMatch})
		case '<':
			j := i + 2
			for ; j < rl && repl.CharAt(j) != '>'; j++ {
			}
			if j < rl && named {
				t.parts = append(t.parts, part{partNamed, i + 2, j})
				i = j
				lit = i + 1
				continue
			}
			text(i, i+2)
		default:
			index := 0
			j := i + 1
			for lim := min(j+2, rl); j < lim; j++ {
				d := repl.CharAt(j)
				if d < '0' || d > '9' {
					break
				}
				m := index*10 + int(d-'0')
				if m >= captures {
					break
				}
				index = m
			}
			if index > 0 {
				t.parts = append(t.parts, part{kind: partCapture, a: index})
				i = j - 1
				lit = j
				continue
			}
			text(i, i+2)
		}
		i++
		lit = i + 1
	}
	text(lit, rl)
	return t
}

// expand writes the template for x to b (when b is not nil) and returns the number of
// code units that makes.
func (t *template) expand(b *goja.StringBuilder, x *substitution) int {
	n := 0
	put := func(s goja.String, from, to int) {
		if to > from {
			n += to - from
			if b != nil {
				b.WriteSubstring(s, from, to)
			}
		}
	}
	all := func(s goja.String) { put(s, 0, s.Length()) }
	for _, p := range t.parts {
		switch p.kind {
		case partText:
			put(t.repl, p.a, p.b)
		case partPrefix:
			put(x.s, 0, x.position)
		case partSuffix:
			put(x.s, x.position+x.matched.Length(), x.s.Length())
		case partMatch:
			all(x.matched)
		case partCapture:
			all(x.capture(p.a))
		case partNamed:
			all(x.named(t.repl.Substring(p.a, p.b)))
		}
	}
	return n
}

package sdkgen

import (
	"bytes"
	"strings"
)

// Rendered types are written into one buffer per Render (gen.buf) rather than built
// as strings: a type's text is the span of the buffer its render function appended,
// and an enclosing type writes its own text around its members' in place. Building
// each object literal, union and array type as its own string copied every nested
// text once per level and made most of Render's garbage.
//
// The rule every render function keeps: it appends exactly its type's text at the end
// of gen.buf and returns the span, which therefore ends at len(gen.buf). Members are
// rendered one after another, so their spans are adjacent; a union or intersection is
// joined by copying its members' text aside (gen.tmp) and writing it back with the
// operators between them.

// Operator precedence of a rendered type, to know when it needs parentheses.
const (
	precUnion = iota
	precIntersection
	precPrimary
)

// ts is a rendered TypeScript type: its text is gen.buf[start:end].
type ts struct {
	span
	prec int
	// refs reports that the text names an alias; direct lists the aliases named
	// outside any object, array or tuple (where a self-reference is circular).
	refs   bool
	direct []string
	// null reports that null is one of the union's members.
	null bool
}

// span is where a type's text is in gen.buf.
type span struct{ start, end int }

// text returns t's text, without copying, for reading before gen.buf changes.
func (g *gen) text(t span) []byte { return g.buf[t.start:t.end] }

// emit appends a type whose text is given.
func (g *gen) emit(text string, prec int) ts {
	start := len(g.buf)
	g.buf = append(g.buf, text...)
	return ts{span: span{start, len(g.buf)}, prec: prec}
}

func (g *gen) json() ts  { return g.emit("JsonValue", precPrimary) }
func (g *gen) never() ts { return g.emit("never", precPrimary) }

// empty returns a type with no text yet at the end of the buffer, for a type whose
// text is then appended piece by piece.
func (g *gen) empty(prec int) ts { return ts{span: span{len(g.buf), len(g.buf)}, prec: prec} }

// write appends s to the buffer.
func (g *gen) write(s string) { g.buf = append(g.buf, s...) }

// close ends t, the type being appended, at the end of the buffer.
func (g *gen) close(t ts) ts {
	t.end = len(g.buf)
	return t
}

// wrap parenthesises t, the last type in the buffer, unless it binds at least as
// tightly as prec.
func (g *gen) wrap(t ts, prec int) {
	if t.prec < prec {
		g.surround(t, "(", ")")
	}
}

// surround writes prefix before and suffix after t, the last type in the buffer,
// returning the span of the whole.
func (g *gen) surround(t ts, prefix, suffix string) span {
	n := len(g.buf)
	g.buf = append(g.buf, prefix...) // room for the prefix
	copy(g.buf[t.start+len(prefix):], g.buf[t.start:n])
	copy(g.buf[t.start:], prefix)
	g.buf = append(g.buf, suffix...)
	return span{t.start, len(g.buf)}
}

// drop removes t's text, which ends before the members from ts[0] on, from the
// buffer, moving those members' spans back.
func (g *gen) drop(t ts, members []ts) {
	n := t.end - t.start
	if n == 0 {
		return
	}
	copy(g.buf[t.start:], g.buf[t.end:])
	g.buf = g.buf[:len(g.buf)-n]
	for i := range members {
		members[i].start -= n
		members[i].end -= n
	}
}

// pending returns the members of the union or intersection being rendered, from
// gen.parts[p0:]. Rendering a member can grow gen.parts, so it is read only after.
func (g *gen) pending(p0 int) []ts { return g.parts[p0:] }

// aside copies the adjacent texts of parts, which start at mark and end the buffer,
// to gen.tmp and cuts them from the buffer.
func (g *gen) aside(mark int) {
	g.tmp = append(g.tmp[:0], g.buf[mark:]...)
	g.buf = g.buf[:mark]
}

// union joins the types in gen.parts[p0:], whose texts are adjacent from mark to the
// end of the buffer, as `A | B`, leaving out repeated members, and pops them.
func (g *gen) union(mark, p0 int) ts {
	parts := g.pending(p0)
	g.parts = g.parts[:p0] // parts stays readable: nothing is appended below
	if len(parts) == 1 {
		return parts[0]
	}
	g.aside(mark)
	out := ts{span: span{start: mark}, prec: precUnion}
	var seen map[string]bool // for long unions; short ones compare with the earlier members
	distinct := 0
	for i, p := range parts {
		text := g.tmp[p.start-mark : p.end-mark]
		if len(parts) > 16 {
			if seen == nil {
				seen = make(map[string]bool, len(parts))
			}
			if seen[string(text)] {
				continue
			}
			seen[string(text)] = true
		} else if repeated(g.tmp, mark, parts[:i], text) {
			continue
		}
		distinct++
		if len(g.buf) > mark {
			g.buf = append(g.buf, " | "...)
		}
		g.buf = append(g.buf, text...) // | is the loosest operator: nothing to parenthesise
		out.refs = out.refs || p.refs
		out.null = out.null || p.null
		out.direct = append(out.direct, p.direct...)
	}
	out.end = len(g.buf)
	if distinct == 1 {
		out.prec = parts[0].prec
	}
	return out
}

// repeated reports that text is one of the earlier members' texts (in tmp, from mark).
func repeated(tmp []byte, mark int, earlier []ts, text []byte) bool {
	for _, e := range earlier {
		if bytes.Equal(tmp[e.start-mark:e.end-mark], text) {
			return true
		}
	}
	return false
}

// intersection joins the types in gen.parts[p0:], whose texts are adjacent from mark
// to the end of the buffer, as `A & B`, and pops them.
func (g *gen) intersection(mark, p0 int) ts {
	parts := g.pending(p0)
	g.parts = g.parts[:p0] // parts stays readable: nothing is appended below
	g.aside(mark)
	out := ts{span: span{start: mark}, prec: precIntersection}
	for i, p := range parts {
		if i > 0 {
			g.buf = append(g.buf, " & "...)
		}
		text := g.tmp[p.start-mark : p.end-mark]
		if p.prec < precIntersection {
			g.buf = append(g.buf, '(')
			g.buf = append(g.buf, text...)
			g.buf = append(g.buf, ')')
		} else {
			g.buf = append(g.buf, text...)
		}
		out.refs = out.refs || p.refs
		out.direct = append(out.direct, p.direct...)
	}
	out.end = len(g.buf)
	return out
}

// spaces holds the indents of nested object literals (depth is bounded by maxDepth).
var spaces = strings.Repeat(" ", 2*maxDepth+8)

// indent returns ind and two more spaces.
func indent(ind string) string {
	if n := len(ind) + 2; n <= len(spaces) {
		return spaces[:n]
	}
	return ind + "  "
}

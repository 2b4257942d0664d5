package sdkgen

import (
	"strings"
)

// objectSchema holds the keywords of an object schema that object reads: a schema's
// own, or those mergeAllOf makes for an allOf of objects.
type objectSchema struct {
	props, required, additional, unevaluated, patterns val
}

func objectOf(n val) objectSchema {
	return objectSchema{props: n.get("properties"), required: n.get("required"), additional: n.get("additionalProperties"),
		unevaluated: n.get("unevaluatedProperties"), patterns: n.get("patternProperties")}
}

// object renders an object schema: a multi-line type literal for declared properties,
// `& Record<string, JsonValue>` when it declares itself open (additionalProperties
// present and not false), `Record<string, T>` for a map. An object that says nothing
// about other properties is rendered as its declared ones; validation still allows
// the others, as the schema does.
func (r *renderer) object(n objectSchema, ind string, depth int, at int) ts {
	g := r.g
	props := n.props
	if props.ok() && props.kind() != 'o' {
		r.fail(r.loc(at, "properties"), "properties is not an object")
		props = val{}
	}
	req := n.required
	if req.kind() != 'a' {
		req = val{}
	}
	// Required names: a short list is searched, a long one indexed.
	var long map[string]bool
	if req.len() > 16 {
		long = make(map[string]bool, req.len())
	}
	var extraRequired []string
	for i := range req.len() {
		v := req.at(i)
		if v.kind() != 's' {
			continue
		}
		name := v.str()
		if long != nil {
			if long[name] {
				continue
			}
			long[name] = true
		} else if listed(req, i, name) {
			continue
		}
		if !props.get(name).ok() {
			extraRequired = append(extraRequired, name)
		}
	}

	// What the object allows beyond its declared properties.
	closed := false
	ap := n.additional
	if !ap.ok() {
		if up := n.unevaluated; up.ok() && up.kind() == 'b' && !up.boolean() {
			closed = true
		}
	}
	// Names matching a pattern may hold that pattern's values; beside an open
	// object they add nothing a type can say.
	mark, p0 := len(g.buf), len(g.parts)
	if ap.ok() && !neutral(ap) {
		if ap.kind() == 'b' {
			closed = true
		} else {
			t := r.schema(ap, ind, depth+1, r.loc(at, "additionalProperties"))
			g.parts = append(g.parts, t)
		}
		if pp := n.patterns; pp.ok() && pp.kind() == 'o' {
			for i := range pp.len() {
				t := r.schema(pp.at(i), ind, depth+1, r.loc(r.loc(at, "patternProperties"), pp.key(i)))
				g.parts = append(g.parts, t)
			}
			closed = closed && pp.len() == 0
		}
	}
	hasExtra := len(g.parts) > p0
	var extra ts
	if hasExtra {
		extra = g.union(mark, p0)
	}

	if props.len() == 0 && len(extraRequired) == 0 {
		switch {
		case hasExtra && !closed:
			return g.mapOf(extra)
		case closed:
			g.buf = g.buf[:mark]
			return g.emit("Record<string, never>", precPrimary)
		}
		return g.emit("Record<string, JsonValue>", precPrimary)
	}

	// Beside declared properties only the extras' presence counts, not their text.
	g.buf = g.buf[:mark]
	inner := indent(ind)
	out := g.empty(precPrimary)
	g.write("{\n")
	for i := range props.len() {
		name, ps := props.key(i), props.at(i)
		g.doc = describe(g.doc[:0], ps)
		g.buf = appendDoc(g.buf, inner, g.doc)
		g.write(inner)
		g.buf = appendKey(g.buf, name)
		if !(long != nil && long[name] || long == nil && listed(req, req.len(), name)) {
			g.write("?")
		}
		g.write(": ")
		t := r.schema(ps, inner, depth+1, r.loc(r.loc(at, "properties"), name))
		out.refs = out.refs || t.refs
		g.write(";\n")
	}
	for _, name := range extraRequired {
		g.write(inner)
		g.buf = appendKey(g.buf, name)
		g.write(": JsonValue;\n")
	}
	g.write(ind)
	g.write("}")
	switch {
	case closed:
		return g.close(out)
	case !ap.ok() && !hasExtra:
		// Open only because JSON Schema objects are open by default, which nearly
		// every schema leaves unsaid: a Record beside the properties would tell the
		// model nothing and cost it a line in every tool's type.
		return g.close(out)
	case hasExtra:
		// Declared properties need not match the map's value type, and a Record
		// beside them would force them to: keep them typed, widen the rest.
		r.fail(r.loc(at, "additionalProperties"), "additional properties beside declared ones widened to JsonValue")
	}
	g.write(" & Record<string, JsonValue>")
	out.prec = precIntersection
	return g.close(out)
}

// listed reports that one of the first n elements of the array list is the string s.
func listed(list val, n int, s string) bool {
	for i := range n {
		if v := list.at(i); v.kind() == 's' && v.str() == s {
			return true
		}
	}
	return false
}

// mapOf renders a map whose values are t, the last type in the buffer. A Record whose
// value type names an alias would make that alias circular, so such maps use an
// index signature.
func (g *gen) mapOf(t ts) ts {
	if t.refs {
		out := g.surround(t, "{ [key: string]: ", " }")
		return ts{span: out, prec: precPrimary, refs: true}
	}
	out := g.surround(t, "Record<string, ", ">")
	return ts{span: out, prec: precPrimary}
}

// array renders an array schema: T[] for items, a tuple for prefixItems (or the older
// array form of items).
func (r *renderer) array(n val, ind string, depth int, at int) ts {
	g := r.g
	items := n.get("items")
	prefix := n.get("prefixItems")
	rest, restSeg := items, "items"
	if !prefix.ok() && items.ok() && items.kind() == 'a' {
		prefix, rest, restSeg = items, n.get("additionalItems"), "additionalItems"
	}
	if prefix.ok() && prefix.kind() == 'a' {
		minItems := 0
		if m := n.get("minItems"); m.ok() && m.kind() == 'n' {
			for _, c := range m.str() {
				if c < '0' || c > '9' {
					break
				}
				minItems = minItems*10 + int(c-'0')
				if minItems > prefix.len() {
					break
				}
			}
		}
		out := g.empty(precPrimary)
		g.write("[")
		for i := range prefix.len() {
			if i > 0 {
				g.write(", ")
			}
			t := r.schema(prefix.at(i), ind, depth+1, r.loc(r.loc(at, "prefixItems"), itoa(i)))
			out.refs = out.refs || t.refs
			if i >= minItems {
				g.wrap(t, precPrimary)
				g.write("?")
			}
		}
		switch {
		case rest.ok() && rest.kind() == 'b' && !rest.boolean():
		case !rest.ok() || neutral(rest):
			if prefix.len() > 0 {
				g.write(", ")
			}
			g.write("...JsonValue[]")
		default:
			if prefix.len() > 0 {
				g.write(", ")
			}
			g.write("...")
			t := r.schema(rest, ind, depth+1, r.loc(at, restSeg))
			out.refs = out.refs || t.refs
			g.wrap(t, precPrimary)
			g.write("[]")
		}
		g.write("]")
		return g.close(out)
	}
	switch {
	case !items.ok() || neutral(items):
		return g.emit("JsonValue[]", precPrimary)
	case items.kind() == 'b':
		return g.emit("[]", precPrimary)
	}
	t := r.schema(items, ind, depth+1, r.loc(at, "items"))
	g.wrap(t, precPrimary)
	g.write("[]")
	return ts{span: span{t.start, len(g.buf)}, prec: precPrimary, refs: t.refs}
}

// valueTags are the keywords describe writes as JSDoc tags with their values;
// tagKeyBits covers every keyword it writes a tag for.
var (
	valueTags = []string{"format", "pattern", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
		"multipleOf", "minLength", "maxLength", "minItems", "maxItems", "default"}
	tagKeyBits = keyBits(valueTags...) | keyBits("deprecated", "uniqueItems", "enum")
)

// describe appends a property's doc text to dst: its description, then its
// constraints as JSDoc tags, separated by spaces. (It appends to reused scratch
// rather than joining strings, as it runs for every property.)
func describe(dst []byte, n val) []byte {
	if n.kind() != 'o' {
		return dst
	}
	first := true
	part := func(s ...string) { // one part: a space before all but the first
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		for _, s := range s {
			dst = append(dst, s...)
		}
	}
	if d := n.get("description"); d.ok() && d.kind() == 's' {
		part(d.str())
	}
	if !n.mayHave(tagKeyBits) { // most properties have a description and no tags
		return dst
	}
	if d := n.get("deprecated"); d.ok() && d.kind() == 'b' && d.boolean() {
		part("@deprecated")
	}
	for _, k := range valueTags {
		v := n.get(k)
		if !v.ok() {
			continue
		}
		switch {
		case v.kind() == 's' && k != "default":
			part("@", k, " ", v.str())
		case v.kind() == 'n' || k == "default":
			part("@", k, " ", v.src())
		}
	}
	if d := n.get("uniqueItems"); d.ok() && d.kind() == 'b' && d.boolean() {
		part("@uniqueItems")
	}
	if e := enumDocs(n); e != "" {
		part(e)
	}
	return dst
}

// enumDocs renders the descriptions some servers give enum values in a parallel array
// (enumDescriptions, as VS Code's schemas spell it, or an x- extension) as one tag:
// `@enum "a": first; "b": second`.
func enumDocs(n val) string {
	e := n.get("enum")
	if !e.ok() || e.kind() != 'a' {
		return ""
	}
	for _, k := range []string{"enumDescriptions", "x-enumDescriptions", "x-enum-descriptions", "markdownEnumDescriptions"} {
		d := n.get(k)
		if !d.ok() || d.kind() != 'a' || d.len() != e.len() {
			continue
		}
		var items []string
		for i := range d.len() {
			if v := d.at(i); v.kind() == 's' && strings.TrimSpace(v.str()) != "" {
				items = append(items, e.at(i).src()+": "+v.str())
			}
		}
		if len(items) > 0 {
			return "@enum " + strings.Join(items, "; ")
		}
	}
	return ""
}

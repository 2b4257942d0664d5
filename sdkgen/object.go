package sdkgen

import (
	"strings"
)

// object renders an object schema: a multi-line type literal for declared properties,
// `& Record<string, JsonValue>` when it is open, `Record<string, T>` for a map.
func (r *renderer) object(n *node, ind string, depth int, at *loc) ts {
	props := n.get("properties")
	if props != nil && props.kind != 'o' {
		r.fallback(r.loc(at, "properties"), "properties is not an object")
		props = nil
	}
	required := map[string]bool{}
	var extraRequired []string
	if req := n.get("required"); req != nil && req.kind == 'a' {
		for _, v := range req.vals() {
			if v.kind != 's' || required[v.str] {
				continue
			}
			required[v.str] = true
			if props.get(v.str) == nil {
				extraRequired = append(extraRequired, v.str)
			}
		}
	}

	// What the object allows beyond its declared properties.
	closed := false
	var extra *ts
	ap := n.get("additionalProperties")
	if ap == nil {
		if up := n.get("unevaluatedProperties"); up != nil && up.kind == 'b' && !up.b {
			closed = true
		}
	}
	// Names matching a pattern may hold that pattern's values; beside an open
	// object they add nothing a type can say.
	var extras []ts
	if ap != nil && !neutral(ap) {
		if ap.kind == 'b' {
			closed = true
		} else {
			extras = append(extras, r.schema(ap, ind, depth+1, r.loc(at, "additionalProperties")))
		}
		if pp := n.get("patternProperties"); pp != nil && pp.kind == 'o' {
			for i, k := range pp.keys() {
				extras = append(extras, r.schema(pp.vals()[i], ind, depth+1, r.loc(r.loc(at, "patternProperties"), k)))
			}
			closed = closed && len(pp.keys()) == 0
		}
	}
	if len(extras) > 0 {
		u := union(extras)
		extra = &u
	}

	if (props == nil || len(props.keys()) == 0) && len(extraRequired) == 0 {
		switch {
		case closed:
			return ts{text: "Record<string, never>", prec: precPrimary}
		case extra != nil:
			return mapOf(*extra)
		}
		return ts{text: "Record<string, JsonValue>", prec: precPrimary}
	}

	inner := ind + "  "
	var b strings.Builder
	b.WriteString("{\n")
	out := ts{prec: precPrimary}
	if props != nil {
		for i, name := range props.keys() {
			ps := props.vals()[i]
			t := r.schema(ps, inner, depth+1, r.loc(r.loc(at, "properties"), name))
			out.refs = out.refs || t.refs
			writeDoc(&b, inner, describe(ps))
			b.WriteString(inner)
			b.WriteString(key(name))
			if !required[name] {
				b.WriteByte('?')
			}
			b.WriteString(": ")
			b.WriteString(t.text)
			b.WriteString(";\n")
		}
	}
	for _, name := range extraRequired {
		b.WriteString(inner + key(name) + ": JsonValue;\n")
	}
	b.WriteString(ind + "}")
	out.text = b.String()
	switch {
	case closed:
		return out
	case extra != nil:
		// Declared properties need not match the map's value type, and a Record
		// beside them would force them to: keep them typed, widen the rest.
		r.fallback(r.loc(at, "additionalProperties"), "additional properties beside declared ones widened to JsonValue")
	}
	return ts{text: out.text + " & Record<string, JsonValue>", prec: precIntersection, refs: out.refs}
}

// mapOf renders a map whose values are t. A Record whose value type names an alias
// would make that alias circular, so such maps use an index signature.
func mapOf(t ts) ts {
	if t.refs {
		return ts{text: "{ [key: string]: " + t.text + " }", prec: precPrimary, refs: true}
	}
	return ts{text: "Record<string, " + t.text + ">", prec: precPrimary}
}

// array renders an array schema: T[] for items, a tuple for prefixItems (or the older
// array form of items).
func (r *renderer) array(n *node, ind string, depth int, at *loc) ts {
	items := n.get("items")
	prefix := n.get("prefixItems")
	rest, restAt := items, r.loc(at, "items")
	if prefix == nil && items != nil && items.kind == 'a' {
		prefix, rest, restAt = items, n.get("additionalItems"), r.loc(at, "additionalItems")
	}
	if prefix != nil && prefix.kind == 'a' {
		minItems := 0
		if m := n.get("minItems"); m != nil && m.kind == 'n' {
			for _, c := range m.str {
				if c < '0' || c > '9' {
					break
				}
				minItems = minItems*10 + int(c-'0')
				if minItems > len(prefix.vals()) {
					break
				}
			}
		}
		var b strings.Builder
		out := ts{prec: precPrimary}
		b.WriteByte('[')
		for i, e := range prefix.vals() {
			t := r.schema(e, ind, depth+1, r.loc(r.loc(at, "prefixItems"), itoa(i)))
			out.refs = out.refs || t.refs
			if i > 0 {
				b.WriteString(", ")
			}
			if i >= minItems {
				b.WriteString(t.wrap(precPrimary) + "?")
			} else {
				b.WriteString(t.text)
			}
		}
		switch {
		case rest != nil && rest.kind == 'b' && !rest.b:
		case rest == nil || neutral(rest):
			if len(prefix.vals()) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("...JsonValue[]")
		default:
			t := r.schema(rest, ind, depth+1, restAt)
			out.refs = out.refs || t.refs
			if len(prefix.vals()) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("..." + t.wrap(precPrimary) + "[]")
		}
		b.WriteByte(']')
		out.text = b.String()
		return out
	}
	switch {
	case items == nil || neutral(items):
		return ts{text: "JsonValue[]", prec: precPrimary}
	case items.kind == 'b':
		return ts{text: "[]", prec: precPrimary}
	}
	t := r.schema(items, ind, depth+1, r.loc(at, "items"))
	return ts{text: t.wrap(precPrimary) + "[]", prec: precPrimary, refs: t.refs}
}

// describe returns a property's doc text: its description, then its constraints as
// JSDoc tags.
func describe(n *node) string {
	if n.kind != 'o' {
		return ""
	}
	var parts []string
	if d := n.get("description"); d != nil && d.kind == 's' {
		parts = append(parts, d.str)
	}
	if d := n.get("deprecated"); d != nil && d.kind == 'b' && d.b {
		parts = append(parts, "@deprecated")
	}
	for _, k := range []string{"format", "pattern", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
		"multipleOf", "minLength", "maxLength", "minItems", "maxItems", "default"} {
		v := n.get(k)
		if v == nil {
			continue
		}
		switch {
		case v.kind == 's' && k != "default":
			parts = append(parts, "@"+k+" "+v.str)
		case v.kind == 'n' || k == "default":
			parts = append(parts, "@"+k+" "+v.src)
		}
	}
	if d := n.get("uniqueItems"); d != nil && d.kind == 'b' && d.b {
		parts = append(parts, "@uniqueItems")
	}
	if e := enumDocs(n); e != "" {
		parts = append(parts, e)
	}
	return strings.Join(parts, " ")
}

// enumDocs renders the descriptions some servers give enum values in a parallel array
// (enumDescriptions, as VS Code's schemas spell it, or an x- extension) as one tag:
// `@enum "a": first; "b": second`.
func enumDocs(n *node) string {
	e := n.get("enum")
	if e == nil || e.kind != 'a' {
		return ""
	}
	for _, k := range []string{"enumDescriptions", "x-enumDescriptions", "x-enum-descriptions", "markdownEnumDescriptions"} {
		d := n.get(k)
		if d == nil || d.kind != 'a' || len(d.vals()) != len(e.vals()) {
			continue
		}
		var items []string
		for i, v := range d.vals() {
			if v.kind == 's' && strings.TrimSpace(v.str) != "" {
				items = append(items, e.vals()[i].src+": "+v.str)
			}
		}
		if len(items) > 0 {
			return "@enum " + strings.Join(items, "; ")
		}
	}
	return ""
}

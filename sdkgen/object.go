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
// `& Record<string, JsonValue>` when it is open, `Record<string, T>` for a map.
func (r *renderer) object(n objectSchema, ind string, depth int, at *loc) ts {
	props := n.props
	if props.ok() && props.kind() != 'o' {
		r.fallback(r.loc(at, "properties"), "properties is not an object")
		props = val{}
	}
	required := map[string]bool{}
	var extraRequired []string
	if req := n.required; req.ok() && req.kind() == 'a' {
		for i := range req.len() {
			v := req.at(i)
			if v.kind() != 's' || required[v.str()] {
				continue
			}
			required[v.str()] = true
			if !props.get(v.str()).ok() {
				extraRequired = append(extraRequired, v.str())
			}
		}
	}

	// What the object allows beyond its declared properties.
	closed := false
	var extra *ts
	ap := n.additional
	if !ap.ok() {
		if up := n.unevaluated; up.ok() && up.kind() == 'b' && !up.boolean() {
			closed = true
		}
	}
	// Names matching a pattern may hold that pattern's values; beside an open
	// object they add nothing a type can say.
	var extras []ts
	if ap.ok() && !neutral(ap) {
		if ap.kind() == 'b' {
			closed = true
		} else {
			extras = append(extras, r.schema(ap, ind, depth+1, r.loc(at, "additionalProperties")))
		}
		if pp := n.patterns; pp.ok() && pp.kind() == 'o' {
			for i := range pp.len() {
				k := pp.key(i)
				extras = append(extras, r.schema(pp.at(i), ind, depth+1, r.loc(r.loc(at, "patternProperties"), k)))
			}
			closed = closed && pp.len() == 0
		}
	}
	if len(extras) > 0 {
		u := union(extras)
		extra = &u
	}

	if (!props.ok() || props.len() == 0) && len(extraRequired) == 0 {
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
	if props.ok() {
		for i := range props.len() {
			name, ps := props.key(i), props.at(i)
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
func (r *renderer) array(n val, ind string, depth int, at *loc) ts {
	items := n.get("items")
	prefix := n.get("prefixItems")
	rest, restAt := items, r.loc(at, "items")
	if !prefix.ok() && items.ok() && items.kind() == 'a' {
		prefix, rest, restAt = items, n.get("additionalItems"), r.loc(at, "additionalItems")
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
		var b strings.Builder
		out := ts{prec: precPrimary}
		b.WriteByte('[')
		for i := range prefix.len() {
			e := prefix.at(i)
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
		case rest.ok() && rest.kind() == 'b' && !rest.boolean():
		case !rest.ok() || neutral(rest):
			if prefix.len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString("...JsonValue[]")
		default:
			t := r.schema(rest, ind, depth+1, restAt)
			out.refs = out.refs || t.refs
			if prefix.len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString("..." + t.wrap(precPrimary) + "[]")
		}
		b.WriteByte(']')
		out.text = b.String()
		return out
	}
	switch {
	case !items.ok() || neutral(items):
		return ts{text: "JsonValue[]", prec: precPrimary}
	case items.kind() == 'b':
		return ts{text: "[]", prec: precPrimary}
	}
	t := r.schema(items, ind, depth+1, r.loc(at, "items"))
	return ts{text: t.wrap(precPrimary) + "[]", prec: precPrimary, refs: t.refs}
}

// describe returns a property's doc text: its description, then its constraints as
// JSDoc tags.
func describe(n val) string {
	if n.kind() != 'o' {
		return ""
	}
	var parts []string
	if d := n.get("description"); d.ok() && d.kind() == 's' {
		parts = append(parts, d.str())
	}
	if d := n.get("deprecated"); d.ok() && d.kind() == 'b' && d.boolean() {
		parts = append(parts, "@deprecated")
	}
	for _, k := range []string{"format", "pattern", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
		"multipleOf", "minLength", "maxLength", "minItems", "maxItems", "default"} {
		v := n.get(k)
		if !v.ok() {
			continue
		}
		switch {
		case v.kind() == 's' && k != "default":
			parts = append(parts, "@"+k+" "+v.str())
		case v.kind() == 'n' || k == "default":
			parts = append(parts, "@"+k+" "+v.src())
		}
	}
	if d := n.get("uniqueItems"); d.ok() && d.kind() == 'b' && d.boolean() {
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

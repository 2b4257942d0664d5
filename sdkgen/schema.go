package sdkgen

import (
	"strings"
)

// maxDepth bounds how deeply one schema renders. A sub-schema nested deeper falls back
// to JsonValue, so a hostile or degenerate schema (5,000 levels) costs bounded stack
// and bounded text.
const maxDepth = 48

// Operator precedence of a rendered type, to know when it needs parentheses.
const (
	precUnion = iota
	precIntersection
	precPrimary
)

// ts is a rendered TypeScript type.
type ts struct {
	text string
	prec int
	// refs reports that the text names an alias; direct lists the aliases named
	// outside any object, array or tuple (where a self-reference is circular).
	refs   bool
	direct []string
	// null reports that null is one of the union's members.
	null bool
}

var (
	tsJSON  = ts{text: "JsonValue", prec: precPrimary}
	tsNever = ts{text: "never", prec: precPrimary}
)

// wrap returns t's text, parenthesised unless it binds at least as tightly as prec.
func (t ts) wrap(prec int) string {
	if t.prec >= prec {
		return t.text
	}
	return "(" + t.text + ")"
}

// loc is a schema location, built only when a fallback is recorded.
type loc struct {
	parent *loc
	seg    string
}

func (l *loc) String() string {
	var segs []string
	for ; l != nil; l = l.parent {
		segs = append(segs, l.seg)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(segs[i], "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// loc returns the location seg below parent, from a slab: locations are made for
// every sub-schema but read only for fallbacks.
func (r *renderer) loc(parent *loc, seg string) *loc {
	if len(r.g.locs) == 0 {
		r.g.locs = make([]loc, 512)
	}
	l := &r.g.locs[0]
	r.g.locs = r.g.locs[1:]
	l.parent, l.seg = parent, seg
	return l
}

// renderer renders the schemas of one document (a tool's parameters or output, or
// the document an alias comes from).
type renderer struct {
	g      *gen
	tool   string
	where  string // "parameters" or "output"
	root   val
	active map[val]bool // inline $ref targets being rendered, to stop cycles
	// expanded counts the source bytes of $ref targets rendered in place.
	expanded int
}

func (r *renderer) fallback(at *loc, reason string) ts {
	r.g.fallbacks = append(r.g.fallbacks, Fallback{Tool: r.tool, Schema: r.where, Path: at.String(), Reason: reason})
	return tsJSON
}

// typeKeys are the keywords that constrain a value's type; a schema with none of them
// accepts any JSON value.
var typeKeys = []string{"type", "properties", "additionalProperties", "patternProperties", "items",
	"prefixItems", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "$dynamicRef", "$recursiveRef"}

func neutral(n val) bool {
	if n.kind() == 'b' {
		return n.boolean()
	}
	if n.kind() != 'o' {
		return false
	}
	for _, k := range typeKeys {
		if n.get(k).ok() {
			return false
		}
	}
	return true
}

// schema renders the schema n whose object text (if multi-line) starts at indent ind.
func (r *renderer) schema(n val, ind string, depth int, at *loc) ts {
	if depth > maxDepth {
		return r.fallback(at, "schema nested too deeply")
	}
	switch n.kind() {
	case 'b':
		if n.boolean() {
			return tsJSON
		}
		return tsNever
	case 'o':
	default:
		return r.fallback(at, "schema is neither an object nor a boolean")
	}
	var out ts
	if c := n.get("const"); c.ok() {
		out = r.literal(c, depth+1, r.loc(at, "const"))
	} else if e := n.get("enum"); e.ok() {
		out = r.enum(e, depth, r.loc(at, "enum"))
	} else {
		out = r.combined(n, ind, depth, at)
	}
	if nb := n.get("nullable"); nb.ok() && nb.kind() == 'b' && nb.boolean() && !out.null {
		out = ts{text: out.text + " | null", prec: precUnion, refs: out.refs, direct: out.direct, null: true}
	}
	return out
}

func (r *renderer) enum(e val, depth int, at *loc) ts {
	if e.kind() != 'a' {
		return r.fallback(at, "enum is not an array")
	}
	if e.len() == 0 {
		return tsNever
	}
	parts := make([]ts, 0, e.len())
	for i := range e.len() {
		parts = append(parts, r.literal(e.at(i), depth+1, at))
	}
	return union(parts)
}

// combined renders the type keywords of n and its $ref, anyOf, oneOf and allOf as one
// intersection.
func (r *renderer) combined(n val, ind string, depth int, at *loc) ts {
	if merged, ok := mergeAllOf(n); ok {
		return r.object(merged, ind, depth, at)
	}
	typed, structural, hasType := r.typed(n, ind, depth, at)
	var parts []ts
	if ref := n.get("$ref"); ref.ok() {
		parts = append(parts, r.ref(ref, ind, depth, r.loc(at, "$ref")))
	}
	for _, k := range []string{"$dynamicRef", "$recursiveRef"} {
		if n.get(k).ok() {
			parts = append(parts, r.fallback(r.loc(at, k), k+" is not supported"))
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if u := n.get(k); u.ok() {
			if t, ok := r.union(u, ind, depth, r.loc(at, k)); ok {
				parts = append(parts, t)
			}
		}
	}
	if all := n.get("allOf"); all.ok() {
		if all.kind() != 'a' {
			parts = append(parts, r.fallback(r.loc(at, "allOf"), "allOf is not an array"))
		} else {
			for i := range all.len() {
				m := all.at(i)
				if !neutral(m) {
					parts = append(parts, r.schema(m, ind, depth+1, r.loc(r.loc(at, "allOf"), itoa(i))))
				}
			}
		}
	}
	// A bare "type" next to combinators only restates what the branches say.
	if hasType && (structural || len(parts) == 0) {
		parts = append([]ts{typed}, parts...)
	}
	switch len(parts) {
	case 0:
		return tsJSON
	case 1:
		return parts[0]
	}
	return intersection(parts)
}

// union renders anyOf/oneOf branches; ok is false when a branch accepts anything (the
// keyword then constrains nothing a type can say).
func (r *renderer) union(u val, ind string, depth int, at *loc) (ts, bool) {
	if u.kind() != 'a' || u.len() == 0 {
		return r.fallback(at, "expected a non-empty array of schemas"), true
	}
	parts := make([]ts, 0, u.len())
	for i := range u.len() {
		b := u.at(i)
		if neutral(b) {
			return ts{}, false
		}
		if b.kind() == 'b' {
			continue // false: no value
		}
		parts = append(parts, r.schema(b, ind, depth+1, r.loc(at, itoa(i))))
	}
	if len(parts) == 0 {
		return tsNever, true
	}
	return union(parts), true
}

func union(parts []ts) ts {
	if len(parts) == 1 {
		return parts[0]
	}
	var b strings.Builder
	out := ts{prec: precUnion}
	seen := map[string]bool{}
	for _, p := range parts {
		if seen[p.text] {
			continue
		}
		seen[p.text] = true
		if b.Len() > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(p.text) // | is the loosest operator: nothing to parenthesise
		out.refs = out.refs || p.refs
		out.null = out.null || p.null
		out.direct = append(out.direct, p.direct...)
	}
	out.text = b.String()
	if len(seen) == 1 {
		out.prec = parts[0].prec
	}
	return out
}

func intersection(parts []ts) ts {
	var b strings.Builder
	out := ts{prec: precIntersection}
	for i, p := range parts {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString(p.wrap(precIntersection))
		out.refs = out.refs || p.refs
		out.direct = append(out.direct, p.direct...)
	}
	out.text = b.String()
	return out
}

// typed renders the "type" keyword (a name or an array of names), inferring object or
// array from their keywords when "type" is absent. structural reports keywords beyond
// a bare type name; ok reports that there was anything to render.
func (r *renderer) typed(n val, ind string, depth int, at *loc) (t ts, structural, ok bool) {
	for _, k := range []string{"properties", "additionalProperties", "patternProperties", "items", "prefixItems"} {
		if n.get(k).ok() {
			structural = true
		}
	}
	var names []string
	switch tn := n.get("type"); {
	case !tn.ok():
		switch {
		case n.get("properties").ok() || n.get("additionalProperties").ok() || n.get("patternProperties").ok():
			return r.object(objectOf(n), ind, depth, at), structural, true
		case n.get("items").ok() || n.get("prefixItems").ok():
			return r.array(n, ind, depth, at), structural, true
		default:
			return ts{}, false, false
		}
	case tn.kind() == 's':
		return r.typeName(n, tn.str(), ind, depth, at), structural, true
	case tn.kind() == 'a':
		for i := range tn.len() {
			v := tn.at(i)
			if v.kind() != 's' {
				return r.fallback(r.loc(at, "type"), "type array holds a non-string"), structural, true
			}
			names = append(names, v.str())
		}
		if len(names) == 0 {
			return tsNever, structural, true
		}
	default:
		return r.fallback(r.loc(at, "type"), "type is neither a string nor an array"), structural, true
	}
	if len(names) == 1 {
		return r.typeName(n, names[0], ind, depth, at), structural, true
	}
	parts := make([]ts, 0, len(names))
	for _, name := range names {
		parts = append(parts, r.typeName(n, name, ind, depth, at))
	}
	return union(parts), structural, true
}

// typeName renders n as one of the JSON Schema type names.
func (r *renderer) typeName(n val, name, ind string, depth int, at *loc) ts {
	switch name {
	case "string", "number", "boolean":
		return ts{text: name, prec: precPrimary}
	case "null":
		return ts{text: "null", prec: precPrimary, null: true}
	case "integer":
		return ts{text: "number", prec: precPrimary}
	case "object":
		return r.object(objectOf(n), ind, depth, at)
	case "array":
		return r.array(n, ind, depth, at)
	case "any":
		return tsJSON
	}
	return r.fallback(r.loc(at, "type"), "unknown type "+quote(name))
}

// ref renders a $ref: a named alias for "#/$defs/X" and "#/definitions/X", the target
// rendered in place for other pointers into the same document.
func (r *renderer) ref(ref val, ind string, depth int, at *loc) ts {
	if ref.kind() != 's' {
		return r.fallback(at, "$ref is not a string")
	}
	target := pointer(r.root, ref.str())
	if !target.ok() {
		return r.fallback(at, "$ref "+quote(ref.str())+" does not resolve within the schema")
	}
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		name, ok := strings.CutPrefix(ref.str(), prefix)
		if ok && !strings.Contains(name, "/") {
			container := r.root.get(strings.Trim(prefix[1:], "/"))
			a := r.g.alias(r, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"), target, container)
			return ts{text: a, prec: precPrimary, refs: true, direct: []string{a}}
		}
	}
	if r.active[target] {
		return r.fallback(at, "recursive $ref "+quote(ref.str())+" outside $defs")
	}
	// Pointers rendered in place can nest (a property pointing at one that points at
	// two others, …) and grow the text exponentially; bound what they expand.
	r.expanded += len(target.src())
	if r.expanded > max(64<<10, 4*len(r.root.src())) {
		return r.fallback(at, "$ref "+quote(ref.str())+" not expanded: the schema's in-place references grew too large")
	}
	if r.active == nil {
		r.active = map[val]bool{}
	}
	r.active[target] = true
	defer delete(r.active, target)
	return r.schema(target, ind, depth+1, at)
}

// literal renders a JSON value as a literal type.
func (r *renderer) literal(v val, depth int, at *loc) ts {
	if depth > maxDepth {
		return r.fallback(at, "literal nested too deeply")
	}
	switch v.kind() {
	case 's':
		return ts{text: quote(v.str()), prec: precPrimary}
	case 'n':
		return ts{text: v.str(), prec: precPrimary}
	case 'b':
		if v.boolean() {
			return ts{text: "true", prec: precPrimary}
		}
		return ts{text: "false", prec: precPrimary}
	case 'z':
		return ts{text: "null", prec: precPrimary, null: true}
	case 'a':
		parts := make([]string, v.len())
		for i := range v.len() {
			parts[i] = r.literal(v.at(i), depth+1, at).text
		}
		return ts{text: "[" + strings.Join(parts, ", ") + "]", prec: precPrimary}
	}
	if v.len() == 0 {
		return ts{text: "Record<string, never>", prec: precPrimary}
	}
	parts := make([]string, v.len())
	for i := range v.len() {
		parts[i] = key(v.key(i)) + ": " + r.literal(v.at(i), depth+1, at).text
	}
	return ts{text: "{ " + strings.Join(parts, "; ") + " }", prec: precPrimary}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// objectOnly are the keywords a plain object schema may have beside annotations.
var objectOnly = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true,
	"unevaluatedProperties": true, "allOf": true}

// plainObject reports an object schema made only of properties, required and an open
// (absent or true) additionalProperties.
func plainObject(n val) bool {
	if n.kind() != 'o' {
		return false
	}
	if t := n.get("type"); t.ok() && (t.kind() != 's' || t.str() != "object") {
		return false
	}
	if p := n.get("properties"); p.ok() && p.kind() != 'o' {
		return false
	}
	if ap := n.get("additionalProperties"); ap.ok() && !(ap.kind() == 'b' && ap.boolean()) {
		return false
	}
	for _, k := range typeKeys {
		if n.get(k).ok() && !objectOnly[k] {
			return false
		}
	}
	return !n.get("nullable").ok()
}

// mergeAllOf returns one object schema for an allOf of plain objects (beside the
// node's own properties), so that it renders as one literal rather than an
// intersection of literals; false when the members are anything else or declare a
// property twice. unevaluatedProperties: false on the node closes the result.
func mergeAllOf(n val) (objectSchema, bool) {
	all := n.get("allOf")
	if !all.ok() || all.kind() != 'a' || all.len() == 0 || !plainObject(n) {
		return objectSchema{}, false
	}
	var props, req []int32 // the merged members, as the store holds them
	seen := map[string]bool{}
	for i := -1; i < all.len(); i++ {
		m := n
		if i >= 0 {
			m = all.at(i)
		}
		if m.kind() == 'b' && m.boolean() {
			continue
		}
		if !plainObject(m) || m != n && m.get("allOf").ok() || m != n && m.get("unevaluatedProperties").ok() {
			return objectSchema{}, false
		}
		if p := m.get("properties"); p.ok() {
			for j := range p.len() {
				k := p.key(j)
				if seen[k] {
					return objectSchema{}, false
				}
				seen[k] = true
				props = append(props, p.member(j)...)
			}
		}
		if rq := m.get("required"); rq.ok() && rq.kind() == 'a' {
			for j := range rq.len() {
				req = append(req, rq.at(j).i)
			}
		}
	}
	return objectSchema{props: n.d.newObject(props), required: n.d.newArray(req), unevaluated: n.get("unevaluatedProperties")}, true
}

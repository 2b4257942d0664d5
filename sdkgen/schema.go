package sdkgen

import (
	"strings"
)

// maxDepth bounds how deeply one schema renders. A sub-schema nested deeper falls back
// to JsonValue, so a hostile or degenerate schema (5,000 levels) costs bounded stack
// and bounded text.
const maxDepth = 48

// A schema location, which a fallback records as a JSON Pointer, is made for every
// sub-schema but read only for fallbacks. It is the length at of the path gen.path[:at]
// (0 is a document's root): loc(at, seg) sets the segment after it and returns at+1.
// Rendering is strictly nested, so the segments below a location being rendered stay
// put until it is done; those beyond it belong to finished siblings, and are
// overwritten. Locations cost nothing to make this way, where a linked location per
// sub-schema was a quarter of a million bytes for a thousand tools.
func (r *renderer) loc(at int, seg string) int {
	r.g.path = append(r.g.path[:at], seg)
	return at + 1
}

// pointer returns the location at as a JSON Pointer.
func (r *renderer) pointer(at int) string {
	var b strings.Builder
	for _, seg := range r.g.path[:at] {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(seg, "~", "~0"), "/", "~1"))
	}
	return b.String()
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

// fallback records that the sub-schema at could not be expressed and renders it as
// JsonValue.
func (r *renderer) fallback(at int, reason string) ts {
	r.fail(at, reason)
	return r.g.json()
}

// fail records a fallback whose type the caller renders.
func (r *renderer) fail(at int, reason string) {
	r.g.fallbacks = append(r.g.fallbacks, Fallback{Tool: r.tool, Schema: r.where, Path: r.pointer(at), Reason: reason})
}

// typeKeys are the keywords that constrain a value's type; a schema with none of them
// accepts any JSON value.
var typeKeys = []string{"type", "properties", "additionalProperties", "patternProperties", "items",
	"prefixItems", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "$dynamicRef", "$recursiveRef"}

var typeKeyBits = keyBits(typeKeys...)

func neutral(n val) bool {
	if n.kind() == 'b' {
		return n.boolean()
	}
	if n.kind() != 'o' {
		return false
	}
	if !n.mayHave(typeKeyBits) {
		return true
	}
	for _, k := range typeKeys {
		if n.get(k).ok() {
			return false
		}
	}
	return true
}

// schema renders the schema n whose object text (if multi-line) starts at indent ind.
func (r *renderer) schema(n val, ind string, depth int, at int) ts {
	if depth > maxDepth {
		return r.fallback(at, "schema nested too deeply")
	}
	g := r.g
	switch n.kind() {
	case 'b':
		if n.boolean() {
			return g.json()
		}
		return g.never()
	case 'o':
	default:
		return r.fallback(at, "schema is neither an object nor a boolean")
	}
	var out ts
	if !n.mayHave(literalKeyBits) {
		out = r.combined(n, ind, depth, at)
	} else if c := n.get("const"); c.ok() {
		out = r.literal(c, depth+1, r.loc(at, "const"))
	} else if e := n.get("enum"); e.ok() {
		out = r.enum(e, depth, r.loc(at, "enum"))
	} else {
		out = r.combined(n, ind, depth, at)
	}
	if nb := n.get("nullable"); nb.ok() && nb.kind() == 'b' && nb.boolean() && !out.null {
		g.write(" | null")
		out = ts{span: span{out.start, len(g.buf)}, prec: precUnion, refs: out.refs, direct: out.direct, null: true}
	}
	return out
}

func (r *renderer) enum(e val, depth int, at int) ts {
	if e.kind() != 'a' {
		return r.fallback(at, "enum is not an array")
	}
	if e.len() == 0 {
		return r.g.never()
	}
	g := r.g
	mark, p0 := len(g.buf), len(g.parts)
	for i := range e.len() {
		t := r.literal(e.at(i), depth+1, at)
		g.parts = append(g.parts, t)
	}
	return g.union(mark, p0)
}

// Keywords combined reads in turn.
var (
	dynamicRefs    = []string{"$dynamicRef", "$recursiveRef"}
	unionKeys      = []string{"anyOf", "oneOf"}
	combinatorBits = keyBits("$ref", "allOf") | keyBits(dynamicRefs...) | keyBits(unionKeys...)
	literalKeyBits = keyBits("const", "enum")
)

// combined renders the type keywords of n and its $ref, anyOf, oneOf and allOf as one
// intersection.
func (r *renderer) combined(n val, ind string, depth int, at int) ts {
	if merged, ok := mergeAllOf(n); ok {
		return r.object(merged, ind, depth, at)
	}
	g := r.g
	mark := len(g.buf)
	typed, structural, hasType := r.typed(n, ind, depth, at)
	if !n.mayHave(combinatorBits) { // most schemas: no $ref or combinators
		if hasType {
			return typed
		}
		return g.json()
	}
	p0 := len(g.parts) // the parts beside typed
	if ref := n.get("$ref"); ref.ok() {
		t := r.ref(ref, ind, depth, r.loc(at, "$ref"))
		g.parts = append(g.parts, t)
	}
	for _, k := range dynamicRefs {
		if n.get(k).ok() {
			t := r.fallback(r.loc(at, k), k+" is not supported")
			g.parts = append(g.parts, t)
		}
	}
	for _, k := range unionKeys {
		if u := n.get(k); u.ok() {
			if t, ok := r.union(u, ind, depth, r.loc(at, k)); ok {
				g.parts = append(g.parts, t)
			}
		}
	}
	if all := n.get("allOf"); all.ok() {
		if all.kind() != 'a' {
			t := r.fallback(r.loc(at, "allOf"), "allOf is not an array")
			g.parts = append(g.parts, t)
		} else {
			for i := range all.len() {
				m := all.at(i)
				if !neutral(m) {
					t := r.schema(m, ind, depth+1, r.loc(r.loc(at, "allOf"), itoa(i)))
					g.parts = append(g.parts, t)
				}
			}
		}
	}
	// A bare "type" next to combinators only restates what the branches say.
	if hasType && (structural || len(g.parts) == p0) {
		g.parts = append(g.parts, ts{}) // typed goes first, as its text does
		copy(g.parts[p0+1:], g.parts[p0:])
		g.parts[p0] = typed
	} else if hasType {
		g.drop(typed, g.pending(p0))
	}
	switch len(g.parts) - p0 {
	case 0:
		return g.json()
	case 1:
		t := g.parts[p0]
		g.parts = g.parts[:p0]
		return t
	}
	return g.intersection(mark, p0)
}

// union renders anyOf/oneOf branches; ok is false when a branch accepts anything (the
// keyword then constrains nothing a type can say), and nothing is rendered.
func (r *renderer) union(u val, ind string, depth int, at int) (ts, bool) {
	if u.kind() != 'a' || u.len() == 0 {
		return r.fallback(at, "expected a non-empty array of schemas"), true
	}
	g := r.g
	mark, p0 := len(g.buf), len(g.parts)
	for i := range u.len() {
		b := u.at(i)
		if neutral(b) {
			g.buf, g.parts = g.buf[:mark], g.parts[:p0]
			return ts{}, false
		}
		if b.kind() == 'b' {
			continue // false: no value
		}
		t := r.schema(b, ind, depth+1, r.loc(at, itoa(i)))
		g.parts = append(g.parts, t)
	}
	if len(g.parts) == p0 {
		return g.never(), true
	}
	return g.union(mark, p0), true
}

// structuralKeys are the keywords of an object or array schema beyond a type name.
var (
	structuralKeys    = []string{"properties", "additionalProperties", "patternProperties", "items", "prefixItems"}
	structuralKeyBits = keyBits(structuralKeys...)
)

// typed renders the "type" keyword (a name or an array of names), inferring object or
// array from their keywords when "type" is absent. structural reports keywords beyond
// a bare type name; ok reports that there was anything to render (when not, nothing
// is).
func (r *renderer) typed(n val, ind string, depth int, at int) (t ts, structural, ok bool) {
	if n.mayHave(structuralKeyBits) {
		for _, k := range structuralKeys {
			if n.get(k).ok() {
				structural = true
			}
		}
	}
	g := r.g
	switch tn := n.get("type"); {
	case !tn.ok():
		switch {
		case n.get("properties").ok() || n.get("additionalProperties").ok() || n.get("patternProperties").ok():
			return r.object(objectOf(n), ind, depth, at), structural, true
		case n.get("items").ok() || n.get("prefixItems").ok():
			return r.array(n, ind, depth, at), structural, true
		default:
			return g.empty(precPrimary), false, false
		}
	case tn.kind() == 's':
		return r.typeName(n, tn.str(), ind, depth, at), structural, true
	case tn.kind() == 'a':
		for i := range tn.len() {
			if tn.at(i).kind() != 's' {
				return r.fallback(r.loc(at, "type"), "type array holds a non-string"), structural, true
			}
		}
		switch tn.len() {
		case 0:
			return g.never(), structural, true
		case 1:
			return r.typeName(n, tn.at(0).str(), ind, depth, at), structural, true
		}
		mark, p0 := len(g.buf), len(g.parts)
		for i := range tn.len() {
			t := r.typeName(n, tn.at(i).str(), ind, depth, at)
			g.parts = append(g.parts, t)
		}
		return g.union(mark, p0), structural, true
	default:
		return r.fallback(r.loc(at, "type"), "type is neither a string nor an array"), structural, true
	}
}

// typeName renders n as one of the JSON Schema type names.
func (r *renderer) typeName(n val, name, ind string, depth int, at int) ts {
	switch name {
	case "string", "number", "boolean":
		return r.g.emit(name, precPrimary)
	case "null":
		t := r.g.emit("null", precPrimary)
		t.null = true
		return t
	case "integer":
		return r.g.emit("number", precPrimary)
	case "object":
		return r.object(objectOf(n), ind, depth, at)
	case "array":
		return r.array(n, ind, depth, at)
	case "any":
		return r.g.json()
	}
	return r.fallback(r.loc(at, "type"), "unknown type "+quote(name))
}

// refPrefixes are the pointers into definitions that name an alias.
var refPrefixes = []string{"#/$defs/", "#/definitions/"}

// ref renders a $ref: a named alias for "#/$defs/X" and "#/definitions/X", the target
// rendered in place for other pointers into the same document.
func (r *renderer) ref(ref val, ind string, depth int, at int) ts {
	if ref.kind() != 's' {
		return r.fallback(at, "$ref is not a string")
	}
	target := pointer(r.root, ref.str())
	if !target.ok() {
		return r.fallback(at, "$ref "+quote(ref.str())+" does not resolve within the schema")
	}
	for _, prefix := range refPrefixes {
		name, ok := strings.CutPrefix(ref.str(), prefix)
		if ok && !strings.Contains(name, "/") {
			container := r.root.get(strings.Trim(prefix[1:], "/"))
			a := r.g.alias(r, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"), target, container)
			t := r.g.emit(a, precPrimary)
			t.refs, t.direct = true, []string{a}
			return t
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
func (r *renderer) literal(v val, depth int, at int) ts {
	if depth > maxDepth {
		return r.fallback(at, "literal nested too deeply")
	}
	g := r.g
	switch v.kind() {
	case 's':
		t := g.empty(precPrimary)
		g.buf = appendQuote(g.buf, v.str())
		return g.close(t)
	case 'n':
		return g.emit(v.str(), precPrimary)
	case 'b':
		if v.boolean() {
			return g.emit("true", precPrimary)
		}
		return g.emit("false", precPrimary)
	case 'z':
		t := g.emit("null", precPrimary)
		t.null = true
		return t
	case 'a':
		t := g.empty(precPrimary)
		g.write("[")
		for i := range v.len() {
			if i > 0 {
				g.write(", ")
			}
			r.literal(v.at(i), depth+1, at)
		}
		g.write("]")
		return g.close(t)
	}
	if v.len() == 0 {
		return g.emit("Record<string, never>", precPrimary)
	}
	t := g.empty(precPrimary)
	g.write("{ ")
	for i := range v.len() {
		if i > 0 {
			g.write("; ")
		}
		g.buf = appendKey(g.buf, v.key(i))
		g.write(": ")
		r.literal(v.at(i), depth+1, at)
	}
	g.write(" }")
	return g.close(t)
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

package sdkgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
)

// Shape is the type learned from the results of a tool that declares no output schema:
// the union of the JSON values it has returned, kept small. Observe widens it with each
// result; Schema renders it as a JSON Schema that the SDK declares as the tool's output,
// marked as inferred ([Tool.Inferred]). It is never narrower than any result observed:
// where a bound is reached (depth, fields per object, members of a union, the values
// looked at per result) the part in question becomes any JSON value. A Shape is a
// plain value, not safe for concurrent use; it marshals to JSON and back, for a store.
type Shape struct {
	root *shapeNode
}

// Bounds of a Shape.
const (
	shapeDepth  = 6     // nesting below the result; deeper is any JSON value
	shapeFields = 40    // fields per object; more make it a map of any JSON value
	shapeKinds  = 3     // kinds in a union besides null; more make it any JSON value
	shapeTokens = 20000 // JSON tokens looked at per result; the rest is any JSON value
)

// Kinds of JSON values, as bits of shapeNode.kinds.
const (
	kNull uint8 = 1 << iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// shapeNode is one place in the shape: the kinds of value seen there and, for arrays and
// objects, what they held. any marks a place widened to any JSON value.
type shapeNode struct {
	Kinds   uint8             `json:"k,omitempty"`
	Any     bool              `json:"a,omitempty"`
	Items   *shapeNode        `json:"i,omitempty"` // the elements of arrays, all merged
	Fields  map[string]*field `json:"f,omitempty"` // the fields of objects
	Objects int               `json:"o,omitempty"` // how many objects were seen here
	Map     bool              `json:"m,omitempty"` // too many fields: a map of any value
}

// field is an object's field: its shape and in how many of the objects it was.
type field struct {
	Shape *shapeNode `json:"s"`
	Seen  int        `json:"n"`
}

// Observe widens the shape with one result, JSON text. It reports whether the shape
// (and so the declared type) changed; text that is not one JSON value is an error and
// changes nothing.
func (s *Shape) Observe(text []byte) (changed bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return false, errors.New("sdkgen: a result is one JSON value")
	}
	budget := shapeTokens
	s.root = observe(v, s.root, 0, &budget, &changed)
	return changed, nil
}

// observe merges v into n (nil: nothing seen yet) and returns it, setting *changed when
// the type n declares widened.
func observe(v any, n *shapeNode, depth int, budget *int, changed *bool) *shapeNode {
	if n == nil {
		n = &shapeNode{}
	}
	*budget--
	if n.Any {
		return n
	}
	if depth > shapeDepth || *budget < 0 {
		n.widen()
		*changed = true
		return n
	}
	kinds := n.Kinds
	switch v := v.(type) {
	case nil:
		n.Kinds |= kNull
	case bool:
		n.Kinds |= kBool
	case json.Number:
		n.Kinds |= kNumber
	case string:
		n.Kinds |= kString
	case []any:
		n.Kinds |= kArray
		for _, e := range v {
			n.Items = observe(e, n.Items, depth+1, budget, changed)
		}
	case map[string]any:
		n.Kinds |= kObject
		n.Objects++
		for _, name := range slices.Sorted(maps.Keys(v)) { // in order: the budget runs out at the same field every time
			if n.Map {
				break
			}
			f := n.Fields[name]
			if f == nil {
				*changed = true // a new field
				if len(n.Fields) == shapeFields {
					n.Map, n.Fields = true, nil
					break
				}
				if n.Fields == nil {
					n.Fields = map[string]*field{}
				}
				f = &field{}
				n.Fields[name] = f
			}
			f.Seen++
			f.Shape = observe(v[name], f.Shape, depth+1, budget, changed)
		}
		for name, f := range n.Fields {
			if _, here := v[name]; !here && f.Seen == n.Objects-1 {
				*changed = true // required until this object, optional from now on
			}
		}
	}
	if n.Kinds != kinds {
		*changed = true
	}
	if bitsSet(n.Kinds&^kNull) > shapeKinds {
		n.widen()
	}
	return n
}

// widen makes n any JSON value.
func (n *shapeNode) widen() { *n = shapeNode{Any: true} }

func bitsSet(b uint8) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// Schema is the shape as a JSON Schema; nil when nothing was observed.
func (s *Shape) Schema() json.RawMessage {
	if s.root == nil {
		return nil
	}
	var b bytes.Buffer
	s.root.schema(&b)
	return b.Bytes()
}

func (n *shapeNode) schema(b *bytes.Buffer) {
	if n == nil || n.Any || n.Kinds == 0 {
		b.WriteString("{}")
		return
	}
	var members []func()
	if n.Kinds&kBool != 0 {
		members = append(members, func() { b.WriteString(`{"type":"boolean"}`) })
	}
	if n.Kinds&kNumber != 0 {
		members = append(members, func() { b.WriteString(`{"type":"number"}`) })
	}
	if n.Kinds&kString != 0 {
		members = append(members, func() { b.WriteString(`{"type":"string"}`) })
	}
	if n.Kinds&kArray != 0 {
		members = append(members, func() {
			b.WriteString(`{"type":"array","items":`)
			if n.Items == nil {
				b.WriteString("{}")
			} else {
				n.Items.schema(b)
			}
			b.WriteByte('}')
		})
	}
	if n.Kinds&kObject != 0 {
		members = append(members, func() { n.objectSchema(b) })
	}
	if n.Kinds&kNull != 0 {
		members = append(members, func() { b.WriteString(`{"type":"null"}`) })
	}
	if len(members) == 1 {
		members[0]()
		return
	}
	b.WriteString(`{"anyOf":[`)
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		m()
	}
	b.WriteString("]}")
}

func (n *shapeNode) objectSchema(b *bytes.Buffer) {
	if n.Map {
		b.WriteString(`{"type":"object","additionalProperties":{}}`)
		return
	}
	names := slices.Sorted(maps.Keys(n.Fields))
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, name)
		b.WriteByte(':')
		f := n.Fields[name]
		f.Shape.schema(b)
		if f.Seen == n.Objects {
			required = append(required, name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":[`)
		for i, name := range required {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, name)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// MarshalJSON stores the shape with what it needs to go on learning (how often each
// field was seen).
func (s Shape) MarshalJSON() ([]byte, error) {
	if s.root == nil {
		return []byte("null"), nil
	}
	return json.Marshal(s.root)
}

// UnmarshalJSON reads a shape MarshalJSON wrote.
func (s *Shape) UnmarshalJSON(b []byte) error {
	var n *shapeNode
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	s.root = n
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}

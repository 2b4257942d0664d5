package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Schema is a JSON Schema, built with the DSL ([String], [Object], [OneOf], …) by Go
// tool authors or wrapped from raw JSON Schema ([RawSchema]) for tools from elsewhere
// (MCP servers, manifests). Methods return modified copies: a Schema is an immutable
// value, safe to share. The zero Schema means "not given"; each place that takes one
// says what that defaults to.
type Schema struct{ n *node }

type node struct {
	typ         string // "" for JSON() and OneOf
	description string
	enum        []any
	constant    *any
	items       *node
	fields      []Field
	closed      bool
	oneOf       []Schema
	raw         json.RawMessage
}

// Field is one property of an [Object] schema.
type Field struct {
	Name     string
	Schema   Schema
	Required bool
}

// Required declares a required object property.
func Required(name string, s Schema) Field { return Field{Name: name, Schema: s, Required: true} }

// Optional declares an optional object property.
func Optional(name string, s Schema) Field { return Field{Name: name, Schema: s} }

// String, Number, Integer, Boolean and Null are the scalar schemas.
func String() Schema  { return Schema{&node{typ: "string"}} }
func Number() Schema  { return Schema{&node{typ: "number"}} }
func Integer() Schema { return Schema{&node{typ: "integer"}} }
func Boolean() Schema { return Schema{&node{typ: "boolean"}} }
func Null() Schema    { return Schema{&node{typ: "null"}} }

// JSON is the schema of any JSON value (`{}`), for author-only payloads.
func JSON() Schema { return Schema{&node{}} }

// Array is an array of items; a zero items Schema allows any items.
func Array(items Schema) Schema { return Schema{&node{typ: "array", items: items.n}} }

// Object is an object with the given properties, in that order. It is open (extra
// properties allowed) unless [Schema.Closed] is applied, as tool parameter roots are
// in the reference design.
func Object(fields ...Field) Schema {
	return Schema{&node{typ: "object", fields: slices.Clone(fields)}}
}

// OneOf is an exactly-one union of at least two branches.
func OneOf(branches ...Schema) Schema {
	return Schema{&node{oneOf: slices.Clone(branches)}}
}

// RawSchema wraps JSON Schema text as published by another system. It is compiled
// (and rejected if it does not compile) when the tool is registered: as the draft its
// $schema names, else as draft 2020-12, or as draft 2019-09 when it uses the older
// array form of items (a tuple) and nothing only 2020-12 defines.
func RawSchema(text json.RawMessage) Schema {
	return Schema{&node{raw: bytes.Clone(text)}}
}

// IsZero reports whether s was not given.
func (s Schema) IsZero() bool { return s.n == nil }

func (s Schema) with(f func(n *node)) Schema {
	var c node
	if s.n != nil {
		c = *s.n
	}
	f(&c)
	return Schema{&c}
}

// Describe returns s with a description, which SDKs and tool schemas show the model.
func (s Schema) Describe(text string) Schema { return s.with(func(n *node) { n.description = text }) }

// Enum returns s restricted to the given values, which must be JSON values of s's type.
func (s Schema) Enum(values ...any) Schema {
	return s.with(func(n *node) { n.enum = append([]any{}, values...) })
}

// Const returns s restricted to exactly one value of s's type.
func (s Schema) Const(value any) Schema { return s.with(func(n *node) { n.constant = &value }) }

// Closed returns an object schema that rejects undeclared properties
// (additionalProperties: false).
func (s Schema) Closed() Schema { return s.with(func(n *node) { n.closed = true }) }

// MarshalJSON renders the JSON Schema. Keys come in a fixed order so that the text is
// deterministic.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s.n == nil {
		return []byte("{}"), nil
	}
	var b bytes.Buffer
	if err := s.n.write(&b, "schema"); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// errSchema is the DSL's misuse error; Register wraps it with the tool name.
var errSchema = errors.New("invalid schema")

func (n *node) write(b *bytes.Buffer, at string) error {
	if n.raw != nil {
		if !json.Valid(n.raw) {
			return fmt.Errorf("%w at %s: raw schema is not valid JSON", errSchema, at)
		}
		return json.Compact(b, n.raw)
	}
	b.WriteByte('{')
	comma := false
	key := func(k string) {
		if comma {
			b.WriteByte(',')
		}
		comma = true
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
	}
	value := func(v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%w at %s: %v", errSchema, at, err)
		}
		b.Write(data)
		return nil
	}
	if n.typ != "" {
		key("type")
		b.WriteString(strconv.Quote(n.typ))
	}
	if n.description != "" {
		key("description")
		if err := value(n.description); err != nil {
			return err
		}
	}
	if n.enum != nil {
		if len(n.enum) == 0 {
			return fmt.Errorf("%w at %s: enum needs at least one value", errSchema, at)
		}
		for _, v := range n.enum {
			if err := checkScalar(n.typ, v); err != nil {
				return fmt.Errorf("%w at %s: enum value %v: %v", errSchema, at, v, err)
			}
		}
		key("enum")
		if err := value(n.enum); err != nil {
			return err
		}
	}
	if n.constant != nil {
		if err := checkScalar(n.typ, *n.constant); err != nil {
			return fmt.Errorf("%w at %s: const value %v: %v", errSchema, at, *n.constant, err)
		}
		key("const")
		if err := value(*n.constant); err != nil {
			return err
		}
	}
	if n.items != nil {
		key("items")
		if err := n.items.write(b, at+"[]"); err != nil {
			return err
		}
	}
	if n.typ == "object" {
		var required []string
		if len(n.fields) > 0 {
			key("properties")
			b.WriteByte('{')
			seen := map[string]bool{}
			for i, f := range n.fields {
				if seen[f.Name] {
					return fmt.Errorf("%w at %s: property %q is declared twice", errSchema, at, f.Name)
				}
				seen[f.Name] = true
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(f.Name))
				b.WriteByte(':')
				sub := f.Schema.n
				if sub == nil {
					sub = &node{}
				}
				if err := sub.write(b, at+"."+f.Name); err != nil {
					return err
				}
				if f.Required {
					required = append(required, f.Name)
				}
			}
			b.WriteByte('}')
		}
		if len(required) > 0 {
			key("required")
			if err := value(required); err != nil {
				return err
			}
		}
		if n.closed {
			key("additionalProperties")
			b.WriteString("false")
		}
	} else if n.closed || len(n.fields) > 0 {
		return fmt.Errorf("%w at %s: properties and Closed apply only to objects", errSchema, at)
	}
	if n.oneOf != nil {
		if len(n.oneOf) < 2 {
			return fmt.Errorf("%w at %s: oneOf needs at least two branches", errSchema, at)
		}
		key("oneOf")
		b.WriteByte('[')
		for i, br := range n.oneOf {
			if i > 0 {
				b.WriteByte(',')
			}
			sub := br.n
			if sub == nil {
				sub = &node{}
			}
			if err := sub.write(b, fmt.Sprintf("%s.oneOf[%d]", at, i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return nil
}

// checkScalar reports whether v is a JSON scalar of type typ ("" accepts any scalar).
func checkScalar(typ string, v any) error {
	var got string
	switch x := v.(type) {
	case nil:
		got = "null"
	case string:
		got = "string"
	case bool:
		got = "boolean"
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		got = "number"
		if typ == "integer" {
			f, _ := strconv.ParseFloat(fmt.Sprint(x), 64)
			if f != float64(int64(f)) {
				return errors.New("is not an integer")
			}
			got = "integer"
		}
	default:
		return fmt.Errorf("is a %T, not a JSON scalar", v)
	}
	if typ != "" && typ != got {
		return fmt.Errorf("is a %s, not a %s", got, typ)
	}
	return nil
}

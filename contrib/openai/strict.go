package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
)

// The limits of OpenAI's strict mode on one schema.
const (
	strictMaxDepth      = 10
	strictMaxProperties = 5000
	strictMaxEnum       = 1000
)

// strictKeywords are the keywords strict mode accepts; a schema using any other is
// sent non-strict rather than risk a rejected request.
var strictKeywords = map[string]bool{
	"type": true, "description": true, "enum": true, "const": true, "anyOf": true,
	"$ref": true, "$defs": true, "definitions": true,
	"properties": true, "required": true, "additionalProperties": true,
	"items": true, "minItems": true, "maxItems": true,
	"pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
}

var strictTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// Strictable reports whether a parameters schema qualifies for OpenAI's strict
// mode (Structured Outputs), so that a tool can be sent with strict set to true:
// the root is an object schema (not anyOf); every object schema closes itself with
// additionalProperties false and lists every property in required (an empty
// required list when it has none); every schema
// uses only the keywords strict mode supports (type, description, enum, const,
// anyOf, $ref, $defs, definitions, properties, required, additionalProperties,
// items, minItems, maxItems, pattern, format with a supported format, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, multipleOf); a $ref is local; and
// the schema stays within 10 levels of object nesting, 5000 properties and 1000
// enum values. An optional property therefore disqualifies a schema: strict mode
// has no optional properties, and runcode does not rewrite a tool's schema.
func Strictable(schema json.RawMessage) bool {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false
	}
	m, ok := root.(map[string]any)
	if !ok || !hasType(m, "object") {
		return false
	}
	if _, ok := m["anyOf"]; ok {
		return false
	}
	w := &strictWalk{}
	return w.schema(m, 0)
}

type strictWalk struct{ properties int }

// schema checks one schema; depth counts the object schemas around it.
func (w *strictWalk) schema(v any, depth int) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if !strictKeywords[k] {
			return false
		}
	}
	if t, ok := m["type"]; ok && !strictType(t) {
		return false
	} else if !ok && m["anyOf"] == nil && m["$ref"] == nil && m["enum"] == nil && m["const"] == nil {
		return false
	}
	if f, ok := m["format"]; ok {
		if s, ok := f.(string); !ok || !strictFormats[s] {
			return false
		}
	}
	if e, ok := m["enum"]; ok {
		if list, ok := e.([]any); !ok || len(list) == 0 || len(list) > strictMaxEnum {
			return false
		}
	}
	if r, ok := m["$ref"]; ok {
		if s, ok := r.(string); !ok || len(s) == 0 || s[0] != '#' {
			return false
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := m[key]; ok && !w.each(defs, depth) {
			return false
		}
	}
	if a, ok := m["anyOf"]; ok {
		list, ok := a.([]any)
		if !ok || len(list) == 0 {
			return false
		}
		for _, s := range list {
			if !w.schema(s, depth) {
				return false
			}
		}
	}
	if hasType(m, "array") {
		if !w.schema(m["items"], depth) {
			return false
		}
	} else if _, ok := m["items"]; ok {
		return false
	}
	if hasType(m, "object") {
		return w.object(m, depth+1)
	}
	_, props := m["properties"]
	_, req := m["required"]
	_, add := m["additionalProperties"]
	return !props && !req && !add
}

// object checks an object schema's closure and properties.
func (w *strictWalk) object(m map[string]any, depth int) bool {
	if depth > strictMaxDepth || m["additionalProperties"] != false {
		return false
	}
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return false
	}
	w.properties += len(props)
	if w.properties > strictMaxProperties {
		return false
	}
	req, ok := m["required"].([]any)
	if !ok || len(req) != len(props) {
		return false
	}
	seen := make(map[string]bool, len(req))
	for _, r := range req {
		name, ok := r.(string)
		if !ok || seen[name] {
			return false
		}
		if _, ok := props[name]; !ok {
			return false
		}
		seen[name] = true
	}
	for _, p := range props {
		if !w.schema(p, depth) {
			return false
		}
	}
	return true
}

// each checks every schema of a definitions map.
func (w *strictWalk) each(v any, depth int) bool {
	defs, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, d := range defs {
		if !w.schema(d, depth) {
			return false
		}
	}
	return true
}

func strictType(t any) bool {
	switch t := t.(type) {
	case string:
		return strictTypes[t]
	case []any:
		if len(t) == 0 {
			return false
		}
		for _, x := range t {
			s, ok := x.(string)
			if !ok || !strictTypes[s] {
				return false
			}
		}
		return true
	}
	return false
}

func hasType(m map[string]any, name string) bool {
	switch t := m["type"].(type) {
	case string:
		return t == name
	case []any:
		return slices.Contains(t, any(name))
	}
	return false
}

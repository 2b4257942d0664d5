package jsonschema

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"
)

// fuzzDecode decodes fuzzer bytes as JSON (numbers exact), or reports false.
func fuzzDecode(data []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// FuzzCompileValidate: schemas (from tool authors and MCP servers) and values (from
// programs) cross a trust boundary here. Whatever they are, Compile and Validate
// return (no panic, no hang: the fuzzer's own deadline catches one), and Valid agrees
// with Validate.
func FuzzCompileValidate(f *testing.F) {
	seeds := []struct{ schema, value string }{
		{`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],"additionalProperties":false}`, `{"a":"x","b":1}`},
		{`{"items":{"$ref":"#"},"uniqueItems":true}`, `[[],[[]],[]]`},
		{`{"$defs":{"n":{"anyOf":[{"type":"null"},{"properties":{"next":{"$ref":"#/$defs/n"}}}]}},"$ref":"#/$defs/n"}`, `{"next":{"next":null}}`},
		{`{"prefixItems":[{"const":1}],"contains":{"multipleOf":0.01},"unevaluatedItems":false,"minContains":1,"maxContains":2}`, `[1,0.03,7]`},
		{`{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":{"pattern":"^x"},"propertyNames":{"maxLength":3}}`, `{"a":1,"bb":"xy","cccc":"z"}`},
		{`{"$id":"https://x/r","$dynamicAnchor":"a","$defs":{"i":{"$id":"i","$dynamicAnchor":"a","$dynamicRef":"#a"}},"$ref":"i"}`, `null`},
		{`{"if":{"type":"string"},"then":{"format":"email"},"else":{"enum":[1,[2],{"a":3}]},"dependentSchemas":{"a":{"not":{}}}}`, `{"a":3}`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":1,"exclusiveMaximum":true,"dependencies":{"a":["b"]}}`, `1`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`, `[[[1]]]`},
		{`{"items":[{"type":"integer"}],"additionalItems":false}`, `[1.0,2]`},
		{`{"$ref":"#"}`, `1`},
		{`true`, `"s"`},
		{`{"patternProperties":{"^[a-z]+$":{"type":"number"}},"minProperties":1,"maxProperties":2}`, `{"ab":1e400}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s.schema), []byte(s.value))
	}
	f.Fuzz(func(t *testing.T, schemaText, valueText []byte) {
		doc, ok := fuzzDecode(schemaText)
		if !ok {
			return
		}
		s, err := Compile(doc, nil)
		if err != nil {
			return
		}
		v, ok := fuzzDecode(valueText)
		if !ok {
			return
		}
		violations := s.Validate(v)
		if valid := s.Valid(v); valid != (violations == nil) {
			t.Errorf("Valid = %v, but Validate = %v", valid, violations)
		}
	})
}

// TestConcurrentValidate: one Schema validates from many goroutines at once (run
// with -race).
func TestConcurrentValidate(t *testing.T) {
	s := mustCompile(t, `{"$defs":{"n":{"type":"object","properties":{"v":{"enum":[1,2]},"kids":{"items":{"$ref":"#/$defs/n"},"uniqueItems":true}},"unevaluatedProperties":false}},"$ref":"#/$defs/n"}`)
	good := decode(t, []byte(`{"v":1,"kids":[{"v":2},{"v":1,"kids":[]}]}`))
	bad := decode(t, []byte(`{"v":3,"kids":[{"v":2},{"v":2}],"x":0}`))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if !s.Valid(good) || s.Validate(good) != nil {
					t.Error("valid value rejected")
					return
				}
				if got := s.Validate(bad); len(got) != 3 {
					t.Errorf("invalid value: %v", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

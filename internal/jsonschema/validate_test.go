package jsonschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestViolations pins what each keyword reports, and that Valid agrees.
func TestViolations(t *testing.T) {
	num := func(n string) []any { return []any{json.Number(n)} }
	tests := []struct {
		name, schema, value string
		want                []Violation
	}{
		{"valid", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"a":"x"}`, nil},
		{"type", `{"type":["string","null"]}`, `1`, []Violation{{Keyword: "type", Types: []string{"string", "null"}}}},
		{"integer with a zero fraction", `{"type":"integer"}`, `1.0`, nil},
		{"integer exponent", `{"type":"integer"}`, `1.5e1`, nil},
		{"not an integer", `{"type":"integer"}`, `1.05e1`, []Violation{{Keyword: "type", Types: []string{"integer"}}}},
		{"enum", `{"enum":["a",1,[1],{"x":null}]}`, `2`, []Violation{{Keyword: "enum", Values: []any{"a", json.Number("1"), []any{json.Number("1")}, map[string]any{"x": nil}}}}},
		{"enum by value", `{"enum":[1,{"a":[1.0,"x"],"b":true}]}`, `{"b":true,"a":[1,"x"]}`, nil},
		{"const", `{"const":1}`, `1.0`, nil},
		{"const differs", `{"const":1}`, `true`, []Violation{{Keyword: "const", Values: num("1")}}},
		{"const false and 0", `{"const":false}`, `0`, []Violation{{Keyword: "const", Values: []any{false}}}},
		{"minimum", `{"minimum":10}`, `9.99`, []Violation{{Keyword: "minimum", Number: "10"}}},
		{"maximum", `{"maximum":10}`, `10.0000000000000000001`, []Violation{{Keyword: "maximum", Number: "10"}}},
		{"exclusiveMinimum", `{"exclusiveMinimum":1e1}`, `10`, []Violation{{Keyword: "exclusiveMinimum", Number: "1e1"}}},
		{"exclusiveMaximum", `{"exclusiveMaximum":-0.5}`, `-0.5`, []Violation{{Keyword: "exclusiveMaximum", Number: "-0.5"}}},
		{"multipleOf", `{"multipleOf":0.5}`, `1.2`, []Violation{{Keyword: "multipleOf", Number: "0.5"}}},
		{"minLength", `{"minLength":3}`, `"é😀"`, []Violation{{Keyword: "minLength", Limit: 3}}},
		{"maxLength", `{"maxLength":2}`, `"abc"`, []Violation{{Keyword: "maxLength", Limit: 2}}},
		{"pattern", `{"pattern":"^a+$"}`, `"ab"`, []Violation{{Keyword: "pattern", Pattern: "^a+$"}}},
		{"minItems", `{"minItems":2}`, `[1]`, []Violation{{Keyword: "minItems", Limit: 2}}},
		{"maxItems", `{"maxItems":0}`, `[1]`, []Violation{{Keyword: "maxItems", Limit: 0}}},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,{"a":[]},"1",{"a":[]}]`, []Violation{{Keyword: "uniqueItems", Items: [2]int{1, 3}}}},
		{"contains", `{"contains":{"type":"string"}}`, `[1]`, []Violation{{Keyword: "contains", Limit: 1}}},
		{"minContains", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`, []Violation{{Keyword: "minContains", Limit: 2}}},
		{"maxContains", `{"contains":{"type":"string"},"maxContains":1}`, `["a","b"]`, []Violation{{Keyword: "maxContains", Limit: 1}}},
		{"minContains 0", `{"contains":{"type":"string"},"minContains":0}`, `[1]`, nil},
		{"minProperties", `{"minProperties":1}`, `{}`, []Violation{{Keyword: "minProperties", Limit: 1}}},
		{"maxProperties", `{"maxProperties":1}`, `{"a":1,"b":2}`, []Violation{{Keyword: "maxProperties", Limit: 1}}},
		{"required", `{"properties":{"o":{"required":["a","b"]}}}`, `{"o":{"b":1}}`, []Violation{{Path: []string{"o"}, Keyword: "required", Property: "a"}}},
		{"dependentRequired", `{"dependentRequired":{"a":["b","c"]}}`, `{"a":1,"c":1}`, []Violation{{Keyword: "dependentRequired", Property: "b", Trigger: "a"}}},
		{"dependencies", `{"dependencies":{"a":["b"]}}`, `{"a":1}`, []Violation{{Keyword: "dependencies", Property: "b", Trigger: "a"}}},
		{"dependentSchemas", `{"dependentSchemas":{"a":{"maxProperties":1}}}`, `{"a":1,"b":2}`, []Violation{{Keyword: "maxProperties", Limit: 1}}},
		{"additionalProperties false", `{"properties":{"a":true},"patternProperties":{"^x":true},"additionalProperties":false}`, `{"a":1,"xy":2,"b":3}`, []Violation{{Keyword: "additionalProperties", Property: "b"}}},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"b":3}`, []Violation{{Path: []string{"b"}, Keyword: "type", Types: []string{"string"}}}},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, `{"ab":1,"abc":2}`, []Violation{{Keyword: "propertyNames", Property: "abc", Causes: []Violation{{Keyword: "maxLength", Limit: 2}}}}},
		{"prefixItems and items", `{"prefixItems":[{"type":"string"}],"items":{"type":"number"}}`, `["a",1,"b"]`, []Violation{{Path: []string{"2"}, Keyword: "type", Types: []string{"number"}}}},
		{"items false", `{"prefixItems":[true],"items":false}`, `[1,2]`, []Violation{{Path: []string{"1"}, Keyword: "false"}}},
		{"additionalItems false", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[true],"additionalItems":false}`, `[1,2,3]`, []Violation{{Keyword: "additionalItems", Limit: 2}}},
		{"unevaluatedProperties", `{"allOf":[{"properties":{"a":true}}],"anyOf":[{"properties":{"b":true}},{"required":["z"]}],"unevaluatedProperties":false}`, `{"a":1,"b":2,"c":3}`, []Violation{{Keyword: "unevaluatedProperties", Property: "c"}}},
		{"unevaluatedItems", `{"prefixItems":[true],"contains":{"type":"string"},"unevaluatedItems":false}`, `[1,"s",2]`, []Violation{{Path: []string{"2"}, Keyword: "unevaluatedItems"}}},
		{"anyOf", `{"anyOf":[{"type":"string"},{"minimum":2}]}`, `1`, []Violation{{Keyword: "anyOf"}}},
		{"oneOf none", `{"oneOf":[{"type":"string"},{"minimum":2}]}`, `1`, []Violation{{Keyword: "oneOf"}}},
		{"oneOf counts every match", `{"oneOf":[{"type":"number"},{"minimum":0},{"maximum":5}]}`, `1`, []Violation{{Keyword: "oneOf", Matched: 3}}},
		{"not", `{"not":{"type":"string"}}`, `"s"`, []Violation{{Keyword: "not"}}},
		{"if then else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":5}}`, `3`, []Violation{{Keyword: "minimum", Number: "5"}}},
		{"false", `false`, `null`, []Violation{{Keyword: "false"}}},
		{"sorted", `{"properties":{"b":{"type":"string"},"a":{"type":"string"}},"required":["c"]}`, `{"b":1,"a":2}`, []Violation{
			{Keyword: "required", Property: "c"},
			{Path: []string{"a"}, Keyword: "type", Types: []string{"string"}},
			{Path: []string{"b"}, Keyword: "type", Types: []string{"string"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			v := decode(t, []byte(tt.value))
			got := s.Validate(v)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations mismatch (-want +got):\n%s", diff)
			}
			if valid := s.Valid(v); valid != (tt.want == nil) {
				t.Errorf("Valid = %v, want %v", valid, tt.want == nil)
			}
		})
	}
}

// TestNumbers: comparisons and multipleOf are exact in decimal, whatever the Go type
// of the value.
func TestNumbers(t *testing.T) {
	tests := []struct {
		schema string
		value  any
		valid  bool
	}{
		{`{"multipleOf":0.01}`, json.Number("19.99"), true},
		{`{"multipleOf":0.01}`, 19.99, true}, // the float64 nearest 19.99 spells 19.99
		{`{"multipleOf":0.01}`, json.Number("0.075"), false},
		{`{"multipleOf":0.1}`, json.Number("0.3"), true},
		{`{"multipleOf":3}`, json.Number("1e30"), false},
		{`{"multipleOf":1e-30}`, json.Number("1"), true},
		{`{"multipleOf":123456789012345678901234567890}`, json.Number("246913578024691357802469135780"), true},
		{`{"multipleOf":123456789012345678901234567890}`, json.Number("246913578024691357802469135781"), false},
		{`{"multipleOf":0.123456789}`, json.Number("1e308"), false},
		{`{"multipleOf":2}`, json.Number("1e999999999999"), true},
		{`{"multipleOf":7}`, 49, true},
		{`{"multipleOf":7}`, int64(50), false},
		{`{"maximum":9007199254740992}`, json.Number("9007199254740993"), false},
		{`{"minimum":0.1}`, json.Number("0.10000000000000000001"), true},
		{`{"minimum":-1e-400}`, json.Number("0"), true},
		{`{"exclusiveMaximum":0}`, json.Number("-0"), false},
		{`{"type":"integer"}`, 2.0, true},
		{`{"type":"integer"}`, 2.5, false},
		{`{"type":"integer"}`, json.Number("1e400"), true},
		{`{"type":"integer"}`, json.Number("12e-1"), false},
		{`{"const":100}`, json.Number("1e2"), true},
		{`{"const":100}`, float32(100), true},
		{`{"enum":[0]}`, json.Number("-0.0e5"), true},
		{`{"type":"number"}`, json.Number("not a number"), false},
	}
	for _, tt := range tests {
		s := mustCompile(t, tt.schema)
		if got := s.Valid(tt.value); got != tt.valid {
			t.Errorf("%s on %#v: Valid = %v, want %v", tt.schema, tt.value, got, tt.valid)
		}
		if got := s.Validate(tt.value) == nil; got != tt.valid {
			t.Errorf("%s on %#v: Validate says valid = %v, want %v", tt.schema, tt.value, got, tt.valid)
		}
	}
}

func nested(depth int) any {
	var v any = "leaf"
	for range depth {
		v = []any{v}
	}
	return v
}

// TestHostileValues: a huge array under uniqueItems and a very deep value validate in
// bounded time and stack (the test's own deadline is the bound), with the right
// answers.
func TestHostileValues(t *testing.T) {
	big := make([]any, 1_000_000)
	for i := range big {
		big[i] = json.Number(fmt.Sprint(i))
	}
	unique := mustCompile(t, `{"uniqueItems":true}`)
	if !unique.Valid(big) {
		t.Error("1,000,000 distinct numbers are not unique")
	}
	big[len(big)-1] = json.Number("5e0")
	if diff := cmp.Diff([]Violation{{Keyword: "uniqueItems", Items: [2]int{5, 999_999}}}, unique.Validate(big)); diff != "" {
		t.Errorf("uniqueItems on a duplicate at the end (-want +got):\n%s", diff)
	}

	deep := nested(100_000)
	tooDeep := []Violation{{Keyword: "depth", Limit: MaxDepth}}
	tests := []struct {
		schema string
		want   []Violation
	}{
		{`{}`, nil},
		{`{"type":"array","minItems":1}`, nil},
		{`{"uniqueItems":true}`, nil},
		{`{"const":[[1]]}`, []Violation{{Keyword: "const", Values: []any{[]any{[]any{json.Number("1")}}}}}},
		{`{"enum":[1,[[[["leaf"]]]]]}`, []Violation{{Keyword: "enum", Values: []any{json.Number("1"), []any{[]any{[]any{[]any{"leaf"}}}}}}}},
		{`{"items":{"$ref":"#"}}`, tooDeep},
		{`{"$defs":{"a":{"anyOf":[{"type":"string"},{"items":{"$ref":"#/$defs/a"}}]}},"$ref":"#/$defs/a","unevaluatedItems":false}`, tooDeep},
	}
	for _, tt := range tests {
		s := mustCompile(t, tt.schema)
		if diff := cmp.Diff(tt.want, s.Validate(deep)); diff != "" {
			t.Errorf("%s on a 100,000-deep array (-want +got):\n%s", tt.schema, diff)
		}
		if s.Valid(deep) != (tt.want == nil) {
			t.Errorf("%s on a 100,000-deep array: Valid disagrees", tt.schema)
		}
	}
	// As deep as registry values go, a recursive schema validates to the bottom.
	s := mustCompile(t, `{"$defs":{"a":{"anyOf":[{"type":"string"},{"items":{"$ref":"#/$defs/a"}}]}},"$ref":"#/$defs/a"}`)
	if got := s.Validate(nested(MaxDepth)); got != nil {
		t.Errorf("a leaf %d levels deep: %v", MaxDepth, got)
	}
	if got := s.Validate(nested(MaxDepth + 1)); !cmp.Equal(got, tooDeep) {
		t.Errorf("a leaf %d levels deep: %v", MaxDepth+1, got)
	}
}

// TestHostileSchemas: schemas that would make validation run away end it with a
// violation instead, and deep schemas compile and validate.
func TestHostileSchemas(t *testing.T) {
	// Each level applies the next one twice to the same value: 2^60 applications.
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
	for i := range 60 {
		fmt.Fprintf(&b, `"a%d":{"allOf":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"a60":{"type":"string"}}}`)
	exp := mustCompile(t, b.String())
	if diff := cmp.Diff([]Violation{{Keyword: "budget", Limit: baseSteps + stepsPerValue}}, exp.Validate(json.Number("1"))); diff != "" {
		t.Errorf("exponential schema (-want +got):\n%s", diff)
	}
	if exp.Valid("s") {
		t.Error("exponential schema: Valid over budget")
	}

	// $dynamicRef that resolves, through the dynamic scope, back to the schema that
	// holds it: not a static cycle, so it compiles, and is cut off as one.
	loop := mustCompile(t, `{"$id":"https://x/root","$dynamicAnchor":"a","$defs":{"inner":{"$id":"inner","$dynamicAnchor":"a","$dynamicRef":"#a"}},"$ref":"inner"}`)
	if diff := cmp.Diff([]Violation{{Keyword: "cycle"}}, loop.Validate(nil)); diff != "" {
		t.Errorf("dynamic reference loop (-want +got):\n%s", diff)
	}

	// Schemas nested 5,000 levels, through allOf and through properties (built as
	// trees: as text, they are deeper than encoding/json decodes).
	var viaAllOf, viaProps, value any = map[string]any{"type": "string"}, map[string]any{"type": "string"}, json.Number("1")
	for range 5000 {
		viaAllOf = map[string]any{"allOf": []any{viaAllOf}}
		viaProps = map[string]any{"properties": map[string]any{"p": viaProps}}
		value = map[string]any{"p": value}
	}
	for _, c := range []struct {
		name          string
		schema, value any
		depth         int
	}{{"allOf", viaAllOf, json.Number("1"), 0}, {"properties", viaProps, value, 5000}} {
		s, err := Compile(c.schema, nil)
		if err != nil {
			t.Fatalf("5,000-deep %s schema: %v", c.name, err)
		}
		if got := s.Validate(c.value); len(got) != 1 || got[0].Keyword != "type" || len(got[0].Path) != c.depth {
			t.Errorf("5,000-deep %s schema: %d violations", c.name, len(got))
		}
	}
	// A document nested past MaxSchemaDepth does not compile.
	var doc any = map[string]any{}
	for range MaxSchemaDepth + 1 {
		doc = map[string]any{"not": doc}
	}
	if _, err := Compile(doc, nil); err == nil || !strings.Contains(err.Error(), "schemas nest deeper than 10000 levels") {
		t.Errorf("a schema nested past the limit: %v", err)
	}
}

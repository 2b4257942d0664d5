package jsonschema

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Compile(decode(t, []byte(schema)), nil)
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return s
}

// TestCompileErrors pins the shape checks: each names the keyword and the JSON
// pointer of the schema that holds it.
func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"type unknown", `{"type":"strin"}`, `invalid schema at the root: "type" names an unknown type "strin"; the types are array, boolean, integer, null, number, object and string`},
		{"type not string", `{"properties":{"a":{"type":5}}}`, `invalid schema at /properties/a: "type" must be a type name or an array of them, not a number`},
		{"type twice", `{"type":["string","string"]}`, `invalid schema at the root: "type" names "string" twice`},
		{"type empty", `{"type":[]}`, `invalid schema at the root: "type" must not be an empty array`},
		{"required string", `{"required":"a"}`, `invalid schema at the root: "required" must be an array of strings`},
		{"required number", `{"required":["a",1]}`, `invalid schema at the root: "required" must be an array of strings, not hold a number`},
		{"properties array", `{"properties":[]}`, `invalid schema at the root: "properties" must be an object of schemas`},
		{"minimum string", `{"properties":{"n":{"minimum":"1"}}}`, `invalid schema at /properties/n: "minimum" must be a number`},
		{"minLength negative", `{"minLength":-1}`, `invalid schema at the root: "minLength" must be a non-negative integer`},
		{"maxItems fraction", `{"maxItems":1.5}`, `invalid schema at the root: "maxItems" must be a non-negative integer`},
		{"multipleOf zero", `{"multipleOf":0}`, `invalid schema at the root: "multipleOf" must be greater than 0`},
		{"uniqueItems string", `{"uniqueItems":"yes"}`, `invalid schema at the root: "uniqueItems" must be a boolean`},
		{"enum object", `{"enum":{}}`, `invalid schema at the root: "enum" must be an array`},
		{"pattern lookahead", `{"items":{"pattern":"a(?=b)"}}`, "invalid schema at /items: \"pattern\" \"a(?=b)\": not a regular expression Go can run: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
		{"pattern too large", `{"pattern":"` + strings.Repeat(`[a-z]{0,1000}`, 6) + `"}`, `compiles to more than 10000 instructions`},
		{"patternProperties key", `{"patternProperties":{"(":{}}}`, `invalid schema at the root: "patternProperties" "(": not a regular expression Go can run: error parsing regexp: missing closing ): ` + "`(`"},
		{"subschema string", `{"properties":{"a":"string"}}`, `invalid schema at /properties/a: a schema must be an object or a boolean, not a string`},
		{"allOf empty", `{"allOf":[]}`, `invalid schema at the root: "allOf" must be a non-empty array of schemas`},
		{"items array in 2020", `{"$schema":"https://json-schema.org/draft/2020-12/schema","items":[{}]}`, `invalid schema at /items: a schema must be an object or a boolean, not an array`},
		{"escaped pointer", `{"properties":{"a/b~c":{"minimum":true}}}`, `invalid schema at /properties/a~1b~0c: "minimum" must be a number`},
		{"deep location", `{"items":{"anyOf":[{},{"not":{"maxLength":"x"}}]}}`, `invalid schema at /items/anyOf/1/not: "maxLength" must be a non-negative integer`},
		{"in $defs", `{"$defs":{"a":{"minItems":-2}}}`, `invalid schema at /$defs/a: "minItems" must be a non-negative integer`},
		{"schema not string", `{"$schema":4}`, `invalid schema at the root: "$schema" must be a string`},
		{"unknown schema", `{"$schema":"https://example.com/schema"}`, `invalid schema at the root: unknown "$schema" "https://example.com/schema": known are the drafts 4, 6, 7, 2019-09 and 2020-12 of json-schema.org`},
		{"draft-07 ref sibling still checked", `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{}},"properties":{"p":{"type":5}}}`, `invalid schema at /properties/p: "type" must be a type name or an array of them, not a number`},
		{"tuple empty", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[]}`, `invalid schema at the root: "items" must be a non-empty array of schemas`},
		{"enum empty before 2019-09", `{"$schema":"http://json-schema.org/draft-07/schema#","enum":[]}`, `invalid schema at the root: "enum" must not be empty`},
		{"enum repeats before 2019-09", `{"$schema":"http://json-schema.org/draft-06/schema#","enum":[1,1.0]}`, `invalid schema at the root: "enum" lists 1.0 twice`},
		{"draft-04 boolean subschema", `{"$schema":"http://json-schema.org/draft-04/schema#","items":true}`, `invalid schema at /items: a draft-04 schema must be an object, not a boolean`},
		{"draft-04 exclusiveMaximum alone", `{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMaximum":true}`, `invalid schema at the root: "exclusiveMaximum" needs "maximum" beside it`},
		{"draft-06 exclusiveMaximum boolean", `{"$schema":"http://json-schema.org/draft-06/schema#","exclusiveMaximum":true}`, `invalid schema at the root: "exclusiveMaximum" must be a number`},
		{"anchor invalid", `{"$defs":{"a":{"$anchor":"1x"}}}`, `invalid schema at /$defs/a: "$anchor" "1x" is not a valid anchor name`},
		{"anchor twice", `{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, `anchor "x" is defined twice in one resource`},
		{"id fragment", `{"$id":"https://x/y#frag"}`, `invalid schema at the root: "$id" "https://x/y#frag" must not have a fragment: use $anchor`},
		{"id twice", `{"$defs":{"a":{"$id":"a.json"},"b":{"$id":"a.json"}}}`, `invalid schema at /$defs/b: "$id" "a.json" names a resource twice`},
		{"ref not string", `{"$ref":1}`, `invalid schema at the root: "$ref" must be a string`},
		{"ref remote", `{"properties":{"a":{"$ref":"https://x/y.json"}}}`, `invalid schema at /properties/a: $ref "https://x/y.json": only references inside the schema are supported`},
		{"ref relative to another document", `{"$id":"https://x/root.json","$ref":"other.json"}`, `invalid schema at the root: $ref "other.json": only references inside the schema are supported`},
		{"ref missing", `{"$ref":"#/$defs/missing"}`, `invalid schema at the root: $ref "#/$defs/missing": the schema has nothing at "/$defs/missing"`},
		{"ref anchor missing", `{"$ref":"#nope"}`, `invalid schema at the root: $ref "#nope": the schema has no anchor "nope"`},
		{"ref to a non-schema", `{"$defs":{"n":{"enum":[1]}},"$ref":"#/$defs/n/enum"}`, `invalid schema at the root: $ref "#/$defs/n/enum" points to an array, not a schema`},
		{"ref cycle self", `{"$ref":"#"}`, `invalid schema at the root: $ref "#" leads back to the root schema, which applies to the same value: a reference cycle`},
		{"ref cycle mutual", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `a reference cycle`},
		{"anyOf cycle", `{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, `invalid schema at /anyOf/1: $ref "#" leads back to the root schema, which applies to the same value: a reference cycle`},
		{"not a schema", `[1]`, `invalid schema at the root: a schema must be an object or a boolean, not an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(decode(t, []byte(tt.schema)), nil)
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Compile error = %v, want a *SchemaError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestCompileAccepts: shapes that are fine, and references that never need resolving.
func TestCompileAccepts(t *testing.T) {
	for _, schema := range []string{
		`{"required":["a","a"]}`,      // duplicates in required are harmless
		`{"enum":[]}`,                 // nothing is valid
		`{"maxLength":2.0}`,           // an integer, spelled with a fraction
		`{"minItems":1e400}`,          // saturates
		`{"format":"no-such-format"}`, // formats are annotations
		`{"x-extension":{"type":5}}`,  // unknown keywords are ignored
		`{"$defs":{"unused":{"$ref":"https://elsewhere/x.json"}}}`,                                                             // never reached
		`{"$ref":"#/$defs/a","$defs":{"a":{"properties":{"x":{"$ref":"#/$defs/a"}}}}}`,                                         // recursion through a member
		`{"$schema":"http://json-schema.org/draft-07/schema","$ref":"#/definitions/a","definitions":{"a":{}},"type":"string"}`, // $ref's siblings ignored
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`,
		`{"$schema":"http://json-schema.org/draft/2019-09/schema"}`,
		`{"$ref":"#/%24defs/a~1b","$defs":{"a/b":{"type":"string"}}}`,              // percent-encoding and ~1
		`{"$ref":"#/$defs/x/items/0","$defs":{"x":{"items":[{"type":"string"}]}}}`, // into a non-schema position (2020-12)
		`true`, `false`,
	} {
		if _, err := Compile(decode(t, []byte(schema)), nil); err != nil {
			t.Errorf("Compile(%s): %v", schema, err)
		}
	}
}

// TestDrafts: $schema decides the draft; without it 2020-12, or 2019-09 for a schema
// that uses the array form of items and nothing only 2020-12 defines; an option
// changes the default.
func TestDrafts(t *testing.T) {
	tests := []struct {
		schema string
		opts   *CompileOptions
		want   Draft
	}{
		{`{}`, nil, Draft2020},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, nil, Draft4},
		{`{"$schema":"https://json-schema.org/draft-06/schema"}`, nil, Draft6},
		{`{"$schema":"http://json-schema.org/draft-07/schema#"}`, nil, Draft7},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema"}`, nil, Draft2019},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`, nil, Draft2020},
		{`{"properties":{"p":{"items":[{"type":"string"}]}}}`, nil, Draft2019},
		{`{}`, &CompileOptions{Draft: Draft7}, Draft7},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, &CompileOptions{Draft: Draft7}, Draft4},
	}
	for _, tt := range tests {
		s, err := Compile(decode(t, []byte(tt.schema)), tt.opts)
		if err != nil {
			t.Errorf("Compile(%s): %v", tt.schema, err)
			continue
		}
		if s.Draft() != tt.want {
			t.Errorf("Compile(%s).Draft() = %v, want %v", tt.schema, s.Draft(), tt.want)
		}
	}
	// A tuple beside prefixItems stays a 2020-12 schema, and so an error; the walk
	// looks everywhere, examples included.
	for _, schema := range []string{
		`{"properties":{"a":{"prefixItems":[{}]},"b":{"items":[{}]}}}`,
		`{"properties":{"p":{"items":[{}]}},"examples":[{"$dynamicRef":"#x"}]}`,
	} {
		if _, err := Compile(decode(t, []byte(schema)), nil); err == nil {
			t.Errorf("%s compiled", schema)
		}
	}
	if _, err := Compile(map[string]any{}, &CompileOptions{Draft: 5}); err == nil {
		t.Error("draft 5 accepted")
	}
	// Draft semantics: the tuple rule's 2019-09 checks additionalItems; draft-07
	// ignores $ref's siblings; 2019-09 does not.
	for _, tt := range []struct {
		schema, value string
		valid         bool
	}{
		{`{"items":[{"type":"string"}],"additionalItems":false}`, `["a",1]`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{}},"$ref":"#/definitions/a","type":"string"}`, `1`, true},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"a":{}},"$ref":"#/$defs/a","type":"string"}`, `1`, false},
		{`{"$schema":"http://json-schema.org/draft-06/schema#","if":{"type":"string"},"then":false}`, `"s"`, true}, // no if before draft-07
		{`{"$schema":"http://json-schema.org/draft-07/schema#","if":{"type":"string"},"then":false}`, `"s"`, false},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":3,"exclusiveMaximum":true}`, `3`, false},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","const":3}`, `4`, true}, // no const in draft-04
		{`{"dependencies":{"a":{"required":["b"]}}}`, `{"a":1}`, false},                // kept in 2020-12
	} {
		s := mustCompile(t, tt.schema)
		if got := s.Valid(decode(t, []byte(tt.value))); got != tt.valid {
			t.Errorf("%s on %s: Valid = %v, want %v", tt.schema, tt.value, got, tt.valid)
		}
	}
}

// TestRefs: pointers, anchors and $id, beyond what the suite covers.
func TestRefs(t *testing.T) {
	tests := []struct {
		name, schema, value string
		want                []Violation
	}{
		{"pointer escapes", `{"$defs":{"a/b~c":{"type":"string"}},"$ref":"#/$defs/a~1b~0c"}`, `1`, []Violation{{Keyword: "type", Types: []string{"string"}}}},
		{"percent-encoded pointer", `{"$defs":{"a b":{"type":"string"}},"$ref":"#/$defs/a%20b"}`, `1`, []Violation{{Keyword: "type", Types: []string{"string"}}}},
		{"anchor", `{"$defs":{"s":{"$anchor":"str","type":"string"}},"properties":{"p":{"$ref":"#str"}}}`, `{"p":1}`, []Violation{{Path: []string{"p"}, Keyword: "type", Types: []string{"string"}}}},
		{"embedded resource", `{"$id":"https://x/root.json","$defs":{"n":{"$id":"n.json","type":"number"}},"items":{"$ref":"n.json"}}`, `["a"]`, []Violation{{Path: []string{"0"}, Keyword: "type", Types: []string{"number"}}}},
		{"pointer inside a resource", `{"$id":"https://x/root.json","$defs":{"n":{"$id":"dir/n.json","$defs":{"i":{"type":"integer"}}}},"$ref":"dir/n.json#/$defs/i"}`, `1.5`, []Violation{{Keyword: "type", Types: []string{"integer"}}}},
		{"relative to the resource", `{"$id":"https://x/a/root.json","$defs":{"b":{"$id":"../b/b.json","$ref":"c.json"},"c":{"$id":"https://x/b/c.json","minimum":2}},"$ref":"https://x/b/b.json"}`, `1`, []Violation{{Keyword: "minimum", Number: "2"}}},
		{"recursion through members", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}`, `{"name":"a","kids":[{"name":"b","kids":[{}]}]}`, []Violation{{Path: []string{"kids", "0", "kids", "0"}, Keyword: "required", Property: "name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustCompile(t, tt.schema).Validate(decode(t, []byte(tt.value)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

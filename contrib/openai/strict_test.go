package openai_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/registry"
)

func TestStrictable(t *testing.T) {
	deep := `{"type":"string"}`
	for range 10 {
		deep = `{"type":"object","properties":{"x":` + deep + `},"required":["x"],"additionalProperties":false}`
	}
	tooDeep := `{"type":"object","properties":{"x":` + deep + `},"required":["x"],"additionalProperties":false}`
	many := make([]string, 5001)
	names := make([]string, 5001)
	for i := range many {
		many[i] = fmt.Sprintf(`"p%d":{"type":"string"}`, i)
		names[i] = fmt.Sprintf(`"p%d"`, i)
	}
	tooMany := `{"type":"object","properties":{` + strings.Join(many, ",") + `},"required":[` + strings.Join(names, ",") + `],"additionalProperties":false}`

	closed := func(props, required string) string {
		return `{"type":"object","properties":{` + props + `},"required":[` + required + `],"additionalProperties":false}`
	}
	for _, tc := range []struct {
		name   string
		schema string
		want   bool
	}{
		{"closed, all required", closed(`"id":{"type":"string"}`, `"id"`), true},
		{"no properties", closed(``, ``), true},
		{"nested closed object", closed(`"o":`+closed(`"n":{"type":"integer","minimum":1}`, `"n"`), `"o"`), true},
		{"array of closed objects", closed(`"a":{"type":"array","items":`+closed(`"s":{"type":"string","pattern":"^x"}`, `"s"`)+`,"maxItems":3}`, `"a"`), true},
		{"nullable by type list", closed(`"s":{"type":["string","null"]}`, `"s"`), true},
		{"anyOf branch", closed(`"v":{"anyOf":[{"type":"string"},{"type":"number"}]}`, `"v"`), true},
		{"enum without type", closed(`"e":{"enum":["a","b"]}`, `"e"`), true},
		{"local ref and defs", `{"type":"object","$defs":{"n":{"type":"string"}},"properties":{"r":{"$ref":"#/$defs/n"}},"required":["r"],"additionalProperties":false}`, true},
		{"supported format", closed(`"d":{"type":"string","format":"date-time"}`, `"d"`), true},
		{"ten levels of nesting", deep, true},

		{"open root", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, false},
		{"no properties, no required", `{"type":"object","properties":{},"additionalProperties":false}`, false},
		{"optional property", closed(`"id":{"type":"string"},"n":{"type":"integer"}`, `"id"`), false},
		{"required names a missing property", closed(`"id":{"type":"string"}`, `"idx"`), false},
		{"required repeats a name", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","a"],"additionalProperties":false}`, false},
		{"open nested object", closed(`"o":{"type":"object","properties":{}}`, `"o"`), false},
		{"unsupported keyword", closed(`"s":{"type":"string","minLength":1}`, `"s"`), false},
		{"unsupported format", closed(`"s":{"type":"string","format":"uri"}`, `"s"`), false},
		{"remote ref", closed(`"r":{"$ref":"https://example.com/s.json"}`, `"r"`), false},
		{"root anyOf", `{"type":"object","anyOf":[{"type":"object"}]}`, false},
		{"root not an object", `{"type":"string"}`, false},
		{"no type", closed(`"x":{"description":"anything"}`, `"x"`), false},
		{"unknown type", closed(`"x":{"type":"date"}`, `"x"`), false},
		{"array without items", closed(`"a":{"type":"array"}`, `"a"`), false},
		{"tuple items", closed(`"a":{"type":"array","items":[{"type":"string"}]}`, `"a"`), false},
		{"boolean subschema", closed(`"x":true`, `"x"`), false},
		{"properties on a string", closed(`"s":{"type":"string","properties":{}}`, `"s"`), false},
		{"eleven levels of nesting", tooDeep, false},
		{"over 5000 properties", tooMany, false},
		{"empty enum", closed(`"e":{"enum":[]}`, `"e"`), false},
		{"not JSON", `{"type":`, false},
		{"trailing data", closed(``, ``) + `{}`, false},
		{"empty", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := openai.Strictable(json.RawMessage(tc.schema)); got != tc.want {
				t.Errorf("Strictable(%s) = %v, want %v", tc.schema, got, tc.want)
			}
		})
	}
}

// TestStrictableDSL pins that the registry's schema DSL makes strict-able
// schemas from closed objects with required fields only.
func TestStrictableDSL(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema registry.Schema
		want   bool
	}{
		{"closed", registry.Object(registry.Required("a", registry.String()), registry.Required("b", registry.Array(registry.Integer()))).Closed(), true},
		{"closed with enum", registry.Object(registry.Required("k", registry.String().Enum("x", "y"))).Closed(), true},
		{"open", registry.Object(registry.Required("a", registry.String())), false},
		{"optional", registry.Object(registry.Optional("a", registry.String())).Closed(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			if got := openai.Strictable(raw); got != tc.want {
				t.Errorf("Strictable(%s) = %v, want %v", raw, got, tc.want)
			}
		})
	}
}

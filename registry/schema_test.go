package registry

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func nop(context.Context, *Call) (any, error) { return nil, nil }

func TestSchemaDSL(t *testing.T) {
	tests := []struct {
		name   string
		schema Schema
		want   string
	}{
		{"string", String(), `{"type":"string"}`},
		{"number", Number(), `{"type":"number"}`},
		{"integer", Integer(), `{"type":"integer"}`},
		{"boolean", Boolean(), `{"type":"boolean"}`},
		{"null", Null(), `{"type":"null"}`},
		{"json", JSON(), `{}`},
		{"described", String().Describe("a path"), `{"type":"string","description":"a path"}`},
		{"enum", String().Enum("red", "green"), `{"type":"string","enum":["red","green"]}`},
		{"const", Integer().Const(2), `{"type":"integer","const":2}`},
		{"array", Array(Integer()), `{"type":"array","items":{"type":"integer"}}`},
		{"array any", Array(Schema{}), `{"type":"array"}`},
		{"open object", Object(Required("path", String()), Optional("limit", Integer())),
			`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`},
		{"closed object", Object(Optional("x", Boolean())).Closed(),
			`{"type":"object","properties":{"x":{"type":"boolean"}},"additionalProperties":false}`},
		{"empty object", Object(), `{"type":"object"}`},
		{"oneOf nullable", OneOf(String(), Null()), `{"oneOf":[{"type":"string"},{"type":"null"}]}`},
		{"raw", RawSchema(json.RawMessage(` {"type": "string", "format": "uri"} `)), `{"type":"string","format":"uri"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.schema)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// Modifiers return copies.
	base := String()
	_ = base.Describe("changed")
	if got, _ := json.Marshal(base); string(got) != `{"type":"string"}` {
		t.Errorf("Describe changed its receiver: %s", got)
	}
}

func TestRegisterRejectsBadSchemas(t *testing.T) {
	tests := []struct {
		name    string
		tool    Tool
		wantErr string
	}{
		{"enum of wrong type", Tool{Parameters: Object(Required("c", String().Enum("a", 1)))}, `tool "t": parameters: invalid schema at schema.c: enum value 1: is a number, not a string`},
		{"empty enum", Tool{Parameters: Object(Required("c", String().Enum()))}, "enum needs at least one value"},
		{"const not integer", Tool{Parameters: Object(Required("c", Integer().Const(1.5)))}, "const value 1.5: is not an integer"},
		{"one-branch oneOf", Tool{Parameters: Object(Required("c", OneOf(String())))}, "oneOf needs at least two branches"},
		{"duplicate property", Tool{Parameters: Object(Required("a", String()), Optional("a", Integer()))}, `property "a" is declared twice`},
		{"closed non-object", Tool{Parameters: Object(Required("a", String().Closed()))}, "apply only to objects"},
		{"raw not JSON", Tool{Parameters: RawSchema(json.RawMessage(`{"type":`))}, "raw schema is not valid JSON"},
		{"raw not compiling", Tool{Parameters: RawSchema(json.RawMessage(`{"type":"strin"}`))}, `tool "t": parameters:`},
		{"raw bad ref", Tool{Parameters: RawSchema(json.RawMessage(`{"$ref":"#/$defs/missing"}`))}, `tool "t": parameters:`},
		{"raw bad keyword", Tool{Parameters: RawSchema(json.RawMessage(`{"properties":{"n":{"minimum":"1"}}}`))}, `tool "t": parameters: invalid schema at /properties/n: "minimum" must be a number`},
		{"raw remote ref", Tool{Parameters: RawSchema(json.RawMessage(`{"properties":{"n":{"$ref":"https://x/y.json"}}}`))}, `tool "t": parameters: invalid schema at /properties/n: $ref "https://x/y.json": only references inside the schema are supported`},
		{"raw ref cycle", Tool{Parameters: RawSchema(json.RawMessage(`{"$ref":"#"}`))}, `tool "t": parameters: invalid schema at the root: $ref "#" leads back to the root schema, which applies to the same value: a reference cycle`},
		{"raw unknown draft", Tool{Parameters: RawSchema(json.RawMessage(`{"$schema":"http://json-schema.org/draft-03/schema#"}`))}, `unknown "$schema" "http://json-schema.org/draft-03/schema#"`},
		{"raw array schema", Tool{Parameters: RawSchema(json.RawMessage(`[1]`))}, "schema must be a JSON object or boolean"},
		{"output schema", Tool{Output: Output{Schema: RawSchema(json.RawMessage(`{"minimum":"x"}`))}}, `tool "t": output schema:`},
		{"negative timeout", Tool{TimeoutMs: -1}, "TimeoutMs must not be negative, got -1"},
		{"no execute", Tool{Execute: func(context.Context, *Call) (any, error) { return nil, nil }}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := tt.tool
			tool.Name = "t"
			if tool.Execute == nil {
				tool.Execute = nop
			}
			_, err := New().Register(&tool)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Register: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalidTool) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Register error = %v, want ErrInvalidTool containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRegisterRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", "a\nb", "bad\xffname", strings.Repeat("x", 129)} {
		if _, err := New().Register(&Tool{Name: name, Execute: nop}); !errors.Is(err, ErrInvalidTool) {
			t.Errorf("Register(%q) error = %v, want ErrInvalidTool", name, err)
		}
	}
	if _, err := New().Register(&Tool{Name: "t"}); err == nil || !strings.Contains(err.Error(), `tool "t" has no Execute function`) {
		t.Errorf("missing Execute: %v", err)
	}
	// Exotic but valid names are ordinary names.
	for _, name := range []string{"my-tool", "__proto__", "constructor", "mcp__fs__read.file"} {
		if _, err := New().Register(&Tool{Name: name, Execute: nop}); err != nil {
			t.Errorf("Register(%q): %v", name, err)
		}
	}
}

func TestValidateArgsMessages(t *testing.T) {
	tool := &Tool{Name: "t", Execute: nop, Parameters: Object(
		Required("path", String()),
		Optional("color", String().Enum("red", "green")),
		Optional("tags", Array(String())),
		Optional("config", Object(Required("host", String()), Optional("port", Integer()))),
		Optional("mode", Integer().Const(2)),
		Optional("v", OneOf(Number(), Integer())),
		Optional("closed", Object(Optional("a", Boolean())).Closed()),
	)}
	e, err := entryFor(tool)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want []string
	}{
		{"valid", `{"path":"/a","tags":["x"],"config":{"host":"h","port":1}}`, nil},
		{"missing required", `{}`, []string{`missing required property "path"`}},
		{"wrong type", `{"path":1}`, []string{`"path" must be a string`}},
		{"enum", `{"path":"a","color":"blue"}`, []string{`"color" must be one of ["red","green"]`}},
		{"array item", `{"path":"a","tags":["x",2]}`, []string{`"tags[1]" must be a string`}},
		{"nested required", `{"path":"a","config":{}}`, []string{`missing required property "config.host"`}},
		{"nested type", `{"path":"a","config":{"host":"h","port":1.5}}`, []string{`"config.port" must be an integer`}},
		{"const", `{"path":"a","mode":3}`, []string{`"mode" must be 2`}},
		{"oneOf matched 2", `{"path":"a","v":1}`, []string{`"v" must match exactly one oneOf branch (matched 2)`}},
		{"oneOf matched 0", `{"path":"a","v":"x"}`, []string{`"v" must match exactly one oneOf branch (matched 0)`}},
		{"not declared", `{"path":"a","closed":{"b":1}}`, []string{`"closed.b" is not a declared property (additionalProperties: false)`}},
		{"several sorted", `{"path":2,"color":"x"}`, []string{`"color" must be one of ["red","green"]`, `"path" must be a string`}},
		{"root not object", `"raw text"`, []string{`"arguments" must be an object`}},
		{"root array", `[1]`, []string{`"arguments" must be an object`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ValidateArgs(MustParseValue(tt.args))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// A raw schema that is not object-typed still requires an object root.
	raw, err := entryFor(&Tool{Name: "r", Execute: nop, Parameters: RawSchema(json.RawMessage(`{}`))})
	if err != nil {
		t.Fatal(err)
	}
	if got := raw.ValidateArgs(MustParseValue(`"x"`)); !slices.Equal(got, []string{`"arguments" must be an object`}) {
		t.Errorf("raw {} schema with string root: %v", got)
	}
}

func TestConcurrencySafeOnlyExactTrue(t *testing.T) {
	params := Object(Required("n", Integer()))
	tests := []struct {
		name string
		cls  func(Value) bool
		args string
		want bool
	}{
		{"true", func(Value) bool { return true }, `{"n":1}`, true},
		{"missing classifier", nil, `{"n":1}`, false},
		{"false", func(Value) bool { return false }, `{"n":1}`, false},
		{"panics", func(Value) bool { panic("boom") }, `{"n":1}`, false},
		{"invalid args", func(Value) bool { return true }, `{"n":"x"}`, false},
		{"depends on args", func(v Value) bool { return strings.Contains(v.String(), "1") }, `{"n":2}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := entryFor(&Tool{Name: "t", Execute: nop, Parameters: params, IsConcurrencySafe: tt.cls})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.ConcurrencySafe(MustParseValue(tt.args)); got != tt.want {
				t.Errorf("ConcurrencySafe = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDefaultRender(t *testing.T) {
	e, err := entryFor(&Tool{Name: "t", Execute: nop})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ value, want string }{
		{`"plain text"`, "plain text"},
		{`{"a":1,"b":[1,2]}`, "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}"},
		{`null`, "null"},
	} {
		got, err := e.Render(NullValue, MustParseValue(tt.value))
		if err != nil || !cmp.Equal(got, []Content{Text(tt.want)}) {
			t.Errorf("Render(%s) = %v, %v; want %q", tt.value, got, err, tt.want)
		}
	}
	panicky, _ := entryFor(&Tool{Name: "p", Execute: nop, Output: Output{Render: func(_, _ Value) ([]Content, error) { panic("render bug") }}})
	if _, err := panicky.Render(NullValue, NullValue); err == nil || !strings.Contains(err.Error(), "render panicked: render bug") {
		t.Errorf("panicking render: %v", err)
	}
}

// quickSchemas are schemas the quick plan handles, and quickValues values to try
// against them: shared by TestQuickPlan and FuzzQuickPlan.
var quickSchemas = []string{
	`{}`, `true`, `{"description":"any"}`,
	`{"type":"null"}`, `{"type":"boolean"}`, `{"type":"object"}`, `{"type":"array","description":"d"}`,
	`{"type":"number"}`, `{"type":"integer"}`, `{"type":"string"}`,
	`{"type":"object","properties":{"i":{"type":"integer"},"text":{"type":"string"}},"required":["i","text"],"additionalProperties":false}`,
	`{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":10000}}}`,
	`{"properties":{"a":{"type":"array","items":{"type":"number","minimum":0.1}}},"required":["b"]}`,
	`{"type":"array","items":{"type":"object","properties":{"x":true},"additionalProperties":false}}`,
}

var quickValues = []string{
	`null`, `true`, `false`, `{}`, `[]`, `0`, `1`, `1.5`, `1e+21`, `1e-7`, `-3`, `"s"`, `"a\"b"`,
	`{"i":1,"text":"x"}`, `{"text":"x","i":1}`, `{"i":1.5,"text":"x"}`, `{"i":1}`, `{"i":1,"text":"x","z":null}`,
	`{"i":1,"text":2}`, `{"i\u0000":1,"text":"x"}`,
	`{"limit":1}`, `{"limit":0}`, `{"limit":10000}`, `{"limit":10001}`, `{"limit":5.5}`, `{"limit":"5"}`,
	`{"a":[0.1,0.2,5],"b":{"c":[1,{"d":"}"}]}}`, `{"a":[0.05],"b":1}`, `{"a":[],"b":[]}`, `{"a":{}}`,
	`[{"x":1},{"x":[{"y":"]"}]}]`, `[{"x":1,"y":2}]`, `[1]`, `[[]]`,
}

// TestQuickPlan pins that the quick plan only ever shortens validation: every value
// gets the same answer (and messages) as from the validator alone, the plan is built
// for each of these schemas, and it accepts the valid values it is meant to speed up.
func TestQuickPlan(t *testing.T) {
	for _, schema := range quickSchemas {
		fast, err := compileSchema(RawSchema(json.RawMessage(schema)), "")
		if err != nil {
			t.Fatal(err)
		}
		if fast.quick == nil {
			t.Errorf("%s: no quick plan", schema)
			continue
		}
		slow := &compiled{schema: fast.schema}
		for _, v := range quickValues {
			val := MustParseValue(v)
			got, want := fast.validate(val, "arguments"), slow.validate(val, "arguments")
			if !cmp.Equal(got, want) {
				t.Errorf("schema %s, value %s: with plan %v, validator %v", schema, v, got, want)
			}
			if fast.quick.accepts(val) && want != nil {
				t.Errorf("schema %s, value %s: plan accepts an invalid value", schema, v)
			}
		}
	}
	// Accepting, not just deferring: the values the benchmarks send pass the walk.
	for _, tt := range []struct{ schema, value string }{
		{quickSchemas[10], `{"i":3,"text":"msg-3"}`},
		{quickSchemas[11], `{"limit":9999}`},
		{quickSchemas[12], `{"a":[0.2,7],"b":{"c":[1,{"d":"}"}]}}`},
		{quickSchemas[13], `[{"x":[{"y":"]"}]},{}]`},
		{`{}`, `[1,{"a":"b"}]`},
	} {
		c, _ := compileSchema(RawSchema(json.RawMessage(tt.schema)), "")
		if !c.quick.accepts(MustParseValue(tt.value)) {
			t.Errorf("schema %s: plan defers on valid %s", tt.schema, tt.value)
		}
	}
	for _, schema := range []string{`false`, `{"maxLength":0}`, `{"enum":[1]}`, `{"additionalProperties":{"type":"string"}}`, `{"type":["string","null"]}`, `{"properties":{"a":{"$ref":"#"}}}`} {
		if c, err := compileSchema(RawSchema(json.RawMessage(schema)), ""); err != nil || c.quick != nil {
			t.Errorf("%s: quick plan built for a keyword it does not implement (%v)", schema, err)
		}
	}
}

// FuzzQuickPlan checks the plan's one promise on arbitrary values: it never accepts
// what the validator rejects (it may defer on valid values).
func FuzzQuickPlan(f *testing.F) {
	for _, v := range quickValues {
		f.Add(v)
	}
	var plans []*compiled
	for _, schema := range quickSchemas {
		c, err := compileSchema(RawSchema(json.RawMessage(schema)), "")
		if err != nil {
			f.Fatal(err)
		}
		plans = append(plans, c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseValue([]byte(text))
		if err != nil {
			return
		}
		for i, c := range plans {
			if c.quick.accepts(v) && !c.schema.Valid(v.Any()) {
				t.Errorf("schema %s: plan accepts invalid %s", quickSchemas[i], v)
			}
		}
	})
}

// TestTupleItems: the array form of items (a tuple, with additionalItems) is defined by
// drafts 4 to 2019-09 and replaced by prefixItems in 2020-12. Real schemas use it
// without a $schema, and it is accepted and validated as those drafts do; a $schema
// still decides, and prefixItems keeps its 2020-12 meaning.
func TestTupleItems(t *testing.T) {
	tuple := `{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`
	tests := []struct {
		name, schema, args string
		want               []string
	}{
		{"tuple matches", tuple, `{"pair":["a",1]}`, nil},
		{"tuple item", tuple, `{"pair":["a","b"]}`, []string{`"pair[1]" must be an integer`}},
		{"additional items", tuple, `{"pair":["a",1,2]}`, []string{`"pair" has 1 item beyond its tuple (additionalItems: false)`}},
		{"draft-07 named", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"items":[{"type":"string"}]}}}`, `{"p":[1]}`, []string{`"p[0]" must be a string`}},
		{"prefixItems", `{"properties":{"p":{"prefixItems":[{"type":"string"}],"items":false}}}`, `{"p":["a",1]}`, []string{`"p[1]" is not allowed`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := entryFor(&Tool{Name: "t", Execute: nop, Parameters: RawSchema(json.RawMessage(tt.schema))})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, e.ValidateArgs(MustParseValue(tt.args))); diff != "" {
				t.Errorf("violations mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// A 2020-12 schema that also uses the array form stays rejected: its prefixItems
	// would be ignored under an older draft.
	if _, err := entryFor(&Tool{Name: "t", Execute: nop, Parameters: RawSchema(json.RawMessage(`{"properties":{"a":{"prefixItems":[{}]},"b":{"items":[{}]}}}`))}); err == nil {
		t.Error("a schema mixing prefixItems and tuple items registered")
	}
}

// TestValidatePhrases pins the wording of every kind of violation: the value's
// location first, then what it must be.
func TestValidatePhrases(t *testing.T) {
	tests := []struct {
		name, schema, value string
		want                []string
	}{
		{"minimum", `{"properties":{"n":{"minimum":10}}}`, `{"n":9.5}`, []string{`"n" must be at least 10`}},
		{"exclusiveMinimum", `{"properties":{"n":{"exclusiveMinimum":10}}}`, `{"n":10}`, []string{`"n" must be greater than 10`}},
		{"maximum", `{"properties":{"n":{"maximum":10}}}`, `{"n":11}`, []string{`"n" must be at most 10`}},
		{"exclusiveMaximum", `{"properties":{"n":{"exclusiveMaximum":10}}}`, `{"n":10}`, []string{`"n" must be less than 10`}},
		{"draft-04 exclusiveMaximum", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"maximum":10,"exclusiveMaximum":true}}}`, `{"n":10}`, []string{`"n" must be less than 10`}},
		{"multipleOf", `{"properties":{"x":{"multipleOf":0.5}}}`, `{"x":1.2}`, []string{`"x" must be a multiple of 0.5`}},
		{"multipleOf exact", `{"properties":{"x":{"multipleOf":0.01}}}`, `{"x":19.99}`, nil},
		{"minLength", `{"properties":{"s":{"minLength":3}}}`, `{"s":"ab"}`, []string{`"s" must be at least 3 characters long`}},
		{"minLength code points", `{"properties":{"s":{"minLength":2}}}`, `{"s":"é😀"}`, nil},
		{"maxLength", `{"properties":{"s":{"maxLength":8}}}`, `{"s":"abcdefghi"}`, []string{`"s" must be at most 8 characters long`}},
		{"maxLength 1", `{"properties":{"s":{"maxLength":1}}}`, `{"s":"ab"}`, []string{`"s" must be at most 1 character long`}},
		{"pattern", `{"properties":{"s":{"pattern":"^a+$"}}}`, `{"s":"ab"}`, []string{`"s" must match the pattern "^a+$"`}},
		{"pattern searches", `{"properties":{"s":{"pattern":"b"}}}`, `{"s":"abc"}`, nil},
		{"minItems", `{"properties":{"a":{"minItems":2}}}`, `{"a":[1]}`, []string{`"a" must have at least 2 items`}},
		{"maxItems", `{"properties":{"a":{"maxItems":2}}}`, `{"a":[1,2,3]}`, []string{`"a" must have at most 2 items`}},
		{"uniqueItems", `{"properties":{"a":{"uniqueItems":true}}}`, `{"a":[1,{"x":[2]},1.0]}`, []string{`"a" must have unique items (items 0 and 2 are equal)`}},
		{"contains", `{"properties":{"a":{"contains":{"type":"string"}}}}`, `{"a":[1,2]}`, []string{`"a" must contain at least 1 item matching "contains"`}},
		{"minContains", `{"properties":{"a":{"contains":{"type":"string"},"minContains":2}}}`, `{"a":["x",2]}`, []string{`"a" must contain at least 2 items matching "contains"`}},
		{"maxContains", `{"properties":{"a":{"contains":{"type":"string"},"maxContains":1}}}`, `{"a":["x","y"]}`, []string{`"a" must contain at most 1 item matching "contains"`}},
		{"minProperties", `{"properties":{"o":{"minProperties":1}}}`, `{"o":{}}`, []string{`"o" must have at least 1 property`}},
		{"maxProperties", `{"properties":{"o":{"maxProperties":3}}}`, `{"o":{"a":1,"b":2,"c":3,"d":4}}`, []string{`"o" must have at most 3 properties`}},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, []string{`missing property "b" (required when "a" is present)`}},
		{"dependencies nested", `{"properties":{"o":{"dependencies":{"a":["b"]}}}}`, `{"o":{"a":1}}`, []string{`missing property "o.b" (required when "o.a" is present)`}},
		{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["c"]}}}`, `{"a":1}`, []string{`missing required property "c"`}},
		{"propertyNames", `{"properties":{"o":{"propertyNames":{"pattern":"^[a-z]+$"}}}}`, `{"o":{"X":1,"y":2}}`, []string{`property name "X" in "o" must match the pattern "^[a-z]+$"`}},
		{"propertyNames false", `{"propertyNames":false}`, `{"a":1}`, []string{`property name "a" in "arguments" is not allowed`}},
		{"unevaluatedProperties", `{"properties":{"o":{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}}}`, `{"o":{"a":1,"x":2}}`, []string{`"o.x" is not evaluated by any subschema (unevaluatedProperties: false)`}},
		{"unevaluatedItems", `{"properties":{"a":{"prefixItems":[true],"unevaluatedItems":false}}}`, `{"a":[1,2]}`, []string{`"a[1]" is not evaluated by any subschema (unevaluatedItems: false)`}},
		{"not", `{"properties":{"v":{"not":{"type":"string"}}}}`, `{"v":"s"}`, []string{`"v" must not match the schema under "not"`}},
		{"anyOf", `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, `{"v":1}`, []string{`"v" must match at least one anyOf branch`}},
		{"type list", `{"properties":{"v":{"type":["string","null"]}}}`, `{"v":1}`, []string{`"v" must be a string or null`}},
		{"allOf reports the branch", `{"allOf":[{"required":["a"]},{"properties":{"b":{"type":"string"}}}]}`, `{"b":1}`, []string{`"b" must be a string`, `missing required property "a"`}},
		{"ref reports the target", `{"$defs":{"s":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/s"}}}`, `{"p":1}`, []string{`"p" must be a string`}},
		{"then reports", `{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`, []string{`missing required property "b"`}},
		{"else reports", `{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{}`, []string{`missing required property "c"`}},
		{"false schema", `{"properties":{"p":false}}`, `{"p":1}`, []string{`"p" is not allowed`}},
		{"deduplicated", `{"allOf":[{"required":["a"]},{"required":["a"]}]}`, `{}`, []string{`missing required property "a"`}},
		{"format is an annotation", `{"properties":{"e":{"format":"email"}}}`, `{"e":"not an email"}`, nil},
		{"integer 1.0", `{"properties":{"i":{"type":"integer"}}}`, `{"i":1.0}`, nil},
		{"member named 1", `{"properties":{"a":{"additionalProperties":{"type":"string"}}}}`, `{"a":{"1":5}}`, []string{`"a.1" must be a string`}},
		{"index under a member", `{"properties":{"a":{"items":{"items":{"type":"string"}}}}}`, `{"a":[["x",2]]}`, []string{`"a[0][1]" must be a string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := entryFor(&Tool{Name: "t", Execute: nop, Parameters: RawSchema(json.RawMessage(tt.schema))})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, e.ValidateArgs(MustParseValue(tt.value))); diff != "" {
				t.Errorf("violations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutputPathAtAnArrayRoot: an item of an array at the root is named after the root,
// as "output[1]", not as a bare index.
func TestOutputPathAtAnArrayRoot(t *testing.T) {
	e, err := entryFor(&Tool{Name: "t", Execute: nop, Output: Output{Schema: RawSchema(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`"output[1]" must be a string`}, e.ValidateOutput(MustParseValue(`["a",2]`))); diff != "" {
		t.Errorf("violations mismatch (-want +got):\n%s", diff)
	}
}

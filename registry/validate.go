package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/runcode-go/runcode/internal/jsonschema"
)

// compiled is a schema compiled once at registration: its canonical JSON text (what
// the model and SDKs read) and the validator.
type compiled struct {
	text   json.RawMessage
	schema *jsonschema.Schema
	// quick, when the schema is simple enough, accepts values without the validator,
	// which needs the value decoded into a Go tree and allocates even for
	// {"type":"string"}; see plan.
	quick *plan
}

// compileSchema renders and compiles s. def is used when s is the zero Schema. A schema
// is read as the draft its $schema names, else as draft 2020-12, or as 2019-09 when it
// uses the array form of items and nothing only 2020-12 defines (jsonschema.Compile).
func compileSchema(s Schema, def string) (*compiled, error) {
	text := []byte(def)
	if !s.IsZero() {
		var err error
		if text, err = s.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	doc, err := decodeSchema(text)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, ok := doc.(bool); !ok {
			return nil, errors.New("schema must be a JSON object or boolean")
		}
	}
	sch, err := jsonschema.Compile(doc, nil)
	if err != nil {
		return nil, err
	}
	out := &compiled{text: text, schema: sch}
	out.quick = newPlan(doc, 0)
	return out, nil
}

// decodeSchema decodes one JSON value, numbers as json.Number (exact).
func decodeSchema(text []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return doc, nil
}

// validate checks v against the schema. root names the value in messages
// ("arguments", "output"). It returns the violations, sorted, or nil.
func (c *compiled) validate(v Value, root string) []string {
	if c.quick != nil && c.quick.accepts(v) {
		return nil
	}
	doc := v.Any()
	violations := c.schema.Validate(doc)
	if violations == nil {
		return nil
	}
	out := make([]string, 0, len(violations))
	for _, vi := range violations {
		out = appendPhrases(out, vi, func(extra ...string) string {
			return strconv.Quote(pathText(root, doc, append(slices.Clone(vi.Path), extra...)))
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appendPhrases words a violation as the reference does: the value's location first
// ("config.port" must be an integer). at quotes the location of the violation's value,
// or of its member named by extra.
func appendPhrases(out []string, v jsonschema.Violation, at func(extra ...string) string) []string {
	subject := at()
	switch v.Keyword {
	case "type":
		want := make([]string, len(v.Types))
		for i, t := range v.Types {
			want[i] = article(t)
		}
		return append(out, subject+" must be "+strings.Join(want, " or "))
	case "enum":
		return append(out, subject+" must be one of "+compactJSON(v.Values))
	case "const":
		return append(out, subject+" must be "+compactJSON(v.Values[0]))
	case "minimum":
		return append(out, subject+" must be at least "+v.Number)
	case "maximum":
		return append(out, subject+" must be at most "+v.Number)
	case "exclusiveMinimum":
		return append(out, subject+" must be greater than "+v.Number)
	case "exclusiveMaximum":
		return append(out, subject+" must be less than "+v.Number)
	case "multipleOf":
		return append(out, subject+" must be a multiple of "+v.Number)
	case "minLength":
		return append(out, subject+" must be at least "+count(v.Limit, "character")+" long")
	case "maxLength":
		return append(out, subject+" must be at most "+count(v.Limit, "character")+" long")
	case "pattern":
		return append(out, subject+" must match the pattern "+strconv.Quote(v.Pattern))
	case "minItems":
		return append(out, subject+" must have at least "+count(v.Limit, "item"))
	case "maxItems":
		return append(out, subject+" must have at most "+count(v.Limit, "item"))
	case "uniqueItems":
		return append(out, fmt.Sprintf("%s must have unique items (items %d and %d are equal)", subject, v.Items[0], v.Items[1]))
	case "contains", "minContains":
		return append(out, subject+" must contain at least "+count(v.Limit, "item")+` matching "contains"`)
	case "maxContains":
		return append(out, subject+" must contain at most "+count(v.Limit, "item")+` matching "contains"`)
	case "minProperties":
		return append(out, subject+" must have at least "+count(v.Limit, "property"))
	case "maxProperties":
		return append(out, subject+" must have at most "+count(v.Limit, "property"))
	case "required":
		return append(out, "missing required property "+at(v.Property))
	case "dependentRequired", "dependencies":
		return append(out, "missing property "+at(v.Property)+" (required when "+at(v.Trigger)+" is present)")
	case "additionalProperties":
		return append(out, at(v.Property)+" is not a declared property (additionalProperties: false)")
	case "unevaluatedProperties":
		return append(out, at(v.Property)+" is not evaluated by any subschema (unevaluatedProperties: false)")
	case "unevaluatedItems":
		return append(out, subject+" is not evaluated by any subschema (unevaluatedItems: false)")
	case "additionalItems":
		return append(out, subject+" has "+count(v.Limit, "item")+" beyond its tuple (additionalItems: false)")
	case "propertyNames":
		// The name's own violations, worded with the name as their subject.
		name := "property name " + strconv.Quote(v.Property) + " in " + subject
		if len(v.Causes) == 0 {
			return append(out, name+" is not allowed")
		}
		for _, c := range v.Causes {
			out = appendPhrases(out, c, func(extra ...string) string {
				if len(extra) == 0 {
					return name
				}
				return name + " " + strconv.Quote(strings.Join(extra, "."))
			})
		}
		return out
	case "anyOf":
		return append(out, subject+" must match at least one anyOf branch")
	case "oneOf":
		return append(out, fmt.Sprintf("%s must match exactly one oneOf branch (matched %d)", subject, v.Matched))
	case "not":
		return append(out, subject+` must not match the schema under "not"`)
	case "false":
		return append(out, subject+" is not allowed")
	case "depth":
		return append(out, fmt.Sprintf("%s nests too deeply to validate (over %d levels)", subject, v.Limit))
	case "budget":
		return append(out, fmt.Sprintf("%s is too large to validate against this schema (over %d steps)", subject, v.Limit))
	case "cycle":
		return append(out, subject+" cannot be validated: the schema's references loop")
	}
	return append(out, subject+" fails "+strconv.Quote(v.Keyword))
}

// count spells n nouns: "1 item", "2 items", "3 properties".
func count(n int, noun string) string {
	if n != 1 {
		if p, ok := strings.CutSuffix(noun, "y"); ok {
			noun = p + "ies"
		} else {
			noun += "s"
		}
	}
	return strconv.Itoa(n) + " " + noun
}

// pathText spells an instance location as the reference does: the root name alone, a
// member path ("config.host"), an array index in brackets ("tags[1]", "output[0]" for
// an array at the root). doc is the value the location is in: it says which steps are
// indexes, so a member named "1" stays a member ("a.1").
func pathText(root string, doc any, loc []string) string {
	if len(loc) == 0 {
		return root
	}
	var b strings.Builder
	for i, p := range loc {
		if arr, ok := doc.([]any); ok {
			if i == 0 {
				b.WriteString(root)
			}
			b.WriteString("[" + p + "]")
			doc = nil
			if n, err := strconv.Atoi(p); err == nil && n >= 0 && n < len(arr) {
				doc = arr[n]
			}
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
		m, _ := doc.(map[string]any)
		doc = m[p]
	}
	return b.String()
}

func article(typ string) string {
	switch typ {
	case "null":
		return "null"
	case "object", "array", "integer":
		return "an " + typ
	}
	return "a " + typ
}

func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// isInteger reports whether canonical number text is a mathematical integer.
func isInteger(num string) bool {
	if strings.ContainsRune(num, '.') {
		return false
	}
	return !strings.Contains(num, "e-")
}

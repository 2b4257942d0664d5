package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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

// compileSchema renders and compiles s. def is used when s is the zero Schema.
func compileSchema(s Schema, def string) (*compiled, error) {
	text := []byte(def)
	if !s.IsZero() {
		var err error
		if text, err = s.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(text)))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, ok := doc.(bool); !ok {
			return nil, errors.New("schema must be a JSON object or boolean")
		}
	}
	sch, err := compileDraft(doc, jsonschema.Draft2020)
	if err != nil && olderDraft(doc) {
		if older, err2 := compileDraft(doc, jsonschema.Draft2019); err2 == nil {
			sch, err = older, nil
		}
	}
	if err != nil {
		return nil, err
	}
	out := &compiled{text: text, schema: sch}
	out.quick = newPlan(doc, 0)
	return out, nil
}

// compileDraft compiles a schema document, under draft unless it names its own.
func compileDraft(doc any, draft *jsonschema.Draft) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	const loc = "mem:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// olderDraft reports whether a schema that failed to compile as draft 2020-12 is written
// for an older draft, whose meaning a draft 2019-09 compile keeps: it names no $schema,
// uses the array form of items (a tuple, which drafts 4 to 2019-09 define and 2020-12
// replaced with prefixItems), and none of the keywords only 2020-12 defines (which an
// older draft would silently ignore). The walk keeps its own stack: schemas nest
// without bound.
func olderDraft(doc any) bool {
	root, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := root["$schema"]; ok {
		return false
	}
	tuple := false
	stack := []any{doc}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch k {
				case "prefixItems", "$dynamicRef", "$dynamicAnchor":
					return false
				case "items":
					_, isArray := x.([]any)
					tuple = tuple || isArray
				}
				stack = append(stack, x)
			}
		case []any:
			stack = append(stack, v...)
		}
	}
	return tuple
}

// validate checks v against the schema. root names the value in messages
// ("arguments", "output"). It returns the violations, sorted, or nil.
func (c *compiled) validate(v Value, root string) []string {
	if c.quick != nil && c.quick.accepts(v) {
		return nil
	}
	err := c.schema.Validate(v.Any())
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	collect(ve, root, &out)
	slices.Sort(out)
	return slices.Compact(out)
}

var printer = message.NewPrinter(language.English)

// collect turns the validator's error tree into the reference's violation phrases.
func collect(e *jsonschema.ValidationError, root string, out *[]string) {
	at := func(extra ...string) string {
		loc := append(slices.Clone(e.InstanceLocation), extra...)
		return strconv.Quote(pathText(root, loc))
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf, *kind.Not:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				collect(c, root, out)
			}
			return
		}
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, "missing required property "+at(m))
		}
		return
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
		}
		*out = append(*out, at()+" must be "+strings.Join(want, " or "))
		return
	case *kind.Enum:
		*out = append(*out, at()+" must be one of "+compactJSON(k.Want))
		return
	case *kind.Const:
		*out = append(*out, at()+" must be "+compactJSON(k.Want))
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, at(p)+" is not a declared property (additionalProperties: false)")
		}
		return
	case *kind.OneOf:
		*out = append(*out, fmt.Sprintf("%s must match exactly one oneOf branch (matched %d)", at(), len(k.Subschemas)))
		return
	case *kind.AnyOf:
		*out = append(*out, at()+" must match at least one anyOf branch")
		return
	case *kind.FalseSchema:
		*out = append(*out, at()+" is not allowed")
		return
	case *kind.AdditionalItems: // older drafts' tuples (see olderDraft)
		noun := "items"
		if k.Count == 1 {
			noun = "item"
		}
		*out = append(*out, printer.Sprintf("%s has %d %s beyond its tuple (additionalItems: false)", at(), k.Count, noun))
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, root, out)
		}
		return
	}
	*out = append(*out, at()+" "+e.ErrorKind.LocalizedString(printer))
}

// pathText spells an instance location as the reference does: the root name alone, or
// a dotted path with [i] for array indexes ("config.host", "tags[1]").
func pathText(root string, loc []string) string {
	if len(loc) == 0 {
		return root
	}
	var b strings.Builder
	for i, p := range loc {
		if _, err := strconv.Atoi(p); err == nil && i > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
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

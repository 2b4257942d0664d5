package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// keywords compiles the keywords of one schema object.
type keywords struct {
	c     *compiler
	s     *schema
	m     map[string]any
	res   *resource
	draft Draft
	depth int
}

func (k *keywords) errorf(format string, args ...any) error { return k.c.errorf(k.s, format, args...) }

func (k *keywords) sub(raw any, at string, boolOK bool) (*schema, error) {
	return k.c.node(raw, k.s, at, k.res, k.draft, k.depth+1, boolOK)
}

// refOnly compiles a draft 4-7 schema with $ref, whose other keywords are ignored;
// definitions beside it are still compiled, for the $ids and anchors they declare,
// and the rest are checked as a ghost.
func (k *keywords) refOnly() error {
	if err := k.ref(); err != nil {
		return err
	}
	if _, err := k.schemaMap("definitions"); err != nil {
		return err
	}
	k.c.ghost++
	defer func() { k.c.ghost-- }()
	ghost := *k
	ghost.s = &schema{up: k.s.up, at: k.s.at, res: k.res, draft: k.draft}
	return ghost.all()
}

func (k *keywords) ref() error {
	s := k.s
	var err error
	if s.refText, err = k.optStr("$ref"); err != nil {
		return err
	}
	if k.draft == Draft2020 {
		s.dynRefText, err = k.optStr("$dynamicRef")
	} else if k.draft == Draft2019 {
		s.recRefText, err = k.optStr("$recursiveRef")
	}
	return err
}

// optStr reads an optional string keyword, nil when absent.
func (k *keywords) optStr(key string) (*string, error) {
	if _, ok := k.m[key]; !ok {
		return nil, nil
	}
	s, err := k.str(key)
	return &s, err
}

func (k *keywords) all() error {
	s, d := k.s, k.draft
	if err := k.ref(); err != nil {
		return err
	}
	if d >= Draft2019 {
		if name, err := k.str("$anchor"); err != nil {
			return err
		} else if name != "" || k.m["$anchor"] != nil {
			if !validAnchor(name) {
				return k.errorf(`"$anchor" %q is not a valid anchor name`, name)
			}
			if err := k.c.anchor(s, k.res, name, false); err != nil {
				return err
			}
		}
	}
	if d == Draft2020 {
		if name, err := k.str("$dynamicAnchor"); err != nil {
			return err
		} else if name != "" || k.m["$dynamicAnchor"] != nil {
			if !validAnchor(name) {
				return k.errorf(`"$dynamicAnchor" %q is not a valid anchor name`, name)
			}
			if err := k.c.anchor(s, k.res, name, true); err != nil {
				return err
			}
		}
	}
	if d == Draft2019 {
		if v, ok := k.m["$recursiveAnchor"]; ok {
			b, ok := v.(bool)
			if !ok {
				return k.errorf(`"$recursiveAnchor" must be a boolean`)
			}
			s.recursiveAnchor = b
			if b && k.res.root == s && k.c.ghost == 0 {
				k.c.recRoot = append(k.c.recRoot, s)
			}
		}
	}
	for _, step := range []func() error{k.definitions, k.validation, k.numeric, k.applicators, k.arrays, k.objects} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (k *keywords) definitions() error {
	if _, err := k.schemaMap("definitions"); err != nil {
		return err
	}
	if k.draft >= Draft2019 {
		if _, err := k.schemaMap("$defs"); err != nil {
			return err
		}
	}
	return nil
}

func (k *keywords) validation() error {
	s := k.s
	if v, ok := k.m["type"]; ok {
		var names []any
		switch x := v.(type) {
		case string:
			names = []any{x}
		case []any:
			if len(x) == 0 {
				return k.errorf(`"type" must not be an empty array`)
			}
			names = x
		default:
			return k.errorf(`"type" must be a type name or an array of them, not %s`, describe(v))
		}
		for _, n := range names {
			name, ok := n.(string)
			if !ok {
				return k.errorf(`"type" must list type names (strings), not %s`, describe(n))
			}
			bit := typeBit(name)
			if bit == 0 {
				return k.errorf(`"type" names an unknown type %q; the types are array, boolean, integer, null, number, object and string`, name)
			}
			if s.types&bit != 0 {
				return k.errorf(`"type" names %q twice`, name)
			}
			s.types |= bit
			s.typeList = append(s.typeList, name)
		}
	}
	if v, ok := k.m["enum"]; ok {
		list, ok := v.([]any)
		if !ok {
			return k.errorf(`"enum" must be an array`)
		}
		if err := k.values("enum", v); err != nil {
			return err
		}
		if k.draft <= Draft7 { // their metaschemas: a non-empty array of unique values
			if len(list) == 0 {
				return k.errorf(`"enum" must not be empty`)
			}
			seen := map[string]bool{}
			for _, x := range list {
				key, _ := canonical(nil, x)
				if seen[string(key)] {
					text, _ := json.Marshal(x)
					return k.errorf(`"enum" lists %s twice`, text)
				}
				seen[string(key)] = true
			}
		}
		s.enum = newValueSet(list)
	}
	if v, ok := k.m["const"]; ok && k.draft >= Draft6 {
		if err := k.values("const", v); err != nil {
			return err
		}
		s.constant = newValueSet([]any{v})
	}
	var err error
	if s.minLength, err = k.count("minLength"); err != nil {
		return err
	}
	if s.maxLength, err = k.count("maxLength"); err != nil {
		return err
	}
	if v, ok := k.m["pattern"]; ok {
		p, ok := v.(string)
		if !ok {
			return k.errorf(`"pattern" must be a string`)
		}
		if s.pattern, err = compilePattern(p); err != nil {
			return k.errorf(`"pattern" %q: %v`, p, err)
		}
	}
	return nil
}

// values checks that an enum or const holds only JSON values Validate can compare.
func (k *keywords) values(keyword string, v any) error {
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case map[string]any:
			for _, e := range x {
				stack = append(stack, e)
			}
		case []any:
			stack = append(stack, x...)
		default:
			if kindOf(x) == 0 {
				return k.errorf(`%q holds %s, which is not a JSON value`, keyword, describe(x))
			}
		}
	}
	return nil
}

func (k *keywords) numeric() error {
	s, d := k.s, k.draft
	var err error
	if s.multipleOf, err = k.num("multipleOf"); err != nil {
		return err
	}
	if s.multipleOf != nil && s.multipleOf.d.sign() <= 0 {
		return k.errorf(`"multipleOf" must be greater than 0`)
	}
	if s.minimum, err = k.num("minimum"); err != nil {
		return err
	}
	if s.maximum, err = k.num("maximum"); err != nil {
		return err
	}
	if d == Draft4 {
		// Booleans that make minimum and maximum exclusive.
		for _, b := range []struct {
			key   string
			bound **number
			excl  **number
			needs string
		}{{"exclusiveMinimum", &s.minimum, &s.exclMin, "minimum"}, {"exclusiveMaximum", &s.maximum, &s.exclMax, "maximum"}} {
			v, ok := k.m[b.key]
			if !ok {
				continue
			}
			excl, ok := v.(bool)
			if !ok {
				return k.errorf(`%q must be a boolean in draft-04`, b.key)
			}
			if *b.bound == nil {
				return k.errorf(`%q needs %q beside it`, b.key, b.needs)
			}
			if excl {
				*b.excl, *b.bound = *b.bound, nil
			}
		}
	} else {
		if s.exclMin, err = k.num("exclusiveMinimum"); err != nil {
			return err
		}
		if s.exclMax, err = k.num("exclusiveMaximum"); err != nil {
			return err
		}
	}
	s.hasNumeric = s.multipleOf != nil || s.minimum != nil || s.maximum != nil || s.exclMin != nil || s.exclMax != nil
	return nil
}

func (k *keywords) applicators() error {
	s, d := k.s, k.draft
	var err error
	for _, l := range []struct {
		key string
		dst *[]*schema
	}{{"allOf", &s.allOf}, {"anyOf", &s.anyOf}, {"oneOf", &s.oneOf}} {
		if *l.dst, err = k.schemaList(l.key); err != nil {
			return err
		}
	}
	if s.not, err = k.schema("not"); err != nil {
		return err
	}
	if d >= Draft7 {
		if s.ifS, err = k.schema("if"); err != nil {
			return err
		}
		if s.thenS, err = k.schema("then"); err != nil {
			return err
		}
		if s.elseS, err = k.schema("else"); err != nil {
			return err
		}
		if s.ifS == nil {
			s.thenS, s.elseS = nil, nil // checked, and ignored without if
		}
	}
	return nil
}

func (k *keywords) arrays() error {
	s, d := k.s, k.draft
	var err error
	if s.minItems, err = k.count("minItems"); err != nil {
		return err
	}
	if s.maxItems, err = k.count("maxItems"); err != nil {
		return err
	}
	if v, ok := k.m["uniqueItems"]; ok {
		if s.uniqueItems, ok = v.(bool); !ok {
			return k.errorf(`"uniqueItems" must be a boolean`)
		}
	}
	if d == Draft2020 {
		if s.prefix, err = k.schemaList("prefixItems"); err != nil {
			return err
		}
		if s.items, err = k.schema("items"); err != nil {
			return err
		}
	} else if v, ok := k.m["items"]; ok {
		if _, isArray := v.([]any); isArray {
			if s.prefix, err = k.schemaArray("items"); err != nil {
				return err
			}
			s.tuple = true
			if s.items, err = k.schemaBoolOK("additionalItems"); err != nil {
				return err
			}
		} else if s.items, err = k.schema("items"); err != nil {
			return err
		}
	} else if _, err = k.schemaBoolOK("additionalItems"); err != nil { // checked, and ignored without a tuple
		return err
	}
	if d >= Draft6 {
		if s.contains, err = k.schema("contains"); err != nil {
			return err
		}
	}
	if d >= Draft2019 {
		if s.minContains, err = k.count("minContains"); err != nil {
			return err
		}
		if s.maxContains, err = k.count("maxContains"); err != nil {
			return err
		}
		if s.unevalItems, err = k.schema("unevaluatedItems"); err != nil {
			return err
		}
	}
	return nil
}

func (k *keywords) objects() error {
	s, d := k.s, k.draft
	var err error
	if s.minProperties, err = k.count("minProperties"); err != nil {
		return err
	}
	if s.maxProperties, err = k.count("maxProperties"); err != nil {
		return err
	}
	if v, ok := k.m["required"]; ok {
		if s.required, err = k.strings("required", v); err != nil {
			return err
		}
	}
	if d == Draft4 && s.required != nil && len(s.required) == 0 {
		return k.errorf(`"required" must not be empty in draft-04`)
	}
	if s.properties, err = k.schemaMap("properties"); err != nil {
		return err
	}
	if v, ok := k.m["patternProperties"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return k.errorf(`"patternProperties" must be an object`)
		}
		for _, p := range sortedKeys(m) {
			re, err := compilePattern(p)
			if err != nil {
				return k.errorf(`"patternProperties" %q: %v`, p, err)
			}
			sub, err := k.sub(m[p], "patternProperties/"+escapeToken(p), false)
			if err != nil {
				return err
			}
			s.patternProps = append(s.patternProps, patternProp{re, sub})
		}
	}
	if s.additionalProps, err = k.schemaBoolOK("additionalProperties"); err != nil {
		return err
	}
	if d >= Draft6 {
		if s.propertyNames, err = k.schema("propertyNames"); err != nil {
			return err
		}
	}
	// dependencies, split in 2019-09 into dependentRequired and dependentSchemas, is
	// kept in every draft: schemas written for the older drafts use it without $schema.
	if v, ok := k.m["dependencies"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return k.errorf(`"dependencies" must be an object`)
		}
		for _, name := range sortedKeys(m) {
			if list, isArray := m[name].([]any); isArray {
				need, err := k.strings(`"dependencies" of `+strconv.Quote(name), list)
				if err != nil {
					return err
				}
				if len(need) == 0 && d == Draft4 {
					return k.errorf(`"dependencies" of %q must not be empty in draft-04`, name)
				}
				s.dependentRequired = append(s.dependentRequired, depRequired{name, need, "dependencies"})
				continue
			}
			sub, err := k.sub(m[name], "dependencies/"+escapeToken(name), false)
			if err != nil {
				return err
			}
			s.dependentSchemas = append(s.dependentSchemas, depSchema{name, sub})
		}
	}
	if d >= Draft2019 {
		if v, ok := k.m["dependentRequired"]; ok {
			m, ok := v.(map[string]any)
			if !ok {
				return k.errorf(`"dependentRequired" must be an object`)
			}
			for _, name := range sortedKeys(m) {
				need, err := k.strings(`"dependentRequired" of `+strconv.Quote(name), m[name])
				if err != nil {
					return err
				}
				s.dependentRequired = append(s.dependentRequired, depRequired{name, need, "dependentRequired"})
			}
		}
		deps, err := k.schemaMap("dependentSchemas")
		if err != nil {
			return err
		}
		for _, name := range sortedKeys(deps) {
			s.dependentSchemas = append(s.dependentSchemas, depSchema{name, deps[name]})
		}
		if s.unevalProps, err = k.schema("unevaluatedProperties"); err != nil {
			return err
		}
	}
	return nil
}

// str reads an optional string keyword ("" when absent).
func (k *keywords) str(key string) (string, error) {
	v, ok := k.m[key]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", k.errorf("%q must be a string", key)
	}
	return s, nil
}

// strings reads an array of strings. what names it in errors: a keyword, or a
// keyword's member.
func (k *keywords) strings(what string, v any) ([]string, error) {
	if !strings.HasPrefix(what, `"`) {
		what = strconv.Quote(what)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, k.errorf("%s must be an array of strings", what)
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, k.errorf("%s must be an array of strings, not hold %s", what, describe(x))
		}
	}
	return out, nil
}

func (k *keywords) num(key string) (*number, error) {
	v, ok := k.m[key]
	if !ok {
		return nil, nil
	}
	d, ok := toDecimal(v)
	if !ok {
		return nil, k.errorf("%q must be a number", key)
	}
	text := fmt.Sprint(v)
	return &number{d: d, text: text}, nil
}

// count reads a non-negative integer keyword, -1 when absent. Counts past the largest
// int mean "no limit" in practice and saturate.
func (k *keywords) count(key string) (int, error) {
	v, ok := k.m[key]
	if !ok {
		return -1, nil
	}
	d, ok := toDecimal(v)
	if !ok || !d.integer() || d.neg {
		return 0, k.errorf("%q must be a non-negative integer", key)
	}
	if d.zero() {
		return 0, nil
	}
	if int64(d.n())+d.exp > 18 {
		return math.MaxInt, nil
	}
	n := 0
	for i := range d.n() {
		n = n*10 + int(d.digit(i)-'0')
	}
	for range d.exp {
		n *= 10
	}
	return n, nil
}

func (k *keywords) schema(key string) (*schema, error) {
	v, ok := k.m[key]
	if !ok {
		return nil, nil
	}
	return k.sub(v, escapeToken(key), false)
}

// schemaBoolOK reads a keyword whose value may be a boolean even in draft 4.
func (k *keywords) schemaBoolOK(key string) (*schema, error) {
	v, ok := k.m[key]
	if !ok {
		return nil, nil
	}
	return k.sub(v, escapeToken(key), true)
}

func (k *keywords) schemaList(key string) ([]*schema, error) {
	if _, ok := k.m[key]; !ok {
		return nil, nil
	}
	return k.schemaArray(key)
}

func (k *keywords) schemaArray(key string) ([]*schema, error) {
	list, ok := k.m[key].([]any)
	if !ok || len(list) == 0 {
		return nil, k.errorf("%q must be a non-empty array of schemas", key)
	}
	out := make([]*schema, len(list))
	for i, raw := range list {
		var err error
		if out[i], err = k.sub(raw, escapeToken(key)+"/"+strconv.Itoa(i), false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (k *keywords) schemaMap(key string) (map[string]*schema, error) {
	v, ok := k.m[key]
	if !ok {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, k.errorf("%q must be an object of schemas", key)
	}
	out := make(map[string]*schema, len(m))
	for _, name := range sortedKeys(m) {
		sub, err := k.sub(m[name], escapeToken(key)+"/"+escapeToken(name), false)
		if err != nil {
			return nil, err
		}
		out[name] = sub
	}
	return out, nil
}

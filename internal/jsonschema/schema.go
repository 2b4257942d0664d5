package jsonschema

import (
	"regexp"
	"slices"
	"strings"
)

// Draft is a JSON Schema draft, numbered as its $schema names it.
type Draft int

// The drafts a schema may name in $schema.
const (
	Draft4    Draft = 4
	Draft6    Draft = 6
	Draft7    Draft = 7
	Draft2019 Draft = 2019 // 2019-09
	Draft2020 Draft = 2020 // 2020-12
)

func (d Draft) String() string {
	switch d {
	case Draft4, Draft6, Draft7:
		return "draft-0" + string(rune('0'+d))
	case Draft2019:
		return "draft 2019-09"
	case Draft2020:
		return "draft 2020-12"
	}
	return "unknown draft"
}

// draftOf maps a $schema URI to its draft: http or https, with or without the empty
// fragment.
func draftOf(uri string) Draft {
	uri = strings.TrimSuffix(uri, "#")
	rest, ok := strings.CutPrefix(uri, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(uri, "http://"); !ok {
			return 0
		}
	}
	switch rest {
	case "json-schema.org/draft-04/schema":
		return Draft4
	case "json-schema.org/draft-06/schema":
		return Draft6
	case "json-schema.org/draft-07/schema":
		return Draft7
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019
	case "json-schema.org/draft/2020-12/schema":
		return Draft2020
	}
	return 0
}

// CompileOptions tunes [Compile]. The zero value is the default.
type CompileOptions struct {
	// Draft is the draft of a schema that names none in $schema. Zero means draft
	// 2020-12, except that a schema that uses the array form of items (a tuple, which
	// drafts 4 to 2019-09 define and 2020-12 replaced with prefixItems) and none of the
	// keywords only 2020-12 defines is read as draft 2019-09, whose meaning it has.
	Draft Draft
}

// Schema is a compiled schema. It is immutable: any number of goroutines may validate
// with it at once, for as long as they hold it.
type Schema struct {
	root  *schema
	draft Draft
	// hopLimit bounds the schemas applied to one value location in a row: past it,
	// references (which $dynamicRef and $recursiveRef decide only while validating)
	// have looped.
	hopLimit int
}

// Draft reports the draft the schema was read as.
func (s *Schema) Draft() Draft { return s.draft }

// SchemaError reports a schema that does not compile: a keyword whose value has the
// wrong shape, a reference that leads nowhere (or out of the document), a pattern Go
// cannot run, an unknown $schema.
type SchemaError struct {
	// Location is the JSON pointer of the schema object at fault ("" for the root).
	Location string
	// Problem says what is wrong, naming the keyword.
	Problem string
}

func (e *SchemaError) Error() string {
	if e.Location == "" {
		return "invalid schema at the root: " + e.Problem
	}
	return "invalid schema at " + e.Location + ": " + e.Problem
}

// schema is one compiled schema object or boolean.
type schema struct {
	// Where it is, for errors: the parent and the pointer tokens from it (escaped).
	up *schema
	at string

	res   *resource
	draft Draft

	isBool, boolVal bool

	refText, dynRefText, recRefText *string // nil when absent
	ref                             *schema
	dynRef                          *schema // the static target of $dynamicRef
	dynName                         string  // set when the static target is a $dynamicAnchor of that name
	recRef                          *schema // the static target of $recursiveRef
	recursiveAnchor                 bool

	types             uint8
	typeList          []string // the names, in the schema's order
	enum, constant    *valueSet
	hasNumeric        bool
	multipleOf        *number
	minimum, maximum  *number
	exclMin, exclMax  *number
	minLength         int // -1: absent, as for every count below
	maxLength         int
	pattern           *regexp.Regexp
	minItems          int
	maxItems          int
	uniqueItems       bool
	minContains       int
	maxContains       int
	minProperties     int
	maxProperties     int
	required          []string
	dependentRequired []depRequired
	dependentSchemas  []depSchema

	properties      map[string]*schema
	patternProps    []patternProp
	additionalProps *schema
	propertyNames   *schema

	prefix   []*schema // prefixItems, or the array form of items
	items    *schema   // items after the prefix (additionalItems with a tuple)
	tuple    bool      // prefix is the array form of items (drafts before 2020-12)
	contains *schema

	allOf, anyOf, oneOf []*schema
	not                 *schema
	ifS, thenS, elseS   *schema

	unevalProps, unevalItems *schema
}

type number struct {
	d    decimal
	text string
}

type depRequired struct {
	name    string
	need    []string
	keyword string // dependentRequired, or dependencies
}

type depSchema struct {
	name string
	s    *schema
}

type patternProp struct {
	re *regexp.Regexp
	s  *schema
}

// valueSet holds the values of enum or const, for membership by JSON equality.
type valueSet struct {
	values    []any               // as written, for messages
	strs      map[string]struct{} // the string members, looked up without encoding
	keys      map[string]struct{} // canonical spellings of the other members
	hasNull   bool
	hasTrue   bool
	hasFalse  bool
	hasOthers bool // numbers, arrays or objects
}

func newValueSet(values []any) *valueSet {
	vs := &valueSet{values: values}
	for _, v := range values {
		switch x := v.(type) {
		case string:
			if vs.strs == nil {
				vs.strs = map[string]struct{}{}
			}
			vs.strs[x] = struct{}{}
		case nil:
			vs.hasNull = true
		case bool:
			if x {
				vs.hasTrue = true
			} else {
				vs.hasFalse = true
			}
		default:
			if vs.keys == nil {
				vs.keys = map[string]struct{}{}
			}
			key, _ := canonical(nil, v)
			vs.keys[string(key)] = struct{}{}
			vs.hasOthers = true
		}
	}
	return vs
}

// resource is a schema resource: the document, or a subschema with its own $id.
type resource struct {
	uri     string // absolute, without fragment
	root    *schema
	raw     any
	anchors map[string]*schema // $anchor, $dynamicAnchor, and drafts 4-7's "$id": "#name"
	dynamic map[string]*schema // $dynamicAnchor
}

// each calls f with every subschema of s; inPlace limits it to those that apply to
// the same value as s (the ones a reference cycle goes through without progress).
func (s *schema) each(inPlace bool, f func(*schema)) {
	if s.ref != nil {
		f(s.ref)
	}
	for _, l := range [][]*schema{s.allOf, s.anyOf, s.oneOf} {
		for _, c := range l {
			f(c)
		}
	}
	for _, c := range []*schema{s.not, s.ifS, s.thenS, s.elseS} {
		if c != nil {
			f(c)
		}
	}
	for _, d := range s.dependentSchemas {
		f(d.s)
	}
	if inPlace {
		return
	}
	if s.dynRef != nil {
		f(s.dynRef)
	}
	if s.recRef != nil {
		f(s.recRef)
	}
	for _, name := range sortedKeys(s.properties) {
		f(s.properties[name])
	}
	for _, p := range s.patternProps {
		f(p.s)
	}
	for _, c := range s.prefix {
		f(c)
	}
	for _, c := range []*schema{s.additionalProps, s.propertyNames, s.items, s.contains, s.unevalProps, s.unevalItems} {
		if c != nil {
			f(c)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pointer returns s's JSON pointer in the document.
func (s *schema) pointer() string {
	var parts []string
	for n := s; n != nil && n.up != nil; n = n.up {
		parts = append(parts, n.at)
	}
	if len(parts) == 0 {
		return ""
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
}

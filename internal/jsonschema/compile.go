package jsonschema

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"unsafe"

	"github.com/runcode-go/runcode/internal/boundre"
)

// MaxSchemaDepth bounds how deeply schemas nest in a document (a schema under
// properties under items counts two levels). Deeper documents do not compile.
const MaxSchemaDepth = 10000

// defaultBase is the base URI of a document that names no $id of its own.
const defaultBase = "mem:///schema.json"

// Compile compiles a decoded schema document: a map[string]any or a bool at the top,
// with []any, string, bool, nil and numbers (json.Number, as a json.Decoder with
// UseNumber gives them, or float64 and Go integers) below. It checks the shape of every
// keyword it interprets, resolves every reference the schema can reach, and fails with
// a *[SchemaError] on the first problem. opts may be nil.
//
// Compile neither keeps nor changes doc after it returns.
func Compile(doc any, opts *CompileOptions) (*Schema, error) {
	var draft Draft
	if opts != nil {
		draft = opts.Draft
	}
	if draft != 0 {
		if draftOf(draftURI(draft)) != draft {
			return nil, fmt.Errorf("jsonschema: unknown draft %d", int(draft))
		}
		return compile(doc, draft)
	}
	s, err := compile(doc, Draft2020)
	if err != nil && olderDraft(doc) {
		if older, err2 := compile(doc, Draft2019); err2 == nil {
			return older, nil
		}
	}
	return s, err
}

func draftURI(d Draft) string {
	switch d {
	case Draft4, Draft6, Draft7:
		return "http://json-schema.org/draft-0" + string(rune('0'+d)) + "/schema"
	case Draft2019:
		return "https://json-schema.org/draft/2019-09/schema"
	case Draft2020:
		return "https://json-schema.org/draft/2020-12/schema"
	}
	return ""
}

// olderDraft reports whether a schema is written for a draft before 2020-12, whose
// meaning a draft 2019-09 compile keeps: it names no $schema, uses the array form of
// items, and none of the keywords only 2020-12 defines (which an older draft would
// silently ignore). The walk keeps its own stack: documents nest deeply.
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

type compiler struct {
	resources map[string]*resource
	// byMap finds the compiled schema of a document object, by the map's identity.
	byMap   map[unsafe.Pointer]*schema
	dynamic map[string][]*schema // every $dynamicAnchor, by name
	recRoot []*schema            // every resource root with $recursiveAnchor: true
	// ghost, when positive, compiles only to check shapes: the keywords a draft 4-7
	// $ref makes ignored are still checked, as their metaschemas check them, but
	// declare no resource, anchor or schema anything can reach.
	ghost int
}

func compile(doc any, draft Draft) (*Schema, error) {
	c := &compiler{
		resources: map[string]*resource{},
		byMap:     map[unsafe.Pointer]*schema{},
		dynamic:   map[string][]*schema{},
	}
	res := &resource{uri: defaultBase, raw: doc, anchors: map[string]*schema{}, dynamic: map[string]*schema{}}
	c.resources[defaultBase] = res
	root, err := c.node(doc, nil, "", res, draft, 0, draft != Draft4)
	if err != nil {
		return nil, err
	}
	if res.root == nil {
		res.root = root
	}
	all, err := c.link(root)
	if err != nil {
		return nil, err
	}
	if err := checkCycles(c, all); err != nil {
		return nil, err
	}
	// A longer run of schemas on one value repeats a schema with the same resources
	// in the dynamic scope, which only grows: the run would repeat forever.
	hop := len(all) * (len(c.resources) + 1)
	return &Schema{root: root, draft: root.draft, hopLimit: min(hop+1, maxNest)}, nil
}

func (c *compiler) errorf(s *schema, format string, args ...any) error {
	return &SchemaError{Location: s.pointer(), Problem: fmt.Sprintf(format, args...)}
}

func identity(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// node compiles the document value raw, found at token at below up (nil for the
// document), in resource res under draft. boolOK is false where draft 4 allows only
// an object.
func (c *compiler) node(raw any, up *schema, at string, res *resource, draft Draft, depth int, boolOK bool) (*schema, error) {
	s := &schema{up: up, at: at, res: res, draft: draft}
	if depth > MaxSchemaDepth {
		return nil, c.errorf(s, "schemas nest deeper than %d levels", MaxSchemaDepth)
	}
	m, ok := raw.(map[string]any)
	if !ok {
		b, isBool := raw.(bool)
		if !isBool {
			return nil, c.errorf(s, "a schema must be an object or a boolean, not %s", describe(raw))
		}
		if draft == Draft4 && !boolOK {
			return nil, c.errorf(s, "a draft-04 schema must be an object, not a boolean")
		}
		s.isBool, s.boolVal = true, b
		return s, nil
	}
	if c.ghost == 0 {
		if known := c.byMap[identity(m)]; known != nil {
			return known, nil // the same object reached twice (a reference into a non-schema position)
		}
		c.byMap[identity(m)] = s
	}
	s.minLength, s.maxLength, s.minItems, s.maxItems = -1, -1, -1, -1
	s.minContains, s.maxContains, s.minProperties, s.maxProperties = -1, -1, -1, -1

	// $schema decides the draft of the document and of an embedded resource.
	if v, ok := m["$schema"]; ok && (up == nil || m["$id"] != nil || m["id"] != nil) {
		uri, ok := v.(string)
		if !ok {
			return nil, c.errorf(s, `"$schema" must be a string`)
		}
		d := draftOf(uri)
		if d == 0 {
			return nil, c.errorf(s, `unknown "$schema" %q: known are the drafts 4, 6, 7, 2019-09 and 2020-12 of json-schema.org`, uri)
		}
		draft, s.draft = d, d
	}
	_, hasRef := m["$ref"]
	refOnly := hasRef && draft <= Draft7 // all else beside $ref is ignored

	idKey := "$id"
	if draft == Draft4 {
		idKey = "id"
	}
	if v, ok := m[idKey]; ok {
		id, ok := v.(string)
		if !ok {
			return nil, c.errorf(s, "%q must be a string", idKey)
		}
		if !refOnly && c.ghost == 0 {
			var err error
			if res, err = c.declare(s, m, res, idKey, id); err != nil {
				return nil, err
			}
		}
	}
	if up == nil && res.root == nil {
		res.root = s
	}
	k := &keywords{c: c, s: s, m: m, res: res, draft: draft, depth: depth}
	if refOnly {
		return s, k.refOnly()
	}
	return s, k.all()
}

// declare applies the $id of the schema s (document value m) found in res, and
// returns the resource s is in: a new one when the $id names another URI.
func (c *compiler) declare(s *schema, m map[string]any, res *resource, idKey, id string) (*resource, error) {
	u, err := url.Parse(id)
	if err != nil {
		return nil, c.errorf(s, "%q %q is not a URI reference", idKey, id)
	}
	base, _ := url.Parse(res.uri)
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	if frag != "" && s.draft >= Draft2019 {
		return nil, c.errorf(s, "%q %q must not have a fragment: use $anchor", idKey, id)
	}
	if uri := abs.String(); uri != res.uri {
		if c.resources[uri] != nil {
			return nil, c.errorf(s, "%q %q names a resource twice", idKey, id)
		}
		res = &resource{uri: uri, root: s, raw: m, anchors: map[string]*schema{}, dynamic: map[string]*schema{}}
		c.resources[uri] = res
		s.res = res
	}
	if frag != "" { // drafts 4-7: "$id": "#name" is an anchor
		if err := c.anchor(s, res, frag, false); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (c *compiler) anchor(s *schema, res *resource, name string, dynamic bool) error {
	if c.ghost > 0 {
		return nil
	}
	if prev := res.anchors[name]; prev != nil && prev != s {
		return c.errorf(s, "anchor %q is defined twice in one resource", name)
	}
	res.anchors[name] = s
	if dynamic {
		res.dynamic[name] = s
		c.dynamic[name] = append(c.dynamic[name], s)
	}
	return nil
}

// validAnchor reports whether name is an anchor name as 2019-09 and 2020-12 define
// it: a letter or underscore, then letters, digits, '-', '_' and '.'.
func validAnchor(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(isDigit(c) || c == '-' || c == '.')) {
			return false
		}
	}
	return name != ""
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	if kindOf(v) == tNumber {
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// MaxPatternInsts bounds the size of a pattern's compiled program, which matching
// costs in proportion to: a short pattern of nested {n,m} repeats can compile to
// millions of instructions.
const MaxPatternInsts = 10000

// compilePattern compiles an ECMA-262 pattern with Go's regexp (RE2: linear time, no
// backreferences or lookaround), refusing one whose program would be over
// MaxPatternInsts. Matching is a search, as in ECMA-262: the pattern is not anchored.
func compilePattern(expr string) (*regexp.Regexp, error) {
	re, _, err := boundre.Compile(expr, MaxPatternInsts)
	switch {
	case errors.Is(err, boundre.ErrTooLarge):
		return nil, fmt.Errorf("compiles to more than %d instructions; use fewer or smaller {n,m} repeats", MaxPatternInsts)
	case err != nil:
		return nil, fmt.Errorf("not a regular expression Go can run: %v", err)
	}
	return re, nil
}

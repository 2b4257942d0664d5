package jsonschema

import (
	"net/url"
	"strconv"
	"strings"
)

// link resolves the references of every schema the root can reach (with every
// $dynamicAnchor and $recursiveAnchor a dynamic reference may land on), and returns
// the schemas it reached. A reference in a schema nothing reaches is never resolved:
// it cannot matter.
func (c *compiler) link(root *schema) ([]*schema, error) {
	seen := map[*schema]bool{root: true}
	all := []*schema{root}
	queue := []*schema{root}
	push := func(s *schema) {
		if s != nil && !seen[s] {
			seen[s] = true
			all = append(all, s)
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		var err error
		if s.refText != nil {
			if s.ref, _, err = c.resolve(s, "$ref", *s.refText); err != nil {
				return nil, err
			}
		}
		if s.dynRefText != nil {
			var frag string
			if s.dynRef, frag, err = c.resolve(s, "$dynamicRef", *s.dynRefText); err != nil {
				return nil, err
			}
			// Dynamic only when the static target is a $dynamicAnchor of the name
			// the fragment gives; otherwise $dynamicRef is a $ref.
			if frag != "" && s.dynRef.res.dynamic[frag] == s.dynRef {
				s.dynName = frag
				for _, a := range c.dynamic[frag] {
					push(a)
				}
			}
		}
		if s.recRefText != nil {
			if s.recRef, _, err = c.resolve(s, "$recursiveRef", *s.recRefText); err != nil {
				return nil, err
			}
			for _, r := range c.recRoot {
				push(r)
			}
		}
		s.each(false, push)
	}
	return all, nil
}

// resolve finds the schema a reference names, and the fragment it named it by.
func (c *compiler) resolve(s *schema, keyword, ref string) (*schema, string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, "", c.errorf(s, "%s %q is not a URI reference", keyword, ref)
	}
	base, err := url.Parse(s.res.uri)
	if err != nil {
		return nil, "", c.errorf(s, "%s %q: the base URI %q does not parse", keyword, ref, s.res.uri)
	}
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	res := c.resources[abs.String()]
	if res == nil {
		return nil, "", c.errorf(s, "%s %q: only references inside the schema are supported", keyword, ref)
	}
	switch {
	case frag == "":
		return res.root, "", nil
	case frag[0] == '/':
		t, err := c.pointer(s, keyword, ref, res, frag)
		return t, frag, err
	}
	t := res.anchors[frag]
	if t == nil {
		return nil, "", c.errorf(s, "%s %q: the schema has no anchor %q", keyword, ref, frag)
	}
	return t, frag, nil
}

// pointer follows a JSON pointer (already percent-decoded) from a resource's root. A
// pointer may lead to a value no keyword holds as a schema (under an unknown keyword,
// say): that value is compiled on the spot.
func (c *compiler) pointer(s *schema, keyword, ref string, res *resource, ptr string) (*schema, error) {
	cur, at := res.raw, res.root
	for tok := range strings.SplitSeq(ptr[1:], "/") {
		if strings.Contains(strings.NewReplacer("~0", "", "~1", "").Replace(tok), "~") {
			return nil, c.errorf(s, "%s %q: %q is not a JSON pointer (~ must be followed by 0 or 1)", keyword, ref, ptr)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, c.errorf(s, "%s %q: the schema has nothing at %q", keyword, ref, ptr)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || tok != strconv.Itoa(i) {
				return nil, c.errorf(s, "%s %q: the schema has nothing at %q", keyword, ref, ptr)
			}
			cur = x[i]
		default:
			return nil, c.errorf(s, "%s %q: the schema has nothing at %q", keyword, ref, ptr)
		}
		if m, ok := cur.(map[string]any); ok {
			if known := c.byMap[identity(m)]; known != nil {
				at = known
			}
		}
	}
	if m, ok := cur.(map[string]any); ok {
		if known := c.byMap[identity(m)]; known != nil {
			return known, nil
		}
	} else if _, ok := cur.(bool); !ok {
		return nil, c.errorf(s, "%s %q points to %s, not a schema", keyword, ref, describe(cur))
	}
	return c.node(cur, res.root, ptr[1:], at.res, at.draft, 0, true)
}

// checkCycles refuses a schema that, through references and the applicators that
// apply to the value itself (allOf, anyOf, oneOf, not, if, then, else and the
// dependent schemas), applies itself to the same value again: validating with it
// could never finish. The walk keeps its own stack: schemas nest deeply.
func checkCycles(c *compiler, all []*schema) error {
	const (
		open = 1
		done = 2
	)
	state := make(map[*schema]uint8, len(all))
	type frame struct {
		s     *schema
		edges []*schema
		i     int
	}
	edges := func(s *schema) []*schema {
		var out []*schema
		s.each(true, func(t *schema) { out = append(out, t) })
		return out
	}
	for _, start := range all {
		if state[start] != 0 {
			continue
		}
		state[start] = open
		stack := []frame{{s: start, edges: edges(start)}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i == len(f.edges) {
				state[f.s] = done
				stack = stack[:len(stack)-1]
				continue
			}
			t := f.edges[f.i]
			f.i++
			switch state[t] {
			case open:
				where := "the root schema"
				if p := t.pointer(); p != "" {
					where = "the schema at " + p
				}
				if f.s.ref == t {
					return c.errorf(f.s, "$ref %q leads back to %s, which applies to the same value: a reference cycle", *f.s.refText, where)
				}
				return c.errorf(f.s, "a subschema leads back to %s, which applies to the same value: a reference cycle", where)
			case 0:
				state[t] = open
				stack = append(stack, frame{s: t, edges: edges(t)})
			}
		}
	}
	return nil
}

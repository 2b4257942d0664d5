package jsonschema

import (
	"encoding/json"
	"math"
	"slices"
	"unicode/utf8"
)

// This file applies the keywords to one value, for the evaluator.

func typeMatches(types, k uint8, v any) bool {
	if types&k != 0 {
		return true
	}
	return k == tNumber && types&tInteger != 0 && isInteger(v)
}

func isInteger(v any) bool {
	switch x := v.(type) {
	case float64:
		return x == math.Trunc(x)
	case float32:
		return float64(x) == math.Trunc(float64(x))
	case json.Number:
		d, _ := parseDecimal(string(x))
		return d.integer()
	}
	return true // a Go integer
}

func (e *evaluator) inSet(set *valueSet, v any) bool {
	switch x := v.(type) {
	case string:
		_, ok := set.strs[x]
		return ok
	case nil:
		return set.hasNull
	case bool:
		if x {
			return set.hasTrue
		}
		return set.hasFalse
	}
	if !set.hasOthers {
		return false
	}
	var cost int
	e.buf, cost = canonical(e.buf[:0], v)
	e.steps += cost
	_, ok := set.keys[string(e.buf)]
	return ok
}

func (e *evaluator) number(s *schema, v any, quiet bool) bool {
	d, _ := toDecimal(v)
	ok := true
	for _, b := range [...]struct {
		n       *number
		keyword string
		bad     func(c int) bool
	}{
		{s.minimum, "minimum", func(c int) bool { return c < 0 }},
		{s.maximum, "maximum", func(c int) bool { return c > 0 }},
		{s.exclMin, "exclusiveMinimum", func(c int) bool { return c <= 0 }},
		{s.exclMax, "exclusiveMaximum", func(c int) bool { return c >= 0 }},
	} {
		if b.n != nil && b.bad(cmpDecimal(d, b.n.d)) {
			if quiet {
				return false
			}
			e.failNumber(b.keyword, b.n.text)
			ok = false
		}
	}
	if n := s.multipleOf; n != nil && !multipleOf(d, n.d) {
		if quiet {
			return false
		}
		e.failNumber("multipleOf", n.text)
		ok = false
	}
	return ok
}

func (e *evaluator) string(s *schema, str string, quiet bool) bool {
	ok := true
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(str)
		e.steps += len(str) >> 8
		if s.minLength >= 0 && n < s.minLength {
			if quiet {
				return false
			}
			e.failLimit("minLength", s.minLength)
			ok = false
		}
		if s.maxLength >= 0 && n > s.maxLength {
			if quiet {
				return false
			}
			e.failLimit("maxLength", s.maxLength)
			ok = false
		}
	}
	if s.pattern != nil {
		e.steps += len(str) >> 8
		if !s.pattern.MatchString(str) {
			if quiet {
				return false
			}
			e.failPattern(s.pattern.String())
			ok = false
		}
	}
	return ok
}

func (e *evaluator) array(s *schema, a []any, quiet bool, ann *annotations) bool {
	ok := true
	n := len(a)
	if s.minItems >= 0 && n < s.minItems {
		if quiet {
			return false
		}
		e.failLimit("minItems", s.minItems)
		ok = false
	}
	if s.maxItems >= 0 && n > s.maxItems {
		if quiet {
			return false
		}
		e.failLimit("maxItems", s.maxItems)
		ok = false
	}
	if s.uniqueItems && n > 1 {
		if i, j, dup := e.duplicate(a); dup {
			if quiet {
				return false
			}
			e.failItems(i, j)
			ok = false
		}
	}
	np := min(n, len(s.prefix))
	for i := range np {
		if !e.child(s.prefix[i], a[i], "", i, quiet) {
			if quiet {
				return false
			}
			ok = false
		}
	}
	if s.items != nil && n > np {
		if s.tuple && s.items.isBool && !s.items.boolVal {
			if quiet {
				return false
			}
			e.failLimit("additionalItems", n-np)
			ok = false
		} else {
			for i := np; i < n; i++ {
				if !e.child(s.items, a[i], "", i, quiet) {
					if quiet {
						return false
					}
					ok = false
				}
			}
		}
	}
	if ann != nil {
		ann.items = max(ann.items, np)
		if s.items != nil {
			ann.allItems = true
		}
	}
	if s.contains != nil && !e.contains(s, a, quiet, ann) {
		if quiet {
			return false
		}
		ok = false
	}
	return ok
}

func (e *evaluator) contains(s *schema, a []any, quiet bool, ann *annotations) bool {
	least, keyword := 1, "contains"
	if s.minContains >= 0 {
		least, keyword = s.minContains, "minContains"
	}
	track := ann != nil && s.draft >= Draft2020
	matched := 0
	for i, item := range a {
		if !track && s.maxContains < 0 && matched >= least {
			break
		}
		if e.child(s.contains, item, "", i, true) {
			matched++
			if track {
				if ann.contains == nil {
					ann.contains = map[int]struct{}{}
				}
				ann.contains[i] = struct{}{}
			}
		}
		if e.stop != nil {
			return false
		}
	}
	ok := true
	if matched < least {
		if quiet {
			return false
		}
		e.failLimit(keyword, least)
		ok = false
	}
	if s.maxContains >= 0 && matched > s.maxContains {
		if quiet {
			return false
		}
		e.failLimit("maxContains", s.maxContains)
		ok = false
	}
	return ok
}

// duplicate finds the first two equal items, hashing their canonical spellings: the
// cost is the array's size, not its length squared.
func (e *evaluator) duplicate(a []any) (int, int, bool) {
	seen := make(map[string]int, len(a))
	for j, item := range a {
		var cost int
		e.buf, cost = canonical(e.buf[:0], item)
		e.steps += cost
		if i, dup := seen[string(e.buf)]; dup {
			return i, j, true
		}
		seen[string(e.buf)] = j
	}
	return 0, 0, false
}

func (e *evaluator) object(s *schema, m map[string]any, quiet bool, ann *annotations) bool {
	ok := true
	n := len(m)
	if s.minProperties >= 0 && n < s.minProperties {
		if quiet {
			return false
		}
		e.failLimit("minProperties", s.minProperties)
		ok = false
	}
	if s.maxProperties >= 0 && n > s.maxProperties {
		if quiet {
			return false
		}
		e.failLimit("maxProperties", s.maxProperties)
		ok = false
	}
	for _, name := range s.required {
		if _, has := m[name]; !has {
			if quiet {
				return false
			}
			e.failProp("required", name, "")
			ok = false
		}
	}
	for _, dr := range s.dependentRequired {
		if _, has := m[dr.name]; !has {
			continue
		}
		for _, name := range dr.need {
			if _, has := m[name]; !has {
				if quiet {
					return false
				}
				e.failProp(dr.keyword, name, dr.name)
				ok = false
			}
		}
	}
	if s.properties != nil || s.patternProps != nil || s.additionalProps != nil || s.propertyNames != nil {
		if ann != nil && s.additionalProps != nil {
			ann.allProps = true
		}
		for key, val := range m {
			evaluated := false
			if sub, has := s.properties[key]; has {
				evaluated = true
				if !e.child(sub, val, key, -1, quiet) {
					if quiet {
						return false
					}
					ok = false
				}
			}
			for _, pp := range s.patternProps {
				e.steps += len(key) >> 8
				if pp.re.MatchString(key) {
					evaluated = true
					if !e.child(pp.s, val, key, -1, quiet) {
						if quiet {
							return false
						}
						ok = false
					}
				}
			}
			if !evaluated && s.additionalProps != nil {
				if s.additionalProps.isBool && !s.additionalProps.boolVal {
					if quiet {
						return false
					}
					e.failProp("additionalProperties", key, "")
					ok = false
				} else if !e.child(s.additionalProps, val, key, -1, quiet) {
					if quiet {
						return false
					}
					ok = false
				}
			} else if evaluated && ann != nil {
				ann.addProp(key)
			}
			if s.propertyNames != nil && !e.propertyName(s.propertyNames, key, quiet) {
				if quiet {
					return false
				}
				ok = false
			}
			if e.stop != nil {
				return false
			}
		}
	}
	for _, ds := range s.dependentSchemas {
		if _, has := m[ds.name]; has && !e.eval(ds.s, m, quiet, ann) {
			if quiet {
				return false
			}
			ok = false
		}
	}
	return ok
}

// propertyName applies propertyNames to one member name, as a value of its own.
func (e *evaluator) propertyName(s *schema, name string, quiet bool) bool {
	path, hops := e.path, e.hops
	e.path, e.hops = nil, 0
	defer func() { e.path, e.hops = path, hops }()
	if e.eval(s, name, true, nil) {
		return true
	}
	if quiet || e.stop != nil {
		return false
	}
	out := e.out
	e.out = nil
	e.eval(s, name, false, nil)
	causes := e.out
	slices.SortStableFunc(causes, compareViolations)
	e.out, e.path = out, path
	e.add(&Violation{Keyword: "propertyNames", Property: name, Causes: causes})
	return false
}

// inPlace applies the applicators that apply subschemas to the value itself.
func (e *evaluator) inPlace(s *schema, v any, quiet bool, ann *annotations) bool {
	ok := true
	for _, sub := range s.allOf {
		if !e.eval(sub, v, quiet, ann) {
			if quiet {
				return false
			}
			ok = false
		}
	}
	if len(s.anyOf) > 0 {
		matched := false
		for _, sub := range s.anyOf {
			var a *annotations
			if ann != nil {
				a = &annotations{}
			}
			if e.eval(sub, v, true, a) {
				matched = true
				if ann == nil {
					break
				}
				ann.merge(a)
			}
		}
		if !matched {
			if quiet {
				return false
			}
			e.fail("anyOf")
			ok = false
		}
	}
	if len(s.oneOf) > 0 {
		matched := 0
		var won *annotations
		for _, sub := range s.oneOf {
			var a *annotations
			if ann != nil {
				a = &annotations{}
			}
			if e.eval(sub, v, true, a) {
				matched++
				won = a
				if quiet && matched > 1 {
					break
				}
			}
		}
		if matched != 1 {
			if quiet {
				return false
			}
			e.failLimit("oneOf", matched)
			ok = false
		} else if ann != nil {
			ann.merge(won)
		}
	}
	if s.not != nil && e.eval(s.not, v, true, nil) {
		if quiet {
			return false
		}
		e.fail("not")
		ok = false
	}
	if s.ifS != nil {
		var a *annotations
		if ann != nil {
			a = &annotations{}
		}
		branch := s.elseS
		if e.eval(s.ifS, v, true, a) {
			branch = s.thenS
			if ann != nil {
				ann.merge(a)
			}
		}
		if branch != nil && !e.eval(branch, v, quiet, ann) {
			if quiet {
				return false
			}
			ok = false
		}
	}
	return ok
}

func (e *evaluator) unevaluatedItems(s *schema, a []any, quiet bool, ann *annotations) bool {
	ok := true
	if !ann.allItems {
		for i := ann.items; i < len(a); i++ {
			if _, done := ann.contains[i]; done {
				continue
			}
			if s.unevalItems.isBool && !s.unevalItems.boolVal {
				if quiet {
					return false
				}
				e.failItem(i, "unevaluatedItems")
				ok = false
			} else if !e.child(s.unevalItems, a[i], "", i, quiet) {
				if quiet {
					return false
				}
				ok = false
			}
		}
	}
	ann.allItems = true
	return ok
}

func (e *evaluator) unevaluatedProps(s *schema, m map[string]any, quiet bool, ann *annotations) bool {
	ok := true
	if !ann.allProps {
		for key, val := range m {
			if _, done := ann.props[key]; done {
				continue
			}
			if s.unevalProps.isBool && !s.unevalProps.boolVal {
				if quiet {
					return false
				}
				e.failProp("unevaluatedProperties", key, "")
				ok = false
			} else if !e.child(s.unevalProps, val, key, -1, quiet) {
				if quiet {
					return false
				}
				ok = false
			}
		}
	}
	ann.allProps = true
	return ok
}

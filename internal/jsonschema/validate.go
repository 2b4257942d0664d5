package jsonschema

import (
	"slices"
	"sync"
)

// MaxDepth bounds how deep into a value validation goes: a member nested deeper than
// MaxDepth levels that a schema applies to is not validated; the value is reported
// as too deep instead (keyword "depth").
const MaxDepth = 10000

// MaxViolations bounds the violations Validate reports: past it, the value is still
// found invalid, and the rest are not recorded.
const MaxViolations = 1000

// maxNest bounds how many schemas are being applied at once (a value nested n levels
// deep, under a schema that nests through references, takes a few per level), and so
// the stack the recursion uses.
const maxNest = 50000

// The step budget: every schema applied to a value, every value compared or hashed
// and every 256 bytes of string matched costs a step. A validation may take
// baseSteps, plus stepsPerValue for each value in the instance (counted only when it
// takes more than baseSteps): schemas that apply the same subschema through many
// paths can otherwise take time exponential in their size.
const (
	baseSteps     = 1 << 22
	stepsPerValue = 256
)

// Validate checks a decoded value (as [Compile] takes a document: maps, slices,
// strings, bools, nil, json.Number or Go numbers) against the schema and returns the
// violations, sorted by location, or nil. format, contentEncoding, contentMediaType
// and contentSchema are not checked: they are annotations.
func (s *Schema) Validate(v any) []Violation {
	e := newEvaluator(s, v)
	defer e.release()
	e.eval(s.root, v, false, nil)
	if e.stop != nil {
		return []Violation{*e.stop}
	}
	slices.SortStableFunc(e.out, compareViolations)
	return e.out
}

// Valid reports whether v satisfies the schema: Validate(v) == nil, with less work.
func (s *Schema) Valid(v any) bool {
	e := newEvaluator(s, v)
	defer e.release()
	return e.eval(s.root, v, true, nil) && e.stop == nil
}

// pathElem is one step into a value: an index (>= 0) or a member name.
type pathElem struct {
	key   string
	index int
}

// annotations records which members and items of the value the schemas applied so
// far evaluated, for unevaluatedProperties and unevaluatedItems.
type annotations struct {
	props    map[string]struct{}
	allProps bool
	items    int // items[:items] were evaluated
	allItems bool
	contains map[int]struct{} // items contains matched (draft 2020-12)
}

func (a *annotations) addProp(name string) {
	if a.props == nil {
		a.props = map[string]struct{}{}
	}
	a.props[name] = struct{}{}
}

func (a *annotations) merge(b *annotations) {
	for p := range b.props {
		a.addProp(p)
	}
	a.allProps = a.allProps || b.allProps
	a.items = max(a.items, b.items)
	a.allItems = a.allItems || b.allItems
	for i := range b.contains {
		if a.contains == nil {
			a.contains = map[int]struct{}{}
		}
		a.contains[i] = struct{}{}
	}
}

// evaluator is one validation in progress, on one goroutine; Validate and Valid take
// one from the pool and return it.
type evaluator struct {
	s     *Schema
	root  any
	path  []pathElem
	out   []Violation
	scope []*resource // the dynamic scope: the resources being evaluated, outermost first
	nest  int         // schemas being applied
	hops  int         // of which in a row on the current value
	steps int
	limit int
	// counted is set once the limit includes the instance's size.
	counted bool
	// stop, once set, ends the evaluation: every eval returns false.
	stop *Violation
	buf  []byte

	pathBuf  [16]pathElem
	scopeBuf [8]*resource
}

// evaluators keeps evaluators for reuse, with their buffers.
var evaluators sync.Pool

func newEvaluator(s *Schema, v any) *evaluator {
	e, _ := evaluators.Get().(*evaluator)
	if e == nil {
		e = &evaluator{}
	}
	buf := e.buf
	*e = evaluator{s: s, root: v, limit: baseSteps, buf: buf[:0]}
	e.path = e.pathBuf[:0]
	e.scope = e.scopeBuf[:0]
	return e
}

// release returns e to the pool, keeping nothing of the validation but its hashing
// buffer (the violations now belong to the caller).
func (e *evaluator) release() {
	if cap(e.buf) > 64<<10 {
		e.buf = nil
	}
	buf := e.buf
	*e = evaluator{buf: buf}
	evaluators.Put(e)
}

// overBudget is called when the steps pass the limit: the first time, the limit grows
// with the instance's size.
func (e *evaluator) overBudget() bool {
	if !e.counted {
		e.counted = true
		e.limit = baseSteps + stepsPerValue*countValues(e.root)
		if e.steps <= e.limit {
			return false
		}
	}
	e.stopWith("budget", e.limit)
	return true
}

// countValues counts the values in v, with its own stack.
func countValues(v any) int {
	n := 0
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		switch x := x.(type) {
		case map[string]any:
			for _, m := range x {
				stack = append(stack, m)
			}
		case []any:
			stack = append(stack, x...)
		}
	}
	return n
}

// eval applies s to v at the current path. quiet evaluates only for the answer: it
// stops at the first failure and records nothing. ann, when not nil, receives what s
// evaluated of v (only if s passes: a caller that can discard a failure passes a
// fresh one).
func (e *evaluator) eval(s *schema, v any, quiet bool, ann *annotations) bool {
	if e.stop != nil {
		return false
	}
	if e.steps++; e.steps > e.limit && e.overBudget() {
		return false
	}
	if s.isBool {
		if !s.boolVal && !quiet {
			e.fail("false")
		}
		return s.boolVal
	}
	if e.nest >= maxNest {
		e.stopWith("depth", MaxDepth)
		return false
	}
	if e.hops >= e.s.hopLimit {
		e.stopWith("cycle", 0)
		return false
	}
	e.nest++
	e.hops++
	pushed := false
	if n := len(e.scope); n == 0 || e.scope[n-1] != s.res {
		e.scope = append(e.scope, s.res)
		pushed = true
	}
	ok := e.keywords(s, v, quiet, ann)
	if pushed {
		e.scope = e.scope[:len(e.scope)-1]
	}
	e.nest--
	e.hops--
	return ok && e.stop == nil
}

// child applies s to a member (key) or item (index >= 0) of the current value.
func (e *evaluator) child(s *schema, v any, key string, index int, quiet bool) bool {
	if len(e.path) >= MaxDepth {
		e.stopWith("depth", MaxDepth)
		return false
	}
	e.path = append(e.path, pathElem{key, index})
	hops := e.hops
	e.hops = 0
	ok := e.eval(s, v, quiet, nil)
	e.hops = hops
	e.path = e.path[:len(e.path)-1]
	return ok
}

func (e *evaluator) keywords(s *schema, v any, quiet bool, ann *annotations) bool {
	ok := true
	// A schema with unevaluated* sees only what it and its in-place subschemas
	// evaluated, not what its parent's other keywords did: its own record, passed on.
	local := ann
	if s.unevalProps != nil || s.unevalItems != nil {
		local = &annotations{}
		if ann != nil {
			defer ann.merge(local)
		}
	}

	// References, each in place.
	if s.ref != nil && !e.eval(s.ref, v, quiet, local) {
		if quiet {
			return false
		}
		ok = false
	}
	if s.dynRef != nil && !e.eval(e.dynamicTarget(s), v, quiet, local) {
		if quiet {
			return false
		}
		ok = false
	}
	if s.recRef != nil && !e.eval(e.recursiveTarget(s), v, quiet, local) {
		if quiet {
			return false
		}
		ok = false
	}

	k := kindOf(v)
	if s.types != 0 && !typeMatches(s.types, k, v) {
		if quiet {
			return false
		}
		e.failTypes(s.typeList)
		ok = false
	}
	if s.enum != nil && !e.inSet(s.enum, v) {
		if quiet {
			return false
		}
		e.failValues("enum", s.enum.values)
		ok = false
	}
	if s.constant != nil && !e.inSet(s.constant, v) {
		if quiet {
			return false
		}
		e.failValues("const", s.constant.values)
		ok = false
	}
	var good bool
	switch k {
	case tNumber:
		good = !s.hasNumeric || e.number(s, v, quiet)
	case tString:
		good = e.string(s, v.(string), quiet)
	case tArray:
		good = e.array(s, v.([]any), quiet, local)
	case tObject:
		good = e.object(s, v.(map[string]any), quiet, local)
	default:
		good = true
	}
	if !good {
		if quiet {
			return false
		}
		ok = false
	}
	if !e.inPlace(s, v, quiet, local) {
		if quiet {
			return false
		}
		ok = false
	}
	if s.unevalItems != nil && k == tArray && !e.unevaluatedItems(s, v.([]any), quiet, local) {
		if quiet {
			return false
		}
		ok = false
	}
	if s.unevalProps != nil && k == tObject && !e.unevaluatedProps(s, v.(map[string]any), quiet, local) {
		if quiet {
			return false
		}
		ok = false
	}
	return ok
}

func (e *evaluator) dynamicTarget(s *schema) *schema {
	if s.dynName != "" {
		for _, r := range e.scope {
			if a := r.dynamic[s.dynName]; a != nil {
				return a
			}
		}
	}
	return s.dynRef
}

func (e *evaluator) recursiveTarget(s *schema) *schema {
	if s.recRef.recursiveAnchor {
		for _, r := range e.scope {
			if r.root != nil && r.root.recursiveAnchor {
				return r.root
			}
		}
	}
	return s.recRef
}

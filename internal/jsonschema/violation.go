package jsonschema

import (
	"cmp"
	"slices"
	"strconv"
)

// Violation is one way a value fails its schema.
type Violation struct {
	// Path is the location in the value of what fails: object member names and array
	// indexes (in decimal), from the root; empty for the root itself.
	Path []string
	// Keyword names the failing keyword, which decides the fields below that apply:
	//
	//   - type: Types lists the types the schema allows.
	//   - enum, const: Values holds the allowed values (one for const).
	//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf: Number is
	//     the bound as the schema spells it.
	//   - minLength, maxLength (in Unicode code points), minItems, maxItems,
	//     minProperties, maxProperties, minContains, maxContains, and contains (at
	//     least 1 item must match): Limit.
	//   - pattern: Pattern.
	//   - uniqueItems: Items holds the first two equal items' indexes.
	//   - required: Property is missing from the object at Path.
	//   - dependentRequired, dependencies: Property is missing, and required because
	//     Trigger is present.
	//   - additionalProperties, unevaluatedProperties (when the keyword's schema is
	//     false): Property is present in the object at Path and not allowed.
	//   - additionalItems (false, after a tuple): Limit items are beyond the tuple.
	//   - unevaluatedItems (false): the item at Path is not allowed.
	//   - propertyNames: the name Property does not match; Causes hold why, as
	//     violations of the name itself (Path empty).
	//   - anyOf: no branch matches. oneOf: Matched branches match, not one.
	//   - not: the value matches the schema under not.
	//   - false: the schema at Path is false: nothing is allowed there.
	//   - depth: the value nests deeper than Limit levels where the schema applies;
	//     it was not validated.
	//   - budget: validating the value would take more than Limit steps (see the
	//     package documentation); it was not validated.
	//   - cycle: references ($dynamicRef, $recursiveRef) apply the schemas to the
	//     value at Path in a loop.
	//
	// depth, budget and cycle are reported alone.
	Keyword string

	Types    []string
	Values   []any
	Number   string
	Limit    int
	Pattern  string
	Items    [2]int
	Property string
	Trigger  string
	Matched  int
	Causes   []Violation
}

func compareViolations(a, b Violation) int {
	if c := slices.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Keyword, b.Keyword); c != 0 {
		return c
	}
	return cmp.Compare(a.Property, b.Property)
}

func (e *evaluator) pathStrings() []string {
	if len(e.path) == 0 {
		return nil
	}
	out := make([]string, len(e.path))
	for i, p := range e.path {
		if p.index >= 0 {
			out[i] = strconv.Itoa(p.index)
		} else {
			out[i] = p.key
		}
	}
	return out
}

// add records a violation of the current value. It and the fail helpers are kept
// out of line, so that the violations they build take no room in the frames of the
// recursion, which a deep value stacks by the thousand.
//
//go:noinline
func (e *evaluator) add(v *Violation) {
	if len(e.out) >= MaxViolations {
		return
	}
	v.Path = e.pathStrings()
	if e.out == nil {
		e.out = make([]Violation, 0, 8)
	}
	e.out = append(e.out, *v)
}

//go:noinline
func (e *evaluator) fail(keyword string) { e.add(&Violation{Keyword: keyword}) }

//go:noinline
func (e *evaluator) failLimit(keyword string, n int) {
	v := Violation{Keyword: keyword, Limit: n}
	if keyword == "oneOf" {
		v = Violation{Keyword: keyword, Matched: n}
	}
	e.add(&v)
}

//go:noinline
func (e *evaluator) failNumber(keyword, text string) {
	e.add(&Violation{Keyword: keyword, Number: text})
}

//go:noinline
func (e *evaluator) failPattern(p string) { e.add(&Violation{Keyword: "pattern", Pattern: p}) }

//go:noinline
func (e *evaluator) failTypes(types []string) { e.add(&Violation{Keyword: "type", Types: types}) }

//go:noinline
func (e *evaluator) failValues(keyword string, values []any) {
	e.add(&Violation{Keyword: keyword, Values: values})
}

//go:noinline
func (e *evaluator) failItems(i, j int) {
	e.add(&Violation{Keyword: "uniqueItems", Items: [2]int{i, j}})
}

//go:noinline
func (e *evaluator) failProp(keyword, name, trigger string) {
	e.add(&Violation{Keyword: keyword, Property: name, Trigger: trigger})
}

// failItem records a violation of the item at index i of the current value.
//
//go:noinline
func (e *evaluator) failItem(i int, keyword string) {
	e.path = append(e.path, pathElem{index: i})
	e.add(&Violation{Keyword: keyword})
	e.path = e.path[:len(e.path)-1]
}

// stopWith ends the evaluation with one violation: depth and budget at the root,
// cycle where it closed.
//
//go:noinline
func (e *evaluator) stopWith(keyword string, limit int) {
	if e.stop != nil {
		return
	}
	v := Violation{Keyword: keyword, Limit: limit}
	if keyword == "cycle" {
		v.Path = e.pathStrings()
	}
	e.stop = &v
}

package registry

import (
	"math"
	"strconv"
)

// plan is a quick check for the schema shapes tools publish most: {} and true, a bare
// {"type": T}, objects of typed properties (required, additionalProperties true or
// false), arrays with an items schema, and numeric minimum/maximum, all with any
// annotations. It walks a Value's canonical text without decoding it and only ever
// accepts: when the walk meets a violation, or anything it cannot vouch for, validate
// runs the full validator, which decides and words the messages. So the plan changes
// what validation costs, never what it answers.
//
// On the S2 bench scenario (ten sub-calls of {i: integer, text: string}), decoding the
// arguments to a Go tree and running the full validator was a tenth of the whole run;
// the walk costs a small fraction of that.
type plan struct {
	typ      string           // "" for any type
	props    map[string]*plan // declared properties; nil means none
	required []string
	closed   bool  // additionalProperties: false
	items    *plan // nil: any items
	min, max float64
	hasMin   bool
	hasMax   bool
}

// any reports a plan that accepts every value.
func (p *plan) any() bool {
	return p.typ == "" && p.props == nil && p.required == nil && !p.closed && p.items == nil && !p.hasMin && !p.hasMax
}

// newPlan builds the plan of a decoded schema document, or returns nil if the schema
// uses a keyword the plan does not implement.
func newPlan(doc any, depth int) *plan {
	if depth > 64 {
		return nil
	}
	if b, ok := doc.(bool); ok {
		if !b {
			return nil
		}
		return &plan{}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	p := &plan{}
	for k, v := range m {
		switch k {
		case "description", "title", "$comment", "examples", "default":
		case "type":
			t, ok := v.(string)
			if !ok || !isJSONType(t) {
				return nil
			}
			p.typ = t
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			p.props = make(map[string]*plan, len(props))
			for name, sub := range props {
				if p.props[name] = newPlan(sub, depth+1); p.props[name] == nil {
					return nil
				}
			}
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			p.required = make([]string, 0, len(list))
			for _, r := range list {
				name, ok := r.(string)
				if !ok {
					return nil
				}
				p.required = append(p.required, name)
			}
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil
			}
			p.closed = !b
		case "items":
			if p.items = newPlan(v, depth+1); p.items == nil {
				return nil
			}
		case "minimum", "maximum":
			f, ok := schemaNumber(v)
			if !ok {
				return nil
			}
			if k == "minimum" {
				p.min, p.hasMin = f, true
			} else {
				p.max, p.hasMax = f, true
			}
		default:
			return nil
		}
	}
	return p
}

func isJSONType(t string) bool {
	switch t {
	case "null", "boolean", "object", "array", "number", "integer", "string":
		return true
	}
	return false
}

// schemaNumber reads a bound from decodeSchema's tree (json.Number).
func schemaNumber(v any) (float64, bool) {
	n, ok := v.(interface{ String() string })
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// accepts reports whether v certainly satisfies the plan.
func (p *plan) accepts(v Value) bool {
	if p.any() {
		return true
	}
	w := walker{s: v.s}
	if p.props == nil && p.required == nil && !p.closed && p.items == nil {
		// Only the root's kind (and a number's bounds) matter: no need to walk past
		// the value, which for {"type":"array"} over a 1 MB answer is the whole text.
		return w.kind(p) && (!isNumberStart(w.s[0]) || w.number(p))
	}
	return w.value(p) && w.pos == len(w.s)
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// walker steps through canonical text, which is compact and already validated.
type walker struct {
	s   string
	pos int
}

// value checks the value at pos against p and moves past it. It returns false as soon
// as it cannot vouch for the value; pos is then meaningless.
func (w *walker) value(p *plan) bool {
	if !w.kind(p) {
		return false
	}
	c := w.s[w.pos]
	switch {
	case c == '{' && (p.props != nil || p.required != nil || p.closed):
		return w.object(p)
	case c == '[' && p.items != nil:
		return w.array(p.items)
	case isNumberStart(c):
		return w.number(p)
	}
	return w.skip()
}

// kind reports whether the value at pos has the plan's type, from its first byte.
func (w *walker) kind(p *plan) bool {
	c := w.s[w.pos]
	switch p.typ {
	case "":
	case "null":
		if c != 'n' {
			return false
		}
	case "boolean":
		if c != 't' && c != 'f' {
			return false
		}
	case "object":
		if c != '{' {
			return false
		}
	case "array":
		if c != '[' {
			return false
		}
	case "string":
		if c != '"' {
			return false
		}
	case "number", "integer":
		if !isNumberStart(c) {
			return false
		}
	}
	return true
}

func (w *walker) object(p *plan) bool {
	w.pos++ // '{'
	need := len(p.required)
	if w.s[w.pos] == '}' {
		w.pos++
		return need == 0
	}
	for {
		key, ok := w.key()
		if !ok {
			return false
		}
		w.pos++ // ':'
		// Keys are unique in a Value, so counting required names seen is exact.
		for _, r := range p.required {
			if r == key {
				need--
				break
			}
		}
		if sub, declared := p.props[key]; declared {
			if !w.value(sub) {
				return false
			}
		} else if p.closed || !w.skip() {
			return false
		}
		if w.s[w.pos] == '}' {
			w.pos++
			return need == 0
		}
		w.pos++ // ','
	}
}

func (w *walker) array(items *plan) bool {
	w.pos++ // '['
	if w.s[w.pos] == ']' {
		w.pos++
		return true
	}
	for {
		if !w.value(items) {
			return false
		}
		if w.s[w.pos] == ']' {
			w.pos++
			return true
		}
		w.pos++ // ','
	}
}

// key reads an object key without escapes; a key with escapes is left to the validator.
func (w *walker) key() (string, bool) {
	start := w.pos + 1
	for i := start; i < len(w.s); i++ {
		switch w.s[i] {
		case '\\':
			return "", false
		case '"':
			w.pos = i + 1
			return w.s[start:i], true
		}
	}
	return "", false
}

func (w *walker) number(p *plan) bool {
	start := w.pos
	for w.pos < len(w.s) && isNumberByte(w.s[w.pos]) {
		w.pos++
	}
	num := w.s[start:w.pos]
	if p.typ == "integer" && !isInteger(num) {
		return false
	}
	if !p.hasMin && !p.hasMax {
		return true
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false
	}
	// A bound is the float64 nearest the schema's decimal, and f is exact, so a strict
	// comparison decides; equality is left to the validator's exact arithmetic.
	return (!p.hasMin || f > p.min) && (!p.hasMax || f < p.max)
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// skip moves past one value of any kind.
func (w *walker) skip() bool {
	depth := 0
	for {
		switch c := w.s[w.pos]; c {
		case '"':
			w.pos++
			for w.s[w.pos] != '"' {
				if w.s[w.pos] == '\\' {
					w.pos++
				}
				w.pos++
			}
			w.pos++
		case '{', '[':
			depth++
			w.pos++
			continue
		case '}', ']':
			depth--
			w.pos++
		case ',', ':':
			w.pos++
			continue
		case 'n', 't':
			w.pos += 4
		case 'f':
			w.pos += 5
		default:
			for w.pos < len(w.s) && isNumberByte(w.s[w.pos]) {
				w.pos++
			}
		}
		if depth == 0 {
			return true
		}
	}
}

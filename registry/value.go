package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/runcode-go/runcode/internal/jsontext"
)

// MaxDepth bounds the nesting of a [Value]. Deeper input is rejected rather than
// risking the host's stack; 10,000 levels leaves room for the 5,000-deep values the
// contract promises to carry intact.
const MaxDepth = 10000

// ErrLossy reports input that is not lossless JSON. Errors from [ParseValue] and
// [ValueOf] wrap it.
var ErrLossy = errors.New("not lossless JSON")

// Value is an immutable, lossless JSON value held in canonical text form: compact,
// strings escaped as JSON.stringify does, numbers spelled as JavaScript's
// Number.prototype.toString spells them, object keys in their original order.
//
// Lossless means it survives a round trip through a JavaScript JSON.parse and
// JSON.stringify unchanged: no -0, NaN or infinities, no duplicate keys, no invalid
// UTF-8. The zero Value holds nothing ([Value.IsZero]); it is not JSON null.
// A Value is a plain immutable value, safe to copy and share between goroutines.
type Value struct{ s string }

// NullValue is the JSON null value.
var NullValue = Value{"null"}

// ParseValue canonicalises JSON text into a Value. It fails, wrapping [ErrLossy], on
// anything that is not a single lossless JSON value.
func ParseValue(data []byte) (Value, error) {
	c := canon{in: data, out: make([]byte, 0, len(data))}
	if err := c.value(0); err != nil {
		return Value{}, err
	}
	c.skipSpace()
	if c.pos != len(c.in) {
		return Value{}, c.errorf("unexpected %s after the value", c.describe())
	}
	return Value{unsafe.String(unsafe.SliceData(c.out), len(c.out))}, nil
}

// MustParseValue is like [ParseValue] but panics on error. It is meant for literals in
// tests and examples.
func MustParseValue(text string) Value {
	v, err := ParseValue([]byte(text))
	if err != nil {
		panic(err)
	}
	return v
}

// StringValue returns the Value of a Go string. Invalid UTF-8 is replaced by U+FFFD,
// as a JSON encoder would.
func StringValue(s string) Value {
	b := make([]byte, 0, len(s)+2)
	b = jsontext.AppendString(b, s)
	return Value{unsafe.String(unsafe.SliceData(b), len(b))}
}

// ValueOf converts a Go value to a Value. A [Value] is returned as is; a
// [json.RawMessage] or []byte holding JSON text is parsed; anything else is encoded
// with encoding/json first. Lossy values (NaN, -0, cycles that encoding/json rejects)
// fail, wrapping [ErrLossy].
func ValueOf(v any) (Value, error) {
	switch x := v.(type) {
	case Value:
		if x.IsZero() {
			return Value{}, fmt.Errorf("%w: the zero Value holds nothing", ErrLossy)
		}
		return x, nil
	case string:
		if !utf8.ValidString(x) {
			return Value{}, fmt.Errorf("%w: string is not valid UTF-8", ErrLossy)
		}
		return StringValue(x), nil
	case nil:
		return NullValue, nil
	case bool:
		if x {
			return Value{"true"}, nil
		}
		return Value{"false"}, nil
	case json.RawMessage:
		return ParseValue(x)
	case float64:
		return numberValue(x)
	case int:
		return Value{strconv.Itoa(x)}, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return Value{}, fmt.Errorf("%w: %v", ErrLossy, err)
	}
	return ParseValue(data)
}

func numberValue(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, fmt.Errorf("%w: %v is not a finite number", ErrLossy, f)
	}
	if f == 0 && math.Signbit(f) {
		return Value{}, fmt.Errorf("%w: -0 is not representable in JSON", ErrLossy)
	}
	return Value{string(appendNumber(nil, f))}, nil
}

// IsZero reports whether v holds no value.
func (v Value) IsZero() bool { return v.s == "" }

// String returns the canonical JSON text, or "" for the zero Value.
func (v Value) String() string { return v.s }

// Bytes returns a fresh copy of the canonical JSON text.
func (v Value) Bytes() []byte { return []byte(v.s) }

// Kind returns the JSON type of v: "null", "boolean", "number", "string", "array",
// "object", or "" for the zero Value.
func (v Value) Kind() string {
	if v.s == "" {
		return ""
	}
	switch v.s[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

// MarshalJSON returns the canonical text; the zero Value encodes as null.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.s == "" {
		return []byte("null"), nil
	}
	return []byte(v.s), nil
}

// UnmarshalJSON parses and canonicalises data.
func (v *Value) UnmarshalJSON(data []byte) error {
	p, err := ParseValue(data)
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// Decode unmarshals v into dst with encoding/json.
func (v Value) Decode(dst any) error {
	if v.s == "" {
		return errors.New("decoding a zero Value")
	}
	return json.Unmarshal([]byte(v.s), dst)
}

// Any returns a fresh decoded tree: nil, bool, [json.Number], string, []any and
// map[string]any. Callers may change it freely; v is unaffected.
func (v Value) Any() any {
	if v.s == "" {
		return nil
	}
	d := decoder{s: v.s}
	return d.value()
}

// Equal reports whether two Values hold the same canonical text.
func (v Value) Equal(w Value) bool { return v.s == w.s }

// canon is a one-pass validating canonicaliser from JSON text to canonical text.
type canon struct {
	in  []byte
	pos int
	out []byte
}

func (c *canon) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at offset %d", ErrLossy, fmt.Sprintf(format, args...), c.pos)
}

func (c *canon) describe() string {
	if c.pos >= len(c.in) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(c.in[c.pos:])
	return strconv.QuoteRune(r)
}

func (c *canon) skipSpace() { c.pos = jsontext.SkipSpace(c.in, c.pos) }

// open copies the opening bracket of a container and reports whether end closes it
// at once (copied too).
func (c *canon) open(end byte) (empty bool) {
	c.out = append(c.out, c.in[c.pos])
	c.pos++
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == end {
		c.pos++
		c.out = append(c.out, end)
		return true
	}
	return false
}

// after copies what follows a member of a container (what: "an object" or "an
// array") closed by end: a comma (more members) or end (done).
func (c *canon) after(end byte, what string) (done bool, err error) {
	c.skipSpace()
	if c.pos >= len(c.in) {
		return false, c.errorf("unexpected end of input in %s", what)
	}
	switch b := c.in[c.pos]; b {
	case ',', end:
		c.pos++
		c.out = append(c.out, b)
		return b == end, nil
	}
	return false, c.errorf("expected ',' or '%c' in %s, found %s", end, what, c.describe())
}

func (c *canon) value(depth int) error {
	if depth > MaxDepth {
		return c.errorf("nesting deeper than %d levels", MaxDepth)
	}
	c.skipSpace()
	if c.pos >= len(c.in) {
		return c.errorf("unexpected end of input")
	}
	switch b := c.in[c.pos]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		return c.array(depth)
	case b == '"':
		return c.str()
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	default:
		for _, lit := range [...]string{"null", "true", "false"} {
			if bytes.HasPrefix(c.in[c.pos:], []byte(lit)) {
				c.pos += len(lit)
				c.out = append(c.out, lit...)
				return nil
			}
		}
		return c.errorf("unexpected %s", c.describe())
	}
}

func (c *canon) object(depth int) error {
	if c.open('}') {
		return nil
	}
	// keys holds the output offsets of each key's canonical text, for the duplicate check.
	var small [16][2]int
	keys := small[:0]
	var seen map[string]struct{}
	for {
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return c.errorf("expected a string key, found %s", c.describe())
		}
		start := len(c.out)
		if err := c.str(); err != nil {
			return err
		}
		key := c.out[start:]
		if seen == nil && len(keys) == len(small) {
			seen = make(map[string]struct{}, 2*len(small))
			for _, k := range keys {
				seen[string(c.out[k[0]:k[1]])] = struct{}{}
			}
		}
		if seen != nil {
			if _, dup := seen[string(key)]; dup {
				return c.errorf("duplicate key %s", key)
			}
			seen[string(key)] = struct{}{}
		} else {
			for _, k := range keys {
				if bytes.Equal(c.out[k[0]:k[1]], key) {
					return c.errorf("duplicate key %s", key)
				}
			}
			keys = append(keys, [2]int{start, len(c.out)})
		}
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return c.errorf("expected ':' after an object key, found %s", c.describe())
		}
		c.pos++
		c.out = append(c.out, ':')
		if err := c.value(depth + 1); err != nil {
			return err
		}
		if done, err := c.after('}', "an object"); done || err != nil {
			return err
		}
	}
}

func (c *canon) array(depth int) error {
	if c.open(']') {
		return nil
	}
	for {
		if err := c.value(depth + 1); err != nil {
			return err
		}
		if done, err := c.after(']', "an array"); done || err != nil {
			return err
		}
	}
}

// str copies a string literal in canonical form. The fast path copies runs of bytes
// that need no change; escapes are decoded and re-encoded as JSON.stringify would.
func (c *canon) str() error {
	c.pos++ // opening quote
	c.out = append(c.out, '"')
	for {
		run := c.pos
		c.pos = jsontext.SkipASCII(c.in, c.pos)
		c.out = append(c.out, c.in[run:c.pos]...)
		if c.pos >= len(c.in) {
			return c.errorf("unterminated string")
		}
		switch b := c.in[c.pos]; {
		case b == '"':
			c.pos++
			c.out = append(c.out, '"')
			return nil
		case b < 0x20:
			return c.errorf("control character %#x in a string", b)
		case b >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(c.in[c.pos:])
			if r == utf8.RuneError && size == 1 {
				return c.errorf("invalid UTF-8 in a string")
			}
			c.out = append(c.out, c.in[c.pos:c.pos+size]...)
			c.pos += size
		default: // backslash
			if err := c.escape(); err != nil {
				return err
			}
		}
	}
}

// escape copies the escape at pos as JSON.stringify would write what it stands for (a
// lone surrogate stays escaped).
func (c *canon) escape() error {
	r, next := jsontext.Escape(c.in, c.pos)
	switch {
	case next >= 0:
		c.out = jsontext.AppendRune(c.out, r)
		c.pos = next
		return nil
	case c.pos+1 >= len(c.in):
		return c.errorf("unterminated escape")
	case c.in[c.pos+1] == 'u':
		c.pos += 2
		return c.errorf("invalid \\u escape")
	}
	e := c.in[c.pos+1]
	c.pos += 2
	return c.errorf("invalid escape \\%c", e)
}

func (c *canon) number() error {
	start := c.pos
	if c.in[c.pos] == '-' {
		c.pos++
	}
	digits := c.pos
	switch {
	case c.pos < len(c.in) && c.in[c.pos] == '0':
		c.pos++
	case c.pos < len(c.in) && c.in[c.pos] >= '1' && c.in[c.pos] <= '9':
		for c.pos < len(c.in) && c.in[c.pos] >= '0' && c.in[c.pos] <= '9' {
			c.pos++
		}
	default:
		return c.errorf("invalid number")
	}
	intEnd := c.pos
	if c.pos < len(c.in) && c.in[c.pos] == '.' {
		c.pos++
		if c.pos >= len(c.in) || c.in[c.pos] < '0' || c.in[c.pos] > '9' {
			return c.errorf("invalid number")
		}
		for c.pos < len(c.in) && c.in[c.pos] >= '0' && c.in[c.pos] <= '9' {
			c.pos++
		}
	}
	if c.pos < len(c.in) && (c.in[c.pos] == 'e' || c.in[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.in) && (c.in[c.pos] == '+' || c.in[c.pos] == '-') {
			c.pos++
		}
		if c.pos >= len(c.in) || c.in[c.pos] < '0' || c.in[c.pos] > '9' {
			return c.errorf("invalid number")
		}
		for c.pos < len(c.in) && c.in[c.pos] >= '0' && c.in[c.pos] <= '9' {
			c.pos++
		}
	}
	text := c.in[start:c.pos]
	// Fast path: a plain integer of at most 15 digits is already canonical (it is
	// exact in a float64 and JavaScript prints it digit for digit), except -0.
	if c.pos == intEnd && intEnd-digits <= 15 {
		if string(text) == "-0" {
			return c.errorf("-0 is not representable in JSON")
		}
		c.out = append(c.out, text...)
		return nil
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	if err != nil || math.IsInf(f, 0) {
		return c.errorf("number %s is out of range", text)
	}
	if f == 0 && math.Signbit(f) {
		return c.errorf("-0 is not representable in JSON")
	}
	c.out = appendNumber(c.out, f)
	return nil
}

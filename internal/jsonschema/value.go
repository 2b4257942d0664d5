package jsonschema

import (
	"encoding/json"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
)

// The JSON types, as bits of a type set. tInteger appears only in a schema's set: a
// value is a number, which is also an integer when it has no fraction.
const (
	tNull = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tString
	tInteger
)

var typeNames = []struct {
	name string
	bit  uint8
}{
	{"array", tArray}, {"boolean", tBoolean}, {"integer", tInteger}, {"null", tNull},
	{"number", tNumber}, {"object", tObject}, {"string", tString},
}

func typeBit(name string) uint8 {
	for _, t := range typeNames {
		if t.name == name {
			return t.bit
		}
	}
	return 0
}

// kindOf returns the JSON type of a decoded value, or 0 for a Go value that is not
// one (a non-finite float, a json.Number that is not a number, any other type).
func kindOf(v any) uint8 {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case json.Number:
		if _, ok := parseDecimal(string(x)); ok {
			return tNumber
		}
		return 0
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		return tNumber
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return 0
		}
		return tNumber
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber
	}
	return 0
}

// decimal is an exact decimal number: the integer whose digits are a followed by b,
// times ten to the power exp. The digits have no leading or trailing zeros, so each
// number has one representation; zero has no digits. a and b are substrings of the
// number's text, so parsing allocates nothing.
type decimal struct {
	neg  bool
	a, b string
	exp  int64
}

// maxExp bounds exponents: larger ones saturate (no JSON number that means anything
// comes near), so that arithmetic on them cannot overflow.
const maxExp = 1 << 50

// parseDecimal reads a JSON number (a leading '+' and a missing integer part are not
// accepted, as in JSON).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return decimal{}, false
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[start:i]
		if frac == "" {
			return decimal{}, false
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && isDigit(s[i]) {
			if exp < maxExp {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == start {
			return decimal{}, false
		}
		exp = min(exp, maxExp)
		if neg {
			exp = -exp
		}
	}
	if i != len(s) {
		return decimal{}, false
	}
	exp -= int64(len(frac))
	// Leading zeros, through the integer part and into the fraction.
	for intPart != "" && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	if intPart == "" {
		for frac != "" && frac[0] == '0' {
			frac = frac[1:]
		}
	}
	// Trailing zeros, through the fraction and into the integer part.
	for frac != "" && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
		exp++
	}
	if frac == "" {
		for intPart != "" && intPart[len(intPart)-1] == '0' {
			intPart = intPart[:len(intPart)-1]
			exp++
		}
	}
	d.a, d.b, d.exp = intPart, frac, exp
	if d.zero() {
		return decimal{}, true
	}
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// toDecimal reads a number value of any of the Go types kindOf accepts.
func toDecimal(v any) (decimal, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return decimal{}, false
		}
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return decimal{}, false
		}
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	case int:
		s = strconv.Itoa(x)
	case int8:
		s = strconv.Itoa(int(x))
	case int16:
		s = strconv.Itoa(int(x))
	case int32:
		s = strconv.Itoa(int(x))
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint:
		s = strconv.FormatUint(uint64(x), 10)
	case uint8:
		s = strconv.FormatUint(uint64(x), 10)
	case uint16:
		s = strconv.FormatUint(uint64(x), 10)
	case uint32:
		s = strconv.FormatUint(uint64(x), 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	default:
		return decimal{}, false
	}
	return parseDecimal(s)
}

func (d decimal) zero() bool { return len(d.a)+len(d.b) == 0 }
func (d decimal) n() int     { return len(d.a) + len(d.b) }

func (d decimal) digit(i int) byte {
	if i < len(d.a) {
		return d.a[i]
	}
	return d.b[i-len(d.a)]
}

// integer reports whether d has no fraction.
func (d decimal) integer() bool { return d.exp >= 0 }

func (d decimal) sign() int {
	switch {
	case d.zero():
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmpDecimal compares x and y exactly.
func cmpDecimal(x, y decimal) int {
	sx, sy := x.sign(), y.sign()
	if sx != sy || sx == 0 {
		return cmpInt(sx, sy)
	}
	c := cmpAbs(x, y)
	if sx < 0 {
		return -c
	}
	return c
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpAbs compares the magnitudes of two non-zero decimals: first by the position of
// the leading digit, then digit by digit.
func cmpAbs(x, y decimal) int {
	ox, oy := int64(x.n())+x.exp, int64(y.n())+y.exp
	if ox != oy {
		if ox < oy {
			return -1
		}
		return 1
	}
	for i := range max(x.n(), y.n()) {
		dx, dy := byte('0'), byte('0')
		if i < x.n() {
			dx = x.digit(i)
		}
		if i < y.n() {
			dy = y.digit(i)
		}
		if dx != dy {
			return cmpInt(int(dx), int(dy))
		}
	}
	return 0
}

// multipleOf reports whether v is an integer multiple of m (m > 0), exactly: with v
// = dv·10^ev and m = dm·10^em, v/m is an integer when dm divides dv·10^(ev-em). When
// ev < em it never is, since dv has no trailing zeros.
func multipleOf(v, m decimal) bool {
	if v.zero() {
		return true
	}
	k := v.exp - m.exp
	if k < 0 {
		return false
	}
	if m.n() <= 19 {
		dm := digitsUint(m)
		var r uint64
		for i := range v.n() {
			hi, lo := bits.Mul64(r, 10)
			var c uint64
			lo, c = bits.Add64(lo, uint64(v.digit(i)-'0'), 0)
			_, r = bits.Div64(hi+c, lo, dm)
		}
		return mulMod(r, powMod(10, uint64(k), dm), dm) == 0
	}
	dv, dm := digitsBig(v), digitsBig(m)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(k), dm)
	dv.Mul(dv.Mod(dv, dm), p)
	return dv.Mod(dv, dm).Sign() == 0
}

func digitsUint(d decimal) uint64 {
	var u uint64
	for i := range d.n() {
		u = u*10 + uint64(d.digit(i)-'0')
	}
	return u
}

func digitsBig(d decimal) *big.Int {
	z, _ := new(big.Int).SetString(d.a+d.b, 10)
	return z
}

// mulMod returns a·b mod m for a, b < m.
func mulMod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	_, r := bits.Div64(hi, lo, m)
	return r
}

func powMod(b, e, m uint64) uint64 {
	r := 1 % m
	b %= m
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulMod(r, b, m)
		}
		b = mulMod(b, b, m)
	}
	return r
}

// appendKey appends d's canonical spelling: equal numbers, however written (1, 1.0,
// 10e-1), spell the same.
func (d decimal) appendKey(dst []byte) []byte {
	if d.zero() {
		return append(dst, '0')
	}
	if d.neg {
		dst = append(dst, '-')
	}
	dst = append(dst, d.a...)
	dst = append(dst, d.b...)
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, d.exp, 10)
}

// canonical appends a spelling of v in which two values are equal as JSON (numbers by
// value, objects whatever the order of their members) exactly when their spellings
// are equal. It walks with its own stack, so any depth is safe, and returns the number
// of values it visited, which is what it cost.
func canonical(dst []byte, v any) ([]byte, int) {
	type frame struct {
		isObj bool
		obj   map[string]any
		keys  []string
		arr   []any
		i     int
	}
	var stack []frame
	visited := 0
	for {
		visited++
		switch x := v.(type) {
		case nil:
			dst = append(dst, 'n')
		case bool:
			if x {
				dst = append(dst, 't')
			} else {
				dst = append(dst, 'f')
			}
		case string:
			dst = strconv.AppendQuote(dst, x)
		case map[string]any:
			dst = append(dst, '{')
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			stack = append(stack, frame{isObj: true, obj: x, keys: keys})
		case []any:
			dst = append(dst, '[')
			stack = append(stack, frame{arr: x})
		default:
			if d, ok := toDecimal(x); ok {
				dst = append(dst, '#')
				dst = d.appendKey(dst)
			} else {
				dst = append(dst, '?') // not a JSON value
			}
		}
		// Find the next value to visit, closing finished containers.
		for {
			if len(stack) == 0 {
				return dst, visited
			}
			f := &stack[len(stack)-1]
			if f.isObj {
				if f.i < len(f.keys) {
					if f.i > 0 {
						dst = append(dst, ',')
					}
					k := f.keys[f.i]
					dst = strconv.AppendQuote(dst, k)
					dst = append(dst, ':')
					v = f.obj[k]
					f.i++
					break
				}
				dst = append(dst, '}')
			} else {
				if f.i < len(f.arr) {
					if f.i > 0 {
						dst = append(dst, ',')
					}
					v = f.arr[f.i]
					f.i++
					break
				}
				dst = append(dst, ']')
			}
			stack = stack[:len(stack)-1]
		}
	}
}

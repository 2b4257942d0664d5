package runtime

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// The conversions: results that can be longer than their input, and the conversions goja
// does in time it cannot interrupt.
//
//   - normalize, toUpperCase, toLowerCase, toLocaleUpperCase, toLocaleLowerCase: for a
//     receiver that is not ASCII, its length times the longest expansion of one code unit
//     (normalizationFactor, caseFactor) over maxStringBytes is the RangeError. goja runs
//     these through golang.org/x/text in one call; counting the exact result would take as
//     long, and the bound refuses only receivers over a third (an eighteenth for NFKC and
//     NFKD) of the string bound.
//   - encodeURI, encodeURIComponent, escape: the exact length of the result is counted
//     first (cheaply, with the stop flag checked) when the longest expansion could pass
//     the bound. Installed like the RegExp guards: only the global object leads to them.
//   - localeCompare: goja normalizes copies of both strings and collates them in one
//     call; more than maxLocaleCompare characters in all is the RangeError.
//   - String.raw: goja reads raw.length once and appends a segment for every index up to
//     it; done here, with raw.length bounded by maxElements and the result by
//     maxStringBytes.
//   - parseFloat: goja matches a Go regexp over the whole text (about 130 ns a character);
//     done here with a scan of the prefix and strconv.ParseFloat, with the same results.

// Expansion factors: NFKC and NFKD turn one code unit into up to 18 (U+FDFA), NFC and NFD
// into up to 3; a case mapping turns one into up to 3 (U+0390, ﬃ).
const (
	normalizationFactor = 3
	compatibilityFactor = 18
	caseFactor          = 3
)

// maxLocaleCompare bounds the characters of the two strings of one localeCompare.
const maxLocaleCompare = 1 << 22

func (r *run) guardConversions(proto *goja.Object) {
	r.guardStringMethod(proto, "normalize", func(call goja.FunctionCall, normalize goja.Callable) goja.Value {
		s := r.strOf(call.This)
		form := call.Argument(0)
		if !goja.IsUndefined(form) {
			form = r.strOf(form)
		}
		factor := normalizationFactor
		if f := form.String(); f == "NFKC" || f == "NFKD" {
			factor = compatibilityFactor
		}
		if int64(s.Length())*int64(factor) > int64(r.maxStringBytes()) && !isASCII(s) {
			r.tooLongString()
		}
		return r.call(normalize, s, form)
	})
	for _, name := range []string{"toUpperCase", "toLowerCase", "toLocaleUpperCase", "toLocaleLowerCase"} {
		r.guardStringMethod(proto, name, func(call goja.FunctionCall, convert goja.Callable) goja.Value {
			s := r.strOf(call.This)
			if int64(s.Length())*caseFactor > int64(r.maxStringBytes()) && !isASCII(s) {
				r.tooLongString()
			}
			return r.call(convert, s, call.Arguments...)
		})
	}
	r.guardStringMethod(proto, "localeCompare", func(call goja.FunctionCall, compare goja.Callable) goja.Value {
		a, b := r.strOf(call.This), r.strOf(call.Argument(0))
		if a.Length()+b.Length() > maxLocaleCompare {
			r.tooLongString()
		}
		return r.call(compare, a, b)
	})
}

// ---- encodeURI, encodeURIComponent, escape ----

// guardURIs guards the global functions whose results are up to nine times their input,
// once per VM.
func (r *run) guardURIs() {
	g := r.vm.GlobalObject()
	for _, name := range []string{"encodeURI", "encodeURIComponent", "escape"} {
		count := uriLength
		if name == "escape" {
			count = escapeLength
		}
		component := name == "encodeURIComponent"
		r.guardCall(g, name, func(call goja.FunctionCall, encode goja.Callable) goja.Value {
			r.enterNative()
			defer r.leaveNative()
			s := r.strOf(call.Argument(0))
			if int64(s.Length())*9 > int64(r.maxStringBytes()) && count(r, s, component) > int64(r.maxStringBytes()) {
				r.tooLongString()
			}
			return r.call(encode, goja.Undefined(), s)
		})
	}
}

// uriUnreserved are the ASCII characters encodeURIComponent keeps; encodeURI keeps
// uriReserved and '#' too.
const (
	uriUnreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"
	uriReserved   = ";/?:@&=+$,#"
)

// uriLength is the length of encodeURI's (or encodeURIComponent's) result for s, as goja
// counts it; a lone surrogate (which makes goja throw) ends the count.
func uriLength(r *run, s goja.String, component bool) int64 {
	n, total := s.Length(), int64(0)
	for i := 0; i < n; i++ {
		if i&0xffff == 0xffff && r.failed() {
			r.tooLongString() // the run is over; unwind
		}
		c := s.CharAt(i)
		switch {
		case c < 0x80:
			if strings.IndexByte(uriUnreserved, byte(c)) >= 0 || !component && strings.IndexByte(uriReserved, byte(c)) >= 0 {
				total++
			} else {
				total += 3
			}
		case c < 0x800:
			total += 6
		case c >= 0xD800 && c <= 0xDBFF:
			if i+1 >= n || s.CharAt(i+1) < 0xDC00 || s.CharAt(i+1) > 0xDFFF {
				return total
			}
			total += 12
			i++
		case c >= 0xDC00 && c <= 0xDFFF:
			return total
		default:
			total += 9
		}
	}
	return total
}

// escapeLength is the length of escape's result for s.
func escapeLength(r *run, s goja.String, _ bool) int64 {
	n, total := s.Length(), int64(0)
	for i := 0; i < n; i++ {
		if i&0xffff == 0xffff && r.failed() {
			r.tooLongString()
		}
		switch c := s.CharAt(i); {
		case c < 0x80 && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@*_+-./", byte(c)) >= 0:
			total++
		case c <= 0xff:
			total += 3
		default:
			total += 6
		}
	}
	return total
}

// ---- String.raw ----

// guardStringRaw replaces String.raw with stringRaw. It builds the String constructor,
// which a program reaches from any string (”.constructor).
func (r *run) guardStringRaw() {
	vm := r.vm
	str := vm.ToValue("").ToObject(vm).Get("constructor").ToObject(vm)
	r.guardCall(str, "raw", func(call goja.FunctionCall, _ goja.Callable) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		return r.stringRaw(call)
	})
}

// stringRaw is goja's String.raw, with raw.length bounded by maxElements and the result by
// maxStringBytes, and the stop flag checked as it goes.
func (r *run) stringRaw(call goja.FunctionCall) goja.Value {
	cooked := call.Argument(0).ToObject(r.vm)
	raw := nilSafe(cooked.Get("raw")).ToObject(r.vm)
	n := toLength(raw.Get("length"))
	if n <= 0 {
		return r.vm.ToValue("")
	}
	if n > r.maxElements() {
		r.tooLongArray()
	}
	limit := int64(r.maxStringBytes())
	subs := int64(len(call.Arguments) - 1)
	var b goja.StringBuilder
	total := int64(0)
	put := func(s goja.String) {
		if total += int64(s.Length()); total > limit {
			r.tooLongString()
		}
		b.WriteString(s)
	}
	for i := int64(0); ; i++ {
		if i&1023 == 1023 && r.failed() {
			r.tooLongString() // the run is over; unwind
		}
		put(r.strOf(nilSafe(raw.Get(strconv.FormatInt(i, 10)))))
		if i+1 == n {
			return b.String()
		}
		if i < subs {
			put(r.strOf(call.Arguments[i+1]))
		}
	}
}

// ---- parseFloat ----

// guardParseFloat replaces parseFloat, which is also Number.parseFloat, with parseFloat.
func (r *run) guardParseFloat() {
	vm := r.vm
	g := vm.GlobalObject()
	r.guardCall(g, "parseFloat", func(call goja.FunctionCall, _ goja.Callable) goja.Value {
		r.enterNative()
		defer r.leaveNative()
		return r.parseFloat(call.Argument(0))
	})
	num := vm.ToValue(0).ToObject(vm).Get("constructor").ToObject(vm)
	_ = num.DefineDataProperty("parseFloat", g.Get("parseFloat"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// jsSpace reports whether goja's parseFloat trims c (parser.WhitespaceChars; all of them
// are single code units).
func jsSpace(c uint16) bool {
	switch c {
	case ' ', '\f', '\n', '\r', '\t', '\v', 0x00a0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return c >= 0x2000 && c <= 0x200a
}

// parseFloat is goja's parseFloat: the longest prefix of the trimmed text that its regexp
// ^([+-]?(?:Infinity|[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?)) matches, read with
// strconv.ParseFloat.
func (r *run) parseFloat(v goja.Value) goja.Value {
	s := r.strOf(v)
	var text string // the trimmed text from its first character, as far as it can matter
	if isASCII(s) {
		text = strings.TrimLeft(s.String(), " \f\n\r\t\v")
	} else {
		n, i := s.Length(), 0
		for i < n && jsSpace(s.CharAt(i)) {
			i++
		}
		// The prefix has only ASCII characters: read up to the first other one.
		j := i
		for j < n && s.CharAt(j) < 0x80 {
			j++
		}
		b := make([]byte, j-i)
		for k := range b {
			b[k] = byte(s.CharAt(i + k))
		}
		text = string(b)
	}
	return r.vm.ToValue(parseFloatPrefix(text))
}

// parseFloatPrefix reads the number at the start of text as goja's parseFloat does.
func parseFloatPrefix(text string) float64 {
	j := 0
	if j < len(text) && (text[j] == '+' || text[j] == '-') {
		j++
	}
	if strings.HasPrefix(text[j:], "Infinity") {
		if j > 0 && text[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	digits := func(k int) int {
		for k < len(text) && text[k] >= '0' && text[k] <= '9' {
			k++
		}
		return k
	}
	k := digits(j)
	if k < len(text) && text[k] == '.' {
		k = digits(k + 1)
	}
	if k < len(text) && (text[k] == 'e' || text[k] == 'E') {
		e := k + 1
		if e < len(text) && (text[e] == '+' || text[e] == '-') {
			e++
		}
		if end := digits(e); end > e {
			k = end
		}
	}
	if k == j {
		return math.NaN() // "", "+" or "-"
	}
	f, err := strconv.ParseFloat(text[:k], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

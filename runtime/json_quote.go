package runtime

import (
	"reflect"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// appendString writes a JavaScript string as JSON.stringify quotes it: '"', '\\' and
// control characters escaped, lone surrogates as \udXXX, the rest as UTF-8. The loops
// work on a local slice: appending to s.buf itself costs a write barrier per character
// while the collector runs.
func (s *stringifier) appendString(x goja.String) {
	n := x.Length()
	if len(s.buf)+n+2 > s.max { // the text is at least n+2 bytes
		panic(s.r.rangeError(msgJSONLength))
	}
	if reflect.TypeOf(x).Kind() == reflect.String { // goja keeps ASCII as a Go string
		if g := x.String(); asciiText(g) {
			s.appendGoString(g)
			return
		}
	}
	buf := append(s.buf, '"')
	for i := 0; i < n; i++ {
		if i&(1<<14-1) == 0 && len(buf) > s.max {
			panic(s.r.rangeError(msgJSONLength))
		}
		c := x.CharAt(i)
		switch {
		case c < utf8.RuneSelf:
			buf = appendEscaped(buf, byte(c))
		case utf16.IsSurrogate(rune(c)):
			if c < 0xDC00 && i+1 < n {
				if d := x.CharAt(i + 1); d >= 0xDC00 && d <= 0xDFFF {
					buf = utf8.AppendRune(buf, utf16.DecodeRune(rune(c), rune(d)))
					i++
					continue
				}
			}
			buf = append(buf, '\\', 'u', hexDigit[c>>12], hexDigit[c>>8&0xF], hexDigit[c>>4&0xF], hexDigit[c&0xF])
		default:
			buf = utf8.AppendRune(buf, rune(c))
		}
	}
	s.buf = append(buf, '"')
}

// appendGoString is appendString for a Go string (valid UTF-8: keys and ASCII strings).
func (s *stringifier) appendGoString(g string) {
	if len(s.buf)+len(g)+2 > s.max {
		panic(s.r.rangeError(msgJSONLength))
	}
	buf := append(s.buf, '"')
	start := 0
	for i := 0; i < len(g); i++ {
		c := g[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, g[start:i]...)
		buf = appendEscaped(buf, c)
		start = i + 1
		if len(buf) > s.max {
			panic(s.r.rangeError(msgJSONLength))
		}
	}
	buf = append(buf, g[start:]...)
	s.buf = append(buf, '"')
}

const hexDigit = "0123456789abcdef"

// appendEscaped writes one ASCII character of a JSON string.
func appendEscaped(buf []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(buf, '\\', c)
	case '\b':
		return append(buf, '\\', 'b')
	case '\f':
		return append(buf, '\\', 'f')
	case '\n':
		return append(buf, '\\', 'n')
	case '\r':
		return append(buf, '\\', 'r')
	case '\t':
		return append(buf, '\\', 't')
	}
	if c < 0x20 {
		return append(buf, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xF])
	}
	return append(buf, c)
}

// asciiText reports whether a Go string is all ASCII.
func asciiText(g string) bool {
	for i := 0; i < len(g); i++ {
		if g[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

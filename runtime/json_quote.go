package runtime

import (
	"reflect"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/runcode-go/runcode/internal/jsontext"
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
		if c >= 0xD800 && c < 0xDC00 && i+1 < n {
			if d := x.CharAt(i + 1); d >= 0xDC00 && d <= 0xDFFF {
				buf = utf8.AppendRune(buf, utf16.DecodeRune(rune(c), rune(d)))
				i++
				continue
			}
		}
		buf = jsontext.AppendRune(buf, rune(c)) // a lone surrogate as \uDXXX
	}
	s.buf = append(buf, '"')
}

// appendGoString is appendString for a Go string (valid UTF-8: keys and ASCII strings).
func (s *stringifier) appendGoString(g string) {
	if len(s.buf)+len(g)+2 > s.max {
		panic(s.r.rangeError(msgJSONLength))
	}
	buf := append(s.buf, '"')
	for i := 0; i < len(g); {
		j := jsontext.SkipPlain(g, i)
		buf = append(buf, g[i:j]...)
		if j == len(g) {
			break
		}
		buf = jsontext.AppendRune(buf, rune(g[j]))
		i = j + 1
		if len(buf) > s.max {
			panic(s.r.rangeError(msgJSONLength))
		}
	}
	s.buf = append(buf, '"')
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

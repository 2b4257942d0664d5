package jsontext

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Bytes eight at a time, for the scans over every byte of long strings.
const (
	lsb = 0x0101010101010101 // the low bit of each byte of a word
	msb = 0x8080808080808080 // the high bit of each byte
)

// load8 returns s[i:i+8] as a little-endian word (i+8 <= len(s)).
func load8[T ~string | ~[]byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// special8 reports whether the word x holds '"', '\\' or a control byte. (v-lsb)&^v
// has a high bit set at or below v's lowest zero byte, and none if it has no zero
// byte; likewise (x-n*lsb)&^x for a byte below n.
func special8(x uint64) bool {
	q, b := x^(lsb*'"'), x^(lsb*'\\')
	return ((x-lsb*0x20)&^x|(q-lsb)&^q|(b-lsb)&^b)&msb != 0
}

// SkipSpace returns the index of the first byte at or after i that is not JSON white
// space (space, tab, newline, carriage return); len(s) if none.
func SkipSpace[T ~string | ~[]byte](s T, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipPlain returns the index of the first byte at or after i that ends a run of
// bytes a JSON string holds as they are: '"', '\\' or a control byte; len(s) if none.
// Bytes of non-ASCII are plain here.
func SkipPlain[T ~string | ~[]byte](s T, i int) int {
	for i+8 <= len(s) && !special8(load8(s, i)) {
		i += 8
	}
	for i < len(s) {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
		i++
	}
	return i
}

// SkipASCII is [SkipPlain] that also stops at the first byte of non-ASCII, for
// callers that check UTF-8 themselves.
func SkipASCII[T ~string | ~[]byte](s T, i int) int {
	for i+8 <= len(s) {
		if x := load8(s, i); special8(x) || x&msb != 0 {
			break
		}
		i += 8
	}
	for i < len(s) {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
		i++
	}
	return i
}

// Escape decodes the escape sequence that starts with the backslash at s[i] and
// returns the code point it stands for and the index after it. A \u high surrogate
// followed by a \u low surrogate is one code point; an unpaired \u surrogate is
// returned as itself (callers that write UTF-8 get U+FFFD from utf8.AppendRune).
// next is -1 for an invalid or cut-off escape.
func Escape[T ~string | ~[]byte](s T, i int) (r rune, next int) {
	if i+1 >= len(s) {
		return 0, -1
	}
	switch e := s[i+1]; e {
	case '"', '\\', '/':
		return rune(e), i + 2
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r, ok := hex4(s, i+2)
		if !ok {
			return 0, -1
		}
		next = i + 6
		if r >= 0xD800 && r < 0xDC00 && next+1 < len(s) && s[next] == '\\' && s[next+1] == 'u' {
			if lo, ok := hex4(s, next+2); ok && lo >= 0xDC00 && lo < 0xE000 {
				return utf16.DecodeRune(r, lo), next + 6
			}
		}
		return r, next
	}
	return 0, -1
}

// hex4 reads four hex digits at s[i:].
func hex4[T ~string | ~[]byte](s T, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		b := s[k]
		switch {
		case b >= '0' && b <= '9':
			b -= '0'
		case b >= 'a' && b <= 'f':
			b -= 'a' - 10
		case b >= 'A' && b <= 'F':
			b -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(b)
	}
	return r, true
}

const hexDigit = "0123456789abcdef"

// AppendRune appends r inside a JSON string as JSON.stringify writes it: '"' and '\\'
// escaped, \b \f \n \r \t, \u00XX for the other control characters, a surrogate
// code point as \uDXXX, and everything else as UTF-8.
func AppendRune(dst []byte, r rune) []byte {
	switch r {
	case '"', '\\':
		return append(dst, '\\', byte(r))
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	switch {
	case r < 0x20:
		return append(dst, '\\', 'u', '0', '0', hexDigit[r>>4], hexDigit[r&0xF])
	case r < utf8.RuneSelf:
		return append(dst, byte(r))
	case utf16.IsSurrogate(r):
		return append(dst, '\\', 'u', hexDigit[r>>12], hexDigit[r>>8&0xF], hexDigit[r>>4&0xF], hexDigit[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// AppendString appends s as a JSON string, quoted as JSON.stringify quotes it (see
// [AppendRune]); a byte that is not UTF-8 is written as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		j := SkipASCII(s, i)
		dst = append(dst, s[i:j]...)
		if j == len(s) {
			break
		}
		if c := s[j]; c < utf8.RuneSelf {
			dst = AppendRune(dst, rune(c))
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		dst = utf8.AppendRune(dst, r) // RuneError for a byte that is not UTF-8
		i = j + size
	}
	return append(dst, '"')
}

// Unquote returns the value of the JSON string literal raw (quotes included, already
// known to be valid JSON apart from its UTF-8): escapes decoded, and unpaired
// surrogates and bytes that are not UTF-8 as U+FFFD.
func Unquote(raw string) string {
	s := raw[1 : len(raw)-1]
	if j := SkipASCII(s, 0); j == len(s) {
		return s
	}
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		j := SkipASCII(s, i)
		buf = append(buf, s[i:j]...)
		if j == len(s) {
			break
		}
		switch c := s[j]; {
		case c == '\\':
			r, next := Escape(s, j)
			if next < 0 { // not JSON: keep the rest as it is
				return string(append(buf, s[j:]...))
			}
			buf = utf8.AppendRune(buf, r)
			i = next
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i = j + 1
		default:
			r, size := utf8.DecodeRuneInString(s[j:])
			buf = utf8.AppendRune(buf, r)
			i = j + size
		}
	}
	return string(buf)
}

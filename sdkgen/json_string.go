package sdkgen

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// plainByte marks the bytes a JSON string holds as they are, with nothing to check:
// printable ASCII but '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Bytes eight at a time, for the scans over every byte of every description.
const (
	lsb = 0x0101010101010101 // the low bit of each byte of a word
	msb = 0x8080808080808080 // the high bit of each byte
)

// load8 returns s[i:i+8] as a little-endian word (one load; i+8 <= len(s)).
func load8[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// special8 reports whether the word x holds a byte that is not plainByte: '"', '\\',
// a control byte or a byte of non-ASCII. (v-lsb)&^v has a high bit set below or at
// v's lowest zero byte, and none if it has no zero byte; likewise (x-n*lsb)&^x for
// a byte below n.)
func special8(x uint64) bool {
	q, b := x^(lsb*'"'), x^(lsb*'\\')
	return ((x-lsb*0x20)&^x|(q-lsb)&^q|(b-lsb)&^b|x)&msb != 0
}

// str reads a JSON string; invalid UTF-8 and lone surrogates become U+FFFD. Unless
// esc, the value is the text between the quotes, and value is that text.
func (p *parser) str() (value string, esc, ok bool) {
	s, start := p.s, p.pos
	i := start + 1
	ascii, simple := true, true
	for {
		// Most of a schema's bytes are plain ASCII in strings (descriptions): skip
		// them eight at a time, then with a table lookup each.
		for i+8 <= len(s) && !special8(load8(s, i)) {
			i += 8
		}
		for i < len(s) && plainByte[s[i]] {
			i++
		}
		if i >= len(s) {
			return "", false, false
		}
		c := s[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", false, false
		}
		if c == '\\' {
			simple = false
			i++
			if i >= len(s) {
				return "", false, false
			}
			if s[i] == 'u' {
				if i+4 >= len(s) {
					return "", false, false
				}
				if _, err := strconv.ParseUint(s[i+1:i+5], 16, 16); err != nil {
					return "", false, false
				}
				i += 4
			} else if strings.IndexByte(`"\/bfnrt`, s[i]) < 0 {
				return "", false, false
			}
		} else if c >= 0x80 {
			ascii = false
		}
		i++
	}
	i++
	p.pos = i
	raw := s[start:i]
	// Without escapes, valid UTF-8 is its own value (as strconv.Unquote would say).
	if simple && (ascii || utf8.ValidString(raw)) {
		return raw[1 : len(raw)-1], false, true
	}
	v, err := strconv.Unquote(raw)
	if err != nil || !utf8.ValidString(v) {
		return strings.ToValidUTF8(unquoteLoose(raw), "\uFFFD"), true, true
	}
	return v, true, true
}

// unquoteLoose decodes a JSON string that strconv.Unquote rejects (a "\/" escape, a
// lone surrogate, raw invalid UTF-8), replacing what has no UTF-8 form.
func unquoteLoose(raw string) string {
	var b strings.Builder
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, _ := strconv.ParseUint(s[i+1:i+5], 16, 32)
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := strconv.ParseUint(s[i+3:i+7], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
					b.WriteRune(rune((r-0xD800)<<10 + (lo - 0xDC00) + 0x10000))
					i += 6
					continue
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteRune(rune(r))
			}
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

func (p *parser) number() bool {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 || p.s[intStart] == '0' && p.pos-intStart > 1 {
		return false
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return false
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return false
		}
	}
	return p.pos > start
}

package sdkgen

import (
	"unicode/utf8"

	"github.com/runcode-go/runcode/internal/jsontext"
)

// str reads a JSON string; invalid UTF-8 and lone surrogates become U+FFFD. Unless
// esc, the value is the text between the quotes, and value is that text.
func (p *parser) str() (value string, esc, ok bool) {
	s, start := p.s, p.pos
	i := start + 1
	ascii := true
	for {
		// Most of a schema's bytes are plain ASCII in strings (descriptions).
		i = jsontext.SkipASCII(s, i)
		if i >= len(s) {
			return "", false, false
		}
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			raw := s[start:p.pos]
			if !esc && (ascii || utf8.ValidString(raw)) {
				return raw[1 : len(raw)-1], false, true
			}
			return jsontext.Unquote(raw), true, true
		case c < 0x20:
			return "", false, false
		case c == '\\':
			if _, i = jsontext.Escape(s, i); i < 0 {
				return "", false, false
			}
			esc = true
		default:
			ascii = false
			i++
		}
	}
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

package registry

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder turns canonical text (already validated by canon) into a Go tree. Strings
// without escapes and numbers are substrings of the canonical text, so decoding
// allocates only the containers and the strings that had escapes.
type decoder struct {
	s   string
	pos int
}

func (d *decoder) value() any {
	switch d.s[d.pos] {
	case '{':
		d.pos++
		m := make(map[string]any)
		if d.s[d.pos] == '}' {
			d.pos++
			return m
		}
		for {
			k := d.str()
			d.pos++ // ':'
			m[k] = d.value()
			if d.s[d.pos] == '}' {
				d.pos++
				return m
			}
			d.pos++ // ','
		}
	case '[':
		d.pos++
		a := []any{}
		if d.s[d.pos] == ']' {
			d.pos++
			return a
		}
		for {
			a = append(a, d.value())
			if d.s[d.pos] == ']' {
				d.pos++
				return a
			}
			d.pos++
		}
	case '"':
		return d.str()
	case 'n':
		d.pos += 4
		return nil
	case 't':
		d.pos += 4
		return true
	case 'f':
		d.pos += 5
		return false
	}
	start := d.pos
	for d.pos < len(d.s) && strings.IndexByte("-+.eE0123456789", d.s[d.pos]) >= 0 {
		d.pos++
	}
	return json.Number(d.s[start:d.pos])
}

func (d *decoder) str() string {
	d.pos++
	start := d.pos
	for d.s[d.pos] != '"' && d.s[d.pos] != '\\' {
		d.pos++
	}
	if d.s[d.pos] == '"' {
		d.pos++
		return d.s[start : d.pos-1]
	}
	var b strings.Builder
	b.WriteString(d.s[start:d.pos])
	for d.s[d.pos] != '"' {
		if d.s[d.pos] != '\\' {
			b.WriteByte(d.s[d.pos])
			d.pos++
			continue
		}
		e := d.s[d.pos+1]
		d.pos += 2
		switch e {
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
			r, _ := strconv.ParseUint(d.s[d.pos:d.pos+4], 16, 32)
			d.pos += 4
			if utf16.IsSurrogate(rune(r)) {
				b.WriteRune(utf8.RuneError) // a lone surrogate has no UTF-8 form
			} else {
				b.WriteRune(rune(r))
			}
		default:
			b.WriteByte(e)
		}
	}
	d.pos++
	return b.String()
}

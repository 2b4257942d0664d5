package registry

import (
	"encoding/json"
	"strings"

	"github.com/runcode-go/runcode/internal/jsontext"
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
	start := d.pos
	i, esc := d.pos+1, false
	for {
		i = jsontext.SkipPlain(d.s, i)
		if d.s[i] == '"' {
			break
		}
		_, i = jsontext.Escape(d.s, i) // valid: the text is canonical
		esc = true
	}
	d.pos = i + 1
	if !esc {
		return d.s[start+1 : i]
	}
	return jsontext.Unquote(d.s[start:d.pos])
}

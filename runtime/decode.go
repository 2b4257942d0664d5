package runtime

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// Host results arrive as JSON and become native JavaScript values built directly, which is
// several times faster than goja's JSON.parse (which goes through encoding/json's token
// stream) and does not depend on anything a program could replace. The result is what
// JSON.parse would return: plain objects with keys in document order (own data properties,
// so "__proto__" is an ordinary key), dense arrays, and numbers as IEEE doubles.

var errBadJSON = errors.New("invalid JSON")

type decoder struct {
	vm   *goja.Runtime
	data []byte
	pos  int
}

// decodeJSON converts one JSON text into a JavaScript value. VM goroutine only.
func (r *run) decodeJSON(data []byte) (goja.Value, error) {
	d := decoder{vm: r.vm, data: data}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, errBadJSON
	}
	return v, nil
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) literal(word string, v goja.Value) (goja.Value, error) {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return nil, errBadJSON
	}
	d.pos += len(word)
	return v, nil
}

func (d *decoder) value() (goja.Value, error) {
	d.space()
	if d.pos >= len(d.data) {
		return nil, errBadJSON
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.vm.ToValue(s), nil
	case c == 't':
		return d.literal("true", d.vm.ToValue(true))
	case c == 'f':
		return d.literal("false", d.vm.ToValue(false))
	case c == 'n':
		return d.literal("null", goja.Null())
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, errBadJSON
}

func (d *decoder) number() (goja.Value, error) {
	start := d.pos
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			d.pos++
			continue
		}
		break
	}
	f, err := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, errBadJSON
		}
	}
	return d.vm.ToValue(f), nil
}

// str decodes a JSON string. Escaped lone surrogates become U+FFFD, as Go strings cannot
// hold them.
func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if c == '\\' {
			return d.strSlow(start)
		}
		if c < 0x20 {
			return "", errBadJSON
		}
		d.pos++
	}
	return "", errBadJSON
}

func (d *decoder) strSlow(start int) (string, error) {
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", errBadJSON
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.data) {
			return "", errBadJSON
		}
		e := d.data[d.pos+1]
		d.pos += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r1, ok := d.hex4()
			if !ok {
				return "", errBadJSON
			}
			if utf16.IsSurrogate(r1) && d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
				save := d.pos
				d.pos += 2
				if r2, ok := d.hex4(); ok {
					if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						continue
					}
				}
				d.pos = save
			}
			buf = utf8.AppendRune(buf, r1) // a lone surrogate appends U+FFFD
		default:
			return "", errBadJSON
		}
	}
	return "", errBadJSON
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(n), true
}

func (d *decoder) array() (goja.Value, error) {
	d.pos++ // [
	var items []any
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return d.vm.NewArray(), nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, errBadJSON
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return d.vm.NewArray(items...), nil
		default:
			return nil, errBadJSON
		}
	}
}

func (d *decoder) object() (goja.Value, error) {
	d.pos++ // {
	o := d.vm.NewObject()
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return o, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, errBadJSON
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, errBadJSON
		}
		d.pos++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		// CreateDataProperty, as JSON.parse does: never a setter, "__proto__" included.
		if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, errBadJSON
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return o, nil
		default:
			return nil, errBadJSON
		}
	}
}

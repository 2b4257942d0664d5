package jsvm

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/runcode-go/runcode/internal/jsontext"
)

// Host results arrive as JSON and are built directly as JavaScript values: several times
// faster than goja's JSON.parse, and independent of anything a program could replace. The
// result is what JSON.parse would return: plain objects with keys in document order (own
// data properties, "__proto__" an ordinary key), dense arrays, IEEE doubles.

var errBadJSON = errors.New("invalid JSON")

type decoder struct {
	vm   *goja.Runtime
	data []byte
	pos  int
	// Keys and short strings repeat across the rows tools return, so one decode interns
	// them, in bounded tables (BENCHMARKS.md, "internal/jsvm design notes").
	keys    map[string]string
	strings map[string]goja.Value
	// objects counts the objects begun; interning starts with the second, as repetition
	// is across objects.
	objects int
	// protoNames are Object.prototype's own property names, read when the second object
	// begins (nil before: every key is then defined, see setKey).
	protoNames map[string]struct{}
}

const (
	maxInternKeys    = 1024
	maxInternStrings = 4096
	maxInternLen     = 48
)

// decodeJSON converts one JSON text into a JavaScript value. VM goroutine only.
func (r *VM) decodeJSON(data []byte) (goja.Value, error) {
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

func (d *decoder) space() { d.pos = jsontext.SkipSpace(d.data, d.pos) }

// open steps over a container's opening bracket and reports whether end closes it at once.
func (d *decoder) open(end byte) (empty bool) {
	d.pos++
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == end {
		d.pos++
		return true
	}
	return false
}

// after reads what follows a member of a container closed by end: a comma or end (done).
func (d *decoder) after(end byte) (done bool, err error) {
	d.space()
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ',':
			d.pos++
			return false, nil
		case end:
			d.pos++
			return true, nil
		}
	}
	return false, errBadJSON
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
		return d.strValue()
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
	if v, ok := d.integer(); ok {
		return v, nil
	}
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

// key decodes an object key, interned.
func (d *decoder) key() (string, error) {
	if raw, ok := d.plain(); ok {
		if d.objects < 2 {
			return string(raw), nil
		}
		if k, ok := d.keys[string(raw)]; ok { // no allocation for the lookup
			return k, nil
		}
		k := string(raw)
		if d.keys == nil {
			d.keys = make(map[string]string)
		}
		if len(d.keys) < maxInternKeys {
			d.keys[k] = k
		}
		return k, nil
	}
	return d.str()
}

// strValue decodes a string value; short ones are interned.
func (d *decoder) strValue() (goja.Value, error) {
	if raw, ok := d.plain(); ok {
		if len(raw) > maxInternLen || d.objects < 2 {
			return d.vm.ToValue(string(raw)), nil
		}
		if v, ok := d.strings[string(raw)]; ok {
			return v, nil
		}
		v := d.vm.ToValue(string(raw))
		if d.strings == nil {
			d.strings = make(map[string]goja.Value)
		}
		if len(d.strings) < maxInternStrings {
			d.strings[string(raw)] = v
		}
		return v, nil
	}
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	return d.vm.ToValue(s), nil
}

// plain returns the string at pos and moves past it if it has no escapes or controls.
func (d *decoder) plain() ([]byte, bool) {
	i := jsontext.SkipPlain(d.data, d.pos+1)
	if i == len(d.data) || d.data[i] != '"' {
		return nil, false
	}
	raw := d.data[d.pos+1 : i]
	d.pos = i + 1
	return raw, true
}

// integer decodes an integer of at most 15 digits (exact in a float64) without strconv;
// anything else, -0 among it, is left to number.
func (d *decoder) integer() (goja.Value, bool) {
	i, neg := d.pos, false
	if d.data[i] == '-' {
		i, neg = i+1, true
	}
	start := i
	var n int64
	for ; i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9'; i++ {
		n = n*10 + int64(d.data[i]-'0')
	}
	digits := i - start
	if digits == 0 || digits > 15 || digits > 1 && d.data[start] == '0' || neg && n == 0 {
		return nil, false
	}
	if i < len(d.data) {
		switch d.data[i] {
		case '.', 'e', 'E':
			return nil, false
		}
	}
	d.pos = i
	if neg {
		n = -n
	}
	return d.vm.ToValue(n), true
}

// str decodes a JSON string. Escaped lone surrogates become U+FFFD, as Go strings cannot
// hold them.
func (d *decoder) str() (string, error) {
	var buf []byte
	i := d.pos + 1 // after the opening quote
	for {
		j := jsontext.SkipPlain(d.data, i)
		if j == len(d.data) || d.data[j] < 0x20 {
			return "", errBadJSON
		}
		if d.data[j] == '"' {
			d.pos = j + 1
			if buf == nil {
				return string(d.data[i:j]), nil
			}
			return string(append(buf, d.data[i:j]...)), nil
		}
		r, next := jsontext.Escape(d.data, j)
		if next < 0 {
			return "", errBadJSON
		}
		buf = utf8.AppendRune(append(buf, d.data[i:j]...), r) // a lone surrogate appends U+FFFD
		i = next
	}
}

func (d *decoder) array() (goja.Value, error) {
	if d.open(']') {
		return d.vm.NewArray(), nil
	}
	var items []any
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		done, err := d.after(']')
		if err != nil {
			return nil, err
		}
		if done {
			return d.vm.NewArray(items...), nil
		}
	}
}

// setKey creates the own data property k of the fresh object o, as JSON.parse's
// CreateDataProperty does: never a setter, never blocked by a read-only inherited
// property, "__proto__" an ordinary key. Set is much cheaper than DefineDataProperty
// (BENCHMARKS.md) and creates the same property unless Object.prototype (a fresh object's
// only prototype) has an own property of that name, whatever a program added; such keys
// are defined instead. No JavaScript runs during a decode, so the names cannot change.
func (d *decoder) setKey(o *goja.Object, k string, v goja.Value) error {
	if d.protoNames != nil {
		if _, inherited := d.protoNames[k]; !inherited {
			return o.Set(k, v)
		}
	}
	return o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
}

func (d *decoder) object() (goja.Value, error) {
	empty := d.open('}')
	d.objects++
	o := d.vm.NewObject()
	if d.objects == 2 {
		names := o.Prototype().GetOwnPropertyNames() // the intrinsic Object.prototype
		d.protoNames = make(map[string]struct{}, len(names))
		for _, n := range names {
			d.protoNames[n] = struct{}{}
		}
	}
	if empty {
		return o, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, errBadJSON
		}
		k, err := d.key()
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
		if err := d.setKey(o, k, v); err != nil {
			return nil, err
		}
		done, err := d.after('}')
		if err != nil {
			return nil, err
		}
		if done {
			return o, nil
		}
	}
}

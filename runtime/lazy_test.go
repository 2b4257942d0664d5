package runtime

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/runcode-go/runcode/internal/jsontext"
)

// The lazy result path, kept beside the eager decoder it is measured against
// (BenchmarkResultPath): objects and arrays become goja DynamicObject and DynamicArray
// values over the result's text, and a member is decoded the first time a program reads
// it. The whole text is validated up front, so a bad result still fails at the call.
//
// It is not the production path: it cannot be made exactly JSON.parse's. goja's dynamic
// objects refuse symbol keys, accessor or non-default property attributes and
// Object.freeze/seal/preventExtensions, and an object cannot turn into a plain one in
// place; an object that can (a Proxy over a plain target, proxyDecode below) is slower
// than eager construction on the read path alone. BENCHMARKS.md has the comparison.

// lazyDecode is decodeJSON's lazy counterpart.
func lazyDecode(vm *goja.Runtime, data []byte) (goja.Value, error) {
	start := skipSpace(data, 0)
	end, ok := skipValue(data, start)
	if !ok || skipSpace(data, end) != len(data) {
		return nil, errBadJSON
	}
	return (&lazyDoc{vm: vm, keys: make(map[string]string)}).value(data[start:end]), nil
}

// lazyDoc is one decode's shared state: its keys are interned across objects.
type lazyDoc struct {
	vm   *goja.Runtime
	keys map[string]string
}

// value wraps the text of one valid JSON value.
func (doc *lazyDoc) value(text []byte) goja.Value {
	vm := doc.vm
	switch text[0] {
	case '{':
		return vm.NewDynamicObject(&lazyObject{doc: doc, text: text})
	case '[':
		a := &lazyArray{doc: doc}
		for i := skipSpace(text, 1); text[i] != ']'; {
			end, _ := skipValue(text, i)
			a.spans = append(a.spans, text[i:end])
			i = skipSpace(text, end)
			if text[i] == ',' {
				i = skipSpace(text, i+1)
			}
		}
		a.vals = make([]goja.Value, len(a.spans))
		return vm.NewDynamicArray(a)
	}
	d := decoder{vm: vm, data: text}
	v, _ := d.value()
	return v
}

// lazyObject indexes its fields on first use; a field's val is nil until it is read.
type lazyObject struct {
	doc     *lazyDoc
	text    []byte
	indexed bool
	fields  []lazyField
}

type lazyField struct {
	key  string
	span []byte
	val  goja.Value
}

func (o *lazyObject) index() {
	if o.indexed {
		return
	}
	o.indexed = true
	o.fields = make([]lazyField, 0, 8)
	d := decoder{vm: o.doc.vm, data: o.text, pos: skipSpace(o.text, 1)}
	for d.data[d.pos] != '}' {
		var k string
		if raw, ok := d.plain(); ok {
			if k, ok = o.doc.keys[string(raw)]; !ok {
				k = string(raw)
				if len(o.doc.keys) < maxInternKeys {
					o.doc.keys[k] = k
				}
			}
		} else {
			k, _ = d.str()
		}
		d.pos = skipSpace(d.data, d.pos)
		start := skipSpace(d.data, d.pos+1) // after ':'
		end, _ := skipValue(d.data, start)
		if i := o.find(k); i >= 0 { // a repeated key keeps its place and takes the last value
			o.fields[i] = lazyField{key: k, span: d.data[start:end]}
		} else {
			o.fields = append(o.fields, lazyField{key: k, span: d.data[start:end]})
		}
		d.pos = skipSpace(d.data, end)
		if d.data[d.pos] == ',' {
			d.pos = skipSpace(d.data, d.pos+1)
		}
	}
}

func (o *lazyObject) find(k string) int {
	for i := range o.fields {
		if o.fields[i].key == k {
			return i
		}
	}
	return -1
}

func (o *lazyObject) Get(k string) goja.Value {
	o.index()
	i := o.find(k)
	if i < 0 {
		return nil
	}
	f := &o.fields[i]
	if f.val == nil {
		f.val = o.doc.value(f.span)
	}
	return f.val
}

func (o *lazyObject) Set(k string, v goja.Value) bool {
	o.index()
	if i := o.find(k); i >= 0 {
		o.fields[i].val = v
		return true
	}
	o.fields = append(o.fields, lazyField{key: k, val: v})
	return true
}

func (o *lazyObject) Has(k string) bool {
	o.index()
	return o.find(k) >= 0
}

func (o *lazyObject) Delete(k string) bool {
	o.index()
	if i := o.find(k); i >= 0 {
		o.fields = slices.Delete(o.fields, i, i+1)
	}
	return true
}

// Keys lists array-index keys first, in ascending order, then the rest in insertion
// order, as an ordinary object's [[OwnPropertyKeys]] does.
func (o *lazyObject) Keys() []string {
	o.index()
	var index, other []string
	for _, f := range o.fields {
		if k := f.key; isArrayIndex(k) {
			index = append(index, k)
		} else {
			other = append(other, k)
		}
	}
	slices.SortFunc(index, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	return append(index, other...)
}

// isArrayIndex reports whether k is the canonical decimal form of an integer below 2³²−1.
func isArrayIndex(k string) bool {
	n, err := strconv.ParseUint(k, 10, 32)
	return err == nil && n < 1<<32-1 && strconv.FormatUint(n, 10) == k
}

// lazyArray knows its elements' spans from the start; vals[i] is nil until read.
type lazyArray struct {
	doc   *lazyDoc
	spans [][]byte
	vals  []goja.Value
}

func (a *lazyArray) Len() int { return len(a.vals) }

func (a *lazyArray) Get(i int) goja.Value {
	if i < 0 || i >= len(a.vals) {
		return nil
	}
	if a.vals[i] == nil {
		a.vals[i] = a.doc.value(a.spans[i])
	}
	return a.vals[i]
}

func (a *lazyArray) Set(i int, v goja.Value) bool {
	if i < 0 {
		return false
	}
	if i >= len(a.vals) {
		a.SetLen(i + 1)
	}
	a.vals[i] = v
	return true
}

func (a *lazyArray) SetLen(n int) bool {
	for len(a.vals) < n {
		a.vals, a.spans = append(a.vals, goja.Undefined()), append(a.spans, nil)
	}
	a.vals, a.spans = a.vals[:n], a.spans[:n]
	return true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue validates the JSON value at i and returns the index after it.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{' || c == '[':
		return skipContainer(data, i)
	case c == 't':
		return skipWord(data, i, "true")
	case c == 'f':
		return skipWord(data, i, "false")
	case c == 'n':
		return skipWord(data, i, "null")
	}
	return skipNumber(data, i)
}

func skipContainer(data []byte, i int) (int, bool) {
	closing := byte(']')
	if data[i] == '{' {
		closing = '}'
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == closing {
		return i + 1, true
	}
	for {
		var ok bool
		if closing == '}' {
			if i >= len(data) || data[i] != '"' {
				return 0, false
			}
			if i, ok = skipString(data, i); !ok {
				return 0, false
			}
			if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
				return 0, false
			}
			i = skipSpace(data, i+1)
		}
		if i, ok = skipValue(data, i); !ok {
			return 0, false
		}
		if i = skipSpace(data, i); i >= len(data) {
			return 0, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case closing:
			return i + 1, true
		default:
			return 0, false
		}
	}
}

func skipString(data []byte, i int) (int, bool) {
	for i++; ; {
		i = jsontext.SkipPlain(data, i)
		switch {
		case i == len(data) || data[i] < 0x20:
			return 0, false
		case data[i] == '"':
			return i + 1, true
		}
		if _, i = jsontext.Escape(data, i); i < 0 {
			return 0, false
		}
	}
}

func skipWord(data []byte, i int, w string) (int, bool) {
	if len(data)-i < len(w) || string(data[i:i+len(w)]) != w {
		return 0, false
	}
	return i + len(w), true
}

// skipNumber accepts exactly JSON's number grammar.
func skipNumber(data []byte, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else if !digits() {
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}

// proxyDecode is the shape an exact lazy path would need (objects that turn into plain
// ones in place): arrays built eagerly, each object a Proxy over an empty plain target,
// its fields decoded on first read. Only the read path is here (get, has, ownKeys): it
// bounds from below what the exact variant would cost, whose other traps would
// materialize the fields into the target before forwarding.
func proxyDecode(vm *goja.Runtime, data []byte) (goja.Value, error) {
	start := skipSpace(data, 0)
	end, ok := skipValue(data, start)
	if !ok || skipSpace(data, end) != len(data) {
		return nil, errBadJSON
	}
	p := &proxyDoc{lazyDoc: lazyDoc{vm: vm, keys: make(map[string]string)}, objects: make(map[*goja.Object]*lazyObject)}
	p.cfg = &goja.ProxyTrapConfig{
		Get: func(target *goja.Object, k string, _ goja.Value) goja.Value {
			if v := p.objects[target].Get(k); v != nil {
				return v
			}
			return target.Get(k)
		},
		Has: func(target *goja.Object, k string) bool {
			return p.objects[target].Has(k) || target.Get(k) != nil
		},
		OwnKeys: func(target *goja.Object) *goja.Object {
			keys := p.objects[target].Keys()
			vals := make([]any, len(keys))
			for i, k := range keys {
				vals[i] = k
			}
			return vm.NewArray(vals...)
		},
		GetOwnPropertyDescriptor: func(target *goja.Object, k string) goja.PropertyDescriptor {
			v := p.objects[target].Get(k)
			if v == nil {
				return goja.PropertyDescriptor{}
			}
			return goja.PropertyDescriptor{Value: v, Writable: goja.FLAG_TRUE, Enumerable: goja.FLAG_TRUE, Configurable: goja.FLAG_TRUE}
		},
	}
	return p.value(data[start:end]), nil
}

type proxyDoc struct {
	lazyDoc
	objects map[*goja.Object]*lazyObject
	cfg     *goja.ProxyTrapConfig
}

func (p *proxyDoc) value(text []byte) goja.Value {
	switch text[0] {
	case '{':
		target := p.vm.NewObject()
		p.objects[target] = &lazyObject{doc: &p.lazyDoc, text: text}
		return p.vm.ToValue(p.vm.NewProxy(target, p.cfg))
	case '[':
		var items []any
		for i := skipSpace(text, 1); text[i] != ']'; {
			end, _ := skipValue(text, i)
			items = append(items, p.value(text[i:end]))
			i = skipSpace(text, end)
			if text[i] == ',' {
				i = skipSpace(text, i+1)
			}
		}
		return p.vm.NewArray(items...)
	}
	d := decoder{vm: p.vm, data: text}
	v, _ := d.value()
	return v
}

package runtime

import (
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unsafe"

	"github.com/dop251/goja"
)

// What goja knows about a RegExp and does not say: whether it takes its fast paths for it,
// which engine its pattern needs, and its compiled source and flags (which a program's own
// properties on the RegExp do not change). They are read with reflect, read-only, from the
// layout of the goja version go.mod pins, learned once from a RegExp of a VM of our own.
// TestRegExpInternals fails if that layout changes; until it is fixed, every RegExp reads
// as unknown (regexpState.ok false), which sends every operation through goja's generic
// algorithm, ported and bounded (slower, and with the fast path's few differences lost).

// regexpState is what regexpState reads of one RegExp.
type regexpState struct {
	ok                                                     bool // o is a RegExp whose internals were read
	standard                                               bool // goja takes its fast paths for it (its checkStdRegexp)
	regexp2                                                bool // its pattern needs goja's backtracking engine
	global, ignoreCase, multiline, dotAll, unicode, sticky bool
	goRe                                                   *regexp.Regexp // the compiled Go pattern, when not regexp2
	groups                                                 int            // capture groups, when not regexp2
}

// flags writes the RegExp's flags in the order goja's flags getter does.
func (st regexpState) flags() string {
	var b strings.Builder
	for _, f := range []struct {
		on bool
		c  byte
	}{{st.global, 'g'}, {st.ignoreCase, 'i'}, {st.multiline, 'm'}, {st.dotAll, 's'}, {st.unicode, 'u'}, {st.sticky, 'y'}} {
		if f.on {
			b.WriteByte(f.c)
		}
	}
	return b.String()
}

// regexpLayout is where regexpState finds what it reads: field index paths into goja's
// Object, regexpObject, regexpPattern and Runtime.
type regexpLayout struct {
	self                                           []int // Object.self (objectImpl)
	standard, pattern, source, prototype           []int // in regexpObject
	global, ignoreCase, multiline, dotAll, unicode []int // in regexpPattern
	sticky, goRe, regexp2, src                     []int
	regexp2Rx                                      []int        // in regexp2Wrapper
	stdProto                                       []int        // Runtime.global.stdRegexpProto
	regexpObject, guardedObject                    reflect.Type // the pointer types
}

var regexpFields = sync.OnceValue(func() (l *regexpLayout) {
	defer func() {
		if recover() != nil {
			l = nil
		}
	}()
	vm := goja.New()
	v, err := vm.RunString("/a/")
	if err != nil {
		return nil
	}
	field := func(t reflect.Type, name string) []int {
		f, ok := t.FieldByName(name)
		if !ok {
			panic("runtime: goja has no field " + name)
		}
		return f.Index
	}
	l = &regexpLayout{}
	l.self = field(reflect.TypeOf(goja.Object{}), "self")
	l.regexpObject = reflect.ValueOf(v.(*goja.Object)).Elem().FieldByIndex(l.self).Elem().Type()
	if l.regexpObject.Kind() != reflect.Pointer || l.regexpObject.Elem().Name() != "regexpObject" {
		return nil
	}
	rx := l.regexpObject.Elem()
	l.standard, l.pattern, l.source, l.prototype = field(rx, "standard"), field(rx, "pattern"), field(rx, "source"), field(rx, "prototype")
	pat := rx.FieldByIndex(l.pattern).Type.Elem()
	l.global, l.ignoreCase, l.multiline = field(pat, "global"), field(pat, "ignoreCase"), field(pat, "multiline")
	l.dotAll, l.unicode, l.sticky = field(pat, "dotAll"), field(pat, "unicode"), field(pat, "sticky")
	l.goRe, l.regexp2, l.src = field(pat, "regexpWrapper"), field(pat, "regexp2Wrapper"), field(pat, "src")
	if w := pat.FieldByIndex(l.regexp2).Type; w.Kind() == reflect.Pointer {
		l.regexp2Rx = field(w.Elem(), "rx")
	}
	if t := pat.FieldByIndex(l.goRe).Type; t.Kind() != reflect.Pointer || t.Elem().Size() != reflect.TypeOf(regexp.Regexp{}).Size() {
		return nil
	}
	g := field(reflect.TypeOf(goja.Runtime{}), "global")
	l.stdProto = append(g, field(reflect.TypeOf(goja.Runtime{}).FieldByIndex(g).Type, "stdRegexpProto")...)
	l.guardedObject = reflect.ValueOf(vm).Elem().FieldByIndex(l.stdProto).Type()
	return l
})

// stdRegexpProto is the address of goja's marker of an unmodified RegExp.prototype (a
// RegExp.prototype whose exec or flag getters a program redefined stops being it), or 0
// when goja's layout is not the one expected. It is read once RegExp.prototype exists.
func stdRegexpProto(vm *goja.Runtime) (p uintptr) {
	l := regexpFields()
	if l == nil {
		return 0
	}
	defer func() {
		if recover() != nil {
			p = 0
		}
	}()
	v := reflect.ValueOf(vm).Elem().FieldByIndex(l.stdProto)
	if v.IsNil() {
		return 0
	}
	return v.Pointer()
}

// regexpObject is o's goja regexpObject, or the zero Value.
func regexpObject(o *goja.Object) (reflect.Value, *regexpLayout) {
	l := regexpFields()
	if l == nil || o.ClassName() != "RegExp" {
		return reflect.Value{}, nil
	}
	self := reflect.ValueOf(o).Elem().FieldByIndex(l.self)
	if self.IsNil() || self.Elem().Type() != l.regexpObject {
		return reflect.Value{}, nil
	}
	return self.Elem().Elem(), l
}

// regexpState reads o's internals: the zero regexpState for anything but a RegExp, or
// when goja's layout is not the one expected.
func (r *run) regexpState(o *goja.Object) (st regexpState) {
	if r.text == nil || r.text.re.stdProto == 0 {
		return st
	}
	defer func() {
		if recover() != nil {
			st = regexpState{}
		}
	}()
	rx, l := regexpObject(o)
	if l == nil {
		return st
	}
	pat := rx.FieldByIndex(l.pattern)
	if pat.IsNil() {
		return st
	}
	pat = pat.Elem()
	st.global, st.ignoreCase = pat.FieldByIndex(l.global).Bool(), pat.FieldByIndex(l.ignoreCase).Bool()
	st.multiline, st.dotAll = pat.FieldByIndex(l.multiline).Bool(), pat.FieldByIndex(l.dotAll).Bool()
	st.unicode, st.sticky = pat.FieldByIndex(l.unicode).Bool(), pat.FieldByIndex(l.sticky).Bool()
	w := pat.FieldByIndex(l.goRe)
	st.regexp2 = w.IsNil()
	if !st.regexp2 {
		// goja's regexpWrapper is defined as regexp.Regexp.
		st.goRe = (*regexp.Regexp)(unsafe.Pointer(w.Pointer()))
		st.groups = st.goRe.NumSubexp()
	}
	if rx.FieldByIndex(l.standard).Bool() {
		if proto := rx.FieldByIndex(l.prototype); !proto.IsNil() {
			ps := proto.Elem().FieldByIndex(l.self)
			st.standard = !ps.IsNil() && ps.Elem().Type() == l.guardedObject && ps.Elem().Pointer() == r.text.re.stdProto
		}
	}
	st.ok = true
	return st
}

// regexpInternals is a RegExp's compiled source and flags, as goja copies them; for a
// layout it does not know, what the RegExp's source and flags properties say.
func (r *run) regexpInternals(o *goja.Object) (src goja.String, flags string) {
	if st := r.regexpState(o); st.ok {
		if s, ok := r.regexpSourceOf(o); ok {
			return s, st.flags()
		}
	}
	return r.strOf(nilSafe(o.Get("source"))), r.strOf(nilSafe(o.Get("flags"))).String()
}

// regexpSourceOf reads a regexpObject's source string: goja holds ASCII text as a Go
// string type, other text as UTF-16 units after a marker unit, and imported Go text as a
// pointer to a struct with the Go string in s.
func (r *run) regexpSourceOf(o *goja.Object) (s goja.String, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = nil, false
		}
	}()
	rx, l := regexpObject(o)
	if l == nil {
		return nil, false
	}
	v := rx.FieldByIndex(l.source)
	if v.IsNil() {
		return nil, false
	}
	v = v.Elem()
	switch v.Kind() {
	case reflect.String:
		return r.vm.ToValue(v.String()).(goja.String), true
	case reflect.Slice:
		units := make([]uint16, max(v.Len()-1, 0))
		for i := range units {
			units[i] = uint16(v.Index(i + 1).Uint())
		}
		return goja.StringFromUTF16(units), true
	case reflect.Pointer:
		return r.vm.ToValue(v.Elem().FieldByName("s").String()).(goja.String), true
	}
	return nil, false
}

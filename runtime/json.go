package runtime

import (
	"math/big"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/dop251/goja"
)

// JSON.stringify and JSON.parse, guarded. goja's stringify is one native call that no
// interrupt reaches: a shared DAG keeps it spinning long after its run ended, a deep
// value costs quadratic time, and nothing bounds the text it builds. Its parse and its reviver
// recurse in Go once per nesting level, and a Go stack overflow ends the whole process.
// installJSON replaces stringify with stringifier, which writes what goja's wrote (see
// stringify for the few places it follows the spec instead) while checking the run's stop
// flag, the output size and the nesting depth; parse keeps goja's parser behind a linear
// scan of the text (depth, and the heap the value would take), and walks the reviver
// itself.

// maxJSONDepth bounds how deeply JSON.stringify writes and JSON.parse reads or revives:
// one more level throws a catchable RangeError "Maximum call stack size exceeded" (V8's
// message for a too-deep JSON.stringify). Go recursion up to it is shallow enough.
const maxJSONDepth = 10000

// The messages of the errors JSON.stringify and JSON.parse throw.
const (
	msgJSONDepth    = "Maximum call stack size exceeded"
	msgJSONLength   = "Invalid string length"
	msgJSONBigInt   = "Do not know how to serialize a BigInt" // goja's
	msgJSONCircular = "Converting circular structure to JSON" // goja's
	msgJSONRevoked  = "Cannot perform 'IsArray' on a proxy that has been revoked"
)

// stopEvery is how many values stringify and the reviver walk visit between two looks at
// the run's stop flag.
const stopEvery = 256

var (
	bigIntType = reflect.TypeOf((*big.Int)(nil)) // what a BigInt exports
	int64Type  = reflect.TypeOf(int64(0))
	floatType  = reflect.TypeOf(float64(0))
	boolType   = reflect.TypeOf(false)
	// typedArrayTypes are what typed arrays export (a slice over their data), and whether
	// their elements are numbers rather than BigInts.
	typedArrayTypes = map[reflect.Type]bool{
		reflect.TypeOf([]byte(nil)): true, reflect.TypeOf([]int8(nil)): true,
		reflect.TypeOf([]uint16(nil)): true, reflect.TypeOf([]int16(nil)): true,
		reflect.TypeOf([]uint32(nil)): true, reflect.TypeOf([]int32(nil)): true,
		reflect.TypeOf([]float32(nil)): true, reflect.TypeOf([]float64(nil)): true,
		reflect.TypeOf([]int64(nil)): false, reflect.TypeOf([]uint64(nil)): false,
	}
)

// jsonFuncs holds one VM's JSON state: the original parse and the helpers captured on
// first use.
type jsonFuncs struct {
	r     *run
	parse goja.Callable
	help  *jsonHelpers
}

// jsonHelpers are JavaScript functions for the rare paths goja's Go API cannot take:
// keys with lone surrogates (goja.Object.Keys turns them into U+FFFD), proxies (whose traps
// must run once each, in spec order) and BigInt primitives (whose toJSON getter sees the
// primitive). Property access and delete are syntax, which no program can redirect;
// Object.keys and Reflect.defineProperty are captured on first use, so a program that
// replaced them earlier only changes its own output, and what they return is converted
// as any value would be.
type jsonHelpers struct {
	keys, get, del, put goja.Callable
}

// jsonHelpersSrc is sloppy code on purpose: its delete reports a failure as false, as
// the spec's [[Delete]] does, instead of throwing. The descriptor has no prototype, so a
// getter a program put on Object.prototype cannot change it.
const jsonHelpersSrc = `(function () {
	const keys = Object.keys, def = Reflect.defineProperty;
	return [o => keys(o), (o, k) => o[k], (o, k) => delete o[k],
		(o, k, v) => def(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true })];
})()`

var jsonHelpersPrg = compileOnce("json.js", jsonHelpersSrc)

func (j *jsonFuncs) helpers() *jsonHelpers {
	if j.help == nil {
		v, err := j.r.vm.RunProgram(jsonHelpersPrg())
		if err != nil {
			panic(err)
		}
		a := v.ToObject(j.r.vm)
		fn := func(i string) goja.Callable { f, _ := goja.AssertFunction(a.Get(i)); return f }
		j.help = &jsonHelpers{keys: fn("0"), get: fn("1"), del: fn("2"), put: fn("3")}
	}
	return j.help
}

// eachKey calls f with each of o's enumerable own string keys, listed through
// Object.keys, as JavaScript strings. f runs the per-value checks (stop flag, size).
func (j *jsonFuncs) eachKey(o *goja.Object, f func(goja.String)) {
	list := callJS(j.helpers().keys, goja.Undefined(), o).ToObject(j.r.vm)
	n := toLength(list.Get("length"))
	for i := int64(0); i < n; i++ {
		k := list.Get(strconv.FormatInt(i, 10))
		if k == nil {
			k = goja.Undefined()
		}
		f(jsString(j.r.vm, k.ToString()))
	}
}

// jsString is v, a string value, as a goja.String.
func jsString(vm *goja.Runtime, v goja.Value) goja.String {
	if s, ok := v.(goja.String); ok {
		return s
	}
	return vm.ToValue(v.String()).(goja.String)
}

// installJSON puts the guarded stringify and parse in place of goja's, with the same
// names, lengths and attributes.
func installJSON(r *run) {
	json := r.vm.Get("JSON").ToObject(r.vm)
	j := r.json()
	j.parse, _ = goja.AssertFunction(json.Get("parse"))
	r.guardCall(json, "stringify", func(call goja.FunctionCall, _ goja.Callable) goja.Value {
		return j.stringify(call)
	})
	r.guardCall(json, "parse", func(call goja.FunctionCall, _ goja.Callable) goja.Value {
		return j.parseJSON(call)
	})
}

// json returns the run's JSON state, made on first use: by the JSON guards, or by the
// completion encoder for its key helper (see encoder.loneSurrogateKey).
func (r *run) json() *jsonFuncs {
	if r.jsonFuncs == nil {
		r.jsonFuncs = &jsonFuncs{r: r}
	}
	return r.jsonFuncs
}

// guardJSON installs the JSON guards, once per VM (a lazy family, see guards.go).
func (r *run) guardJSON() {
	installJSON(r)
}

// callJS calls f and rethrows what it throws (or the interrupt that stopped it).
func callJS(f goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	v, err := f(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

// stringifier is one JSON.stringify call.
type stringifier struct {
	j        *jsonFuncs
	r        *run
	buf      []byte
	max      int
	replacer goja.Callable
	props    []string // the replacer array's property list, when hasProps
	hasProps bool
	gap      string
	nl       []byte // a newline, then the gap once per open container
	path     jsonPath
	nodes    int
}

// stringify is JSON.stringify. It writes what goja's does, except where goja is plainly
// wrong, where it follows the spec (and V8): a space of Infinity or above 2^63 indents
// by 10 (goja: not at all), a string space is cut to 10 UTF-16 code units (goja: 10
// bytes, splitting characters), the indentation after an empty array or object is
// unchanged (goja's grows by one gap), and a Symbol wrapper object writes {} (goja: as
// undefined).
func (j *jsonFuncs) stringify(fc goja.FunctionCall) goja.Value {
	s := &stringifier{j: j, r: j.r, max: j.r.maxStringBytes()}
	if o, ok := fc.Argument(1).(*goja.Object); ok {
		if s.isArray(o) {
			s.propertyList(o)
		} else if f, ok := goja.AssertFunction(o); ok {
			s.replacer = f
		}
	}
	s.space(fc.Argument(2))
	s.nl = append(s.nl, '\n')
	v := fc.Argument(0)
	var holder *goja.Object
	if s.replacer != nil { // only a replacer can see the holder
		holder = s.r.vm.NewObject()
		_ = holder.DefineDataProperty("", v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	if !s.str(holder, "", nil, v) {
		return goja.Undefined()
	}
	if len(s.buf) > s.max {
		panic(s.r.rangeError(msgJSONLength))
	}
	if len(s.buf) == 0 {
		return s.r.vm.ToValue("")
	}
	// The buffer is never written again: the string shares it rather than copy what may
	// be hundreds of MiB at the string bound.
	return s.r.vm.ToValue(unsafe.String(&s.buf[0], len(s.buf)))
}

// propertyList reads a replacer array: its strings and numbers (boxed too), once each, in
// order.
func (s *stringifier) propertyList(o *goja.Object) {
	s.hasProps = true
	n := toLength(o.Get("length"))
	seen := map[string]bool{}
	for i := int64(0); i < n; i++ {
		s.tick()
		v := o.Get(strconv.FormatInt(i, 10))
		var name string
		switch x := v.(type) {
		case nil:
			continue
		case goja.String:
			name = x.String()
		case *goja.Object:
			if c := x.ClassName(); c != "Number" && c != "String" {
				continue
			}
			name = x.String()
		default:
			if t := v.ExportType(); t != int64Type && t != floatType {
				continue
			}
			name = v.String()
		}
		if !seen[name] {
			seen[name] = true
			s.props = append(s.props, name)
		}
	}
}

// space sets the gap from JSON.stringify's third argument.
func (s *stringifier) space(v goja.Value) {
	if o, ok := v.(*goja.Object); ok {
		switch s.class(o) {
		case "Number":
			v = o.ToNumber()
		case "String":
			v = o.ToString()
		}
	}
	if str, ok := v.(goja.String); ok {
		if str.Length() > 10 {
			str = str.Substring(0, 10)
		}
		s.gap = str.String()
		return
	}
	if t := v.ExportType(); t == int64Type || t == floatType {
		n := min(v.ToFloat(), 10) // NaN stays NaN and indents by nothing
		if n >= 1 {
			s.gap = "          "[:int(n)]
		}
	}
}

// tick counts a visited value: it stops at once when the run has failed, and throws the
// RangeError once the text is over the size limit.
func (s *stringifier) tick() {
	s.nodes++
	if s.nodes%stopEvery == 0 && s.r.failed() {
		panic(s.r.vm.NewGoError(errStop)) // the pending interrupt ends the run next
	}
	if len(s.buf) > s.max {
		panic(s.r.rangeError(msgJSONLength))
	}
}

// str writes v, the value of holder[key], and reports whether it wrote anything
// (undefined, functions and symbols write nothing). keyV is the key as a JavaScript
// string when key (a Go string) cannot hold it exactly; nil otherwise.
func (s *stringifier) str(holder *goja.Object, key string, keyV goja.Value, v goja.Value) bool {
	s.tick()
	if v == nil {
		v = goja.Undefined()
	}
	if o, ok := v.(*goja.Object); ok {
		if f, ok := goja.AssertFunction(o.Get("toJSON")); ok {
			v = callJS(f, o, s.keyValue(key, keyV))
		}
	} else if goja.IsBigInt(v) {
		if f, ok := goja.AssertFunction(callJS(s.j.helpers().get, goja.Undefined(), v, s.r.vm.ToValue("toJSON"))); ok {
			v = callJS(f, v, s.keyValue(key, keyV))
		}
	}
	if s.replacer != nil {
		v = callJS(s.replacer, holder, s.keyValue(key, keyV), v)
	}
	switch x := v.(type) {
	case goja.String:
		s.appendString(x)
		return true
	case *goja.Object:
		return s.object(x)
	case *goja.Symbol:
		return false
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return false
	case goja.IsNull(v):
		s.buf = append(s.buf, "null"...)
		return true
	case goja.IsBigInt(v):
		panic(s.r.vm.NewTypeError(msgJSONBigInt))
	}
	return s.primitive(v)
}

// primitive writes a number or a boolean.
func (s *stringifier) primitive(v goja.Value) bool {
	switch v.ExportType() {
	case int64Type:
		s.buf = strconv.AppendInt(s.buf, v.ToInteger(), 10)
	case floatType:
		if f := v.ToFloat(); f != f || f-f != 0 { // NaN or ±Infinity
			s.buf = append(s.buf, "null"...)
		} else {
			s.buf = append(s.buf, v.String()...) // JavaScript's Number::toString
		}
	case boolType:
		s.buf = strconv.AppendBool(s.buf, v.ToBoolean())
	default:
		return false
	}
	return true
}

// keyValue is the key as a JavaScript string, for toJSON and the replacer.
func (s *stringifier) keyValue(key string, keyV goja.Value) goja.Value {
	if keyV != nil {
		return keyV
	}
	return s.r.vm.ToValue(key)
}

// object writes an object: a wrapper's primitive, a raw JSON text, an array or the
// enumerable own properties.
func (s *stringifier) object(o *goja.Object) bool {
	switch s.class(o) {
	case "Number":
		return s.primitive(o.ToNumber())
	case "String":
		s.appendString(jsString(s.r.vm, o.ToString()))
		return true
	case "Boolean":
		s.buf = strconv.AppendBool(s.buf, o.Export() == true)
		return true
	case "RawJSON":
		s.buf = append(s.buf, o.Get("rawJSON").String()...)
		return true
	case "Object":
		if o.ExportType() == bigIntType {
			panic(s.r.vm.NewTypeError(msgJSONBigInt))
		}
	}
	if s.path.has(o) {
		panic(s.r.vm.NewTypeError(msgJSONCircular))
	}
	if _, ok := goja.AssertFunction(o); ok {
		return false
	}
	if s.path.len() >= maxJSONDepth {
		panic(s.r.rangeError(msgJSONDepth))
	}
	s.path.push(o)
	s.nl = append(s.nl, s.gap...)
	if s.isArray(o) {
		s.array(o)
	} else {
		s.members(o)
	}
	s.nl = s.nl[:len(s.nl)-len(s.gap)]
	s.path.pop()
	return true
}

// class is o's class name, except that goja's Number.prototype and String.prototype,
// which the spec makes wrappers of 0 and "", are ordinary objects to goja's stringify.
func (s *stringifier) class(o *goja.Object) string {
	c := o.ClassName()
	switch c {
	case "Number":
		if t := o.ExportType(); t != int64Type && t != floatType {
			return "Object"
		}
	case "String":
		if o == s.r.vm.ToValue("").ToObject(s.r.vm).Prototype() {
			return "Object"
		}
	}
	return c
}

// isArray is the spec's IsArray: through proxies to their targets.
func (s *stringifier) isArray(o *goja.Object) bool { return isJSONArray(s.r.vm, o) }

func isJSONArray(vm *goja.Runtime, o *goja.Object) bool {
	for o.ExportType() == proxyType {
		if o = o.Export().(goja.Proxy).Target(); o == nil {
			panic(vm.NewTypeError(msgJSONRevoked))
		}
	}
	return o.ClassName() == "Array"
}

func (s *stringifier) array(o *goja.Object) {
	n := toLength(o.Get("length"))
	if n == 0 {
		s.buf = append(s.buf, "[]"...)
		return
	}
	s.buf = append(s.buf, '[')
	for i := int64(0); i < n; i++ {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		if s.gap != "" {
			s.buf = append(s.buf, s.nl...)
		}
		k := strconv.FormatInt(i, 10)
		if !s.str(o, k, nil, o.Get(k)) {
			s.buf = append(s.buf, "null"...)
		}
	}
	s.closeWith(']')
}

// closeWith ends a non-empty container: a newline at the outer indentation, then c.
func (s *stringifier) closeWith(c byte) {
	if s.gap != "" {
		s.buf = append(s.buf, s.nl[:len(s.nl)-len(s.gap)]...)
	}
	s.buf = append(s.buf, c)
}

// members writes an object's enumerable own string-keyed properties (or the replacer
// array's), in the order goja lists them.
func (s *stringifier) members(o *goja.Object) {
	s.buf = append(s.buf, '{')
	mark := len(s.buf)
	switch {
	case s.hasProps:
		for _, k := range s.props {
			s.member(o, k, nil, o.Get(k), mark)
		}
	case o.ExportType() == proxyType:
		checkTypedKeys(s.r, o)
		s.slowMembers(o, mark)
	default:
		s.checkTyped(o)
		keys := o.Keys()
		if lossyKeys(keys) {
			s.slowMembers(o, mark)
			break
		}
		for _, k := range keys {
			s.member(o, k, nil, o.Get(k), mark)
		}
	}
	if len(s.buf) == mark {
		s.buf = append(s.buf, '}')
		return
	}
	s.closeWith('}')
}

// slowMembers lists the keys through Object.keys and reads them with o[k]: for proxies,
// whose traps must run once each, and for keys Go strings cannot hold.
func (s *stringifier) slowMembers(o *goja.Object, mark int) {
	get := s.j.helpers().get
	s.j.eachKey(o, func(k goja.String) {
		s.member(o, k.String(), k, callJS(get, goja.Undefined(), o, k), mark)
	})
}

// member writes one property, or nothing if its value writes nothing. mark is where the
// object's first member starts.
func (s *stringifier) member(o *goja.Object, k string, kv goja.Value, v goja.Value, mark int) {
	off := len(s.buf)
	if off > mark {
		s.buf = append(s.buf, ',')
	}
	if s.gap != "" {
		s.buf = append(s.buf, s.nl...)
	}
	if kv != nil {
		s.appendString(jsString(s.r.vm, kv))
	} else {
		s.appendGoString(k)
	}
	if s.gap != "" {
		s.buf = append(s.buf, ':', ' ')
	} else {
		s.buf = append(s.buf, ':')
	}
	if !s.str(o, k, kv, v) {
		s.buf = s.buf[:off]
	}
}

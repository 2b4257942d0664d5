package runtime

import (
	"strconv"

	"github.com/dop251/goja"
)

// parseJSON is JSON.parse: goja's parser behind a linear scan that rejects text nested
// deeper than maxJSONDepth with a catchable RangeError "Maximum call stack size
// exceeded" (goja's parser recurses in Go once per level), then the reviver walked here
// under the same bound (goja's walk recurses too, and a reviver can hand it a deeper or
// an endless value). Without a callable reviver the parsed value is returned as is; a
// null reviver is ignored as the spec says (goja throws a TypeError for it).
func (j *jsonFuncs) parseJSON(fc goja.FunctionCall) goja.Value {
	text := fc.Argument(0).ToString() // once: it may call the program's toString
	if jsonTooDeep(text.String(), maxJSONDepth) {
		panic(j.r.rangeError(msgJSONDepth))
	}
	v := callJS(j.parse, fc.This, text)
	f, ok := goja.AssertFunction(fc.Argument(1))
	if !ok {
		return v
	}
	root := j.r.vm.NewObject()
	_ = root.DefineDataProperty("", v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	w := &reviver{j: j, fn: f}
	return w.walk(root, "", nil)
}

// jsonTooDeep reports whether text nests arrays and objects more than limit deep. JSON
// has one context where brackets are not structure, strings, so one pass with a flag
// suffices. On invalid text it may count too deep, never too shallow: goja's parser
// stops at the first error, and up to there the scan reads the text as it does.
func jsonTooDeep(text string, limit int) bool {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > limit {
				return true
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return false
}

// reviver is one walk of JSON.parse's reviver over the parsed value, in goja's order:
// children first, array elements by index, object keys as listed; an undefined result
// deletes the property, anything else redefines it, and a failure to do either is
// ignored.
type reviver struct {
	j     *jsonFuncs
	fn    goja.Callable
	depth int
	nodes int
}

// walk revives holder[name]. nameV is the name as a JavaScript string when the Go string
// cannot hold it exactly (a lone surrogate), nil otherwise.
func (w *reviver) walk(holder *goja.Object, name string, nameV goja.Value) goja.Value {
	r := w.j.r
	if w.nodes++; w.nodes%stopEvery == 0 && r.failed() {
		panic(r.vm.NewGoError(errStop))
	}
	var val goja.Value
	if nameV != nil {
		val = callJS(w.j.helpers().get, goja.Undefined(), holder, nameV)
	} else {
		val = holder.Get(name)
	}
	if val == nil {
		val = goja.Undefined()
	}
	if o, ok := val.(*goja.Object); ok {
		if w.depth >= maxJSONDepth {
			panic(r.rangeError(msgJSONDepth))
		}
		w.depth++
		proxy := o.ExportType() == proxyType
		if isJSONArray(r.vm, o) {
			n := toLength(o.Get("length"))
			for i := int64(0); i < n; i++ {
				k := strconv.FormatInt(i, 10)
				w.update(o, proxy, k, nil, w.walk(o, k, nil))
			}
		} else if proxy {
			w.slowKeys(o)
		} else if keys := o.Keys(); lossyKeys(keys) {
			w.slowKeys(o)
		} else {
			for _, k := range keys {
				w.update(o, false, k, nil, w.walk(o, k, nil))
			}
		}
		w.depth--
	}
	if nameV == nil {
		nameV = r.vm.ToValue(name)
	}
	return callJS(w.fn, holder, nameV, val)
}

// slowKeys revives the properties of o listed through Object.keys: for proxies and for
// keys Go strings cannot hold.
func (w *reviver) slowKeys(o *goja.Object) {
	keys := callJS(w.j.helpers().keys, goja.Undefined(), o).ToObject(w.j.r.vm)
	n := toLength(keys.Get("length"))
	for i := int64(0); i < n; i++ {
		k := keys.Get(strconv.FormatInt(i, 10))
		w.update(o, true, "", k, w.walk(o, "", k))
	}
}

// update deletes o[k] when v is undefined and defines it as v otherwise, ignoring
// failure, as the spec's InternalizeJSONProperty does. Without a proxy no program code
// runs there, so goja's throwing variants do, with the error dropped; a proxy's traps
// (or a key only a JavaScript string holds) go through Reflect, which reports false.
func (w *reviver) update(o *goja.Object, slow bool, k string, kv, v goja.Value) {
	if slow {
		h := w.j.helpers()
		if kv == nil {
			kv = w.j.r.vm.ToValue(k)
		}
		if goja.IsUndefined(v) {
			callJS(h.del, goja.Undefined(), o, kv)
		} else {
			callJS(h.put, goja.Undefined(), o, kv, v)
		}
		return
	}
	if goja.IsUndefined(v) {
		_ = o.Delete(k)
	} else {
		_ = o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
}

package runtime

import (
	"fmt"
	"strconv"

	"github.com/dop251/goja"
)

// parseJSON is JSON.parse: goja's parser behind one linear scan of the text, then the
// reviver walked here. The scan throws a catchable RangeError before goja's parser runs
// for text nested deeper than maxJSONDepth ("Maximum call stack size exceeded": the
// parser recurses in Go once per level) and for text whose value would take more heap
// than the run's budget (goja builds many times the text's size for [[],[],...], in one
// native call that no budget stops). The reviver walk has the same depth bound:
// goja's recurses too, and a reviver can hand it a deeper or an endless value. Without a
// callable reviver the parsed value is returned as is; a null reviver is ignored as the
// spec says (goja throws a TypeError for it).
func (j *jsonFuncs) parseJSON(fc goja.FunctionCall) goja.Value {
	text := fc.Argument(0).ToString() // once: it may call the program's toString
	tooDeep, heap := scanJSON(text.String(), maxJSONDepth)
	if tooDeep {
		panic(j.r.rangeError(msgJSONDepth))
	}
	if budget := j.r.limits.HeapBytes; heap > budget {
		panic(j.r.rangeError(fmt.Sprintf(msgJSONHeap, budget>>20)))
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

const msgJSONHeap = "JSON.parse: the parsed value would exceed the heap limit of %d MiB"

// What goja's parser builds, at least, per character of JSON structure, and per byte
// of a string: measured on goja's arrays, objects, properties and array slots, and set
// a little below, so the estimate errs low. It is meant to stop text that would surely
// blow the budget, not to account for every byte.
const (
	heapPerArray  = 540
	heapPerObject = 180
	heapPerMember = 20 // per ':'
	heapPerComma  = 8
)

// scanJSON reads a JSON text once: whether it nests arrays and objects more than limit
// deep, and an estimate from below of the heap goja's parser would build from it. JSON
// has one context where brackets are not structure, strings, so one flag suffices. On
// invalid text it may count too deep, never too shallow: goja's parser stops at the first
// error, and up to there the scan reads the text as the parser does.
func scanJSON(text string, limit int) (tooDeep bool, heap int64) {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			start := i
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
			heap += int64(i - start)
		case '[', '{':
			if depth++; depth > limit {
				return true, heap
			}
			if text[i] == '[' {
				heap += heapPerArray
			} else {
				heap += heapPerObject
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case ':':
			heap += heapPerMember
		case ',':
			heap += heapPerComma
		}
	}
	return false, heap
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
		} else {
			checkTypedKeys(r, o)
			w.members(o, proxy)
		}
		w.depth--
	}
	if nameV == nil {
		nameV = r.vm.ToValue(name)
	}
	return callJS(w.fn, holder, nameV, val)
}

// members revives the properties of an object that is not an array.
func (w *reviver) members(o *goja.Object, proxy bool) {
	if !proxy {
		if keys := o.Keys(); !lossyKeys(keys) {
			for _, k := range keys {
				w.update(o, false, k, nil, w.walk(o, k, nil))
			}
			return
		}
	}
	w.slowKeys(o)
}

// slowKeys revives the properties of o listed through Object.keys: for proxies and for
// keys Go strings cannot hold.
func (w *reviver) slowKeys(o *goja.Object) {
	w.j.eachKey(o, func(k goja.String) {
		w.update(o, true, "", k, w.walk(o, "", k))
	})
}

// update deletes o[k] when v is undefined and defines it as v otherwise, ignoring
// failure, as the spec's InternalizeJSONProperty does. Without a proxy no program code
// runs there, so goja's throwing variants do, with the error dropped; a proxy's traps
// (or a key only a JavaScript string holds) go through the helpers, which report false.
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

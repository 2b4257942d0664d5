package jsvm

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/runcode-go/runcode/internal/jsontext"
)

// Lossless JSON: null, booleans, finite numbers other than -0, strings without lone
// surrogates, dense arrays with Array.prototype and no other enumerable own properties,
// and objects with Object.prototype or null whose keys are such strings. Anything else
// (undefined, functions, symbols, BigInt, NaN, ±Infinity, -0, holes, cycles, Dates, Maps,
// class instances, throwing getters) is lossy: JSON.stringify, or a decoder outside
// JavaScript, would drop or change it silently. The encoder writes exactly what
// JSON.stringify would, so the output ledger's byte counts are exact.

// encodeResult says why encoding stopped early.
type encodeResult int

const (
	encodeOK encodeResult = iota
	encodeLossy
	encodeTooLarge
	encodeStopped
)

// ExportType is cheap; Export would deep-copy the whole value.
var (
	proxyType   = reflect.TypeOf(goja.Proxy{})
	promiseType = reflect.TypeOf((*goja.Promise)(nil))
)

type encoder struct {
	r      *VM
	buf    []byte
	max    int                   // give up once the text is longer than this
	onPath []*goja.Object        // the containers around the current value, for cycles
	deep   map[*goja.Object]bool // the same as a set, once the path is long
	path   []any                 // string keys and int indexes, for the lossy detail
	detail string
	nodes  int
}

// encode writes v as lossless JSON. On encodeLossy, e.detail says what and where.
func (r *VM) encode(v goja.Value, maxBytes int) (json.RawMessage, encodeResult, string) {
	e := &encoder{r: r, max: maxBytes}
	res := encodeOK
	if ex := r.vm.Try(func() { res = e.value(v) }); ex != nil {
		return nil, encodeLossy, "a getter threw at " + e.where()
	}
	if res != encodeOK {
		return nil, res, e.detail
	}
	return e.buf, encodeOK, ""
}

func (e *encoder) lossy(what string) encodeResult {
	e.detail = what + " at " + e.where()
	return encodeLossy
}

// where renders the current path like a JS accessor chain: $, $.a, $[0], $["my-key"].
func (e *encoder) where() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, p := range e.path {
		switch p := p.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(p) + "]")
		case string:
			if isIdentifier(p) {
				b.WriteString("." + p)
			} else {
				q, _ := json.Marshal(p)
				b.WriteString("[" + string(q) + "]")
			}
		}
	}
	return b.String()
}

func (e *encoder) value(v goja.Value) encodeResult {
	e.nodes++
	if e.nodes&1023 == 0 && e.r.failed() {
		return encodeStopped
	}
	if len(e.buf) > e.max {
		return encodeTooLarge
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return e.lossy("undefined")
	case goja.IsNull(v):
		e.buf = append(e.buf, "null"...)
		return encodeOK
	}
	switch x := v.(type) {
	case goja.String:
		if len(e.buf)+x.Length() > e.max {
			return encodeTooLarge // before copying a string that cannot fit
		}
		buf, ok := appendJSONString(e.buf, x)
		if !ok {
			return e.lossy("a lone surrogate")
		}
		e.buf = buf
		return encodeOK
	case *goja.Symbol:
		return e.lossy("a symbol")
	case *goja.Object:
		return e.object(x)
	}
	if goja.IsBigInt(v) {
		return e.lossy("a BigInt")
	}
	switch n := v.Export().(type) {
	case bool:
		e.buf = strconv.AppendBool(e.buf, n)
	case int64:
		e.buf = strconv.AppendInt(e.buf, n, 10)
	case float64:
		switch {
		case math.IsNaN(n):
			return e.lossy("NaN")
		case math.IsInf(n, 0):
			return e.lossy(v.String())
		case n == 0 && math.Signbit(n):
			return e.lossy("-0")
		}
		e.buf = append(e.buf, v.String()...) // JS Number::toString, as JSON.stringify prints it
	default:
		return e.lossy("a " + fmt.Sprintf("%T", n))
	}
	return encodeOK
}

// MaxDepth is runtime.MaxDepth: the deepest nesting that is lossless JSON here.
const MaxDepth = 1000

func (e *encoder) object(o *goja.Object) encodeResult {
	if e.isOnPath(o) {
		return e.lossy("a cycle")
	}
	if len(e.onPath) >= MaxDepth {
		e.detail = fmt.Sprintf("nesting deeper than %d levels", MaxDepth)
		return encodeLossy
	}
	proto := o.Prototype()
	cls := o.ClassName()
	switch {
	case cls == "Array" && proto == e.r.in.arrayProto:
		return e.array(o)
	case cls == "Object" && (proto == nil || proto == e.r.in.objectProto):
		if o.ExportType() == proxyType {
			return e.lossy("a Proxy")
		}
		return e.plain(o)
	case cls == "Function":
		return e.lossy("a function")
	case cls == "Object" || cls == "Array":
		name := "a class instance"
		if proto != nil {
			if c, ok := proto.Get("constructor").(*goja.Object); ok {
				if n := c.Get("name"); n != nil && n.String() != "" {
					name = "an instance of " + n.String()
				}
			}
		}
		return e.lossy(name)
	default:
		return e.lossy("a " + cls)
	}
}

// Short paths are scanned; long ones (deeply nested values) use a set.
const pathScanMax = 64

func (e *encoder) isOnPath(o *goja.Object) bool {
	if e.deep != nil {
		return e.deep[o]
	}
	return slices.Contains(e.onPath, o)
}

func (e *encoder) push(o *goja.Object) {
	e.onPath = append(e.onPath, o)
	if e.deep != nil {
		e.deep[o] = true
	} else if len(e.onPath) > pathScanMax {
		e.deep = make(map[*goja.Object]bool, 2*len(e.onPath))
		for _, p := range e.onPath {
			e.deep[p] = true
		}
	}
}

func (e *encoder) pop() {
	o := e.onPath[len(e.onPath)-1]
	e.onPath = e.onPath[:len(e.onPath)-1]
	if e.deep != nil {
		delete(e.deep, o)
	}
}

func (e *encoder) array(o *goja.Object) encodeResult {
	e.push(o)
	defer e.pop()
	n := o.Get("length").ToInteger()
	e.buf = append(e.buf, '[')
	for i := int64(0); i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.path = append(e.path, int(i))
		v := o.Get(strconv.FormatInt(i, 10))
		if v == nil {
			return e.lossy("a hole")
		}
		if res := e.value(v); res != encodeOK {
			return res
		}
		e.path = e.path[:len(e.path)-1]
	}
	// Every element fitted, so listing the keys is bounded by the output budget.
	if keys := o.Keys(); int64(len(keys)) != n {
		for i, k := range keys {
			if int64(i) >= n || k != strconv.Itoa(i) {
				e.path = append(e.path, k)
				return e.lossy("an array property")
			}
		}
	}
	if len(o.Symbols()) > 0 {
		return e.lossy("a symbol key")
	}
	e.buf = append(e.buf, ']')
	return encodeOK
}

func (e *encoder) plain(o *goja.Object) encodeResult {
	e.push(o)
	defer e.pop()
	if len(o.Symbols()) > 0 {
		return e.lossy("a symbol key")
	}
	keys := o.Keys()
	if lossyKeys(keys) && e.loneSurrogateKey(o) {
		return e.lossy("a lone surrogate in a key")
	}
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = jsontext.AppendString(e.buf, k)
		e.buf = append(e.buf, ':')
		e.path = append(e.path, k)
		if res := e.value(o.Get(k)); res != encodeOK {
			return res
		}
		e.path = e.path[:len(e.path)-1]
	}
	e.buf = append(e.buf, '}')
	return encodeOK
}

// loneSurrogateKey reports whether one of o's keys holds a lone surrogate, which Keys
// listed as U+FFFD (see lossyKeys): the keys are listed again as JavaScript strings.
func (e *encoder) loneSurrogateKey(o *goja.Object) bool {
	v, err := e.r.helpers().keys(goja.Undefined(), o)
	if err != nil {
		return false
	}
	list := v.ToObject(e.r.vm)
	n := list.Get("length").ToInteger()
	for i := int64(0); i < n; i++ {
		if k, ok := list.Get(strconv.FormatInt(i, 10)).(goja.String); ok && hasLoneSurrogate(k) {
			return true
		}
	}
	return false
}

// lossyKeys reports whether a key Keys listed holds U+FFFD, which is how a lone surrogate
// comes out of goja as a Go string.
func lossyKeys(keys []string) bool {
	for _, k := range keys {
		if strings.Contains(k, "\uFFFD") {
			return true
		}
	}
	return false
}

// hasLoneSurrogate reports whether s holds a surrogate that is not half of a pair.
func hasLoneSurrogate(s goja.String) bool {
	n := s.Length()
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		if !utf16.IsSurrogate(rune(c)) {
			continue
		}
		if c >= 0xDC00 || i+1 == n {
			return true
		}
		if d := s.CharAt(i + 1); d < 0xDC00 || d > 0xDFFF {
			return true
		}
		i++
	}
	return false
}

// appendJSONString escapes a JS string exactly as JSON.stringify does. It reports false,
// with buf unusable, at a lone surrogate: JSON.stringify writes it as \uDXXX, which no
// decoder outside JavaScript can keep.
func appendJSONString(buf []byte, s goja.String) ([]byte, bool) {
	buf = append(buf, '"')
	n := s.Length()
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		if utf16.IsSurrogate(rune(c)) {
			if c < 0xDC00 && i+1 < n {
				if d := s.CharAt(i + 1); d >= 0xDC00 && d <= 0xDFFF {
					buf = utf8.AppendRune(buf, utf16.DecodeRune(rune(c), rune(d)))
					i++
					continue
				}
			}
			return buf, false
		}
		buf = jsontext.AppendRune(buf, rune(c))
	}
	return append(buf, '"'), true
}

// jsonStringLen is the length of a Go string as JSON.stringify would encode it.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}

// ledger is a run's output as the output budget accepts it: the log entries and the
// completion. The VM's mu guards it, but for truncate and onLog, set before the run.
type ledger struct {
	logs        []string
	value       []byte
	logBytes    int    // the logs array as JSON text: 2 for "[]", plus entries and commas
	cut         bool   // truncation mode cut something (truncate.go)
	droppedLogs int    // log entries truncation mode dropped after the cut
	truncate    bool   // Job.Truncate
	keepFull    bool   // Job.KeepFull
	full        []byte // the whole completion, when truncation cut it and keepFull asked
	onLog       func(string)
}

// appendLog adds one console entry to the ledger. Over the output budget the run fails as
// output-limit and the logs kept are the prefix that fitted; in truncation mode the entry
// is cut instead and later ones are dropped (truncate.go).
func (r *VM) appendLog(s string) {
	cost := jsonStringLen(s)
	r.mu.Lock()
	if len(r.logs) > 0 {
		cost++ // the comma
	}
	if r.failure != nil {
		r.mu.Unlock()
		return
	}
	if r.truncate && r.cut {
		r.droppedLogs++ // truncation mode: after a cut entry, later ones are only counted
		r.mu.Unlock()
		return
	}
	if r.logBytes+cost > r.outputLimit() {
		if r.truncate {
			cut, ok := cutString(s, r.outputLimit()-r.logBytes-(cost-jsonStringLen(s)))
			r.cut = true
			if !ok {
				r.droppedLogs++
				r.mu.Unlock()
				return
			}
			s, cost = cut, cost-jsonStringLen(s)+jsonStringLen(cut)
		} else {
			r.mu.Unlock()
			r.fail(KindOutputLimit, r.outputLimitMessage())
			return
		}
	}
	r.logs = append(r.logs, s)
	r.logBytes += cost
	r.mu.Unlock()
	if r.onLog != nil {
		r.onLog(s)
	}
}

// logRoom is how many more bytes one more log entry could take.
func (r *VM) logRoom() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outputLimit() - r.logBytes
}

func (r *VM) outputLimitMessage() string {
	return fmt.Sprintf("outer output exceeded %d bytes", r.limits.OutputBytes)
}

// complete encodes the main promise's value as the completion, within what the output
// budget leaves after the logs.
func (r *VM) complete(v goja.Value) {
	if goja.IsUndefined(v) {
		return
	}
	room := r.logRoom()
	max := room
	if r.truncate {
		// Encode all of it (up to the largest string the heap budget allows) to cut it.
		max = int(min(r.limits.HeapBytes/4, int64(maxInt)))
	}
	raw, res, _ := r.encode(v, max)
	switch res {
	case encodeOK:
		if len(raw) > room {
			if !r.truncate {
				r.fail(KindOutputLimit, r.outputLimitMessage())
				return
			}
			// The completion may also take its marker's share of the reserve.
			cut, ok := cutJSON(raw, room+truncMarkerRoom)
			if !ok {
				r.fail(KindOutputLimit, r.outputLimitMessage())
				return
			}
			r.mu.Lock()
			if r.keepFull {
				r.full = raw
			}
			r.cut = true
			r.mu.Unlock()
			raw = cut
		}
		r.mu.Lock()
		r.value = raw
		r.mu.Unlock()
	case encodeTooLarge:
		r.fail(KindOutputLimit, r.outputLimitMessage())
	case encodeLossy:
		r.fail(KindInvalidOutput, msgInvalidOutput)
	}
}

const maxInt = int(^uint(0) >> 1)

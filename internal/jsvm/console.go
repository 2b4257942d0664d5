package jsvm

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// Console formatting, after Node's util.inspect with {depth: 4, maxArrayLength: 100,
// maxStringLength: 10000}: string arguments print raw, everything else is inspected, and the
// parts are joined by one space. Each console call is one log entry.
const (
	inspectDepth     = 4
	inspectMaxItems  = 100
	inspectMaxString = 10000
	inspectBreak     = 80 // Node's breakLength
	inspectGroupMin  = 6  // arrays with more entries than this are grouped into columns
)

// consoleMethods are the five methods of the console global, and nothing else.
var consoleMethods = []string{"log", "info", "warn", "error", "debug"}

// newConsole builds the console object of one VM; its methods log into the VM's run.
func (r *VM) newConsole() *goja.Object {
	c := r.vm.NewObject()
	// The five behave alike (one stream, no level prefix), so they share one function
	// object, which keeps idle VMs smaller (BENCHMARKS.md, "internal/jsvm design notes").
	f := r.native(r.consoleCall)
	for _, m := range consoleMethods {
		_ = c.Set(m, f)
	}
	return c
}

// consoleCall formats one console call as one log entry. Over the output budget the run
// fails as output-limit and the entry is dropped (cut, in truncation mode).
func (r *VM) consoleCall(call goja.FunctionCall) goja.Value {
	var b strings.Builder
	if r.truncated() {
		r.appendLog("") // counted as dropped, without formatting it
		return goja.Undefined()
	}
	budget := r.logRoom()
	for i, a := range call.Arguments {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s, ok := a.(goja.String); ok {
			// Checked before it is copied: a huge string is not materialized twice.
			if s.Length() > budget {
				if r.truncate { // the entry is cut anyway: copy only what can be kept
					b.WriteString(s.Substring(0, max(budget-b.Len(), 0)+1).String())
					r.appendLog(b.String())
					return goja.Undefined()
				}
				r.fail(KindOutputLimit, r.outputLimitMessage())
				return goja.Undefined()
			}
			b.WriteString(a.String())
		} else {
			if _, ok := a.(*goja.Object); ok {
				r.helpers() // only objects need the prelude (see preludeSrc)
			}
			in := inspector{r: r, limit: budget - b.Len()}
			in.format(&b, a, 0, 0)
			if in.over {
				r.overLog(&b)
				return goja.Undefined()
			}
		}
		if b.Len() > budget {
			r.overLog(&b)
			return goja.Undefined()
		}
	}
	r.appendLog(b.String())
	return goja.Undefined()
}

// overLog handles a console entry over the output budget: it fails the run as
// output-limit, or in truncation mode logs what was formatted, which appendLog cuts.
func (r *VM) overLog(b *strings.Builder) {
	if r.truncate {
		r.appendLog(b.String())
		return
	}
	r.fail(KindOutputLimit, r.outputLimitMessage())
}

// inspector walks one value. seen holds the objects on the current path, for [Circular].
type inspector struct {
	r         *VM
	seen      []*goja.Object
	lastDepth int  // depth of the last object whose entries were formatted (Node's currentDepth)
	numeric   bool // the array just formatted held only numbers and bigints
	// limit bounds the text produced so far; past it the walk stops and over is set (a
	// shared value nested a few levels deep would print 100^4 entries in one native call).
	limit int
	size  int
	over  bool
}

// count books the text of leaves and keys against the limit. It undercounts punctuation,
// so it never stops a log that would fit; the exact check is on the finished entry.
func (in *inspector) count(n int) {
	in.size += n
	if in.size > in.limit {
		in.over = true
	}
}

func (in *inspector) format(b *strings.Builder, v goja.Value, depth, indent int) {
	if o, ok := v.(*goja.Object); ok {
		in.formatObject(b, o, depth, indent)
		return
	}
	start := b.Len()
	in.formatPrimitive(b, v)
	in.count(b.Len() - start)
}

func (in *inspector) formatPrimitive(b *strings.Builder, v goja.Value) {
	switch {
	case v == nil || goja.IsUndefined(v):
		b.WriteString("undefined")
		return
	case goja.IsNull(v):
		b.WriteString("null")
		return
	}
	switch x := v.(type) {
	case goja.String:
		writeQuoted(b, x.String())
		return
	case *goja.Symbol:
		b.WriteString("Symbol(" + x.String() + ")")
		return
	}
	if goja.IsBigInt(v) {
		b.WriteString(v.String())
		b.WriteByte('n')
		return
	}
	if f, ok := v.Export().(float64); ok && f == 0 && math.Signbit(f) {
		b.WriteString("-0")
		return
	}
	b.WriteString(v.String())
}

// writeQuoted quotes a string as util.inspect does inside structures: single quotes (double
// when it has only single ones), control characters escaped, cut at inspectMaxString.
func writeQuoted(b *strings.Builder, s string) {
	more := 0
	if n := utf8.RuneCountInString(s); n > inspectMaxString {
		more = n - inspectMaxString
		cut := 0
		for i := range s {
			if cut == inspectMaxString {
				s = s[:i]
				break
			}
			cut++
		}
	}
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b.WriteByte(q)
	for _, c := range s {
		switch {
		case c == rune(q) || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte(q)
	if more > 0 {
		b.WriteString("... ")
		b.WriteString(strconv.Itoa(more))
		b.WriteString(" more character")
		if more > 1 {
			b.WriteByte('s')
		}
	}
}

func (in *inspector) formatObject(b *strings.Builder, o *goja.Object, depth, indent int) {
	start, container := b.Len(), false
	defer func() {
		if !container {
			in.count(b.Len() - start)
		}
	}()
	for _, s := range in.seen {
		if s == o {
			b.WriteString("[Circular]")
			return
		}
	}
	r := in.r
	cls := o.ClassName()
	switch cls {
	case "Function":
		if v, err := r.helpers().fnLabel(goja.Undefined(), o); err == nil {
			b.WriteString(v.String())
		} else {
			b.WriteString("[Function]")
		}
		return
	case "Date":
		b.WriteString(r.dateString(o))
		return
	case "RegExp":
		b.WriteString(o.String())
		return
	case "Error":
		// Its stack, then its own enumerable properties (a ToolCallError's code), as Node.
		if len(o.Keys()) == 0 {
			b.WriteString(r.errorText(o))
			return
		}
	case "String", "Number", "Boolean", "BigInt", "Symbol":
		b.WriteString("[" + cls + ": ")
		if cls == "String" {
			writeQuoted(b, o.String())
		} else {
			in.format(b, r.primitiveOf(o), depth, indent)
		}
		b.WriteString("]")
		return
	}
	prefix := in.prefix(o, cls)
	if cls == "Error" {
		prefix = r.errorText(o) + " "
	}
	if depth > inspectDepth {
		switch {
		case cls == "Array":
			b.WriteString("[Array]")
		case prefix == "":
			b.WriteString("[Object]")
		default:
			b.WriteString("[" + strings.Fields(prefix)[0] + "]")
		}
		return
	}
	container = true // its leaves and keys are counted as they are formatted
	in.seen = append(in.seen, o)
	defer func() { in.seen = in.seen[:len(in.seen)-1] }()
	outer := in.lastDepth
	in.lastDepth = depth

	var entries []string
	open, close := "{", "}"
	child := func(v goja.Value) string {
		if in.over {
			return ""
		}
		var cb strings.Builder
		in.format(&cb, v, depth+1, indent+2)
		return cb.String()
	}
	isArrayLike := false
	if o.ExportType() == promiseType {
		cls = "Promise"
	} else if cls == "Object" {
		cls = r.brand(o) // goja names Maps, Sets and typed arrays "Object"
	}
	switch cls {
	case "Array":
		open, close = "[", "]"
		isArrayLike = true
		entries = in.arrayEntries(o, child)
	case "Map", "Set":
		var size int64
		entries, size = in.collectionEntries(o, cls, child)
		prefix = cls + "(" + strconv.FormatInt(size, 10) + ") "
	case "Promise":
		if p, ok := o.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStatePending:
				entries = append(entries, "<pending>")
			case goja.PromiseStateRejected:
				entries = append(entries, "<rejected> "+child(p.Result()))
			default:
				entries = append(entries, child(p.Result()))
			}
		}
	default:
		if strings.HasSuffix(cls, "Array") && cls != "Array" { // typed arrays
			open, close = "[", "]"
			isArrayLike = true
			entries = in.arrayEntries(o, child)
			prefix = cls + "(" + strconv.FormatInt(o.Get("length").ToInteger(), 10) + ") "
			in.numeric = true
		}
	}
	if !isArrayLike {
		// Not for arrays: listing keys would enumerate every index again.
		for _, k := range o.Keys() {
			if in.over {
				break
			}
			in.count(len(k))
			var v goja.Value
			if ex := r.vm.Try(func() { v = o.Get(k) }); ex != nil {
				// A throwing getter must not make console.log throw; Node prints this.
				entries = append(entries, propertyKey(k)+": [Getter]")
				continue
			}
			entries = append(entries, propertyKey(k)+": "+child(v))
		}
	}
	if len(entries) == 0 {
		in.lastDepth = outer // Node returns early for empty objects, before noting the depth
		b.WriteString(prefix + open + close)
		return
	}
	grouped := false
	if isArrayLike && len(entries) > inspectGroupMin {
		n := len(entries)
		entries = groupArrayElements(entries, indent, in.numeric)
		grouped = len(entries) != n
	}
	total := len(entries) + indent + len(open) + len(prefix) + 10                 // Node's "start"
	multi := grouped || in.lastDepth-depth >= 3 || strings.Contains(prefix, "\n") // Node's compact: 3
	for _, e := range entries {
		total += utf8.RuneCountInString(e)
		if strings.Contains(e, "\n") {
			multi = true
		}
	}
	b.WriteString(prefix)
	if !multi && total+len(entries) <= inspectBreak {
		b.WriteString(open + " " + strings.Join(entries, ", ") + " " + close)
		return
	}
	pad := "\n" + strings.Repeat(" ", indent)
	b.WriteString(open + pad + "  " + strings.Join(entries, ","+pad+"  ") + pad + close)
}

// prefix names the constructor of a non-plain object ("Foo ", "[Object: null prototype] ").
func (in *inspector) prefix(o *goja.Object, cls string) string {
	proto := o.Prototype()
	if proto == nil {
		if cls == "Array" {
			return "[Array(" + strconv.FormatInt(o.Get("length").ToInteger(), 10) + "): null prototype] "
		}
		return "[Object: null prototype] "
	}
	if proto == in.r.in.objectProto || proto == in.r.in.arrayProto {
		return ""
	}
	name := ""
	if c, ok := proto.Get("constructor").(*goja.Object); ok {
		if n := c.Get("name"); n != nil {
			name = n.String()
		}
	}
	if name == "" || name == "Object" && cls == "Object" || name == "Array" && cls == "Array" {
		return ""
	}
	return name + " "
}

// arrayEntries formats up to inspectMaxItems elements, collapsing holes like Node.
func (in *inspector) arrayEntries(o *goja.Object, child func(goja.Value) string) []string {
	n := o.Get("length").ToInteger()
	var entries []string
	holes := int64(0)
	flush := func() {
		if holes > 0 {
			s := "<" + strconv.FormatInt(holes, 10) + " empty item"
			if holes > 1 {
				s += "s"
			}
			entries = append(entries, s+">")
			holes = 0
		}
	}
	shown := int64(0)
	i := int64(0)
	numeric := true
	for ; i < n && shown < inspectMaxItems && !in.over; i++ {
		k := strconv.FormatInt(i, 10)
		v := o.Get(k)
		if v == nil {
			holes++
			numeric = false
			continue
		}
		flush()
		if _, isObj := v.(*goja.Object); isObj || goja.IsString(v) || goja.IsUndefined(v) || goja.IsNull(v) {
			numeric = false
		} else if _, isBool := v.Export().(bool); isBool {
			numeric = false
		} else if _, isSym := v.(*goja.Symbol); isSym {
			numeric = false
		}
		entries = append(entries, child(v))
		shown++
	}
	flush()
	in.numeric = numeric
	if rest := n - i; rest > 0 {
		s := "... " + moreItems(int64(rest))
		entries = append(entries, s)
	}
	return entries
}

// collectionEntries formats a Map's or Set's entries through the prelude's captured helper.
func (in *inspector) collectionEntries(o *goja.Object, cls string, child func(goja.Value) string) ([]string, int64) {
	r := in.r
	list, err := r.helpers().entries(goja.Undefined(), o, r.vm.ToValue(inspectMaxItems))
	if err != nil {
		return []string{"<unreadable>"}, 0
	}
	arr := list.ToObject(r.vm)
	n := arr.Get("length").ToInteger()
	size := arr.Get("0").ToInteger()
	var entries []string
	for i := int64(1); i < n; i++ {
		e := arr.Get(strconv.FormatInt(i, 10))
		if cls == "Map" {
			pair := e.ToObject(r.vm)
			entries = append(entries, child(pair.Get("0"))+" => "+child(pair.Get("1")))
		} else {
			entries = append(entries, child(e))
		}
	}
	if rest := size - (n - 1); rest > 0 {
		entries = append(entries, "... "+moreItems(rest))
	}
	return entries, size
}

// groupArrayElements lays out more than six short array entries in aligned columns,
// following Node's groupArrayElements (lib/internal/util/inspect.js) step by step.
func groupArrayElements(entries []string, indent int, numeric bool) []string {
	totalLength, maxLength := 0, 0
	outputLength := len(entries)
	if strings.HasPrefix(entries[len(entries)-1], "... ") {
		outputLength-- // the "more items" entry is not laid out
	}
	const separatorSpace = 2 // ", "
	dataLen := make([]int, outputLength)
	for i := 0; i < outputLength; i++ {
		l := utf8.RuneCountInString(entries[i])
		dataLen[i] = l
		totalLength += l + separatorSpace
		maxLength = max(maxLength, l)
	}
	actualMax := maxLength + separatorSpace
	if !(actualMax*3+indent < inspectBreak && (float64(totalLength)/float64(actualMax) > 5 || maxLength <= 6)) {
		return entries
	}
	const approxCharHeights = 2.5
	averageBias := math.Sqrt(float64(actualMax) - float64(totalLength)/float64(len(entries)))
	biasedMax := math.Max(float64(actualMax)-3-averageBias, 1)
	columns := int(math.Min(math.Min(
		math.Round(math.Sqrt(approxCharHeights*biasedMax*float64(outputLength))/biasedMax),
		math.Floor(float64(inspectBreak-indent)/float64(actualMax))),
		math.Min(3*4, 15)))
	if columns <= 1 {
		return entries
	}
	maxLineLength := make([]int, 0, columns)
	for i := 0; i < columns; i++ {
		lineLength := 0
		for j := i; j < outputLength; j += columns {
			lineLength = max(lineLength, dataLen[j])
		}
		maxLineLength = append(maxLineLength, lineLength+separatorSpace)
	}
	pad := func(s string, width int, start bool) string {
		n := width - utf8.RuneCountInString(s)
		if n <= 0 {
			return s
		}
		if start {
			return strings.Repeat(" ", n) + s
		}
		return s + strings.Repeat(" ", n)
	}
	var out []string
	for i := 0; i < outputLength; i += columns {
		maxI := min(i+columns, outputLength)
		var line strings.Builder
		j := i
		for ; j < maxI-1; j++ {
			line.WriteString(pad(entries[j]+", ", maxLineLength[j-i], numeric))
		}
		if numeric {
			line.WriteString(pad(entries[j], maxLineLength[j-i]-separatorSpace, true))
		} else {
			line.WriteString(entries[j])
		}
		out = append(out, line.String())
	}
	if outputLength < len(entries) {
		out = append(out, entries[outputLength])
	}
	return out
}

// propertyKey prints an object key bare when it is an identifier, quoted otherwise.
func propertyKey(k string) string {
	if isIdentifier(k) {
		return k
	}
	var b strings.Builder
	writeQuoted(&b, k)
	return b.String()
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// moreItems counts what a listing left out: "1 more item", "2 more items".
func moreItems(n int64) string {
	if n == 1 {
		return "1 more item"
	}
	return strconv.FormatInt(n, 10) + " more items"
}

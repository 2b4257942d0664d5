package sdkgen

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/runcode-go/runcode/registry"
)

// Tool is one tool as the SDK declares it. It is a plain value; Render does not keep
// it or modify its schemas (it reads them in place, so they must not change while it
// runs).
type Tool struct {
	// Name is the tool's name, the key of tools.
	Name string
	// Description becomes the JSDoc line above the tool's arguments.
	Description string
	// Parameters is the JSON Schema of the arguments. If nil, {"type":"object"}.
	Parameters json.RawMessage
	// Output is the JSON Schema of the canonical value. If nil, any JSON value.
	Output json.RawMessage
	// Source names the MCP server or manifest the tool comes from; the index groups
	// tools by it when there is more than one. Empty means none.
	Source string
	// DeferLoading keeps the tool's declaration out of the full SDK: it is listed by
	// name, and programs get the declaration through tools.$describe.
	DeferLoading bool
	// Inferred, when positive, says that Output was not declared by the tool but learned
	// from that many of its results ([Shape]); the declaration says so in a comment.
	Inferred int
}

// Fallback records one sub-schema that could not be expressed and was declared as
// JsonValue (or, for additional properties beside declared ones, widened to it). It
// is a plain value.
type Fallback struct {
	// Tool names the tool.
	Tool string
	// Schema is "parameters" or "output", or "$defs" for a named alias's own body.
	Schema string
	// Path is the JSON Pointer of the sub-schema within that schema.
	Path string
	// Reason says what could not be expressed.
	Reason string
}

// SDK is a rendered SDK. It is immutable.
type SDK struct {
	// Section is the whole prompt section: the instruction block, then Declarations
	// in a ```ts fence.
	Section string
	// Declarations is the TypeScript text alone, for tsc (`runcode sdk --ts`).
	Declarations string
	// Fallbacks lists the sub-schemas declared as JsonValue because they could not be
	// expressed, in the order met. Empty when every schema rendered exactly.
	Fallbacks []Fallback
	// Index reports a section rendered as an index (see [Section]): Declarations
	// then declares no tool, and the section lists them instead.
	Index bool
}

// ToolsOf returns the visible tools of set, in its byte-wise name order, as [Tool]s.
func ToolsOf(set *registry.ResolvedToolSet) []Tool {
	entries := set.Tools()
	out := make([]Tool, len(entries))
	for i, e := range entries {
		out[i] = Tool{Name: e.Name(), Description: e.Tool.Description, Parameters: e.Parameters(), Output: e.OutputSchema(),
			Source: e.Tool.Source, DeferLoading: e.Tool.DeferLoading}
	}
	return out
}

// Generate renders the SDK prompt section for a resolved tool set: the same text for
// the same set, whatever order the tools were registered in. It is Render(ToolsOf(set)).Section.
func Generate(set *registry.ResolvedToolSet) string {
	return Render(ToolsOf(set)).Section
}

// Render renders the full SDK for tools. It sorts them by byte-wise name order (for
// tools with the same name, only the first is kept) and never panics: a schema that is
// not JSON, or a part of one that TypeScript cannot express, is declared as JsonValue
// and recorded in [SDK.Fallbacks]. Tools marked DeferLoading are not declared; the
// section lists their names after the declarations.
func Render(tools []Tool) *SDK {
	var deferred []string
	for _, t := range tools {
		if t.DeferLoading {
			deferred = append(deferred, t.Name)
		}
	}
	if len(deferred) == 0 {
		return render(tools, nil)
	}
	declared := make([]Tool, 0, len(tools)-len(deferred))
	for _, t := range tools {
		if !t.DeferLoading {
			declared = append(declared, t)
		}
	}
	sdk := render(declared, nil)
	sdk.Section += alsoAvailable(deferred)
	return sdk
}

// render renders the declarations of every tool in tools. If body is not nil, it
// receives the span of Declarations between the JsonValue line and the trailer: the
// named types and the two maps (what tools.$describe returns).
func render(tools []Tool, body *[2]int) *SDK {
	// The tools in order, as indices into tools.
	order := make([]int, len(tools))
	for i := range order {
		order[i] = i
	}
	if !slices.IsSortedFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) }) { // as ToolsOf returns them
		slices.SortFunc(order, func(a, b int) int {
			if c := strings.Compare(tools[a].Name, tools[b].Name); c != 0 {
				return c
			}
			return a - b // the first of equal names sorts first, and is kept
		})
	}
	order = slices.CompactFunc(order, func(a, b int) bool {
		// Identifiers are their own keys, and no quoted key is one.
		if x, y := tools[a].Name, tools[b].Name; isIdent(x) || isIdent(y) {
			return x == y
		}
		return key(tools[a].Name) == key(tools[b].Name)
	})

	g := &gen{aliases: map[string]*alias{}, used: map[string]bool{}, byNode: map[val]*alias{}, ids: map[val]string{}, texts: map[string]string{}}
	sc := scratchPool.Get().(*scratch)
	defer sc.release(g)
	docs := g.load(tools, order, sc)
	// Rendered text is about as long as the schemas it comes from.
	g.buf = sc.buf[:0]
	if cap(g.buf) < g.srcLen+1024 {
		g.buf = make([]byte, 0, g.srcLen+1024)
	}
	g.tmp, g.parts = sc.tmp[:0], sc.parts[:0]
	texts := sc.spans[:0] // each tool's arguments, then its output
	if cap(texts) < 2*len(order) {
		texts = make([]span, 0, 2*len(order))
	}
	texts = texts[:2*len(order)]
	g.spans = texts
	for i, j := range order {
		texts[2*i] = g.document(tools[j].Name, "parameters", &docs[2*i]).span
		texts[2*i+1] = g.document(tools[j].Name, "output", &docs[2*i+1]).span
	}
	for i := 0; i < len(g.order); i++ { // aliases may discover more aliases
		a := g.order[i]
		r := &renderer{g: g, tool: a.tool, where: "$defs", root: a.root}
		a.body = r.schema(a.n, "", 0, r.loc(0, a.def))
	}
	g.breakCycles()

	size := len(Instructions) + len(trailer) + 512
	for _, t := range texts {
		size += t.end - t.start + 32
	}
	for _, j := range order {
		size += 2*len(tools[j].Name) + len(tools[j].Description)
		if tools[j].Inferred > 0 {
			size += 64 // its comment
		}
	}
	for _, a := range g.order {
		size += len(a.name) + a.body.end - a.body.start + len(a.doc) + 32
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(Instructions + "\n```ts\n")
	start := b.Len()
	b.WriteString("type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }\n\n")
	bodyStart := b.Len()
	named := slices.Clone(g.order)
	slices.SortFunc(named, func(a, b *alias) int { return strings.Compare(a.name, b.name) })
	for _, a := range named {
		writeDoc(&b, &g.tmp, "", a.doc)
		b.WriteString("type ")
		b.WriteString(a.name)
		b.WriteString(" = ")
		b.Write(g.text(a.body.span))
		b.WriteString("\n\n")
	}
	b.WriteString("interface ToolArgsMap {")
	for i, j := range order {
		if i == 0 {
			b.WriteByte('\n')
		}
		writeDoc(&b, &g.tmp, "  ", tools[j].Description)
		b.WriteString("  ")
		b.WriteString(key(tools[j].Name))
		b.WriteString(": ")
		b.Write(g.text(texts[2*i]))
		b.WriteString(";\n")
	}
	b.WriteString("}\n\ninterface ToolOutputMap {")
	for i, j := range order {
		if i == 0 {
			b.WriteByte('\n')
		}
		if n := tools[j].Inferred; n > 0 {
			b.WriteString(inferredDoc(n))
		}
		b.WriteString("  ")
		b.WriteString(key(tools[j].Name))
		b.WriteString(": ")
		b.Write(g.text(texts[2*i+1]))
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	bodyEnd := b.Len()
	b.WriteString("\n")
	b.WriteString(trailer)
	end := b.Len()
	b.WriteString("```\n")
	section := b.String()
	if body != nil {
		*body = [2]int{bodyStart - start, bodyEnd - start}
	}
	return &SDK{
		Section:      section,
		Declarations: section[start:end],
		Fallbacks:    g.fallbacks,
	}
}

// inferredDoc is the comment above an output type learned from n results.
func inferredDoc(n int) string {
	results := "results"
	if n == 1 {
		results = "result"
	}
	return "  /** Inferred from " + strconv.Itoa(n) + " " + results + "; not declared by the tool. */\n"
}

// trailer closes the declarations: the names, the error class and the tools object.
const trailer = `type ToolName = keyof ToolOutputMap

type ToolErrorCode = "INVALID_ARGS" | "UNKNOWN_TOOL" | "TOOL_TIMEOUT" | "ABORTED" | "ABORTED_BEFORE_DISPATCH" | "INVALID_TOOL_OUTPUT" | "DENIED" | "TOOL_FAILED"

declare class ToolCallError extends Error {
  readonly name: "ToolCallError";
  readonly toolName: ToolName;
  readonly code: ToolErrorCode;
}

declare const tools: {
  [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;
}
`

// scratch is the working memory of a Render that its result does not keep: the
// parsed documents, the rendered text before it is assembled, and the parser's and
// joiner's stacks. Renders reuse it through a pool: for a thousand tools it is some
// 2 MB, and fresh memory of that size costs zeroing and page faults on every call
// (a fifth of Render's profile on the 2-core VM it was measured on). Released, it
// holds no strings, so a pooled scratch keeps no caller's text alive.
type scratch struct {
	docs   []doc  // cleared when released: they hold the callers' text
	spans  []span // the entries' text
	nodes  []node
	kids   []int32
	mem    []int32
	frames []frame
	buf    []byte
	tmp    []byte
	parts  []ts
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooled bounds the scratch kept for later Renders, so that one huge tool set
// does not pin its memory.
const maxPooled = 16 << 20

// release puts g's scratch memory back in the pool.
func (sc *scratch) release(g *gen) {
	s := &g.store
	if cap(s.nodes) > maxPooled/32 || cap(s.kids) > maxPooled/4 || cap(g.buf) > maxPooled { // a node is 32 bytes
		return
	}
	clear(g.parts[:cap(g.parts)]) // their alias names
	clear(g.docs)
	*sc = scratch{docs: g.docs[:0], spans: g.spans[:0], nodes: s.nodes[:0], kids: s.kids[:0], mem: s.mem[:0], frames: s.frames[:0], buf: g.buf[:0], tmp: g.tmp[:0], parts: g.parts[:0]}
	scratchPool.Put(sc)
}

// gen is the state of one Render: named aliases and fallbacks.
type gen struct {
	aliases map[string]*alias // by identity key
	order   []*alias          // in discovery order
	used    map[string]bool   // alias names taken
	byNode  map[val]*alias    // by definition node, within one document
	ids     map[val]string    // the id of a document part's text
	texts   map[string]string // text -> id
	store   store             // the parsed documents
	docs    []doc             // their text
	spans   []span            // the entries' text
	srcLen  int               // their text's length
	// buf holds the rendered types' text; tmp and parts are scratch space for
	// joining unions and intersections (see text.go).
	buf, tmp  []byte
	parts     []ts
	path      []string // the schema location being rendered (see loc)
	key       []byte   // scratch for alias keys
	doc       []byte   // scratch for doc text
	fallbacks []Fallback
}

// context returns a short id for the definitions an alias comes from (and its whole
// document, when they point elsewhere in it too), the same for the same text, so that
// alias keys stay small however large the definitions are.
func (g *gen) context(root, container val) string {
	if id, ok := g.ids[container]; ok {
		return id
	}
	text := container.src()
	if strings.Count(text, `"#`) != strings.Count(text, `"#/$defs/`)+strings.Count(text, `"#/definitions/`) {
		text = root.src()
	}
	id, ok := g.texts[text]
	if !ok {
		id = itoa(len(g.texts))
		g.texts[text] = id
	}
	g.ids[container] = id
	return id
}

// alias is a named type declared once for a $defs (or definitions) entry.
type alias struct {
	name, def, doc string
	tool           string
	n, root        val
	body           ts
}

// Schemas that a tool leaves nil.
const (
	defaultParameters = `{"type":"object"}`
	defaultOutput     = `{}`
)

// load returns the documents of the schemas of tools[order[i]]: parameters, then
// output, for each.
//
// It reads the schemas in place, as strings over the callers' bytes: copying them was
// a third of the garbage Render made, and so of its collection work. That is sound
// because Render only reads them during the call, and nothing it returns or pools
// shares their memory: its text is built in its own buffers (TestResultOwnsItsText
// checks this).
func (g *gen) load(tools []Tool, order []int, sc *scratch) []doc {
	docs := sc.docs[:0]
	if cap(docs) < 2*len(order) {
		docs = make([]doc, 0, 2*len(order))
	}
	docs = docs[:2*len(order)]
	g.docs = docs
	values, members := len(docs), 0
	for i, j := range order {
		docs[2*i] = doc{src: schemaText(tools[j].Parameters, defaultParameters), s: &g.store}
		docs[2*i+1] = doc{src: schemaText(tools[j].Output, defaultOutput), s: &g.store}
	}
	// Size the store from bounds on what the text can hold (a value follows each ','
	// or opens a container; a member has a ':'), so that it is allocated once rather
	// than grown by copying. Separators inside strings only make the bounds looser.
	for _, d := range docs {
		g.srcLen += len(d.src)
		values += strings.Count(d.src, ",") + strings.Count(d.src, "[") + strings.Count(d.src, "{")
		members += strings.Count(d.src, ":")
	}
	if n := min(values, maxStore); cap(sc.nodes) >= n {
		g.store.nodes = sc.nodes[:0]
	} else {
		g.store.nodes = make([]node, 0, n)
	}
	if n := min(3*members+values, maxStore); cap(sc.kids) >= n {
		g.store.kids = sc.kids[:0]
	} else {
		g.store.kids = make([]int32, 0, n)
	}
	g.store.mem, g.store.frames = sc.mem[:0], sc.frames[:0]
	return docs
}

// schemaText returns text as a string sharing its memory, or def when text is nil.
func schemaText(text json.RawMessage, def string) string {
	if text == nil {
		return def
	}
	return unsafe.String(unsafe.SliceData(text), len(text))
}

// document renders one tool schema as an entry's type.
func (g *gen) document(tool, where string, d *doc) ts {
	r := &renderer{g: g, tool: tool, where: where}
	if !d.fits() {
		return r.fallback(0, "schema is too large")
	}
	root := d.parse()
	if !root.ok() {
		return r.fallback(0, "schema is not valid JSON")
	}
	r.root = root
	return r.schema(root, "  ", 0, 0)
}

// alias returns the name declared for the $defs entry def (node n) of r's document,
// declaring it on first use. Entries with the same name, text and sibling definitions
// share one declaration.
func (g *gen) alias(r *renderer, def string, n, container val) string {
	if a := g.byNode[n]; a != nil {
		return a.name
	}
	// The key is built in a reused buffer: a lookup by it allocates nothing, and
	// most lookups find a declaration.
	k := append(g.key[:0], def...)
	k = append(k, 0)
	k = append(k, n.src()...)
	if container.ok() {
		k = append(k, 0)
		k = append(k, g.context(r.root, container)...)
	}
	g.key = k
	if a := g.aliases[string(k)]; a != nil {
		g.byNode[n] = a
		return a.name
	}
	base := aliasName(def)
	name := base
	if reserved()[name] || g.used[name] {
		name = base + "_"
		for i := 2; g.used[name] || reserved()[name]; i++ {
			name = base + "_" + itoa(i)
		}
	}
	g.used[name] = true
	a := &alias{name: name, def: def, tool: r.tool, n: n, root: r.root}
	if n.kind() == 'o' {
		if d := n.get("description"); d.ok() && d.kind() == 's' {
			a.doc = d.str()
		}
	}
	g.aliases[string(k)] = a
	g.byNode[n] = a
	g.order = append(g.order, a)
	return name
}

// breakCycles replaces the body of every alias that names itself outside any object,
// array or tuple (`type A = A | null`, which TypeScript rejects as circular) with
// JsonValue.
func (g *gen) breakCycles() {
	byName := make(map[string]*alias, len(g.order))
	for _, a := range g.order {
		byName[a.name] = a
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[*alias]int{}
	var cyclic []*alias
	for _, start := range g.order {
		if state[start] != unseen {
			continue
		}
		// Iterative depth-first search over direct references.
		type item struct {
			a *alias
			i int
		}
		stack := []item{{a: start}}
		state[start] = open
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i >= len(top.a.body.direct) {
				state[top.a] = done
				stack = stack[:len(stack)-1]
				continue
			}
			next := byName[top.a.body.direct[top.i]]
			top.i++
			switch state[next] {
			case unseen:
				state[next] = open
				stack = append(stack, item{a: next})
			case open:
				cyclic = append(cyclic, next)
			}
		}
	}
	for _, a := range cyclic {
		if string(g.text(a.body.span)) == "JsonValue" {
			continue
		}
		a.body = g.json()
		g.fallbacks = append(g.fallbacks, Fallback{Tool: a.tool, Schema: "$defs", Path: "/" + a.def, Reason: "alias " + a.name + " refers to itself outside any object or array"})
	}
}

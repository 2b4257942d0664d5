package sdkgen

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/runcode-go/runcode/registry"
)

// DefaultBudget is the SDK budget when [Options.Budget] is zero: the bytes of
// declarations a full SDK may take before the section renders as an index.
const DefaultBudget = 16384

// Options configures [Section]. A nil *Options means the defaults.
type Options struct {
	// Budget bounds the full SDK's declarations, in bytes: past it, the section renders
	// as an index. Zero means [DefaultBudget]; negative means always the full SDK.
	Budget int
	// Full forces the full SDK whatever its size (runcode sdk --full).
	Full bool
	// State declares the global state, which runs of a session have.
	State bool
	// SaveScripts declares scripts.$save, which a host may let programs call.
	SaveScripts bool
}

// Section renders the SDK section the model gets for tools: the full SDK (as
// [Render]) while its declarations fit the budget, otherwise an index that lists each
// tool by name and first sentence and tells the model how to get declarations
// (tools.$search, tools.$describe). The same tools give the same bytes.
func Section(tools []Tool, opts *Options) *SDK {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	full := Render(tools)
	if o.Full || o.Budget < 0 || len(full.Declarations) <= o.Budget {
		return o.globals(full)
	}
	return o.globals(renderIndex(tools))
}

// StateDeclaration declares the global state of a session's runs.
const StateDeclaration = `
/** The session's key/value state, kept across its programs: read when this run starts and written back only if it ends without an error (a value is JSON, at most 1 MiB). */
declare const state: {
  get(key: string): JsonValue | undefined;
  set(key: string, value: JsonValue): void;
  delete(key: string): boolean;
  keys(): string[];
}
`

// SaveScriptsDeclaration declares scripts.$save.
const SaveScriptsDeclaration = `
declare const scripts: {
  /** Saves code as the tool script__<name> of later programs. The code is a program like this one: it reads its arguments as the global input and returns its result. Saving fails if it calls a tool that does not exist. */
  $save(script: { name: string; description: string; inputSchema?: { [key: string]: JsonValue }; code: string }): Promise<{ tool: string }>;
}
`

// globals returns sdk with the declarations of the globals o asks for after the tools.
func (o Options) globals(sdk *SDK) *SDK {
	var extra string
	if o.State {
		extra += StateDeclaration
	}
	if o.SaveScripts {
		extra += SaveScriptsDeclaration
	}
	if extra == "" {
		return sdk
	}
	out := *sdk
	end := strings.Index(sdk.Section, sdk.Declarations) + len(sdk.Declarations)
	out.Section = sdk.Section[:end] + extra + sdk.Section[end:]
	out.Declarations += extra
	return &out
}

// GenerateWith is Section(ToolsOf(set), opts).Section.
func GenerateWith(set *registry.ResolvedToolSet, opts *Options) string {
	return Section(ToolsOf(set), opts).Section
}

// maxLine bounds an index line's description, in characters.
const maxLine = 100

// indexTrailer closes an index's declarations: no tool is declared, so the maps are
// empty (declarations that tools.$describe returns merge into them), and tools also
// answers any name with any-typed members, so a program that only read the index
// still type-checks.
const indexTrailer = `interface ToolArgsMap {}

interface ToolOutputMap {}

type ToolName = keyof ToolOutputMap

type ToolErrorCode = "INVALID_ARGS" | "UNKNOWN_TOOL" | "TOOL_TIMEOUT" | "ABORTED" | "ABORTED_BEFORE_DISPATCH" | "INVALID_TOOL_OUTPUT" | "DENIED" | "TOOL_FAILED"

declare class ToolCallError extends Error {
  readonly name: "ToolCallError";
  readonly toolName: string;
  readonly code: ToolErrorCode;
}

declare const tools: { [name: string]: (args: any) => Promise<any> } & {
  [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;
} & {
  /** The best matches for a task, best first: name, description and TypeScript declaration. */
  $search(query: string, options?: { limit?: number }): Promise<Array<{ name: string; description: string; declaration: string }>>;
  /** The TypeScript declarations of the named tools, in this SDK's format. */
  $describe(...names: string[]): Promise<string>;
}
`

// renderIndex renders the index section of tools.
func renderIndex(tools []Tool) *SDK {
	order := sortedUnique(tools)
	groups := map[string][]int{}
	var sources []string
	for _, j := range order {
		src := tools[j].Source
		if _, ok := groups[src]; !ok {
			sources = append(sources, src)
		}
		groups[src] = append(groups[src], j)
	}
	slices.Sort(sources)
	if len(sources) > 1 && sources[0] == "" { // tools of no source close the list
		sources = append(sources[1:], "")
	}

	var b strings.Builder
	b.WriteString(Instructions)
	n := len(order)
	b.WriteString("\nThere are " + count(n) + ", too many to declare here; each is listed below by name and first sentence. " +
		"To get declarations, first run a program that returns `await tools.$search(\"what the task needs\")` (each match carries the tool's TypeScript `declaration`) or `await tools.$describe(\"name\", …)`; " +
		"then call the tools in your next programs (or search and call in one run when you know what you want).\n")
	for _, src := range sources {
		b.WriteByte('\n')
		if len(sources) > 1 {
			name := src
			if name == "" {
				name = "other"
			}
			b.WriteString(name + " (" + count(len(groups[src])) + "):\n")
		}
		for _, j := range groups[src] {
			b.WriteString("- ")
			b.WriteString(indexName(tools[j].Name))
			if d := FirstSentence(tools[j].Description); d != "" {
				b.WriteString(": ")
				b.WriteString(d)
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString("\n```ts\n")
	start := b.Len()
	b.WriteString("type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }\n\n")
	b.WriteString(indexTrailer)
	end := b.Len()
	b.WriteString("```\n")
	s := b.String()
	return &SDK{Section: s, Declarations: s[start:end], Index: true}
}

func count(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return strconv.Itoa(n) + " tools"
}

// indexName is a tool's name as a program spells it: bare, or quoted access.
func indexName(name string) string {
	if isIdent(name) {
		return name
	}
	return "tools[" + key(name) + "]"
}

// alsoAvailable lists the deferred tools of a full SDK.
func alsoAvailable(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	for i, n := range names {
		names[i] = indexName(n)
	}
	return "\nAlso available, declarations via `tools.$describe`: " + strings.Join(names, ", ") + "\n"
}

// FirstSentence returns the first sentence of a description, whitespace collapsed
// and cut at 100 characters (with "…").
func FirstSentence(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	for i := 0; i < len(desc); i++ {
		if (desc[i] == '.' || desc[i] == '!' || desc[i] == '?') && (i+1 == len(desc) || desc[i+1] == ' ') {
			desc = desc[:i+1]
			break
		}
	}
	if utf8.RuneCountInString(desc) <= maxLine {
		return desc
	}
	n := 0
	for i := range desc {
		if n == maxLine-1 {
			return strings.TrimRight(desc[:i], " ") + "…"
		}
		n++
	}
	return desc
}

// sortedUnique returns the indices of tools in byte-wise name order, the first of
// equal names only.
func sortedUnique(tools []Tool) []int {
	order := make([]int, len(tools))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(tools[a].Name, tools[b].Name) })
	return slices.CompactFunc(order, func(a, b int) bool { return tools[a].Name == tools[b].Name })
}

// Declarations returns what tools.$describe returns for tools: their entries of
// ToolArgsMap and ToolOutputMap with JSDoc, and the named types they use, as the full
// SDK renders them (DeferLoading ignored), without the shared declarations
// (JsonValue, ToolCallError, tools) the SDK section already carries.
func Declarations(tools []Tool) string {
	cp := make([]Tool, len(tools))
	for i, t := range tools {
		t.DeferLoading = false
		cp[i] = t
	}
	var body [2]int
	sdk := render(cp, &body)
	return sdk.Declarations[body[0]:body[1]]
}

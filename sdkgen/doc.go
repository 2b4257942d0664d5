// Package sdkgen renders the model-facing text of run_code: the SDK prompt section (a
// fixed instruction block and TypeScript declarations of every visible tool), the
// run_code tool's description and parameter schema, and the ptc-mode rule section.
//
// It owns that text because it is all derived from a [registry.ResolvedToolSet] by pure
// functions and pinned together by the same tests; the run_code executor (package ptc),
// the CLI (`runcode sdk`, `runcode describe`) and the MCP bridge read it from here
// without depending on the JavaScript runtime.
//
// It does not run programs, install the tools object into a VM (package bindings does),
// decide which sections a prompt carries for a mode (the executor does, with [Rules]),
// or validate values against schemas (package registry does).
//
// It may import: the standard library, package registry, and internal/jsontext,
// internal/editdist and internal/searchtext (the JSON string lexer, the edit distance
// and the search text processing it shares).
//
// # Generating the SDK
//
//	set, err := scope.Resolve(ctx, registry.Step{})
//	…
//	section := sdkgen.Generate(set) // instruction block + ```ts declarations
//	sdk := sdkgen.Render(sdkgen.ToolsOf(set))
//	fmt.Print(sdk.Declarations)     // the TypeScript alone, for tsc
//
// The text is a deterministic function of the tools: sorted by byte-wise name, the
// same bytes for the same set (prompt-cache stable).
//
// # Large catalogs: the index and search
//
// [Section] renders the full SDK while its declarations fit a budget
// ([Options.Budget], default [DefaultBudget] bytes) and otherwise an index: one line
// per tool (name and first sentence), grouped by source, with the declarations that
// keep a program type-checking before it has any tool's own (tools is also an
// any-typed map, and declares $search and $describe). Tools marked DeferLoading are
// never declared in the full SDK. [Declarations] is what tools.$describe returns;
// [Index] ranks tools for tools.$search, built once per resolved set by its caller.
//
// Search is lexical, deterministic and offline by default: BM25F over a tool's name
// words (weighted most), description, parameter names and descriptions, and server,
// with Snowball stemming and a query side that understands tasks (internal/searchtext):
// a small, general synonym table of actions and things ("throw away" finds drop and
// delete, "how high above sea level" finds elevation) weighted below the query's own
// words, values (URLs, paths, email addresses) standing for their kind rather than
// their words, a preference for tools that do what the task asks (read or change), and
// for the server the task is about. [IndexOptions.Embedder] adds semantic ranking for
// hosts that have an embedding model, fused with the lexical one by reciprocal rank
// fusion; off by default.
//
// # Schema mapping
//
// Beyond the reference's subset, real tools' JSON Schema renders as:
//
//   - anyOf and oneOf: a union; a branch that accepts anything (only constraints such
//     as required) makes the union say nothing, and it is dropped;
//   - allOf: one merged literal when every member only declares properties, else an
//     intersection;
//   - type arrays (["string","null"]) and nullable: true: unions with null;
//   - const and enum of any JSON type: literal types (objects and arrays as literal
//     object types and tuples);
//   - $ref to #/$defs/X or #/definitions/X: a named `type X = …`, declared once per
//     distinct definition, recursion allowed; names that collide with TypeScript's own
//     (keywords, the standard library, DOM included) or with another definition get a
//     suffix (Node_, Node_2); other pointers into the same document render in place;
//   - prefixItems and the older array form of items: tuples, elements beyond minItems
//     optional, extra items as a rest element;
//   - additionalProperties: <schema>: Record<string, T> (an index signature when T names
//     an alias, which a Record would make circular); false: a closed literal; true
//     beside declared properties: the literal & Record<string, JsonValue>; absent: the
//     literal alone (objects are open by default, which nearly every schema leaves
//     unsaid, and the intersection on every tool was noise for the model; validation
//     still follows the schema);
//   - description, deprecated, format, pattern, minimum, maximum, exclusive bounds,
//     multipleOf, minLength, maxLength, minItems, maxItems, uniqueItems, default and
//     enumDescriptions: one JSDoc line per property.
//
// Only a sub-schema that cannot be expressed falls back to JsonValue, never the whole
// tool: an unresolvable or external $ref, $dynamicRef, an unknown type name, a
// recursive pointer outside $defs, an alias that names itself outside any object or
// array, a schema nested deeper than 48 levels. Additional properties typed beside
// declared ones are widened to JsonValue. Each fallback is listed in [SDK.Fallbacks].
// Rendering is depth-bounded and never panics, whatever the input.
package sdkgen

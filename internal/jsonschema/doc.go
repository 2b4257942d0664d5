// Package jsonschema compiles and validates JSON Schema, for the registry's tool
// parameters and outputs. It exists so that no process pays for a schema library's
// package initialisation: compiling a schema costs only when a schema is compiled.
//
// [Compile] takes a decoded schema document and checks, for every keyword it
// interprets, that the keyword's value has the shape its draft's metaschema gives it
// (a [SchemaError] names the keyword and the schema's JSON pointer). [Schema.Validate]
// checks a decoded value and returns structured [Violation]s; the caller words them.
//
// # Drafts and keywords
//
// A schema's $schema selects draft-04, -06, -07, 2019-09 or 2020-12 (http or https,
// with or without the empty fragment); another $schema does not compile. Without one,
// a schema is read as 2020-12, or as 2019-09 when it uses the array form of items and
// nothing only 2020-12 defines (see [CompileOptions]). Every validation and applicator
// keyword of those drafts is implemented, with unevaluatedProperties and
// unevaluatedItems seeing through allOf, anyOf, oneOf, if/then/else, dependentSchemas
// and references; $ref with JSON pointer and anchor fragments, $id and embedded
// resources, $dynamicRef/$dynamicAnchor and 2019-09's $recursiveRef/$recursiveAnchor;
// draft 4-7's $ref ignoring its siblings. dependencies is honoured in every draft, for
// schemas written for the older drafts without a $schema. Unknown keywords are ignored.
//
// Not asserted, in any draft: format, contentEncoding, contentMediaType and
// contentSchema are annotations only. Not supported: references to other documents (a
// $ref whose URI names no resource of the schema's own does not compile), and
// vocabularies beyond the drafts' own ($vocabulary is ignored).
//
// Numbers are compared exactly, in decimal: 0.3 is a multiple of 0.1, and 1.0 is an
// integer. Patterns are ECMA-262 regular expressions run by Go's regexp (RE2), which
// matches in linear time: a pattern RE2 cannot run (backreferences, lookaround) does
// not compile, and neither does one whose program would be over [MaxPatternInsts].
//
// # Untrusted input
//
// Schemas come from tool authors and MCP servers, values from programs, so neither
// may make validation run away: a schema that applies itself to the same value
// through references and in-place applicators (a $ref cycle) does not compile, nor
// does one nested over [MaxSchemaDepth] levels; validation stops at [MaxDepth] levels
// into a value, at a loop that dynamic references close, and after a budget of steps
// that grows with the value's size (all reported as a violation), and uniqueItems,
// enum and const compare values by hashing a canonical spelling, with their own stack.
//
// It may import: the standard library.
package jsonschema

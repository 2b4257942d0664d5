// Package boundre compiles regular expressions whose compiled program stays within a
// bound on its instructions. Go's regexp matches in time proportional to the text times
// the program, and a short pattern grows when compiled ({n,m} copies what it repeats), so
// a pattern from an untrusted source (a grep tool's caller, a tool's JSON Schema) is
// checked before it is expanded. It imports only the standard library.
package boundre

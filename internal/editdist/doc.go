// Package editdist is the edit distance behind the typo suggestions of sdkgen (the
// nearest tool name in an index) and of the CLI (the nearest command). The runtime's
// suggestion for an unknown member also counts transpositions, and keeps its own.
//
// It may import: the standard library.
package editdist

// Package searchtext turns text into the terms that tool discovery (sdkgen.Index, behind
// tools.$search) ranks with: words split on anything but letters and digits and at
// camelCase boundaries, lower-cased, and stemmed with the Snowball English (Porter2)
// stemmer, so that "issues", "issue" and "creating", "created", "create" meet.
//
// It owns the text processing and nothing else: which fields of a tool are indexed and
// how they weigh, and the ranking itself, are sdkgen's.
//
// It may import: the standard library and github.com/kljensen/snowball (a maintained,
// dependency-free, pure-Go Snowball implementation; English only is used).
package searchtext

// Package searchtext turns text into the terms that tool discovery (sdkgen.Index, behind
// tools.$search) ranks with: words split on anything but letters and digits and at
// camelCase boundaries, lower-cased, and stemmed with the Snowball English (Porter2)
// stemmer, so that "issues", "issue" and "creating", "created", "create" meet.
//
// Queries are tasks, worded as people and models state them, so they are read more
// closely ([ParseQuery]): stop words go; each other word, each phrase of the synonym
// table and each value (a URL, a path, an email address) is a concept; a word brings
// the other words of its synonym groups at [SynonymWeight] (synonyms.go holds the table:
// a few dozen groups of everyday actions, things, question words and abbreviations,
// documented there); and the query's action (read or change) is told from its form
// and first verb, to compare with a tool's ([NameAction]).
//
// It owns the text processing and nothing else: which fields of a tool are indexed and
// how they weigh, and the ranking itself, are sdkgen's.
//
// It may import: the standard library and github.com/kljensen/snowball (a maintained,
// dependency-free, pure-Go Snowball implementation; English only is used).
package searchtext

// Package jsshape recognizes a program run again with other values: a program's shape
// is its syntax tree less its literal values, and the literals it took out, named by
// their context, can be replaced with expressions to make the program a script that
// takes them as input (ptc's suggested scripts).
//
// It owns what a literal is (a value, as opposed to a key or a member that names
// something), the name a literal's context gives it, the hash of the skeleton left
// without them, and replacing literals in the program's text. It does not prepare or
// run a program: it parses it as jsprep.Parse does, after a run, off the run path, so
// that the runtime does not carry program analysis it does not need.
//
// It may import only the standard library, github.com/dop251/goja (its ast, to read
// the tree) and of ours internal/jsprep.
package jsshape

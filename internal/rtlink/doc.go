// Package rtlink is the part of package runtime's API that only runcode's own packages
// use, kept out of runtime's public surface: what runtime/worker needs to mirror a run in
// a worker process, and the sandbox whose build, run and drop runcode bench times apart.
//
// Package runtime imports this package and registers its functions in an init, so this
// package cannot name runtime's types. The functions that take them are generic: callers
// write runtime's types, and the call checks them against what runtime registered.
//
// It may import only the standard library.
package rtlink

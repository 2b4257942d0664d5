// Package procfd closes the descriptors a process inherited without meaning to. It is the
// worker role's first step (cmd/runcode's __worker, and the worker tests' stand-in), kept
// out of package runtime/worker because library code does not touch the process's
// descriptors: the command that owns the process does.
//
// It may import only the standard library.
package procfd

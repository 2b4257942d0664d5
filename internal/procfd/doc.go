// Package procfd closes the descriptors a process inherited without meaning to: the
// worker role's first step, kept out of runtime/worker because library code does not
// touch the process's descriptors. It may import only the standard library.
package procfd

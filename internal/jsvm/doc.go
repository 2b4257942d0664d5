// Package jsvm runs one prepared program on one goja VM: the machinery under runtime's
// Pool and under the worker process's child.
//
// It owns the VM and its host globals (console, timers, URL, TextEncoder/TextDecoder,
// atob/btoa, structuredClone; built on first read) and the per-run host Namespaces; the
// Host, which keeps warm VMs and never reuses one after a program; the per-run event
// loop, console formatting, decoding host results, lossless-JSON completion and the
// output ledger; and the budgets: compute, wall clock, output, stack depth, the guards
// that turn a huge repeat, join, fill or typed array into a catchable RangeError
// (guards.go), and the heap governor (memory.go).
//
// It defines its own small types (Limits, Namespace, Job, Outcome, Failure) and imports
// nothing of runcode's public packages. It may import only the standard library,
// github.com/dop251/goja, goja_nodejs's url (never require's file loader, never process),
// github.com/google/pprof, internal/jsprep and internal/jsontext. Files that need Go's
// runtime package import it as goruntime.
package jsvm

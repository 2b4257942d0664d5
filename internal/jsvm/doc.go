// Package jsvm runs one prepared program on one goja VM: the machinery under runtime's
// Pool and under the worker process's child.
//
// It owns:
//   - the VM and its globals: the run_code contract's host globals (console, timers,
//     URL/URLSearchParams, TextEncoder/TextDecoder, atob/btoa, structuredClone), built on
//     first read, and the host Namespace objects installed per run, whose calls snapshot
//     their argument as lossless JSON and settle on the VM goroutine;
//   - the Host: warm VMs refilled in the background, never reused after a program, and
//     what outlives a run (its VM goroutine, its host calls, up to a grace);
//   - the per-run event loop (k6 style), console capture with Node-util.inspect-like
//     formatting, decoding host results, lossless-JSON completion and the output ledger
//     with its truncation mode;
//   - the budgets: compute time, wall clock, output bytes, call-stack depth, a few guards
//     that turn a confused model's mistakes ('x'.repeat(1e10), a huge join or fill, a 1 GB
//     typed array) into a catchable RangeError (guards.go), and the process's heap governor, which attributes
//     live memory to runs through marker frames in the heap profile (memory.go).
//
// It defines its own small types (Limits, Namespace, Job, Outcome, Failure) and imports
// nothing of runcode's public packages: runtime converts its API to and from them. It may
// import only the standard library, github.com/dop251/goja, the safe parts of
// github.com/dop251/goja_nodejs (url; never require's file loader, never process),
// github.com/google/pprof (to read the heap profile), internal/jsprep and
// internal/jsontext. Files that need Go's own runtime package import it as goruntime.
package jsvm

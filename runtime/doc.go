// Package runtime runs model-written JavaScript and TypeScript programs in pooled goja VMs,
// fast and with budgets.
//
// It is the public API: the warm [Pool], [RunOptions] and [Limits], host [Namespace]s,
// the [Result] and its [Failure] kinds, [Prepare] and the static checks ([References],
// [Warnings], [Suggest]). The work happens in two internal packages it converts to and
// from: internal/jsprep prepares a program (a size check, a plain-JS parse first,
// TypeScript stripping with esbuild only when that fails, with positions mapped back
// through a source map, and the same-line async wrapper that makes top-level await and
// return work while keeping the model's line numbers), and internal/jsvm runs it on one
// VM (the globals of the run_code contract, docs/run_code.md "Programs"; the per-run
// event loop; console capture; lossless-JSON completion and the output ledger; the
// budgets of docs/run_code.md: compute time, wall clock, output bytes, a heap sampler,
// call-stack depth, and a few guards that turn the ordinary mistakes of a confused model
// into a catchable RangeError).
//
// A caller installs host functions through a [Namespace] (for example tools, with an
// optional error class such as ToolCallError): each call snapshots its argument as lossless
// JSON, starts through the namespace's [StartFunc] in call order, and settles the program's
// promise on the VM goroutine. When the run ends, the host context is cancelled with
// [ErrRunOver] and in-flight calls are awaited. It does not know about tools, policies or
// schemas: the caller (the bindings package) decides what a call does.
//
// A Pool runs trusted programs in this process: a program written to exhaust the process
// can. The runtime/worker package runs programs a model wrote in supervised worker
// processes, the security boundary, behind the same Run, and reports the worker-exit kind.
//
// It may import only the standard library, golang.org/x/sync, internal/jsprep and
// internal/jsvm. Files that need Go's own runtime package import it as goruntime.
package runtime

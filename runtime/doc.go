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
// A caller installs host functions through a [Namespace]: a global (for example tools)
// whose members are materialized on first access, with an optional error class (for example
// ToolCallError with a toolName property). Each call snapshots its argument as lossless
// JSON on the VM goroutine, starts through the namespace's [StartFunc] in submission order,
// and settles the program's promise back on the VM goroutine through the run's loop when
// the call reports its outcome. When the run ends, the host context is cancelled with
// [ErrRunOver] and in-flight calls are awaited.
//
// It does not know about tools, policies or schemas: a caller (the bindings package) hands it
// namespaces of async host functions, each called with lossless JSON arguments, and decides
// what a call does. A Pool runs programs in this process, for trusted programs: a program
// written to exhaust the process can. The runtime/worker package runs programs a model
// wrote in supervised worker processes, the security boundary, behind the same Run
// signature, and reports the worker-exit kind defined here.
//
// It may import only the standard library, golang.org/x/sync, and of ours internal/jsprep
// and internal/jsvm. Files that need Go's own runtime package import it as goruntime.
package runtime

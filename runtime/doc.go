// Package runtime runs model-written JavaScript and TypeScript programs in pooled goja VMs,
// fast and with budgets.
//
// It owns:
//   - program preparation ([Prepare]), done by internal/jsprep: a size check, a plain-JS
//     parse first, TypeScript stripping with esbuild only when that fails (with positions
//     mapped back through a source map), and the same-line async wrapper that makes
//     top-level await and return work while keeping the model's line numbers;
//   - the warm [Pool]: VMs with the immutable globals already installed, never reused after a
//     program ran on them, refilled in the background, bounded and closable;
//   - the per-run event loop (k6 style): host work is reserved before it starts and settled
//     exactly once on the VM goroutine; timers are bounded by the run;
//   - the globals of the run_code contract (docs/run_code.md, "Programs") and nothing else: console, timers,
//     URL/URLSearchParams, TextEncoder/TextDecoder, atob/btoa, structuredClone, and the host
//     [Namespace] objects a caller installs per run;
//   - console capture with Node-util.inspect-like formatting, lossless-JSON completion, the
//     output ledger, the failure kinds of docs/run_code.md and the model-facing text ([Result.Text]);
//   - the budgets of docs/run_code.md: compute time (time spent awaiting host work does not count),
//     wall clock, output bytes, a heap sampler, call-stack depth, and a few guards that turn
//     the ordinary mistakes of a confused model ('x'.repeat(1e10), a huge join or fill)
//     into a catchable RangeError (guards.go).
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
// written to exhaust the process can (see budget.go). The runtime/worker package runs
// programs a model wrote in supervised worker processes, the security boundary, behind the
// same Run signature, and reports the worker-exit kind defined here.
//
// It may import only the standard library, github.com/dop251/goja, the safe parts of
// github.com/dop251/goja_nodejs (url; never require's file loader, never process),
// golang.org/x/sync and github.com/google/pprof (to read the heap profile that attributes
// memory to runs); of ours, internal/jsprep, internal/jsontext and internal/rtlink, where
// it registers what only runtime/worker and runcode bench use (so it is not exported
// here). Files that need Go's own runtime package import it as goruntime.
package runtime

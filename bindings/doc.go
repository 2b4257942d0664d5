// Package bindings is the bridge between programs and tools: it turns one resolved
// tool set into the `tools` namespace (with the `ToolCallError` class) that the
// runtime installs into a VM, and each `tools.x(args)` of a run into a full pipeline
// execution on that run's scheduler.
//
// A call's arguments arrive snapshotted as lossless JSON (the runtime rejects a lossy
// call before it gets here). Each dispatched call gets the id
// "<run_code call id>:code:<n>" (1-based, submission order), runs the whole pipeline
// with the run_code call as its parent, and settles back in the program: resolved with
// the canonical value after post-execute, or rejected with a ToolCallError carrying
// toolName, message (exactly what a direct call would show after "Error: ") and code.
// When the run ends, queued calls are abandoned and in-flight ones cancelled and
// awaited up to a grace ([Options.Grace]); a call still running after it (its tool
// ignores cancellation) is abandoned too and recorded as such ([Run.End]), so every
// budget bounds run_code whatever its tools do.
//
// tools.$search(query, options?) and tools.$describe(...names) are answered from the
// set's search index ([Index], built once per set) without the pipeline: no policy,
// no events, no sub-call id, no effect on the sub-call budget. They see exactly the
// tools the set would dispatch, less those a guard denies outright (judged by a call
// with empty arguments), and fail with a ToolCallError (INVALID_ARGS for a
// blank query, UNKNOWN_TOOL for a name that is not visible).
//
// It does not run programs (package runtime does) or render run_code's result
// (package ptc does).
//
// It may import: the standard library, runtime, pipeline, registry and sdkgen (for the
// declarations and search index discovery returns), and goja, should a binding ever
// need a VM value directly.
package bindings

// Package pipeline takes tool calls through every stage of the contract, the same for
// a model's direct calls and for run_code sub-calls:
//
//	snapshot (a frozen registry.Value) -> mode collapse -> pre-aborted check ->
//	pre-execute (allow | deny | ask -> approval) -> guards -> execute wrappers ->
//	body (argument validation, output validation, render, projectContent) ->
//	post-execute (accept, replace content or value, block; contexts) ->
//	finalizeContent (exactly once) -> observers (a copy; failures contained)
//
// The call is frozen when it enters: stages see it read-only, a stage that changes it
// fails it, and what is validated, dispatched and logged is always the call as it came
// (see [Call]).
//
// It owns the error codes and the exact messages a model reads ([ToolError]), the
// execute wrappers ([Middleware], [Chain], and [Timeout], which every pipeline applies
// to a tool's declared TimeoutMs unless Options.DisableTimeout is set), events ([Sink],
// and [SlogSink] to log them), the batch [Scheduler] both executors use, the
// [Executor] interface, and resuming a turn whose calls paused ([ResumeBatch], and
// [PausedBatch] to save one for another process).
//
// Two error channels: a tool failure (invalid arguments, denial, a body error, a
// timeout) is a [Result] whose Error is set and whose content is exactly
// "Error: <message>"; it never panics and never becomes a Go error. A panic in any
// stage or body becomes that call's TOOL_FAILED result.
//
// Cancellation is cooperative: it only ever replaces a successful outcome (ABORTED)
// or ends a call before dispatch (ABORTED_BEFORE_DISPATCH); bodies must observe their
// context, and the pipeline waits for them, except that a [Scheduler] with a Grace
// stops waiting after it and abandons the calls still running.
//
// It does not know about JavaScript, render SDKs, or decide which tools are visible
// (package registry does).
//
// It may import: the standard library and registry.
package pipeline

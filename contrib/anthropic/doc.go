// Package anthropic presents a runcode executor in the types of the Anthropic Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2), for a Messages API agent loop:
//
//   - [Adapter.Tools]: the tools of the request (run_code, and under mode both or native
//     the direct tools), as custom tools with their JSON Schema, defer_loading where the
//     registry marks a tool DeferLoading;
//   - [Adapter.System]: the executor's prompt sections as system text blocks, with a cache
//     breakpoint after the SDK section, so the tools and the SDK are cached;
//   - [Adapter.Execute]: a response's tool_use blocks run as one batch through the
//     executor, answered by a user turn of tool_result blocks (is_error on failures,
//     images as image blocks), in the response's order;
//   - [Paused]: what Execute returns instead of a turn when a run_code program stops at
//     a call needing a person's approval; the host asks the person, and [Paused.Resume]
//     goes on with the runs and returns the turn (nothing of the pause reaches the
//     model);
//   - [Adapter.BetaTools] and [Adapter.BetaSystem]: the same for the SDK's tool runner.
//
// It does not send requests, keep the conversation, or choose a model: the host's loop
// does. It does not resolve tool sets or pick executors: package registry and
// pipeline.Executors do.
//
// It is its own Go module, so that runcode's core module never depends on a provider
// SDK. It may import: the standard library, the Anthropic SDK, and runcode's pipeline
// and registry packages.
package anthropic

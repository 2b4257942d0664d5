// Package openai presents runcode's executors to OpenAI models through the
// official Go SDK (github.com/openai/openai-go/v3), for both the Chat Completions
// and the Responses API.
//
// An [Adapter] wraps a pipeline.Executor (run_code's ptc.Executor, the native
// executor, or one per mode with [NewByMode]). Each model step resolves a tool
// set and takes a [Step] from it; the Step gives what the request needs and runs
// what the reply asks for:
//
//	step, err := adapter.Step(set)
//	params := openai.ChatCompletionNewParams{
//		Tools:    step.ChatTools(),
//		Messages: append(step.ChatSystem(), history...),
//	}
//	completion, err := client.Chat.Completions.New(ctx, params)
//	msg := completion.Choices[0].Message
//	history = append(history, msg.ToParam())
//	results, err := step.ExecuteChat(ctx, msg)
//	history = append(history, results...)
//
// and for the Responses API, step.ResponsesTools(), step.Instructions() as
// instructions, and step.ExecuteResponses(ctx, resp) for the next input. (The
// SDK's package is also named openai: import one of the two under another name.)
//
// # Prompt
//
// Options.Instructions (the host's own prompt) comes first, then the executor's
// sections in their Order: run_code's fixed rules before the SDK section, which
// changes only when the tool set does. Tools and system prompt open every
// request, so the provider's prefix caching reuses them from step to step. Chat
// receives the text as one system message (developer with Options.Developer),
// Responses as instructions.
//
// # Tools
//
// Every tool of the description becomes a function tool whose parameters are its
// JSON Schema, key order kept below the top level. Under mode both the
// description holds the visible tools beside run_code, and both kinds of call
// run in the same batch. The adapter owns the function calls of a reply: a call
// naming a tool the step does not have still goes through the pipeline and gets
// its "Error: unknown tool" result, so a host's own functions belong in the
// registry too.
//
// Strict mode is off unless Options.Strict, and even then set only on a tool
// whose schema qualifies (see [Strictable]): strict mode supports a subset of
// JSON Schema and requires every object to be closed and every property
// required, and runcode sends schemas as the tools declare them rather than
// rewriting optional properties into nullable ones (which would change what the
// pipeline validates). run_code's own schema is open, so it is never strict.
// OpenAI documents that strict schemas may not be followed when the model makes
// parallel calls. The Responses API defaults a function to strict, so Responses
// tools always carry strict explicitly.
//
// # Results
//
// The calls of one reply run as one batch, through one Execute, so the
// scheduler runs parallel-safe calls together; results come back in call order.
// A failed call's output is its "Error: ..." text, unchanged. A result's
// contexts (images run_code attributes to sub-calls, contexts attached by
// policies) follow its content, labelled as the MCP server labels them.
//
// Images: a Responses function_call_output accepts input_image parts, so an
// output with images is a list of input_text and input_image parts (data URLs)
// in the result's order. A Chat tool message accepts only text, so there each
// image is replaced by a line naming its number, and one user message after the
// tool messages carries the images as image_url data URLs, each after a line
// naming its number and call. An image of a type OpenAI does not accept (other
// than PNG, JPEG, GIF, WebP) or with invalid base64 becomes a line of text saying
// so; audio and resources become text too.
//
// # Pausing for approval
//
// A run_code program that calls a tool needing a person's approval, when no approver
// answers during the call, pauses its run. ExecuteChat and ExecuteResponses then return
// nothing for the model and a [*ChatPaused] or [*ResponsesPaused] error (find it with
// errors.As), which lists the pending calls. The host asks the person and calls the
// pause's Resume with the decisions by pending call id; Resume returns what the
// Execute method would have returned, in call order, or another pause:
//
//	results, err := step.ExecuteChat(ctx, msg)
//	var paused *openai.ChatPaused
//	for errors.As(err, &paused) {
//		results, err = paused.Resume(ctx, decisions(paused.Pending))
//	}
//
// It may import: the standard library, the OpenAI SDK, and runcode's pipeline and
// registry packages.
package openai

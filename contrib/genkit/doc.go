// Package genkit connects runcode and Firebase Genkit for Go
// (github.com/firebase/genkit/go), in both directions.
//
// runcode's tools in Genkit, for a genkit.Generate loop:
//
//   - [New] describes a resolved tool set with an executor; [Adapter.Tools] are the
//     tools of a Generate call (run_code, and under mode both or native the direct
//     tools) as Genkit tools with their JSON Schema, which Genkit's own tool loop
//     runs; [Adapter.SystemMessage] carries the executor's prompt sections
//     (run_code's rules and the SDK), which the model needs to know what a program's
//     tools object holds;
//   - a run_code run that pauses for a person's approval is a Genkit interrupt
//     (ai.ToolContext.Interrupt): Generate ends with FinishReason "interrupted", the
//     host reads each interrupt's [PauseInfo] with [PauseOf], asks the person, and
//     [Adapter.Respond] resumes the run and gives the tool response for the next
//     Generate (ai.WithToolResponses);
//   - [Adapter.Execute], for a loop that runs tools itself (ai.WithReturnToolRequests),
//     answers a model message's tool requests as one batch through the executor, with
//     one tool message and, when results carry images, one user message of them; a
//     paused run comes back as a [*Paused] error whose Resume goes on.
//
// Genkit's tools in runcode, so that a program can call them:
//
//   - [Tool] turns an ai.Tool (what genkit.DefineTool and ai.NewTool return) into a
//     registry.Tool: its definition's input schema as the parameters, its output as
//     the value, media parts as image content; [Register] registers several.
//
// It does not call models, keep the conversation or resolve tool sets: the host,
// Genkit and package registry do.
//
// It is its own Go module, so that runcode's core module never depends on Genkit. It
// may import: the standard library, Genkit, and runcode's pipeline and registry
// packages.
package genkit

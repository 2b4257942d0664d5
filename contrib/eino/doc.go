// Package eino connects runcode and CloudWeGo's Eino (github.com/cloudwego/eino), in
// both directions.
//
// runcode's tools in Eino, for an agent built on Eino's chat models, graphs or ADK:
//
//   - [New] describes a resolved tool set with an executor; [Adapter.ToolInfos] are the
//     schema.ToolInfo list a ToolCallingChatModel is given (run_code, and under mode
//     both or native the direct tools), and [Adapter.Instruction] and
//     [Adapter.SystemMessage] carry the executor's prompt sections (run_code's rules
//     and the SDK), which the model needs to know what a program's tools object holds;
//   - [Adapter.Execute] answers an assistant message's tool calls as one batch through
//     the executor (the scheduler overlaps parallel-safe calls), with one tool message
//     per call, in order, and the images the results carry; a run_code run that pauses
//     for a person's approval comes back as a [*Paused] error, whose Resume goes on;
//   - [Adapter.Tools] and [Adapter.EnhancedTools] are the same tools as Eino tools
//     (tool.InvokableTool, or tool.EnhancedInvokableTool, which carries images), for
//     Eino's ToolsNode, its ReAct agent and ADK's ChatModelAgent. Each call runs as a
//     batch of one. A run that pauses becomes an Eino interrupt
//     (tool.StatefulInterrupt) whose info is a [*PauseInfo]; the host resumes it with
//     the person's [Decisions] as the resume data (adk.Runner.ResumeWithParams, or
//     compose.ResumeWithData for a graph with a checkpoint store).
//
// Eino's tools in runcode, so that a program can call them:
//
//   - [Tool] turns a tool.InvokableTool or tool.EnhancedInvokableTool into a
//     registry.Tool (its ToolInfo's JSON Schema as the parameters, its answer as the
//     value, images as image content); [Register] registers several in a scope.
//
// It does not call models, keep the conversation or resolve tool sets: the host, Eino
// and package registry do.
//
// It is its own Go module, so that runcode's core module never depends on Eino. It may
// import: the standard library, Eino, and runcode's pipeline and registry packages.
package eino

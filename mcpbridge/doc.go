// Package mcpbridge connects runcode to the Model Context Protocol in both
// directions.
//
// As a client ([Client]) it starts upstream MCP servers (a process over stdio, or a
// streamable HTTP endpoint), lists their tools (following pagination) and registers
// each in a registry scope as mcp__<server>__<tool> ([ToolName]), with its input and
// output schemas; a tool annotated readOnlyHint is concurrency-safe. Calls are
// forwarded with cancellation. A call's canonical value is the result's
// structuredContent when present, else its text parsed as JSON when it parses,
// else the text; an isError result fails the call with its text; the server's
// content blocks (images included) are kept as the call's content, so that run_code
// attributes images to the sub-call after the run. A server that fails to start,
// dies, or answers garbage fails the calls that need it with an error naming the
// server; the other servers' tools are unaffected. A later call starts a server
// that stopped again (at most three times). A server's tools/list_changed
// notification re-registers the tools that changed.
//
// As a server ([NewServer]) it offers an executor's view of a scope over MCP:
// run_code (mode ptc, with the instruction block and the SDK declarations in its
// description, since MCP clients have no system prompt to carry them), the tools
// themselves (native, with their object output schemas and structuredContent), or
// both. A call naming any other tool gets the executor's isError result (under ptc,
// UNKNOWN_TOOL). The image contexts of a run come back as image content blocks
// after the text, each preceded by a text block naming the sub-call that produced
// it; other contexts (a policy's) follow, each after a text block naming its source. Stopping it cancels the calls in flight: ServeStdio's context,
// or the context given to [Server.HandlerContext] (the MCP SDK itself only waits
// for them when a session closes).
//
// While a call runs, a Server given a [Progress] sends notifications/progress for
// requests that carry a progressToken: each sub-call started and settled and each
// console line, rate-limited, the final state before the response. Approvals:
// [ApprovalPolicy] is a pre-execute hook deciding allow, deny or ask per tool (an
// upstream tool annotated destructiveHint asks by default, see [Client.Approval]),
// and [Approve] answers an ask by elicitation from the client whose call it is, for
// direct calls and run_code sub-calls alike; a client that cannot be asked gets
// the call denied ([NotAskedMessage]). [HTTPGuard] puts a bearer token and an
// Origin check in front of the streamable HTTP handler.
//
// Both directions carry a call's trace context in the _meta of tools/call when given
// a [Propagator] (ClientOptions.Propagator, ServerOptions.Propagator): the client injects
// it into the calls it forwards, the server extracts it into the context of the calls
// it serves. The package itself knows nothing of tracing (contrib/otel adapts
// OpenTelemetry's propagators).
//
// It does not parse manifests (package manifest does; the CLI converts its servers
// to [Upstream] values), run programs (package ptc does) or decide policy (package
// pipeline does).
//
// It may import: the standard library, ptc, native, pipeline, registry, sdkgen and
// github.com/modelcontextprotocol/go-sdk.
package mcpbridge

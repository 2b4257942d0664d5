// Package otel traces and measures runcode's tool calls with OpenTelemetry, following
// the GenAI semantic conventions for tool execution. It is a module of its own, so
// that runcode's core never depends on OpenTelemetry.
//
// A [Telemetry] gives three hooks, one per seam the core offers:
//
//   - [Telemetry.Middleware], an execute wrapper (pipeline.Options.Wrappers): a span
//     "execute_tool {tool}" per call with gen_ai.operation.name, gen_ai.tool.name,
//     gen_ai.tool.call.id and, on failure, error.type (the runcode error code) and
//     status Error; arguments and results only when opted in. A run_code call's
//     sub-calls are children of its span, whether the program runs in process or in a
//     worker process. Each call's duration goes to the histogram MetricDuration.
//   - [Telemetry.Report], a ptc.Options.OnReport: the run_code span gets the run's
//     failure kind, compute time, sub-call count and output size.
//   - [Propagator], an mcpbridge.Propagator over an OpenTelemetry TextMapPropagator
//     (W3C trace context by default): a span around an upstream MCP call parents the
//     spans of the server that serves it.
//   - [Telemetry.ServerMiddleware] and [Telemetry.ClientMiddleware], for
//     mcpbridge.ServerOptions.Middleware and ClientOptions.Middleware: spans of the
//     OpenTelemetry semantic conventions for MCP, a server span per request a client
//     sends (mcp.method.name, mcp.session.id, mcp.protocol.version, gen_ai.tool.name
//     for tools/call), parented by the trace context in the request's _meta, and a
//     client span per request sent upstream, whose trace context goes in its _meta.
//     They replace the Propagator on both sides.
//
// The package does not set up exporters or global providers: the host does, or the
// runcode-otel command (cmd/runcode-otel), which serves as runcode serve does with
// tracing exported as the OTEL_* environment variables say.
package otel

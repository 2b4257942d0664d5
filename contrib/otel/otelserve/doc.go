// Package otelserve sets up OpenTelemetry tracing for a runcode MCP server: a tracer
// provider whose exporter the standard OTEL_* environment variables choose, and the
// hooks of package otel (execute_tool spans, the run_code span's figures, MCP server
// and client spans) applied to the options a server is built from. The runcode-otel
// build (../cmd/runcode-otel) uses it to give `runcode serve` a --trace flag; a host
// that builds its own server uses it the same way.
//
// It may import: the standard library, OpenTelemetry (API, SDK, the OTLP HTTP and
// stdout trace exporters), package otel, and runcode's mcpbridge, pipeline, ptc and
// registry packages.
package otelserve

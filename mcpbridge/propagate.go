package mcpbridge

import (
	"context"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Propagator carries a call's trace context across MCP in the _meta of tools/call
// requests: a [Client] injects it into every call it forwards upstream, and a
// [Server] extracts it from every call it serves into the call's context. It is shaped
// like an OpenTelemetry TextMapPropagator over a map carrier, so that one is adapted
// in a line each way (package contrib/otel does); this package knows nothing of
// tracing. Implementations must be safe for concurrent use.
type Propagator interface {
	// Inject returns the entries to add to an outgoing call's _meta (for W3C trace
	// context: traceparent and tracestate). Nil or empty adds nothing.
	Inject(ctx context.Context) map[string]string
	// Extract returns ctx carrying what meta holds. meta comes from the remote
	// client and must be treated as untrusted: it holds the _meta's unprefixed
	// string entries of at most MaxMetaValueBytes (none if the _meta has over
	// MaxMetaEntries). Prefixed keys ("io.modelcontextprotocol/protocolVersion")
	// belong to MCP and its vendors, not to trace context, and are left out.
	Extract(ctx context.Context, meta map[string]string) context.Context
}

// The bounds on what a Server passes from an incoming _meta to its Propagator. A W3C
// traceparent is 55 bytes and a tracestate should stay within 512; a longer value is
// left out, and a _meta of more entries than MaxMetaEntries is not looked at.
const (
	MaxMetaValueBytes = 8 << 10
	MaxMetaEntries    = 64
)

// injectMeta returns meta with p's entries for ctx added; entries already in meta
// (a progress token, say) are kept. It returns meta itself when there is nothing to add.
func injectMeta(ctx context.Context, p Propagator, meta mcp.Meta) mcp.Meta {
	if p == nil {
		return meta
	}
	add := p.Inject(ctx)
	if len(add) == 0 {
		return meta
	}
	out := make(mcp.Meta, len(meta)+len(add))
	for k, v := range add {
		out[k] = v
	}
	maps.Copy(out, meta)
	return out
}

// extractMeta returns ctx with what p finds in meta's string entries.
func extractMeta(ctx context.Context, p Propagator, meta mcp.Meta) context.Context {
	if p == nil || len(meta) == 0 || len(meta) > MaxMetaEntries {
		return ctx
	}
	carrier := make(map[string]string, len(meta))
	for k, v := range meta {
		if s, ok := v.(string); ok && len(s) <= MaxMetaValueBytes && !strings.Contains(k, "/") {
			carrier[k] = s
		}
	}
	if len(carrier) == 0 {
		return ctx
	}
	return p.Extract(ctx, carrier)
}

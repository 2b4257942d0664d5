package otel

import (
	"context"

	"go.opentelemetry.io/otel/propagation"

	"github.com/runcode-go/runcode/mcpbridge"
)

// Propagator adapts p to mcpbridge's Propagator, which carries trace context in the
// _meta of tools/call (set it as mcpbridge.ClientOptions.Propagator on the calling side and
// mcpbridge.ServerOptions.Propagator on the serving side). A nil p means W3C trace
// context (propagation.TraceContext).
func Propagator(p propagation.TextMapPropagator) mcpbridge.Propagator {
	if p == nil {
		p = propagation.TraceContext{}
	}
	return metaPropagator{p}
}

type metaPropagator struct{ p propagation.TextMapPropagator }

func (m metaPropagator) Inject(ctx context.Context) map[string]string {
	c := propagation.MapCarrier{}
	m.p.Inject(ctx, c)
	return c
}

func (m metaPropagator) Extract(ctx context.Context, meta map[string]string) context.Context {
	return m.p.Extract(ctx, propagation.MapCarrier(meta))
}

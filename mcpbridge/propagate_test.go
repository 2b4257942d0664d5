package mcpbridge

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runcode-go/runcode/native"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

type traceKey struct{}
type metaKey struct{}

// fakePropagator injects the context's traceKey value as "traceparent" and extracts
// the whole carrier under metaKey, so a tool body can see what crossed.
type fakePropagator struct{}

func (fakePropagator) Inject(ctx context.Context) map[string]string {
	if v, ok := ctx.Value(traceKey{}).(string); ok {
		return map[string]string{"traceparent": v}
	}
	return nil
}

func (fakePropagator) Extract(ctx context.Context, meta map[string]string) context.Context {
	return context.WithValue(ctx, metaKey{}, meta)
}

// metaScope is a native scope whose tool "seen" returns the carrier its context got
// (values over 16 bytes by their length).
func metaScope(t *testing.T) *registry.Scope {
	t.Helper()
	scope := registry.New()
	if _, err := scope.SetMode(registry.ModeNative); err != nil {
		t.Fatal(err)
	}
	if _, err := scope.Register(&registry.Tool{Name: "seen", Description: "What crossed.", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
		m, _ := ctx.Value(metaKey{}).(map[string]string)
		short := map[string]string{}
		for k, v := range m {
			if len(v) > 16 {
				v = fmt.Sprintf("<%d bytes>", len(v))
			}
			short[k] = v
		}
		return fmt.Sprint(short), nil
	}}); err != nil {
		t.Fatal(err)
	}
	return scope
}

func metaServer(t *testing.T, prop Propagator) *Server {
	t.Helper()
	ex, err := native.New(pipeline.New(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(metaScope(t), ex, &ServerOptions{Propagator: prop})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// The Server passes the string entries of a tools/call's _meta to its Propagator,
// bounded in size and count; without a Propagator, _meta is ignored.
func TestServerExtractsMeta(t *testing.T) {
	many := mcp.Meta{}
	for i := range MaxMetaEntries + 1 {
		many[fmt.Sprint("k", i)] = "v"
	}
	tests := []struct {
		name string
		prop Propagator
		meta mcp.Meta
		want string
	}{
		{"string entries", fakePropagator{}, mcp.Meta{"traceparent": "tp", "tracestate": "ts"}, "map[traceparent:tp tracestate:ts]"},
		{"other types and long values are left out", fakePropagator{}, mcp.Meta{"traceparent": "tp", "n": 5, "o": map[string]any{"a": "b"}, "long": strings.Repeat("x", MaxMetaValueBytes+1), "edge": strings.Repeat("y", MaxMetaValueBytes), "example.com/traceparent": "prefixed"}, "map[edge:<8192 bytes> traceparent:tp]"},
		{"no meta", fakePropagator{}, nil, "map[]"},
		{"too many entries", fakePropagator{}, many, "map[]"},
		{"no propagator", nil, mcp.Meta{"traceparent": "tp"}, "map[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := connect(t, metaServer(t, tt.prop), nil, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: tt.meta, Name: "seen", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want}, blocks(res.Content)); diff != "" {
				t.Errorf("carrier (-want +got):\n%s", diff)
			}
		})
	}
}

// A Client injects its Propagator's entries into every call it forwards, and a Server
// extracts them: the upstream tool's context gets what the caller's context held.
func TestPropagatorBothWays(t *testing.T) {
	srv := metaServer(t, fakePropagator{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	for _, prop := range []Propagator{fakePropagator{}, nil} {
		t.Run(fmt.Sprintf("client propagator %v", prop != nil), func(t *testing.T) {
			b := newBridge(t, registry.ModeNative, &ClientOptions{Propagator: prop})
			if err := b.client.Connect(context.Background(), "up", &Upstream{URL: hs.URL}); err != nil {
				t.Fatal(err)
			}
			ctx := context.WithValue(context.Background(), traceKey{}, "00-trace-span-01")
			res := pipeline.New(nil).Run(ctx, b.set(t), registry.Call{ID: "c", Name: "mcp__up__seen", Args: registry.MustParseValue(`{}`)})
			want := "map[traceparent:00-trace-span-01]"
			if prop == nil {
				want = "map[]"
			}
			if res.IsError() || res.Value.String() != fmt.Sprintf("%q", want) {
				t.Errorf("got %v %s, want %q", res.Error, res.Value, want)
			}
			b.client.Close()
		})
	}
}

func TestInjectMetaKeepsEntries(t *testing.T) {
	ctx := context.WithValue(context.Background(), traceKey{}, "tp")
	got := injectMeta(ctx, fakePropagator{}, mcp.Meta{"progressToken": 7, "traceparent": "caller's"})
	want := mcp.Meta{"progressToken": 7, "traceparent": "caller's"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("an entry already in _meta is kept (-want +got):\n%s", diff)
	}
	if got := injectMeta(context.Background(), fakePropagator{}, nil); got != nil {
		t.Errorf("nothing to inject: got %v, want nil", got)
	}
}

// ServerOptions.Middleware sees every request a client sends, outside the server's own
// handling (a call's context gets what it adds), and ClientOptions.Middleware every
// request sent upstream (what it puts in a call's _meta reaches the server).
func TestMiddlewareBothWays(t *testing.T) {
	var mu sync.Mutex
	var served, sent []string
	ex, err := native.New(pipeline.New(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(metaScope(t), ex, &ServerOptions{Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			served = append(served, method)
			mu.Unlock()
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				tp, _ := p.Meta["traceparent"].(string)
				ctx = context.WithValue(ctx, metaKey{}, map[string]string{"traceparent": tp, "by": "middleware"})
			}
			return next(ctx, method, req)
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	b := newBridge(t, registry.ModeNative, &ClientOptions{Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			sent = append(sent, method)
			mu.Unlock()
			if p, ok := req.GetParams().(*mcp.CallToolParams); ok {
				p.SetMeta(map[string]any{"traceparent": "from-client"})
			}
			return next(ctx, method, req)
		}
	}}})
	if err := b.client.Connect(context.Background(), "up", &Upstream{URL: hs.URL}); err != nil {
		t.Fatal(err)
	}
	defer b.client.Close()
	res := pipeline.New(nil).Run(context.Background(), b.set(t), registry.Call{ID: "c", Name: "mcp__up__seen", Args: registry.MustParseValue(`{}`)})
	if want := fmt.Sprintf("%q", "map[by:middleware traceparent:from-client]"); res.IsError() || res.Value.String() != want {
		t.Errorf("got %v %s, want %s", res.Error, res.Value, want)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"initialize", "tools/list", "tools/call"} {
		if !slices.Contains(served, want) || !slices.Contains(sent, want) {
			t.Errorf("%s: served %v, sent %v", want, served, sent)
		}
	}
}

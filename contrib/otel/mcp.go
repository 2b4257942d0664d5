package otel

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/runcode-go/runcode/mcpbridge"
)

// The attribute keys of the OpenTelemetry semantic conventions for MCP.
const (
	KeyMCPMethodName         = attribute.Key("mcp.method.name")
	KeyMCPSessionID          = attribute.Key("mcp.session.id")
	KeyMCPProtocolVersion    = attribute.Key("mcp.protocol.version")
	KeyJSONRPCRequestID      = attribute.Key("jsonrpc.request.id")
	KeyRPCResponseStatusCode = attribute.Key("rpc.response.status_code")
)

// ErrorTypeToolError is error.type of a tools/call span whose result has isError set:
// the call was answered, with a tool's failure.
const ErrorTypeToolError = "tool_error"

// methodToolsCall is the MCP method whose spans name their tool.
const methodToolsCall = "tools/call"

// ServerMiddleware returns the middleware for mcpbridge.ServerOptions.Middleware that
// opens a server span per request a client sends, as the MCP semantic conventions
// describe: named "{mcp.method.name} {tool}" for tools/call and "{mcp.method.name}"
// otherwise, of kind Server, with mcp.method.name, mcp.session.id (when the transport
// has sessions, as streamable HTTP does) and mcp.protocol.version, and for tools/call
// gen_ai.operation.name execute_tool and gen_ai.tool.name. Its parent is the trace
// context the client put in the params' _meta (W3C trace context unless
// Options.Propagator says otherwise), and the request's handling runs in its context:
// the execute_tool span of the call (see [Telemetry.Middleware]) is its child, and a
// run_code call's sub-calls are children of that.
//
// A request that fails gets error.type (the JSON-RPC error code, which
// rpc.response.status_code also holds, or _OTHER) and status Error; a tools/call
// answered with isError gets error.type tool_error. The JSON-RPC request id is not
// recorded: the MCP Go SDK does not give it to middleware.
//
// Use it in place of mcpbridge.ServerOptions.Propagator, not beside it: the Propagator
// would extract the client's context again inside the span, and the call's spans
// would become the span's siblings.
func (t *Telemetry) ServerMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if carrier := incoming(paramsMeta(req)); len(carrier) > 0 {
				ctx = t.propagator().Extract(ctx, carrier)
			}
			ctx, span := t.mcpSpan(ctx, trace.SpanKindServer, method, req)
			res, err := next(ctx, method, req)
			endMCP(span, res, err)
			return res, err
		}
	}
}

// ClientMiddleware returns the middleware for mcpbridge.ClientOptions.Middleware that
// opens a client span per request sent to an upstream MCP server, named and
// attributed as [Telemetry.ServerMiddleware]'s (of kind Client; mcp.session.id is the
// upstream's session), and puts its trace context in the request's _meta, so that the
// upstream's server span is its child. A tools/call forwarded for a run_code sub-call
// is a child of the sub-call's execute_tool span.
//
// Use it in place of mcpbridge.ClientOptions.Propagator, which would put the caller's
// context in _meta rather than the client span's (this middleware then replaces it).
func (t *Telemetry) ClientMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, span := t.mcpSpan(ctx, trace.SpanKindClient, method, req)
			if p := params(req); p != nil {
				c := propagation.MapCarrier{}
				t.propagator().Inject(ctx, c)
				if len(c) > 0 {
					meta := maps.Clone(p.GetMeta())
					if meta == nil {
						meta = map[string]any{}
					}
					for k, v := range c {
						meta[k] = v
					}
					p.SetMeta(meta)
				}
			}
			res, err := next(ctx, method, req)
			endMCP(span, res, err)
			return res, err
		}
	}
}

// propagator is Options.Propagator, or W3C trace context.
func (t *Telemetry) propagator() propagation.TextMapPropagator {
	if t.o.Propagator != nil {
		return t.o.Propagator
	}
	return propagation.TraceContext{}
}

// mcpSpan starts the span of one MCP request.
func (t *Telemetry) mcpSpan(ctx context.Context, kind trace.SpanKind, method string, req mcp.Request) (context.Context, trace.Span) {
	method = clip(method, maxIDBytes)
	name := method
	attrs := []attribute.KeyValue{KeyMCPMethodName.String(method)}
	if id := sessionID(req); id != "" {
		attrs = append(attrs, KeyMCPSessionID.String(clip(id, maxIDBytes)))
	}
	if v := protocolVersion(req); v != "" {
		attrs = append(attrs, KeyMCPProtocolVersion.String(clip(v, maxIDBytes)))
	}
	if tool := toolName(req); method == methodToolsCall && tool != "" {
		tool = clip(tool, maxIDBytes)
		name += " " + tool
		attrs = append(attrs, KeyOperationName.String(OperationExecuteTool), KeyToolName.String(tool))
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// endMCP records how a request ended and ends its span.
func endMCP(span trace.Span, res mcp.Result, err error) {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		code := strconv.FormatInt(we.Code, 10)
		span.SetAttributes(KeyRPCResponseStatusCode.String(code), KeyErrorType.String(code))
		span.SetStatus(codes.Error, we.Message)
	case err != nil:
		span.SetAttributes(KeyErrorType.String(OtherTool))
		span.SetStatus(codes.Error, err.Error())
	default:
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			span.SetAttributes(KeyErrorType.String(ErrorTypeToolError))
			span.SetStatus(codes.Error, ErrorTypeToolError)
		}
	}
	span.End()
}

// params returns a request's params, or nil.
func params(req mcp.Request) (p mcp.Params) {
	if req == nil {
		return nil
	}
	defer func() {
		if recover() != nil { // a typed nil the SDK's accessors do not expect
			p = nil
		}
	}()
	p = req.GetParams()
	if p != nil {
		_ = p.GetMeta()
	}
	return p
}

// paramsMeta returns the _meta of a request's params, or nil.
func paramsMeta(req mcp.Request) map[string]any {
	if p := params(req); p != nil {
		return p.GetMeta()
	}
	return nil
}

// incoming returns the entries of an incoming _meta that a propagator may read, by
// the rules of mcpbridge's Propagator: string entries without a prefix ("/"), each at
// most mcpbridge.MaxMetaValueBytes, none if there are over mcpbridge.MaxMetaEntries.
func incoming(meta map[string]any) propagation.MapCarrier {
	if len(meta) == 0 || len(meta) > mcpbridge.MaxMetaEntries {
		return nil
	}
	c := propagation.MapCarrier{}
	for k, v := range meta {
		if s, ok := v.(string); ok && len(s) <= mcpbridge.MaxMetaValueBytes && !strings.Contains(k, "/") {
			c[k] = s
		}
	}
	return c
}

// toolName is the tool a tools/call names.
func toolName(req mcp.Request) string {
	switch p := params(req).(type) {
	case *mcp.CallToolParamsRaw:
		return p.Name
	case *mcp.CallToolParams:
		return p.Name
	}
	return ""
}

// sessionID is the request's session id, or "" (stdio has none).
func sessionID(req mcp.Request) (id string) {
	defer func() {
		if recover() != nil {
			id = ""
		}
	}()
	if req == nil {
		return ""
	}
	switch s := req.GetSession().(type) {
	case *mcp.ServerSession:
		if s != nil {
			return s.ID()
		}
	case *mcp.ClientSession:
		if s != nil {
			return s.ID()
		}
	}
	return ""
}

// protocolVersion is the MCP version the session agreed on, or the one an
// initialize request asks for.
func protocolVersion(req mcp.Request) (v string) {
	defer func() {
		if recover() != nil {
			v = ""
		}
	}()
	if p, ok := params(req).(*mcp.InitializeParams); ok && p != nil {
		return p.ProtocolVersion
	}
	switch s := req.GetSession().(type) {
	case *mcp.ServerSession:
		if s != nil && s.InitializeParams() != nil {
			return s.InitializeParams().ProtocolVersion
		}
	case *mcp.ClientSession:
		if s != nil && s.InitializeResult() != nil {
			return s.InitializeResult().ProtocolVersion
		}
	}
	return ""
}

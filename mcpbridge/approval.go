package mcpbridge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/pipeline"
)

// Approval reports what a call of the registered tool name needs before it runs: the
// server's [Upstream.Approval] for the tool when set, else [pipeline.Ask] for a tool
// the server annotated destructiveHint: true, else [pipeline.Allow]. ok is false
// when name is not one of the client's tools (then the caller decides).
func (c *Client) Approval(name string) (a pipeline.Action, ok bool) {
	c.mu.Lock()
	conns := slices.Collect(maps.Values(c.conns))
	c.mu.Unlock()
	for _, cn := range conns {
		cn.mu.Lock()
		upstream, found := cn.named[name]
		destructive := found && cn.regs[upstream].destructive
		cn.mu.Unlock()
		if !found {
			continue
		}
		if set, explicit := cn.up.Approval[upstream]; explicit {
			return set, true
		}
		if destructive {
			return pipeline.Ask, true
		}
		return pipeline.Allow, true
	}
	return pipeline.Allow, false
}

// sessionKey carries, in a call's context, the session of the tools/call it serves
// (see Server.handle), which Approve asks.
type sessionKey struct{}

// ApprovalPolicy returns a pre-execute hook that decides each call, a run_code
// program's sub-calls included, by policy(tool name): Allow runs it, Deny fails it
// (DENIED: `tool "<name>" was denied by policy`), and Ask has a person approve it
// through the pipeline's approval hook ([Approve]). When nobody can be asked during
// the call (it did not come through a [Server] session, its client did not declare
// the elicitation capability, or its protocol lets no server ask during a call), a
// call that can pause ([pipeline.CanDefer]: a run_code program's sub-call) still asks,
// and its run pauses; any other is denied at once with [NotAskedMessage].
func ApprovalPolicy(policy func(tool string) pipeline.Action) pipeline.PreExecuteFunc {
	return func(ctx context.Context, call *pipeline.Call) (pipeline.Decision, error) {
		switch a := policy(call.Name); a {
		case pipeline.Allow, pipeline.Deny:
			return pipeline.Decision{Action: a}, nil
		case pipeline.Ask:
			if why := cannotAsk(ctx); why != "" && !pipeline.CanDefer(ctx) {
				return pipeline.Decision{Action: pipeline.Deny, Reason: NotAskedMessage(call.Name, why)}, nil
			}
			return pipeline.Decision{Action: pipeline.Ask}, nil
		default:
			return pipeline.Decision{}, fmt.Errorf("approval policy returned an unknown action %d for tool %q", a, call.Name)
		}
	}
}

// NotAskedMessage is the denial text of a call of tool that needs approval when it
// could not be asked, why says why (for example "the MCP client does not support
// elicitation").
func NotAskedMessage(tool, why string) string {
	return fmt.Sprintf("tool %q needs approval, but it could not be asked: %s", tool, why)
}

// cannotAsk says why the session in ctx cannot be asked for an approval, or "".
func cannotAsk(ctx context.Context) string {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil {
		return "the call did not come from an MCP client"
	}
	init := ss.InitializeParams()
	switch {
	case init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil:
		return "the MCP client does not support elicitation"
	case init.Capabilities.Elicitation.Form == nil && init.Capabilities.Elicitation.URL != nil:
		return "the MCP client does not support form elicitation"
	case init.ProtocolVersion >= "2026-07-28":
		// From this version on, a server may not send requests while it serves one.
		return fmt.Sprintf("MCP protocol %s does not let a server ask during a call", init.ProtocolVersion)
	}
	return ""
}

// approvalSchema is the elicitation form: one boolean, which must be given.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Approve", "description": "Run this call"},
	},
	"required": []string{"approve"},
}

// maxArgsSummary bounds the arguments shown in an approval message, in bytes.
const maxArgsSummary = 500

// Approve is a [pipeline.ApproveFunc] that asks the user of the [Server] session the
// call came through, by elicitation: a form with one boolean, "approve", and
// [ApprovalMessage] as its message. An accepted form with approve true allows the
// call once; anything else (approve false, decline, cancel) rejects it. It waits
// until the client answers or ctx ends (the call's cancellation or deadline), and
// then returns ctx's error. A call whose session cannot be asked during the call (see
// [ApprovalPolicy]) is Unavailable: its run pauses, and the [Server] asks the client
// with an input-required result where the client's protocol has them.
func Approve(ctx context.Context, call *pipeline.Call, reason string) (pipeline.Approval, error) {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil || cannotAsk(ctx) != "" {
		return pipeline.Unavailable, nil
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: ApprovalMessage(call, reason), RequestedSchema: approvalSchema})
	if err != nil {
		if ctx.Err() != nil {
			return pipeline.Cancelled, context.Cause(ctx)
		}
		return pipeline.Unavailable, err
	}
	if res.Action == "accept" {
		if ok, _ := res.Content["approve"].(bool); ok {
			return pipeline.AllowedOnce, nil
		}
	}
	return pipeline.Rejected, nil
}

// ApprovalMessage is the question Approve asks: the tool, its arguments (cut to
// 500 bytes), whether a run_code program made the call, and the policy's reason
// when it gave one.
func ApprovalMessage(call *pipeline.Call, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow tool %q to run", call.Name)
	if call.ParentID != "" {
		b.WriteString(" (called by a run_code program)")
	}
	b.WriteString("?\nArguments: ")
	b.WriteString(cut(call.Args.String(), maxArgsSummary))
	if reason != "" {
		b.WriteString("\n" + reason)
	}
	return b.String()
}

// cut returns s cut to at most n bytes on a rune boundary, with "…" when it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

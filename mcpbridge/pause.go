package mcpbridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// How a Server answers a run that paused for approval (docs/pausing.md):
//
//   - a client on MCP 2026-07-28 that declared form elicitation gets the protocol's
//     input-required result: one elicitation request per pending call, keyed
//     "approval-<call id>", and the continuation as the request state; its retry
//     carries the answers and the state, and resumes the run, on any server that shares
//     the store;
//   - any other client reads the paused text, with the continuation and the pending
//     calls in the result's _meta (metaContinuation, metaPending), so that an operator
//     can decide out of band (runcode resume against the same store).
//
// Older clients with elicitation never get here: they are asked during the call.

// The _meta keys of a paused result for a client that cannot be asked.
const (
	metaContinuation = "io.runcode/continuation"
	metaPending      = "io.runcode/pending"
)

// inputKeyPrefix prefixes a pending call's id in input requests and responses.
const inputKeyPrefix = "approval-"

// mrtrVersion is the first MCP revision with input-required results.
const mrtrVersion = "2026-07-28"

// canAskByInputRequests reports whether the client of req takes input-required
// results: it speaks 2026-07-28 (as the session began and as this request says, since a
// legacy initialize may have asked for that version without speaking it) and declared
// form elicitation.
func canAskByInputRequests(req *mcp.CallToolRequest) bool {
	if req.Session == nil {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || caps.Elicitation.Form == nil && caps.Elicitation.URL != nil {
		return false
	}
	init := req.Session.InitializeParams()
	wire, _ := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return init != nil && init.ProtocolVersion >= mrtrVersion && wire >= mrtrVersion
}

// pausedResult is the answer to a call whose run paused.
func pausedResult(req *mcp.CallToolRequest, res *pipeline.Result) *mcp.CallToolResult {
	p := res.Pause
	if canAskByInputRequests(req) {
		reqs := mcp.InputRequestMap{}
		for _, c := range p.Pending {
			reqs[inputKeyPrefix+c.ID] = &mcp.ElicitParams{Mode: "form", Message: pendingMessage(c), RequestedSchema: approvalSchema}
		}
		return &mcp.CallToolResult{InputRequests: reqs, RequestState: p.Continuation}
	}
	out := callResult(res)
	out.Meta = mcp.Meta{metaContinuation: p.Continuation, metaPending: p.Pending}
	return out
}

// pendingMessage is the question for one pending call: as Approve asks it.
func pendingMessage(c pipeline.PendingCall) string {
	msg := fmt.Sprintf("Allow tool %q to run (called by a run_code program)?\nArguments: %s", c.Tool, cut(string(c.Arguments), maxArgsSummary))
	if c.Message != fmt.Sprintf("tool %q requires approval", c.Tool) {
		msg += "\n" + c.Message
	}
	return msg
}

// decisions reads a retry's answers: an accepted form with approve true approves the
// call, any other answer rejects it. Calls the retry does not answer stay pending.
func decisions(responses mcp.InputResponseMap) map[string]pipeline.Verdict {
	out := map[string]pipeline.Verdict{}
	for key, r := range responses {
		id, ok := strings.CutPrefix(key, inputKeyPrefix)
		if !ok {
			continue
		}
		ans, _ := r.(*mcp.ElicitResult)
		approve := false
		if ans != nil && ans.Action == "accept" {
			approve, _ = ans.Content["approve"].(bool)
		}
		out[id] = pipeline.Verdict{Approve: approve}
	}
	return out
}

// resume answers a client's retry of a call whose run paused: it resumes the run with
// the answers. A continuation that cannot resume is an error result the model reads.
func (s *Server) resume(ctx context.Context, set *registry.ResolvedToolSet, req *mcp.CallToolRequest) *pipeline.Result {
	r, ok := s.ex.(pipeline.Resumer)
	if !ok {
		return refused(req.Params.Name, "this server's executor cannot resume runs")
	}
	res, err := r.Resume(ctx, set, req.Params.RequestState, decisions(req.Params.InputResponses))
	if err != nil {
		return refused(req.Params.Name, err.Error())
	}
	return res
}

func refused(name, msg string) *pipeline.Result {
	return &pipeline.Result{Name: name, Error: &pipeline.ToolError{Code: pipeline.CodeDenied, Message: msg},
		Content: []registry.Content{registry.Text("Error: " + msg)}}
}

package mcpbridge

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// askAdd is a pipeline with the approval policy: add asks, shot is denied.
func askAdd() pipeline.Options {
	return pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{ApprovalPolicy(func(tool string) pipeline.Action {
		switch tool {
		case "add":
			return pipeline.Ask
		case "shot":
			return pipeline.Deny
		}
		return pipeline.Allow
	})}}
}

const tryAdd = `try { return await tools.add({a: 1, b: 2}) } catch (e) { return e.code + ": " + e.message }`

// elicitAnswer is an elicitation handler that answers every request with res, recording
// the requests.
func elicitAnswer(res *mcp.ElicitResult, asked *[]string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		*asked = append(*asked, req.Params.Message)
		return res, nil
	}
}

// TestApprovalByElicitation: an ask on a run_code sub-call is put to the client by
// elicitation (the message names the tool and its arguments); accepting with
// approve true runs the call, anything else denies it with the user's refusal.
func TestApprovalByElicitation(t *testing.T) {
	const message = "Allow tool \"add\" to run (called by a run_code program)?\nArguments: {\"a\":1,\"b\":2}"
	for _, tc := range []struct {
		name   string
		answer *mcp.ElicitResult
		want   string
	}{
		{"accept", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, "3"},
		{"accept false", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, `DENIED: the user rejected tool "add"`},
		{"decline", &mcp.ElicitResult{Action: "decline"}, `DENIED: the user rejected tool "add"`},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, `DENIED: the user rejected tool "add"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			_, cs := policyServer(t, servedScope(t, registry.ModePTC), askAdd(), &mcp.ClientOptions{ElicitationHandler: elicitAnswer(tc.answer, &asked)}, "2025-11-25")
			res, err := runCode(t, context.Background(), cs, tryAdd, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultString(res); got != tc.want {
				t.Errorf("result = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff([]string{message}, asked); diff != "" {
				t.Errorf("elicitations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApprovalDirectCall: under native, a direct call that asks is approved the
// same way, and the message does not mention a program.
func TestApprovalDirectCall(t *testing.T) {
	var asked []string
	_, cs := policyServer(t, servedScope(t, registry.ModeNative), askAdd(),
		&mcp.ClientOptions{ElicitationHandler: elicitAnswer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, &asked)}, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 5}})
	if err != nil || res.IsError || resultString(res) != "7" {
		t.Fatalf("add = %q, %v", resultString(res), err)
	}
	if diff := cmp.Diff([]string{"Allow tool \"add\" to run?\nArguments: {\"a\":2,\"b\":5}"}, asked); diff != "" {
		t.Errorf("elicitations (-want +got):\n%s", diff)
	}
}

// TestApprovalDeny: a denied tool fails without asking.
func TestApprovalDeny(t *testing.T) {
	var asked []string
	_, cs := policyServer(t, servedScope(t, registry.ModePTC), askAdd(), &mcp.ClientOptions{ElicitationHandler: elicitAnswer(&mcp.ElicitResult{Action: "accept"}, &asked)}, "2025-11-25")
	res, err := runCode(t, context.Background(), cs, `try { await tools.shot({}) } catch (e) { return e.code + ": " + e.message }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultString(res), `DENIED: tool "shot" was denied by policy`; got != want {
		t.Errorf("result = %q, want %q", got, want)
	}
	if len(asked) != 0 {
		t.Errorf("asked %q for a denied tool", asked)
	}
}

// TestApprovalNotAsked pins the denial of a call that can neither be asked nor pause:
// a direct call (mode native) from a client on a protocol that forbids asking during
// a call, and a call that did not come through a Server.
func TestApprovalNotAsked(t *testing.T) {
	var asked []string
	_, cs := policyServer(t, servedScope(t, registry.ModeNative), askAdd(),
		&mcp.ClientOptions{ElicitationHandler: elicitAnswer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, &asked)}, "2026-07-28")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 5}})
	want := `Error: tool "add" needs approval, but it could not be asked: MCP protocol 2026-07-28 does not let a server ask during a call`
	if err != nil || !res.IsError || resultString(res) != want || len(asked) != 0 {
		t.Errorf("direct call = %q, %v (asked %q); want the denial %q", resultString(res), err, asked, want)
	}
	t.Run("no session", func(t *testing.T) {
		d, err := ApprovalPolicy(func(string) pipeline.Action { return pipeline.Ask })(context.Background(), &pipeline.Call{Call: registry.Call{Name: "add"}})
		want := pipeline.Decision{Action: pipeline.Deny, Reason: `tool "add" needs approval, but it could not be asked: the call did not come from an MCP client`}
		if err != nil || d != want {
			t.Errorf("decision = %+v, %v; want %+v", d, err, want)
		}
		if a, err := Approve(context.Background(), &pipeline.Call{Call: registry.Call{Name: "add"}}, ""); a != pipeline.Unavailable || err != nil {
			t.Errorf("Approve without a session = %v, %v", a, err)
		}
	})
}

// TestApprovalByInputRequests: a run_code sub-call that asks, from a client on MCP
// 2026-07-28, pauses its run; the client gets an input-required result with one
// elicitation per pending call, and its retry with the answers resumes the run.
func TestApprovalByInputRequests(t *testing.T) {
	const message = "Allow tool \"add\" to run (called by a run_code program)?\nArguments: {\"a\":1,\"b\":2}"
	for _, tc := range []struct {
		name   string
		answer *mcp.ElicitResult
		want   string
	}{
		{"accept", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, "3"},
		{"accept false", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, `DENIED: the user rejected tool "add"`},
		{"decline", &mcp.ElicitResult{Action: "decline"}, `DENIED: the user rejected tool "add"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			_, cs := policyServer(t, servedScope(t, registry.ModePTC), askAdd(), &mcp.ClientOptions{ElicitationHandler: elicitAnswer(tc.answer, &asked)}, "")
			if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
				t.Fatalf("negotiated %s, want 2026-07-28", v)
			}
			res, err := runCode(t, context.Background(), cs, tryAdd, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultString(res); got != tc.want {
				t.Errorf("result = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff([]string{message}, asked); diff != "" {
				t.Errorf("elicitations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInputRequiredByHand: what a client that handles input-required results itself
// sees: the request and the state, a retry that resumes the run, and a second retry
// with the same state refused.
func TestInputRequiredByHand(t *testing.T) {
	var asked []string
	_, cs := policyServer(t, servedScope(t, registry.ModePTC), askAdd(), &mcp.ClientOptions{
		ElicitationHandler: elicitAnswer(nil, &asked), // declares the capability; never called
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	}, "")
	params := &mcp.CallToolParams{Name: registry.RunCodeName, Arguments: map[string]any{"code": tryAdd, "description": "test program"}}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || !res.NeedsInput() || res.RequestState == "" || len(res.InputRequests) != 1 {
		t.Fatalf("first round: %+v, %v; want an input-required result", res, err)
	}
	ep, ok := res.InputRequests["approval-mcp-1:code:1"].(*mcp.ElicitParams)
	if !ok || ep.Mode != "form" || !strings.HasPrefix(ep.Message, `Allow tool "add" to run`) {
		t.Fatalf("input requests = %+v", res.InputRequests)
	}
	retry := *params
	retry.RequestState = res.RequestState
	retry.InputResponses = mcp.InputResponseMap{"approval-mcp-1:code:1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
	got, err := cs.CallTool(context.Background(), &retry)
	if err != nil || got.NeedsInput() || resultString(got) != "3" {
		t.Fatalf("retry = %q, %v", resultString(got), err)
	}
	again, err := cs.CallTool(context.Background(), &retry)
	if want := "Error: run_code could not resume: this run was already resumed"; err != nil || !again.IsError || resultString(again) != want {
		t.Errorf("second retry = %q, %v; want %q", resultString(again), err, want)
	}
	if len(asked) != 0 {
		t.Errorf("the handler was called: %q", asked)
	}
}

// TestPausedForAClientThatCannotBeAsked: a client with no elicitation reads the paused
// text; the continuation and the pending calls are in the result's _meta, for an
// operator to decide out of band.
func TestPausedForAClientThatCannotBeAsked(t *testing.T) {
	_, cs := policyServer(t, servedScope(t, registry.ModePTC), askAdd(), nil, "2025-11-25")
	res, err := runCode(t, context.Background(), cs, tryAdd, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "run_code paused: waiting for approval of add (1 pending). The run resumes when the user decides; do not call it again."
	if got := resultString(res); got != want || res.IsError {
		t.Errorf("result = %q (isError %v), want %q", got, res.IsError, want)
	}
	if tok, _ := res.Meta[metaContinuation].(string); tok == "" {
		t.Errorf("_meta = %v, want a continuation", res.Meta)
	}
	pending, _ := res.Meta[metaPending].([]any)
	if len(pending) != 1 || pending[0].(map[string]any)["tool"] != "add" {
		t.Errorf("_meta pending = %v", res.Meta[metaPending])
	}
}

// TestApprovalCancelled: an elicitation nobody answers ends with the call: the
// client cancels the call, and the server's handler returns.
func TestApprovalCancelled(t *testing.T) {
	asked := make(chan struct{})
	_, cs := policyServer(t, servedScope(t, registry.ModePTC), askAdd(), &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			close(asked)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}, "2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := runCode(t, ctx, cs, tryAdd, nil)
		done <- err
	}()
	testwait.Receive(t, asked, "the elicitation")
	cancel()
	if err := testwait.Receive(t, done, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v, want context.Canceled", err)
	}
	// The session's cleanup (ss.Wait) then waits for the handler, and goleak for its
	// goroutines.
}

// TestApprovalDefaults: an upstream tool annotated destructiveHint: true asks by
// default; an Upstream's explicit setting wins either way; other tools are allowed.
func TestApprovalDefaults(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up"}, nil)
	yes, no := true, false
	for _, tool := range []*mcp.Tool{
		{Name: "rm", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		{Name: "ls", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "touch", Annotations: &mcp.ToolAnnotations{DestructiveHint: &no}},
		{Name: "wipe", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		{Name: "cat"},
	} {
		tool.InputSchema = map[string]any{"type": "object"}
		up.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(func() { // after the client closed (cleanups run last first)
		for ss := range up.Sessions() {
			ss.Close()
		}
		hs.Close()
	})
	b := newBridge(t, registry.ModePTC, nil)
	if err := b.client.Connect(context.Background(), "up", &Upstream{URL: hs.URL, Approval: map[string]pipeline.Action{"wipe": pipeline.Allow, "cat": pipeline.Deny}}); err != nil {
		t.Fatal(err)
	}
	got := map[string]pipeline.Action{}
	for _, name := range []string{"rm", "ls", "touch", "wipe", "cat"} {
		a, ok := b.client.Approval(ToolName("up", name))
		if !ok {
			t.Errorf("%s: not one of the client's tools", name)
		}
		got[name] = a
	}
	want := map[string]pipeline.Action{"rm": pipeline.Ask, "ls": pipeline.Allow, "touch": pipeline.Allow, "wipe": pipeline.Allow, "cat": pipeline.Deny}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("approvals (-want +got):\n%s", diff)
	}
	if a, ok := b.client.Approval("mcp__up__nope"); ok || a != pipeline.Allow {
		t.Errorf("unknown tool = %v, %v; want Allow, false", a, ok)
	}
}

// TestSessionStateOverMCP: a client's MCP session is the run's session: state set in
// one run_code call is read by the next call of the same session, not by another
// client's.
func TestSessionStateOverMCP(t *testing.T) {
	scope := servedScope(t, registry.ModePTC)
	_, cs := policyServer(t, scope, pipeline.Options{}, nil, "")
	if res, err := runCode(t, context.Background(), cs, `state.set("n", 41)`, nil); err != nil || res.IsError {
		t.Fatalf("set: %q %v", resultString(res), err)
	}
	res, err := runCode(t, context.Background(), cs, `return state.get("n") + 1`, nil)
	if err != nil || resultString(res) != "42" {
		t.Errorf("the same session reads %q, %v", resultString(res), err)
	}
}

package mcpbridge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// A server with progress notifications and approvals: the Progress is the pipeline's
// event sink, the executor's OnLog and the Server's; the policy asks for one tool,
// and Approve asks the calling client by elicitation.
func ExampleProgress() {
	scope := registry.New()
	prog := mcpbridge.NewProgress(nil)
	policy := func(tool string) pipeline.Action {
		if tool == "delete_branch" {
			return pipeline.Ask
		}
		return pipeline.Allow
	}
	p := pipeline.New(&pipeline.Options{
		Wrappers:   []pipeline.Middleware{pipeline.Timeout()},
		Events:     prog,
		PreExecute: []pipeline.PreExecuteFunc{mcpbridge.ApprovalPolicy(policy)},
		Approve:    mcpbridge.Approve,
	})
	_ = func(pool ptc.Runner) error {
		ex, err := ptc.New(p, &ptc.Options{Pool: pool, OnLog: prog.Log})
		if err != nil {
			return err
		}
		_, err = mcpbridge.NewServer(scope, ex, &mcpbridge.ServerOptions{Progress: prog})
		return err
	}
	fmt.Println(mcpbridge.NotAskedMessage("delete_branch", "the MCP client does not support elicitation"))
	// Output:
	// tool "delete_branch" needs approval, but it could not be asked: the MCP client does not support elicitation
}

func ExampleHTTPGuard() {
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	h := mcpbridge.HTTPGuard(mcpHandler, &mcpbridge.HTTPGuardOptions{Token: "secret", BindHost: "127.0.0.1"})
	for _, hdr := range []map[string]string{
		{},
		{"Authorization": "Bearer secret"},
		{"Authorization": "Bearer secret", "Origin": "https://evil.example"},
		{"Authorization": "Bearer secret", "Origin": "http://localhost:5173"},
	} {
		req := httptest.NewRequest("POST", "/mcp", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 401
	// 200
	// 403
	// 200
}

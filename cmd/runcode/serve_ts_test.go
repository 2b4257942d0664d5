//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tsClient runs a testdata/mcp script under node with the official TypeScript MCP
// client; the script spawns this test binary as `runcode serve` (role __cli) with
// args and prints one JSON line, decoded into out. Without node_modules (npm ci at
// the repository root) it skips, unless CI is set: then it fails.
func tsClient(t *testing.T, script string, out any, args ...string) {
	t.Helper()
	needNode(t)
	if _, err := os.Stat(filepath.Join("..", "..", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node_modules lacks @modelcontextprotocol/sdk, and CI is set: .ci/run must install it with npm ci: %v", err)
		}
		t.Skip("node_modules lacks @modelcontextprotocol/sdk (run `npm ci` at the repository root); skipping")
	}
	cmd := exec.Command("node", append([]string{mcpFixtures + script, os.Args[0], "__cli", "serve", "--isolation", "in-process"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr:\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node %s printed %q: %v\nstderr:\n%s", script, stdout.String(), err, stderr.String())
	}
}

// TestServeProgressTS: the TypeScript client, calling run_code with a progressToken,
// receives notifications for a run with two sub-calls and a console line:
// progress increasing, each message the one of the progress-th event (coalescing may
// skip some, never reorder them), and the final state before the result.
func TestServeProgressTS(t *testing.T) {
	var got struct {
		Text     string
		IsError  bool
		Progress []struct {
			Token    string
			Progress float64
			Message  string
		}
	}
	tsClient(t, "ts-progress.mjs", &got, "--tools", mcpFixtures+"policy.json")
	if got.Text != "found 1\n1" || got.IsError {
		t.Fatalf("run_code = %q (isError %v)", got.Text, got.IsError)
	}
	events := []string{
		"tools.search_issues started", "tools.search_issues settled (ok)", "console: found 1",
		"tools.search_issues started", "tools.search_issues settled (ok)",
	}
	if len(got.Progress) == 0 {
		t.Fatal("no progress notification")
	}
	prev := 0.0
	for _, p := range got.Progress {
		i := int(p.Progress) - 1
		if p.Token != "ts-1" || p.Progress <= prev || i >= len(events) || events[i] != p.Message {
			t.Errorf("notification %v %q after progress %v; the events are %q", p.Progress, p.Message, prev, events)
		}
		prev = p.Progress
	}
	last := got.Progress[len(got.Progress)-1]
	if diff := cmp.Diff([]any{5.0, "tools.search_issues settled (ok)"}, []any{last.Progress, last.Message}); diff != "" {
		t.Errorf("final notification (-want +got):\n%s", diff)
	}
}

// TestServeElicitTS: the TypeScript client declares elicitation and accepts: a
// sub-call of a tool whose manifest approval is "ask" is put to it (message and
// boolean form pinned) and runs; a "deny" tool fails without asking.
func TestServeElicitTS(t *testing.T) {
	var got struct {
		Text    string
		IsError bool
		Asked   []struct {
			Message string
			Schema  any
		}
	}
	tsClient(t, "ts-elicit.mjs", &got, "--tools", mcpFixtures+"policy.json")
	wantText := `{
  "closed": {
    "id": 7
  },
  "dropped": "DENIED: tool \"drop_tracker\" was denied by policy"
}`
	if got.Text != wantText || got.IsError {
		t.Errorf("run_code = %q (isError %v), want %q", got.Text, got.IsError, wantText)
	}
	var schema any
	json.Unmarshal([]byte(`{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve","description":"Run this call"}},"required":["approve"]}`), &schema)
	want := []struct {
		Message string
		Schema  any
	}{{"Allow tool \"close_issue\" to run (called by a run_code program)?\nArguments: {\"id\":7}", schema}}
	if diff := cmp.Diff(want, got.Asked); diff != "" {
		t.Errorf("elicitations (-want +got):\n%s", diff)
	}
}

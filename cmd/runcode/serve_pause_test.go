//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/internal/testpg"
	"github.com/runcode-go/runcode/internal/testwait"
)

// askManifest writes a manifest whose tool deploy needs approval (it echoes its
// arguments) and whose tool slow appends "start" to a file, waits a second and
// answers, declared idempotent as given; it returns the manifest and a count of slow's
// starts.
func askManifest(t *testing.T, idempotent bool) (string, func() int) {
	t.Helper()
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	doc, _ := json.Marshal(map[string]any{"tools": []any{
		map[string]any{"name": "deploy", "description": "Deploy.", "mock": map[string]any{"echo": true}, "approval": "ask"},
		map[string]any{"name": "slow", "description": "Take a second.", "idempotent": idempotent,
			"command": []string{"sh", "-c", `echo start >> "$0"; sleep 1; echo '"slow done"'`, starts}},
	}})
	path := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() int {
		data, _ := os.ReadFile(starts)
		return strings.Count(string(data), "start\n")
	}
}

const deployProgram = `const r = await tools.deploy({to: "prod"}).catch(e => e.code + ": " + e.message); return r`

func callRunCode(ctx context.Context, cs *mcp.ClientSession, code string) (*mcp.CallToolResult, error) {
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code, "description": "test"}})
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestServeStdioInputRequired: the MCP Go SDK's client over stdio negotiates
// 2026-07-28, where a server may not ask during a call; a program's call that needs
// approval pauses its run, the client is asked through an input-required result, and
// its answer decides the call.
func TestServeStdioInputRequired(t *testing.T) {
	manifest, _ := askManifest(t, false)
	for _, tc := range []struct {
		name   string
		answer *mcp.ElicitResult
		want   string
	}{
		{"approve", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, "{\n  \"to\": \"prod\"\n}"},
		{"decline", &mcp.ElicitResult{Action: "decline"}, `DENIED: the user rejected tool "deploy"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { asked++; return tc.answer, nil },
			})
			cmd := exec.Command(os.Args[0], "__cli", "serve", "--tools", manifest)
			cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
				t.Fatalf("negotiated %s, want 2026-07-28", v)
			}
			res, err := callRunCode(t.Context(), cs, deployProgram)
			if err != nil || res.IsError || textOf(res) != tc.want || asked != 1 {
				t.Errorf("run_code = %q (isError %v), %v, asked %d times; want %q, asked once", textOf(res), res != nil && res.IsError, err, asked, tc.want)
			}
		})
	}
}

// startServeHTTP starts runcode serve --http with args and returns its URL.
func startServeHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"__cli", "serve", "--http", "127.0.0.1:0"}, args...)...)
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(errOut)
	var url string
	for url == "" && lines.Scan() {
		_, url, _ = strings.Cut(lines.Text(), "streamable HTTP at ")
	}
	if url == "" {
		t.Fatal("runcode serve --http ended without an address")
	}
	go func() {
		for lines.Scan() { // keep the pipe drained
		}
	}()
	return url
}

// TestServeReplicasShareRuns: two serve --http replicas on one PostgreSQL store. A
// client that cannot be asked gets the paused text from one, with the continuation in
// _meta; its retry with the answer, sent to the other, completes the run.
func TestServeReplicasShareRuns(t *testing.T) {
	dsn := testpg.FreshDatabase(t)
	manifest, _ := askManifest(t, false)
	urls := []string{startServeHTTP(t, "--tools", manifest, "--store", dsn), startServeHTTP(t, "--tools", manifest, "--store", dsn)}
	connect := func(url string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	first, err := callRunCode(t.Context(), connect(urls[0]), deployProgram)
	if err != nil || !strings.HasPrefix(textOf(first), "run_code paused: waiting for approval of deploy (1 pending).") {
		t.Fatalf("first replica: %v, %v", first, err)
	}
	token, _ := first.Meta["io.runcode/continuation"].(string)
	pending, _ := first.Meta["io.runcode/pending"].([]any)
	if token == "" || len(pending) != 1 {
		t.Fatalf("_meta = %v", first.Meta)
	}
	id := pending[0].(map[string]any)["id"].(string)
	res, err := connect(urls[1]).CallTool(t.Context(), &mcp.CallToolParams{Name: "run_code",
		Arguments:      map[string]any{"code": deployProgram, "description": "test"},
		RequestState:   token,
		InputResponses: mcp.InputResponseMap{"approval-" + id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}},
	})
	if want := "{\n  \"to\": \"prod\"\n}"; err != nil || res.IsError || textOf(res) != want {
		t.Errorf("second replica: %q, %v; want %q", textOf(res), err, want)
	}
}

// TestServeKilledRunRecovers: serve is killed while a run waits on a slow tool; the
// run is recovered from the store with runcode resume --recover. An idempotent tool
// runs again and the run completes; any other ends the run interrupted, having run
// once. The call that ended before the crash is not run again.
func TestServeKilledRunRecovers(t *testing.T) {
	for _, idempotent := range []bool{true, false} {
		t.Run(map[bool]string{true: "idempotent", false: "not idempotent"}[idempotent], func(t *testing.T) {
			manifest, starts := askManifest(t, idempotent)
			dir := t.TempDir()
			db := filepath.Join(dir, "s.db")
			cmd := exec.Command(os.Args[0], "__cli", "serve", "--tools", manifest, "--store", db)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			go callRunCode(context.Background(), cs, `const a = await tools.slow({n: 1}); const b = await tools.slow({n: 2}); return [a, b]`)
			started := make(chan struct{})
			go func() {
				for starts() < 2 {
					time.Sleep(20 * time.Millisecond)
				}
				close(started)
			}()
			testwait.MustReceive(t, started, "the second slow call")
			cmd.Process.Kill()
			cs.Close()

			code, out, errOut := cliProcess(t, dir, "resume", "--store", db, "--list")
			id, _, _ := strings.Cut(out, " ")
			if code != exitOK || !strings.Contains(out, "running (or its host died") {
				t.Fatalf("--list: exit %d, %q, %q", code, out, errOut)
			}
			code, out, errOut = cliProcess(t, dir, "resume", "--store", db, "--tools", manifest, "--recover", id)
			want, wantCode, wantStarts := "[\n  \"slow done\",\n  \"slow done\"\n]\n", exitOK, 3
			if !idempotent {
				want, wantCode, wantStarts = "Error: code run failed (interrupted): run_code was interrupted while slow was running; it did not run again because it is not idempotent\n", exitFail, 2
			}
			if code != wantCode || out != want {
				t.Errorf("--recover: exit %d, stdout %q, stderr %q; want exit %d, %q", code, out, errOut, wantCode, want)
			}
			if n := starts(); n != wantStarts {
				t.Errorf("slow started %d times, want %d", n, wantStarts)
			}
		})
	}
}

// TestServeHTTPElicitation: the Go client over streamable HTTP negotiates an older
// protocol, where the server asks during the call by elicitation, as before pausing.
func TestServeHTTPElicitation(t *testing.T) {
	manifest, _ := askManifest(t, false)
	url := startServeHTTP(t, "--tools", manifest)
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		t.Fatalf("negotiated %s over HTTP; this test is of the older protocols", v)
	}
	res, err := callRunCode(t.Context(), cs, deployProgram)
	if want := "{\n  \"to\": \"prod\"\n}"; err != nil || res.IsError || textOf(res) != want || asked != 1 {
		t.Errorf("run_code = %q, %v, asked %d times; want %q, asked once", textOf(res), err, asked, want)
	}
}

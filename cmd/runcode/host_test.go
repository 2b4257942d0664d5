//go:build unix

package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/manifest"
)

// TestCommandToolEnvironment: a program that calls a command tool printing its
// environment does not read serve's bearer token, or any other variable of the CLI's
// environment outside the inherited few.
func TestCommandToolEnvironment(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	t.Setenv(httpTokenEnv, "tok-s3cret")
	t.Setenv("GITHUB_TOKEN", "ghp-s3cret")
	tools := testfs.Temp(t, "tools.json", fmt.Sprintf(`{"tools": [{"name": "printenv", "command": [%q]}]}`, env))
	prog := testfs.Temp(t, "p.js", `return await tools.printenv({})`)
	code, stdout, stderr := runCLI(t, "run", "--tools", tools, prog)
	if code != exitOK || !strings.Contains(stdout, "RUNCODE_TOOL=printenv") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stdout, "s3cret") {
		t.Errorf("the program read a secret of the CLI's environment:\n%s", stdout)
	}
}

// countingTools writes a manifest whose tool "rm" (approval as given) appends a line to
// a file each time its process runs, and returns the manifest's path and a function
// that counts the runs.
func countingTools(t *testing.T, approval string) (manifest string, runs func() int) {
	t.Helper()
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	doc, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "rm", "description": "Delete everything.", "approval": approval,
		"command": []string{"sh", "-c", `echo run >> "$0"; echo '"deleted!"'`, count},
	}}})
	manifest = testfs.Temp(t, "tools.json", string(doc))
	return manifest, func() int {
		data, err := os.ReadFile(count)
		if errors.Is(err, os.ErrNotExist) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "run\n")
	}
}

// TestRunApproval: runcode run applies a manifest tool's approval as serve does. deny
// never runs the tool, and the program sees the pipeline's denial; ask, with no
// terminal to ask on (the tests' stdin) and no store, pauses the run (exit 4) without
// running the tool, and says why it cannot be resumed; allow runs it.
func TestRunApproval(t *testing.T) {
	prog := `try { return await tools.rm({}) } catch (e) { return "caught: " + e.code + ": " + e.message }`
	for _, tc := range []struct {
		approval, want string
		code, runs     int
	}{
		{"deny", `caught: DENIED: tool "rm" was denied by policy`, exitOK, 0},
		{"ask", "run_code paused: waiting for approval of rm (1 pending). The run resumes when the user decides; do not call it again.\npending call-1:code:1: rm({}): tool \"rm\" requires approval", exitPaused, 0},
		{"allow", `deleted!`, exitOK, 1},
		{"", `deleted!`, exitOK, 1},
	} {
		t.Run(cmp.Or(tc.approval, "default"), func(t *testing.T) {
			manifest, runs := countingTools(t, tc.approval)
			code, stdout, stderr := runCLI(t, "run", "--tools", manifest, testfs.Temp(t, "p.js", prog))
			if code != tc.code || strings.TrimSpace(stdout) != tc.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want %s", code, stdout, stderr, tc.want)
			}
			if n := runs(); n != tc.runs {
				t.Errorf("the tool ran %d times, want %d", n, tc.runs)
			}
		})
	}
}

// TestServeHTTPSIGTERMBusyLoop: the runcode binary serving streamable HTTP exits with
// status 0 on SIGTERM, in both isolations, while a run_code program loops forever (its
// compute budget a minute away), and says nothing more on stderr: not that it closed
// connections still busy after its 2 s grace, which is how a run that outlived the
// stop would show.
func TestServeHTTPSIGTERMBusyLoop(t *testing.T) {
	for _, isolation := range []string{isolationInProcess, isolationProcess} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(dir, "started")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			doc, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
				"name": "started", "description": "Say the program started.",
				"command": []string{"sh", "-c", `echo started > "$0"; echo 1`, fifo},
			}}})
			manifest := testfs.Temp(t, "tools.json", string(doc))
			started := make(chan struct{})
			go func() {
				if _, err := os.ReadFile(fifo); err != nil { // until the tool wrote
					t.Error(err)
				}
				close(started)
			}()
			cmd := exec.Command(os.Args[0], "__cli", "serve", "--isolation", isolation, "--tools", manifest, "--http", "127.0.0.1:0")
			errOut, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(errOut)
			var url string
			for url == "" && lines.Scan() {
				_, url, _ = strings.Cut(lines.Text(), "streamable HTTP at ")
			}
			if url == "" {
				t.Fatal("runcode serve --http ended without an address")
			}
			go httpRun(t, url, "await tools.started({}); while (true) {}")
			testwait.MustReceive(t, started, "the program's start")
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var rest []string
			for lines.Scan() {
				if strings.HasPrefix(lines.Text(), "runcode serve: ") { // not the MCP SDK's log
					rest = append(rest, lines.Text())
				}
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			if err := testwait.MustReceive(t, waited, "runcode serve's exit"); err != nil || len(rest) > 0 {
				t.Errorf("runcode serve after SIGTERM: %v; stderr %q", err, rest)
			}
		})
	}
}

// TestUpstreamEnvironmentLacksToken: an upstream MCP server's process gets runcode's
// environment and its own env, but never serve's bearer token: no upstream server
// needs it, and one with a tool that reports its environment would hand it to a
// program.
func TestUpstreamEnvironmentLacksToken(t *testing.T) {
	t.Setenv(httpTokenEnv, "tok-s3cret")
	t.Setenv("SOME_API_KEY", "kept")
	m, err := manifest.Parse("m.json", []byte(`{"mcpServers": {"s": {"command": "srv", "env": {"REGION": "eu-1"}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join(upstreams(m)["s"].Env, "\n")
	if strings.Contains(env, httpTokenEnv) || !strings.Contains(env, "SOME_API_KEY=kept") || !strings.Contains(env, "REGION=eu-1") {
		t.Errorf("the server's environment:\n%s", env)
	}
}

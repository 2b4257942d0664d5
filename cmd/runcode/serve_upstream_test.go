package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/manifest"
)

const mcpFixtures = "../../testdata/mcp/"

// needNode skips a test without node, unless CI is set: CI installs node for npm ci, so
// there a missing node fails the test rather than passing it unrun.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is not installed, and CI is set: %v", err)
		}
		t.Skip("node is not installed; skipping")
	}
}

// TestManifestServers: run, sdk and describe see the tools of a manifest's
// mcpServers next to its own tools.
func TestManifestServers(t *testing.T) {
	needNode(t)
	code, stdout, stderr := runCLI(t, "sdk", "--ts", "--tools", mcpFixtures+"fake.json")
	if code != 0 {
		t.Fatalf("sdk: exit %d, stderr %q", code, stderr)
	}
	for _, name := range []string{"local_echo", "mcp__fake__ok", "mcp__fake__crash"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("sdk lacks %s:\n%s", name, stdout)
		}
	}
	code, stdout, stderr = runCLI(t, "describe", "--mode", "native", "--tools", mcpFixtures+"fake.json")
	if code != 0 || !strings.Contains(stdout, `"name": "mcp__fake__ok"`) {
		t.Errorf("describe: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}

	prog := t.TempDir() + "/p.js"
	writeFile(t, prog, `const a = await tools.mcp__fake__ok({ n: 1 });
let crash;
try { await tools.mcp__fake__crash({}); } catch (e) { crash = e.code + ": " + e.message; }
return { a, crash, local: await tools.local_echo({ k: "v" }) };`)
	code, stdout, stderr = runCLI(t, "run", "--tools", mcpFixtures+"fake.json", prog)
	want := `{
  "a": {
    "ok": true,
    "args": {
      "n": 1
    }
  },
  "crash": "TOOL_FAILED: mcp server \"fake\": the server exited (exit status 7) (its stderr ends: \"boom\")",
  "local": {
    "k": "v"
  }
}
`
	if code != 0 {
		t.Errorf("run: exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("run output mismatch (-want +got):\n%s", diff)
	}
}

// TestManifestServerFails: a server that does not start is a configuration error
// for the one-shot commands, naming the server.
func TestManifestServerFails(t *testing.T) {
	needNode(t)
	code, stdout, stderr := runCLI(t, "sdk", "--tools", mcpFixtures+"broken.json")
	want := "runcode sdk: mcp server \"gone\": cannot start: exec: \"runcode-no-such-mcp-server\": executable file not found in $PATH\n"
	if code != 2 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, stdout, stderr, want)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A server's startupTimeoutMs reaches the MCP client as that server's start timeout.
func TestUpstreamStartupTimeout(t *testing.T) {
	m, err := manifest.Parse("tools.json", []byte(`{"mcpServers": {"slow": {"command": "npx", "startupTimeoutMs": 90000}, "fast": {"command": "x"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ups := upstreams(m)
	if got := ups["slow"].StartTimeout; got != 90*time.Second {
		t.Errorf("slow: StartTimeout = %v, want 90s", got)
	}
	if got := ups["fast"].StartTimeout; got != 0 {
		t.Errorf("fast: StartTimeout = %v, want 0 (the client's default)", got)
	}
}

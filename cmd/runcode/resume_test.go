//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testpg"
)

// cliProcess runs the command line in a process of its own (the test binary as
// runcode), as a person would from a shell, and returns its exit status and output.
func cliProcess(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"__cli"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// pauseFixture is a manifest with a command tool that appends a line to a file, whose
// calls need no approval, and a tool whose calls do, and a program that calls both and
// prints what it drew from the clock and the random source.
func pauseFixture(t *testing.T) (dir, logFile string) {
	dir = t.TempDir()
	logFile = filepath.Join(dir, "log.txt")
	manifest := map[string]any{"tools": []map[string]any{
		{"name": "append_line", "description": "Append a line to the log.", "concurrencySafe": true,
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"line": map[string]any{"type": "string"}}, "required": []string{"line"}},
			"command":     []string{"sh", "-c", `sed -e 's/^{"line":"//' -e 's/"}$//' >> "$LOG"; echo '"ok"'`, "append"},
			"env":         map[string]string{"LOG": logFile}},
		{"name": "deploy", "description": "Deploy.", "mock": map[string]any{"echo": true}, "approval": "ask"},
	}}
	data, _ := json.Marshal(manifest)
	if err := os.WriteFile(filepath.Join(dir, "tools.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	prog := `const drawn = "t=" + Date.now() + " r=" + Math.random();
await tools.append_line({line: drawn});
console.log(drawn);
const r = await tools.deploy({to: "prod"}).catch(e => e.code + ": " + e.message);
console.log("deploy:", JSON.stringify(r));`
	if err := os.WriteFile(filepath.Join(dir, "prog.js"), []byte(prog), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, logFile
}

var resumeLine = regexp.MustCompile(`(?m)^resume with: runcode resume --store \S+ (\S+) --approve (\S+) \|`)

// pauseThenResume runs the program until it pauses, then resumes it in another process
// with the given decision flag, and returns the resumed output.
func pauseThenResume(t *testing.T, dir, storeDSN string, decide func(id string) string) (stdout, token string) {
	t.Helper()
	code, out, errOut := cliProcess(t, dir, "run", "--tools", "tools.json", "--store", storeDSN, "prog.js")
	const pauseText = "run_code paused: waiting for approval of deploy (1 pending). The run resumes when the user decides; do not call it again.\n"
	m := resumeLine.FindStringSubmatch(out)
	if code != exitPaused || !strings.HasPrefix(out, pauseText) || m == nil {
		t.Fatalf("run: exit %d, stdout %q, stderr %q; want exit 4, the pause text and how to resume", code, out, errOut)
	}
	if !strings.Contains(out, "pending call-1:code:2: deploy({\"to\":\"prod\"}): tool \"deploy\" requires approval\n") {
		t.Errorf("run's stdout does not list the pending call: %q", out)
	}
	token = m[1]
	code, out, errOut = cliProcess(t, dir, "resume", "--store", storeDSN, token, decide(m[2]))
	if code != exitOK {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	return out, token
}

func testPauseResumeCLI(t *testing.T, storeDSN func(t *testing.T, dir string) string) {
	t.Run("approve", func(t *testing.T) {
		dir, logFile := pauseFixture(t)
		dsn := storeDSN(t, dir)
		out, token := pauseThenResume(t, dir, dsn, func(id string) string { return "--approve=" + id })
		logged, _ := os.ReadFile(logFile)
		lines := strings.Split(strings.TrimSuffix(string(logged), "\n"), "\n")
		// The tool ran once, in the first attempt; the resumed output prints what that
		// attempt drew, and the deploy's result, once.
		want := lines[0] + "\ndeploy: {\"to\":\"prod\"}\n"
		if len(lines) != 1 || out != want {
			t.Errorf("resumed stdout %q with the log %q; want %q and one line", out, logged, want)
		}
		code, out, errOut := cliProcess(t, dir, "resume", "--store", dsn, token, "--approve=call-1:code:2")
		if code != exitFail || !strings.Contains(errOut, "run_code could not resume: this run was already resumed") {
			t.Errorf("second resume: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
	t.Run("reject", func(t *testing.T) {
		dir, _ := pauseFixture(t)
		out, _ := pauseThenResume(t, dir, storeDSN(t, dir), func(id string) string { return "--reject=" + id + "=no" })
		if want := "deploy: \"DENIED: the user rejected tool \\\"deploy\\\": no\"\n"; !strings.HasSuffix(out, want) {
			t.Errorf("rejected: %q, want it to end %q", out, want)
		}
	})
}

func TestPauseResumeSQLite(t *testing.T) {
	testPauseResumeCLI(t, func(_ *testing.T, dir string) string { return filepath.Join(dir, "s.db") })
}

// TestPauseResumePostgres: the same with a PostgreSQL store; the pause is made by one
// runcode process and the resume by another, as two replicas would.
func TestPauseResumePostgres(t *testing.T) {
	testPauseResumeCLI(t, func(t *testing.T, _ string) string { return testpg.FreshDatabase(t) })
}

func TestRunWithoutStoreCannotResume(t *testing.T) {
	dir, _ := pauseFixture(t)
	code, out, errOut := cliProcess(t, dir, "run", "--tools", "tools.json", "prog.js")
	if code != exitPaused || !strings.HasPrefix(out, "run_code paused:") || !strings.Contains(errOut, "this run cannot be resumed") || strings.Contains(out, "resume with") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 4, the pause text and why it cannot be resumed", code, out, errOut)
	}
}

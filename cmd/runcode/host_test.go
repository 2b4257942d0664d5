//go:build unix

package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
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

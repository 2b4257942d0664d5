package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadVersion(t *testing.T) {
	platform := goruntime.GOOS + "/" + goruntime.GOARCH
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false,
			"runcode (devel)\ncommit:  unknown (built without VCS information)\ngo:      " + goruntime.Version() + " " + platform + "\n"},
		{"go install of a tag", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/runcode-go/runcode", Version: "v1.2.3"}}, true,
			"runcode v1.2.3\ncommit:  unknown (built without VCS information)\ngo:      go1.26.8 " + platform + "\n"},
		{"go build in a clone with changes", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201033400-59bf66f1a2b3+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "59bf66f1a2b3"}, {Key: "vcs.time", Value: "2026-12-01T03:34:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true,
			"runcode v0.0.0-20261201033400-59bf66f1a2b3+dirty\ncommit:  59bf66f1a2b3 (2026-12-01T03:34:00Z, modified)\ngo:      go1.26.8 " + platform + "\n"},
		{"no version, clean", &debug.BuildInfo{GoVersion: "go1.26.8",
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}, true,
			"runcode (devel)\ncommit:  abc\ngo:      go1.26.8 " + platform + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readVersion(tt.info, tt.ok).String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// `runcode version` and `runcode --version` print the same text, from this binary's
// build information; an argument is a usage error.
func TestVersionCommand(t *testing.T) {
	var outputs []string
	for _, arg := range []string{"version", "--version", "-version"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{arg}, strings.NewReader(""), &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, stderr.String())
		}
		outputs = append(outputs, stdout.String())
	}
	if outputs[0] != outputs[1] || outputs[0] != outputs[2] {
		t.Errorf("version, --version and -version differ: %q", outputs)
	}
	if !strings.HasPrefix(outputs[0], "runcode ") || !strings.Contains(outputs[0], goruntime.Version()) {
		t.Errorf("got %q, want runcode's version and %s", outputs[0], goruntime.Version())
	}
	var help bytes.Buffer
	if code := run(context.Background(), []string{"version", "--help"}, strings.NewReader(""), &help, &help); code != exitOK || !strings.HasPrefix(help.String(), "usage: runcode version") {
		t.Errorf("version --help: exit %d, output %q", code, help.String())
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"version", "x"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), `unexpected argument "x"`) {
		t.Errorf("version x: exit %d, stderr %q", code, stderr.String())
	}
}

// A binary built in a git clone reports the commit it was built from. (The go command
// stamps only a checkout whose .git is a directory: not a `git worktree`, whose .git is a
// file.)
func TestVersionStampsCommit(t *testing.T) {
	if st, err := os.Stat("../../.git"); err != nil || !st.IsDir() {
		t.Skip("not a git clone with a .git directory: the go command stamps no VCS information here")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "runcode")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("runcode version: %v", err)
	}
	want := "commit:  " + strings.TrimSpace(string(head))
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "go:      go1.") {
		t.Errorf("got\n%s\nwant a line starting %q", out, want)
	}
}

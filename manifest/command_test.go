//go:build unix

package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/registry"
)

func commandManifest(t *testing.T, tools map[string]string) string {
	t.Helper()
	var list []map[string]any
	for name, script := range tools {
		list = append(list, map[string]any{"name": name, "command": []string{"sh", "-c", script}})
	}
	data, err := json.Marshal(map[string]any{"tools": list})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCommandResults(t *testing.T) {
	set := entries(t, commandManifest(t, map[string]string{
		"json":     `cat`,
		"text":     `echo "not json: $RUNCODE_TOOL"`,
		"empty":    `true`,
		"fail":     `echo "partial" ; echo "disk on fire" >&2; exit 3`,
		"silent":   `exit 4`,
		"envcheck": `echo "{\"tool\":\"$RUNCODE_TOOL\",\"extra\":\"$EXTRA\"}"`,
	}), &Options{Env: []string{"EXTRA=yes", "PATH=" + os.Getenv("PATH")}})
	tests := []struct {
		name, tool, args, value, err string
	}{
		{"JSON on stdout is the value", "json", `{"a":[1,2]}`, `{"a":[1,2]}`, ""},
		{"other text is a string", "text", `{}`, `"not json: text"`, ""},
		{"empty stdout is an empty string", "empty", `{}`, `""`, ""},
		{"non-zero exit fails with stderr", "fail", `{}`, "", "disk on fire"},
		{"non-zero exit without stderr", "silent", `{}`, "", "sh exited with status 4 and no output on stderr"},
		{"the host's other variables are not inherited", "envcheck", `{}`, `{"tool":"envcheck","extra":""}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _, err := call(t, context.Background(), set, tt.tool, tt.args)
			if tt.err != "" {
				var ce *CommandError
				if err == nil || err.Error() != tt.err || !errors.As(err, &ce) || !errors.Is(err, ErrCommand) {
					t.Fatalf("err = %v, want CommandError %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != tt.value {
				t.Errorf("value = %s, want %s", v, tt.value)
			}
		})
	}
}

// TestCommandOutputCapped: a command that writes without end on stdout is killed once
// it passes MaxCommandOutput, and the call fails saying so; up to the limit is a value.
// A failed call's message keeps the first 64 KiB of stderr.
func TestCommandOutputCapped(t *testing.T) {
	set := entries(t, commandManifest(t, map[string]string{
		"flood":  `s=$(head -c 1024 /dev/zero | tr '\0' x); while :; do echo "$s"; done`,
		"full":   fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a`, MaxCommandOutput),
		"stderr": `head -c 1000000 /dev/zero | tr '\0' e >&2; exit 1`,
	}), &Options{Env: []string{"PATH=" + os.Getenv("PATH")}})
	// A deadline, so that a regression fails the test rather than filling the memory.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := call(t, ctx, set, "flood", `{}`)
	if want := fmt.Sprintf("sh wrote more than %d bytes on stdout", MaxCommandOutput); err == nil || err.Error() != want {
		t.Errorf("flood: err = %v, want %q", err, want)
	}
	if v, _, err := call(t, context.Background(), set, "full", `{}`); err != nil || len(v.String()) != MaxCommandOutput+2 {
		t.Errorf("full: %d bytes, %v; want a string of %d characters", len(v.String()), err, MaxCommandOutput)
	}
	if _, _, err := call(t, context.Background(), set, "stderr", `{}`); err == nil || err.Error() != strings.Repeat("e", maxStderr) {
		t.Errorf("stderr: a message of %d bytes, want the first %d", len(fmt.Sprint(err)), maxStderr)
	}
}

func TestCommandNotFound(t *testing.T) {
	set := entries(t, `{"tools":[{"name":"x","command":["./no-such-program"]}]}`, &Options{Dir: t.TempDir()})
	_, _, err := call(t, context.Background(), set, "x", `{}`)
	if err == nil || !strings.HasPrefix(err.Error(), "starting ") {
		t.Errorf("err = %v", err)
	}
}

// TestCommandKilled cancels a call (directly, and by a deadline as the timeout wrapper
// does) while the command and a child it started are running: both processes are
// gone when the call returns. The script reports its PIDs through a FIFO, so the test
// knows they run without sleeping.
func TestCommandKilled(t *testing.T) {
	for _, mode := range []string{"cancel", "deadline"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "pids")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			script := `sleep 3600 & echo "$$ $!" > ` + fifo + `; wait`
			set := entries(t, commandManifest(t, map[string]string{"hang": script}), &Options{Env: []string{"PATH=" + os.Getenv("PATH")}})

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if mode == "deadline" {
				ctx, cancel = context.WithTimeout(ctx, time.Second)
				defer cancel()
			}
			reported := make(chan []int, 1)
			go func() {
				data, _ := os.ReadFile(fifo) // blocks until the script wrote its PIDs
				var pids []int
				for _, f := range strings.Fields(string(data)) {
					if pid, err := strconv.Atoi(f); err == nil {
						pids = append(pids, pid)
					}
				}
				reported <- pids
			}()
			done := make(chan error, 1)
			go func() {
				_, _, err := call(t, ctx, set, "hang", `{}`)
				done <- err
			}()
			var pids []int
			if mode == "cancel" {
				pids = testwait.Receive(t, reported, "the script's pids")
				cancel()
			}
			err := testwait.Receive(t, done, "the command tool to return")
			if mode == "deadline" {
				// Unblock the reader if the deadline came before the script wrote.
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				if pids = <-reported; len(pids) == 0 {
					t.Skip("the deadline passed before the script reported its PIDs (a very slow machine)")
				}
			}
			want := context.Canceled
			if mode == "deadline" {
				want = context.DeadlineExceeded
			}
			if !errors.Is(err, want) {
				t.Errorf("err = %v, want %v", err, want)
			}
			if len(pids) != 2 {
				t.Fatalf("the script reported %v, want its PID and its child's", pids)
			}
			for _, pid := range pids {
				// SIGKILL is delivered at once, but a process's exit completes
				// asynchronously; wait (bounded) for the kernel to finish it.
				for i := 0; i < 1000 && alive(pid); i++ {
					time.Sleep(5 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("process %d outlived the call", pid)
				}
			}
		})
	}
}

// alive reports whether pid is a running process. A killed process lingers as a
// zombie until reaped (the shell's child by init), and signal 0 still reaches a
// zombie, so its state decides.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// TestCommandPathResolution: a command written as a path ("./date", "bin/date",
// "../x/date") runs the file next to the manifest, even when the manifest's directory
// is "." and a system command has the same name; a bare name ("date") is looked up in
// PATH and never runs the local file.
func TestCommandPathResolution(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"date", "bin/date", "sub/date"} {
		script := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(script, []byte("#!/bin/sh\necho '\"local "+p+"\"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	doc := `{"tools":[
	  {"name":"dot","command":["./date"]},
	  {"name":"sub","command":["bin/date"]},
	  {"name":"up","command":["../sub/date"]},
	  {"name":"bare","command":["date", "+%Y"]}]}`
	env := &Options{Env: []string{"PATH=" + os.Getenv("PATH")}}
	for _, tc := range []struct{ name, manifestDir, cwd string }{
		{"manifest in the working directory", ".", dir},
		{"manifest elsewhere", dir, t.TempDir()},
		{"manifest in a subdirectory", "bin/..", dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.cwd)
			opts := *env
			opts.Dir = tc.manifestDir
			set := entries(t, doc, &opts)
			upOpts := opts
			upOpts.Dir = filepath.Join(tc.manifestDir, "bin")
			upSet := entries(t, doc, &upOpts)
			for _, want := range []struct {
				set        *registry.ResolvedToolSet
				tool, text string
			}{
				{set, "dot", `"local date"`},
				{set, "sub", `"local bin/date"`},
				{upSet, "up", `"local sub/date"`},
			} {
				v, _, err := call(t, context.Background(), want.set, want.tool, `{}`)
				if err != nil || v.String() != want.text {
					t.Errorf("%s: %s, %v; want %s", want.tool, v, err, want.text)
				}
			}
			v, _, err := call(t, context.Background(), set, "bare", `{}`)
			if err != nil || strings.Contains(v.String(), "local") {
				t.Errorf("bare: %s, %v; want the system's date", v, err)
			}
		})
	}
}

// TestCommandEnvironment: a command tool's process gets the manifest's env, the
// inherited variables of the host's environment (PATH, HOME, LANG, LC_ALL, TZ,
// TMPDIR) and RUNCODE_TOOL, and nothing else: not serve's RUNCODE_HTTP_TOKEN, not
// any other secret of the host.
func TestCommandEnvironment(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	t.Setenv("RUNCODE_HTTP_TOKEN", "s3cret-token")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3cret-key")
	t.Setenv("HOME", "/home/someone")
	t.Setenv("TZ", "UTC")
	t.Setenv("LC_ALL", "C")
	t.Setenv("LANG", "")
	os.Unsetenv("LANG") // an inherited variable the host does not set is not made up
	doc := fmt.Sprintf(`{"tools":[{"name":"printenv","command":[%q],"env":{"REGION":"eu-1","TZ":"Europe/Paris"}}]}`, env)
	set := entries(t, doc, &Options{Env: os.Environ()})
	v, _, err := call(t, context.Background(), set, "printenv", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	if err := json.Unmarshal([]byte(v.String()), &text); err != nil {
		t.Fatalf("value %s: %v", v, err)
	}
	got := strings.Split(strings.TrimSpace(text), "\n")
	slices.Sort(got)
	want := []string{"HOME=/home/someone", "LC_ALL=C", "PATH=" + os.Getenv("PATH"), "REGION=eu-1", "RUNCODE_TOOL=printenv", "TZ=Europe/Paris"}
	if tmp, ok := os.LookupEnv("TMPDIR"); ok {
		want = append(want, "TMPDIR="+tmp)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the command's environment (-want +got):\n%s", diff)
	}
}

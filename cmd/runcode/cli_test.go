package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/sdkgen"
)

const manifests = "../../testdata/manifests/"

// runCLI runs the CLI in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// cliCase is one run of the command line: its arguments and stdin, and the exit status
// and output it must give.
type cliCase struct {
	name       string
	args       []string
	stdin      string
	wantCode   int
	wantStdout string
	wantStderr string
}

// check reports a run that did not give the case's exit status and output.
func (c cliCase) check(t *testing.T, code int, stdout, stderr string) {
	t.Helper()
	if code != c.wantCode || stdout != c.wantStdout || stderr != c.wantStderr {
		t.Errorf("exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", code, stdout, stderr, c.wantCode, c.wantStdout, c.wantStderr)
	}
}

// TestBadManifests: every bad manifest exits 2, prints nothing on stdout, and names
// the file, the tool and the problem on stderr.
func TestBadManifests(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"bad-json.json", `manifest ../../testdata/manifests/bad-json.json: invalid JSON: unexpected EOF`},
		{"bad-schema.json", `manifest ../../testdata/manifests/bad-schema.json: tool "fetch": inputSchema does not compile: invalid schema at /properties/n: "type" names an unknown type "integr"; the types are array, boolean, integer, null, number, object and string`},
		{"bad-duplicate.json", `manifest ../../testdata/manifests/bad-duplicate.json: tool "fetch": duplicate name: tools[0] already declares it`},
		{"bad-reserved.json", `manifest ../../testdata/manifests/bad-reserved.json: tool "run_code": name "run_code" is reserved for the run_code transport`},
		{"bad-neither.json", `manifest ../../testdata/manifests/bad-neither.json: tool "lint": has neither "mock" nor "command": declare how calls are answered`},
		{"bad-server.json", `manifest ../../testdata/manifests/bad-server.json: mcpServers "fs": needs "command" (a process) or "url" (a remote server)`},
		{"missing.json", `manifest ../../testdata/manifests/missing.json: cannot read the file: no such file or directory`},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"sdk", "describe"} {
			t.Run(cmd+"/"+tt.file, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, cmd, "--tools", manifests+tt.file)
				if code != 2 || stdout != "" {
					t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
				}
				if want := "runcode " + cmd + ": " + tt.want + "\n"; stderr != want {
					t.Errorf("stderr mismatch\n got: %s\nwant: %s", stderr, want)
				}
			})
		}
	}
}

// TestWorkspaceDefault: without --tools, sdk and describe show the workspace tools.
func TestWorkspaceDefault(t *testing.T) {
	code, stdout, stderr := runCLI(t, "sdk", "--ts", "--root", ".")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, name := range []string{"glob", "grep", "list_dir", "read_file", "stat"} {
		if !strings.Contains(stdout, "\n  "+name+": ") {
			t.Errorf("the SDK lacks the workspace tool %s:\n%s", name, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "describe", "--mode", "native")
	if code != 0 || !strings.Contains(stdout, `"name": "read_file"`) {
		t.Errorf("describe --mode native: exit %d\n%s", code, stdout)
	}
}

func TestSDK(t *testing.T) {
	data, err := os.ReadFile(manifests + "orders.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tools []struct {
			Name, Description         string
			InputSchema, OutputSchema json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var tools []sdkgen.Tool
	for _, tl := range doc.Tools {
		tools = append(tools, sdkgen.Tool{Name: tl.Name, Description: tl.Description, Parameters: compact(t, tl.InputSchema, `{"type":"object"}`), Output: compact(t, tl.OutputSchema, `{}`)})
	}
	want := sdkgen.Render(tools)

	code, stdout, stderr := runCLI(t, "sdk", "--tools", manifests+"orders.json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want.Section, stdout); diff != "" {
		t.Errorf("sdk mismatch (-want +got):\n%s", diff)
	}
	code, stdout, _ = runCLI(t, "sdk", "--ts", "--tools", manifests+"orders.json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if diff := cmp.Diff(want.Declarations, stdout); diff != "" {
		t.Errorf("sdk --ts mismatch (-want +got):\n%s", diff)
	}
}

func compact(t *testing.T, raw json.RawMessage, def string) json.RawMessage {
	t.Helper()
	if raw == nil {
		return json.RawMessage(def)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDescribe: native sends every tool (set.Schemas()), ptc only run_code, both
// every tool then run_code (its description followed by the prompt sections, as serve
// sends it; TestDescribeSDKBudget checks those); the default is ptc.
func TestDescribe(t *testing.T) {
	names := func(stdout string) []string {
		var got []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("describe printed invalid JSON: %v\n%s", err, stdout)
		}
		var out []string
		for _, g := range got {
			out = append(out, g.Name)
			own := strings.Replace(sdkgen.RunCodeDescription, "in the system prompt", "below", 1)
			if g.Name == "run_code" && (!strings.HasPrefix(g.Description, own+"\n\n") || string(compact(t, g.Parameters, "")) != sdkgen.RunCodeParameters) {
				t.Errorf("run_code described as %+v", g)
			}
		}
		return out
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"default is ptc", nil, []string{"run_code"}},
		{"ptc", []string{"--mode", "ptc"}, []string{"run_code"}},
		{"native", []string{"--mode", "native"}, []string{"get_order", "lint", "search-docs"}},
		{"both", []string{"--mode=both"}, []string{"get_order", "lint", "search-docs", "run_code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"describe", "--tools", manifests + "orders.json"}, tt.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if diff := cmp.Diff(tt.want, names(stdout)); diff != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", diff)
			}
			if strings.Contains(stdout, `\u003c`) {
				t.Error("describe escaped HTML characters")
			}
		})
	}
}

// TestUsage pins the exit statuses and messages of usage errors.
func TestUsage(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    string // a prefix
		stderrHas string
	}{
		{"no command", nil, 2, "", "usage: runcode <command>"},
		{"help", []string{"help"}, 0, "usage: runcode <command>", ""},
		{"unknown command", []string{"frobnicate"}, 2, "", "runcode: unknown command \"frobnicate\"\ncommands: sdk, describe, run, resume, scripts, check, search, serve, bench, version, help"},
		{"bench without scenarios here", []string{"bench"}, 2, "", "runcode bench: no scenario files given and none in bench/scenarios/ here"},
		{"bad root", []string{"sdk", "--root", "/no/such/dir"}, 2, "", "runcode sdk: --root: "},
		{"bad mode", []string{"describe", "--mode", "code", "--tools", manifests + "orders.json"}, 2, "", `runcode describe: unknown --mode "code"; want native, ptc or both`},
		{"unknown flag", []string{"sdk", "--typescript"}, 2, "", "flag provided but not defined: -typescript"},
		{"extra argument", []string{"sdk", "--tools", manifests + "orders.json", "extra"}, 2, "", `runcode sdk: unexpected argument "extra"; this command takes flags only`},
		{"command help", []string{"describe", "--help"}, 0, "usage: runcode describe [--tools F] [--root DIR] [--mode M]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if !strings.HasPrefix(stdout, tt.stdout) {
				t.Errorf("stdout = %q, want prefix %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.stderrHas)
			}
			if tt.code == 0 && stderr != "" {
				t.Errorf("a successful command wrote to stderr: %q", stderr)
			}
			if strings.Count(stdout+stderr, "usage: ") > 1 {
				t.Errorf("the usage was printed more than once:\nstdout %q\nstderr %q", stdout, stderr)
			}
		})
	}
	for _, cmd := range []string{"sdk", "describe", "run", "check", "serve"} {
		code, stdout, stderr := runCLI(t, cmd, "-h")
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: runcode "+cmd) || strings.Count(stdout, "usage: ") != 1 {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %q; want the usage once, on stdout", cmd, code, stdout, stderr)
		}
	}
}

func Example_run() {
	// Bad manifests stop before anything runs, with exit status 2 and a message
	// naming the file, the tool and the problem (stderr is stdout here to show it).
	code := run(context.Background(), []string{"sdk", "--tools", manifests + "bad-neither.json"}, strings.NewReader(""), os.Stdout, os.Stdout)
	fmt.Println("exit status", code)
	// Output:
	// runcode sdk: manifest ../../testdata/manifests/bad-neither.json: tool "lint": has neither "mock" nor "command": declare how calls are answered
	// exit status 2
}

// TestServeIsolationDefault pins that runcode serve and runcode run isolate programs in
// worker processes unless told otherwise.
func TestServeIsolationDefault(t *testing.T) {
	_, serveHelp, _ := runCLI(t, "serve", "-h")
	_, runHelp, _ := runCLI(t, "run", "-h")
	if !strings.Contains(serveHelp, `(default "process")`) || !strings.Contains(runHelp, `(default "process")`) {
		t.Errorf("serve -h:\n%s\nrun -h:\n%s", serveHelp, runHelp)
	}
	code, _, stderr := runCLI(t, "serve", "--isolation", "vm")
	if code != exitUsage || !strings.Contains(stderr, `--isolation must be in-process or process, got "vm"`) {
		t.Errorf("bad --isolation: exit %d, stderr %q", code, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on different goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of testdata/programs")

const programsDir = "../../testdata/programs"

// programArgs returns the `runcode run` arguments for a corpus program: its first line
// names its tools ("// tools: shop.json" or "// tools: workspace").
func programArgs(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	tools, ok := strings.CutPrefix(first, "// tools: ")
	if !ok {
		t.Fatalf("%s: the first line must be \"// tools: <manifest.json|workspace>\"", file)
	}
	if tools == "workspace" {
		return []string{"--root", filepath.Join(programsDir, "workspace")}
	}
	return []string{"--tools", filepath.Join(programsDir, tools)}
}

var durations = regexp.MustCompile(`"durationMs": [0-9.e+-]+`)

// TestPrograms runs every program of the corpus with --json and compares the output
// with its .want.json (durations zeroed). Run with -update to rewrite them; review
// the diff.
func TestPrograms(t *testing.T) {
	eachProgram(t, func(t *testing.T, file, name string) {
		code, rep, got := runCorpusProgram(t, file, name)
		if want := map[bool]int{false: exitOK, true: exitFail}[rep.IsError]; code != want {
			t.Errorf("exit status %d with isError=%v", code, rep.IsError)
		}
		wantFile := filepath.Join(programsDir, name+".want.json")
		if *update {
			if err := os.WriteFile(wantFile, got, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(wantFile)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("--json output mismatch (-want +got):\n%s", diff)
		}
	})
}

// eachProgram runs f in a parallel subtest, named after the program, for each program of
// the corpus (at least 30).
func eachProgram(t *testing.T, f func(t *testing.T, file, name string)) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(programsDir, "*.[jt]s"))
	if len(files) < 30 {
		t.Fatalf("the corpus has %d programs, want at least 30", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, file, name)
		})
	}
}

// runCorpusProgram runs one corpus program with --json and the flags its header asks for,
// plus extra flags, and returns the exit status, the parsed report and the output with
// durations zeroed.
func runCorpusProgram(t *testing.T, file, name string, extra ...string) (int, jsonReport, []byte) {
	t.Helper()
	args := append(append([]string{"run", "--json"}, extra...), programArgs(t, file)...)
	args = append(args, "--description", "corpus program "+name, file)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	var rep jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("exit %d, output is not the --json object: %v\n%s%s", code, err, stdout.String(), stderr.String())
	}
	return code, rep, durations.ReplaceAll(stdout.Bytes(), []byte(`"durationMs": 0`))
}

// TestBinary builds the real binary and runs the quickstart program and a failing
// program through it: stdout is the model-facing text plus a newline, exit statuses
// are 0, 1 and 2, and images are summarised on stderr.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "runcode")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tests := []cliCase{
		{"tour", []string{"run", "--root", filepath.Join(programsDir, "workspace"), filepath.Join(programsDir, "tour.ts")}, "", 0,
			"2 notes, 3 open TODOs\n[\n  \"write the migration guide\",\n  \"benchmark the pool\",\n  \"fix flaky test in sync\"\n]\n", ""},
		{"stdin program", []string{"run", "--root", programsDir, "-"}, "console.log('hi'); return 2", 0, "hi\n2\n", ""},
		{"failure", []string{"run", "--root", programsDir, "-"}, "console.log('x'); throw 'bad'", 1,
			"Error: code run failed (exception): bad\nCaptured output:\nx\n", ""},
		{"image summary", []string{"run", "--tools", filepath.Join(programsDir, "shop.json"), filepath.Join(programsDir, "chart-image.js")}, "", 0,
			"chart at charts/totals.png\n{\n  \"bars\": 5\n}\n", "image from render_chart (call-1:code:2): image/png, about 72 bytes\n"},
		{"bad flag", []string{"run", "--max-parallel", "-1", "-"}, "", 2, "", "runcode run: --max-parallel must be between 1 and 1000, got -1\n"},
		{"missing file", []string{"run", "no-such-program.js"}, "", 2, "", "runcode run: reading the program: open no-such-program.js: no such file or directory\n"},
		{"bad root", []string{"run", "--root", "/no/such/dir", "-"}, "return 1", 2, "", "runcode run: --root: opening workspace root: open /no/such/dir: no such file or directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			tt.check(t, code, stdout.String(), stderr.String())
		})
	}
}

// TestEventsFile runs a program with --events and checks the JSON Lines sequence.
func TestEventsFile(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--tools", filepath.Join(programsDir, "shop.json"), "--events", events, "-"},
		strings.NewReader(`const o = await tools.get_order({ id: "A1" }); try { await tools.get_order({ id: "nope" }) } catch {} return o.total`), &stdout, &stderr)
	if code != exitOK || stdout.String() != "12.5\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Type, CallID, RootCallID, ParentCallID, SubCallID, Name, Time string
			Arguments                                                     json.RawMessage
			IsError                                                       *bool
			Card                                                          *registry.Presentation
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
			t.Errorf("time %q: %v", e.Time, err)
		}
		desc := fmt.Sprintf("%s %s%s %s/%s %s", e.Type, e.CallID, e.SubCallID, e.RootCallID, e.ParentCallID, e.Name)
		if e.IsError != nil {
			desc += fmt.Sprintf(" isError=%v", *e.IsError)
		}
		if e.Type != "tool/call" && e.Type != "tool/result" {
			desc += " " + string(e.Arguments)
		}
		if e.Card != nil {
			desc += fmt.Sprintf(" card=%s/%q/%s/%v", e.Card.Intent, e.Card.Title, e.Card.Kind, e.Card.Detail)
		}
		got = append(got, desc)
	}
	want := []string{
		`tool/call call-1 / run_code card=generic/"Run program from stdin"/execute/map[rawInput:const o = await tools.get_order({ id: "A1" }); try { await tools.get_order({ id: "nope" }) } catch {} return o.total]`,
		`tool/code-dispatch-start call-1:code:1 call-1/call-1 get_order {"id":"A1"}`,
		`tool/code-dispatch call-1:code:1 call-1/call-1 get_order isError=false {"id":"A1"}`,
		`tool/code-dispatch-start call-1:code:2 call-1/call-1 get_order {"id":"nope"}`,
		`tool/code-dispatch call-1:code:2 call-1/call-1 get_order isError=true {"id":"nope"}`,
		`tool/result call-1 / run_code isError=false card=generic/"run_code"//<nil>`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

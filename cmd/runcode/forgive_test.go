package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testfs"
)

// Flags may follow the program file, and "--" ends them.
func TestFlagsAfterTheProgram(t *testing.T) {
	prog := testfs.Temp(t, "prog.js", "return 1")
	code, stdout, stderr := runCLI(t, "run", prog, "--json", "--max-calls", "3")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var rep struct{ Text string }
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Text != "1" {
		t.Errorf("stdout %q is not the --json report of the run (%v)", stdout, err)
	}
	code, _, stderr = runCLI(t, "run", "--", prog, "--json")
	if code != 2 || !strings.Contains(stderr, "got 2 arguments") {
		t.Errorf("after --, --json is an argument: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ = runCLI(t, "check", prog, "--root", ".")
	if code != 0 || !strings.Contains(stdout, "reaches no tools") {
		t.Errorf("check with a flag after the file: exit %d, %q", code, stdout)
	}
}

func TestUnknownCommandAndHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "runn", "prog.js")
	want := "runcode: unknown command \"runn\"; did you mean \"run\"?\ncommands: sdk, describe, run, resume, scripts, check, search, serve, bench, version, help (runcode help <command> for one's flags)\n"
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
	}
	if diff := cmp.Diff(want, stderr); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
	if _, _, stderr := runCLI(t, "zzzzzzzz"); strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "commands: sdk, describe, run, resume, scripts, check, search, serve, bench, version, help") {
		t.Errorf("a command nowhere near any: %q", stderr)
	}

	_, helpRun, _ := runCLI(t, "run", "--help")
	code, stdout, stderr = runCLI(t, "help", "run")
	if code != 0 || stderr != "" || stdout != helpRun || !strings.HasPrefix(stdout, "usage: runcode run ") {
		t.Errorf("help run: exit %d, stderr %q, stdout %q; want run's help", code, stderr, stdout)
	}

	code, stdout, stderr = runCLI(t, "bench", "--help")
	if code != 0 || stderr != "" || strings.Count(stdout, "usage: runcode bench") != 1 {
		t.Errorf("bench --help: exit %d, stderr %q, stdout %q; want the help once, on stdout", code, stderr, stdout)
	}
}

func TestDurationNeedsAUnit(t *testing.T) {
	prog := testfs.Temp(t, "prog.js", "return 1")
	code, stdout, stderr := runCLI(t, "run", "--timeout", "5", prog)
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if want := `invalid value "5" for flag -timeout: a duration needs a unit: 5s for seconds or 5ms for milliseconds`; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start with %q", stderr, want)
	}
}

// The model-facing text stays the contract's; the CLI names the flag on stderr.
func TestOutputLimitNamesTheFlag(t *testing.T) {
	prog := testfs.Temp(t, "big.js", "return 'y'.repeat(4000)")
	code, stdout, stderr := runCLI(t, "run", "--max-output", "1KiB", prog)
	if code != 1 || stdout != "Error: code run failed (output-limit): outer output exceeded 1024 bytes\n" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if !strings.Contains(stderr, "--max-output") || !strings.Contains(stderr, "--truncate-output") {
		t.Errorf("stderr %q does not name --max-output and --truncate-output", stderr)
	}
}

func TestTruncateOutputFlag(t *testing.T) {
	prog := testfs.Temp(t, "big.js", "console.log('x'.repeat(100)); return Array.from({length: 400}, (_, i) => ({i}))")
	var texts []string
	for _, iso := range []string{isolationInProcess, isolationProcess} {
		code, stdout, stderr := runCLI(t, "run", "--max-output", "1KiB", "--truncate-output", "--isolation", iso, prog, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", iso, code, stderr)
		}
		var rep struct {
			Text  string
			Value struct {
				Logs   []string
				Result json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rep.Text, "[output truncated to the 1024-byte output budget") || !strings.Contains(rep.Text, "more items") {
			t.Errorf("%s: text %q lacks the header or the marker", iso, rep.Text)
		}
		if !json.Valid(rep.Value.Result) {
			t.Errorf("%s: result %s is not JSON", iso, rep.Value.Result)
		}
		texts = append(texts, rep.Text)
	}
	if texts[0] != texts[1] {
		t.Errorf("the modes cut differently:\n%s\n---\n%s", texts[0], texts[1])
	}
	for _, cmd := range []string{"run", "serve"} {
		if _, help, _ := runCLI(t, cmd, "--help"); !strings.Contains(help, "-truncate-output") {
			t.Errorf("%s --help does not document --truncate-output", cmd)
		}
	}
}

// Stack frames name the program's file, in both isolation modes.
func TestErrorsNameTheFile(t *testing.T) {
	prog := testfs.Temp(t, "prog.ts", "const n: number = 1\nawait tools.read_file({ path: 'missing.txt' })")
	for _, iso := range []string{isolationInProcess, isolationProcess} {
		code, stdout, _ := runCLI(t, "run", "--root", t.TempDir(), "--isolation", iso, prog)
		if code != 1 || !strings.Contains(stdout, "\n    at tools.read_file (prog.ts:2:") || strings.Contains(stdout, "program.") {
			t.Errorf("%s: exit %d, stdout %q; want a frame naming read_file in prog.ts", iso, code, stdout)
		}
	}
}

// run and check read a fenced program, as a model pasted it, like the program inside.
func TestFencedProgram(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := testfs.Temp(t, "prog.md", "```ts\nconst r = await tools.read_file({ path: 'a.md' })\nreturn r.text\n```\n")
	if code, stdout, stderr := runCLI(t, "run", "--root", root, prog); code != 0 || stdout != "hello\n" {
		t.Errorf("run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _ := runCLI(t, "check", "--root", root, prog); code != 0 || !strings.HasSuffix(stdout, "reaches read_file\n") {
		t.Errorf("check: exit %d, stdout %q", code, stdout)
	}
}

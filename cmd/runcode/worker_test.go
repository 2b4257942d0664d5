package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/bench"
	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/runtime/worker"
)

// TestMain lets the test binary play the worker role: --isolation process re-executes
// os.Executable() (this binary) with "__worker". It plays other roles for the tests of
// stuck calls (see testRole), and the cold child of runcode bench, which re-executes it
// with "bench --cold-child".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == worker.RoleArg {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == "bench" && os.Args[2] == bench.ColdChildArg {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && testRole(os.Args[1], os.Args[2:]) {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestProgramsIsolated runs the run_code corpus with --isolation process and wants exactly
// the outputs of TestPrograms (the same .want.json files): same text, values, failure kinds
// and messages, sub-call ids and contexts as in process.
func TestProgramsIsolated(t *testing.T) {
	eachProgram(t, func(t *testing.T, file, name string) {
		_, _, got := runCorpusProgram(t, file, name, "--isolation", "process")
		want := testfs.Read(t, filepath.Join(programsDir, name+".want.json"))
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("--json output in process isolation differs from in-process (-want +got):\n%s", diff)
		}
	})
}

// TestIsolationFlag: a bad --isolation is a usage error; process mode fails a program that
// exhausts memory in one native call as memory-limit, keeping what it had logged, and
// exits 1.
func TestIsolationFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--isolation", "container", "-"}, strings.NewReader("return 1"), &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--isolation must be in-process or process") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"run", "--isolation", "process", "-"}, strings.NewReader("console.log('x'); const a = []; for (;;) a.push(new ArrayBuffer(256 << 20))"), &stdout, &stderr)
	if want := "Error: code run failed (memory-limit): heap limit of 512 MiB exceeded\nCaptured output:\nx\n"; code != exitFail || stdout.String() != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, %q", code, stdout.String(), stderr.String(), want)
	}
}

// TestEventsIsolated: the --events sequence (types, ids, names, arguments, isError, content)
// of a program with sub-calls, one failing, is the same in both modes. (Calls run in
// sequence: parallel ones may settle in either order in any mode.)
func TestEventsIsolated(t *testing.T) {
	code := `const o = await tools.get_order({ id: "A1" });
try { await tools.get_order({ id: "nope" }) } catch {}
const p = await tools.get_order({ id: "A3" });
return [o.total, p.total]`
	events := func(isolation string) []string {
		file := filepath.Join(t.TempDir(), "events.jsonl")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"run", "--isolation", isolation, "--tools", filepath.Join(programsDir, "shop.json"), "--events", file, "-"},
			strings.NewReader(code), &stdout, &stderr)
		if code != exitOK {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", isolation, code, stdout.String(), stderr.String())
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e map[string]any
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			delete(e, "time")
			delete(e, "durationMs")
			b, _ := json.Marshal(e)
			out = append(out, string(b))
		}
		return out
	}
	in, proc := events(isolationInProcess), events(isolationProcess)
	if len(in) < 6 {
		t.Fatalf("only %d events in process: %q", len(in), in)
	}
	if diff := cmp.Diff(in, proc); diff != "" {
		t.Errorf("events (-in-process +process):\n%s", diff)
	}
}

// TestHostGCPercent: with worker processes this process runs no program, and collects at
// hostGCPercent while the pool is open; GOGC in the environment wins; closing puts the
// percent back.
func TestHostGCPercent(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	before := gcPercent()
	for _, env := range []string{"", "300"} {
		t.Setenv("GOGC", env)
		_, closeRunner, err := newRunner(runnerOptions{isolation: isolationProcess, workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := hostGCPercent
		if env != "" {
			want = before
		}
		if got := gcPercent(); got != want {
			t.Errorf("GOGC=%q: while the pool is open, this process's GC percent is %d, want %d", env, got, want)
		}
		if err := closeRunner(); err != nil {
			t.Fatal(err)
		}
		if got := gcPercent(); got != before {
			t.Errorf("GOGC=%q: after close, the GC percent is %d, want %d as before", env, got, before)
		}
	}
}

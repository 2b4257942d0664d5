package main

import (
	"flag"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/runtime"
)

// TestGCPercentFlagErrors: run, serve and bench refuse a --gc-percent that is not a
// positive integer with exit 2, nothing on stdout, and a first line on stderr that names
// the flag and what is wrong.
func TestGCPercentFlagErrors(t *testing.T) {
	const notPositive = "--gc-percent must be a positive percentage (the collector cannot be turned off for programs), got "
	for _, cmd := range []string{"run", "serve", "bench"} {
		for _, tt := range []struct{ value, want string }{
			{"0", "runcode " + cmd + ": " + notPositive + "0"},
			{"-1", "runcode " + cmd + ": " + notPositive + "-1"},
			{"lots", `invalid value "lots" for flag -gc-percent: want a whole percentage, e.g. 400`},
			{"4.5", `invalid value "4.5" for flag -gc-percent: want a whole percentage, e.g. 400`},
		} {
			args := []string{cmd, "--gc-percent", tt.value}
			if cmd == "bench" {
				args = append(args, "x.json") // bench looks for scenarios before it checks flags
			}
			code, stdout, stderr := runCLI(t, args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || stdout != "" || first != tt.want {
				t.Errorf("%v: exit %d, stdout %q, stderr's first line %q\nwant exit 2, nothing on stdout, %q", args, code, stdout, first, tt.want)
			}
		}
	}
	// The cold child checks the flag as its driver does.
	code, _, stderr := runCLI(t, "bench", "--cold-child", "--gc-percent", "0", "x.json")
	if want := "runcode bench: " + notPositive + "0"; code != exitUsage || !strings.HasPrefix(stderr, want) {
		t.Errorf("cold child: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestGCPercentHelp: every command that runs programs documents the flag in --help.
func TestGCPercentHelp(t *testing.T) {
	for _, cmd := range []string{"run", "serve", "bench"} {
		code, stdout, _ := runCLI(t, cmd, "--help")
		if code != exitOK || !strings.Contains(stdout, "-gc-percent PERCENT") || !strings.Contains(stdout, "(default 400, past a run's first 2 ms") {
			t.Errorf("%s --help (exit %d) does not document --gc-percent:\n%s", cmd, code, stdout)
		}
	}
}

// TestGCPercentParse: the flag's value, and what the workers are given: the percent when
// set, zero (their default) when not.
func TestGCPercentParse(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		workers int
	}{{nil, 0}, {[]string{"--gc-percent", "800"}, 800}, {[]string{"--gc-percent=150"}, 150}} {
		var g gcPercent
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		g.register(fs)
		if err := fs.Parse(tt.args); err != nil || g.check() != "" {
			t.Fatalf("%v: %v %q", tt.args, err, g.check())
		}
		if got := workerOptions(runnerOptions{isolation: isolationProcess, workers: 1, gcPercent: g.n}); got.GCPercent != tt.workers {
			t.Errorf("%v: worker options %+v, want GCPercent %d", tt.args, got, tt.workers)
		}
	}
}

// TestGCPercentInProcess: in process the flag sets this process's GOGC, and for one run at
// a time a memory limit of the heap budget over what the process maps (none when
// GOMEMLIMIT is set); the returned function puts both back. Unset, nothing changes.
func TestGCPercentInProcess(t *testing.T) {
	limit := func() int64 { return debug.SetMemoryLimit(-1) } // -1 reads it
	gc0, limit0 := gogc(), limit()

	var unset gcPercent
	unset.forOneRun()()
	if gogc() != gc0 || limit() != limit0 {
		t.Errorf("unset: GOGC %d, limit %d; want %d and %d as before", gogc(), limit(), gc0, limit0)
	}

	g := gcPercent{n: 700, set: true}
	t.Setenv("GOMEMLIMIT", "")
	restore := g.forOneRun()
	gotGC, gotLimit := gogc(), limit()
	restore()
	// What the process maps moves as it runs; a test process maps far less than 1 GiB.
	heap := runtime.DefaultLimits().HeapBytes
	if gotGC != 700 || gotLimit <= heap || gotLimit > heap+1<<30 {
		t.Errorf("set: GOGC %d, limit %d; want 700 and %d over what the process maps", gotGC, gotLimit, heap)
	}
	if gogc() != gc0 || limit() != limit0 {
		t.Errorf("after restore: GOGC %d, limit %d; want %d and %d", gogc(), limit(), gc0, limit0)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = g.forOneRun()
	gotGC, gotLimit = gogc(), limit()
	restore()
	if gotGC != 700 || gotLimit != limit0 {
		t.Errorf("with GOMEMLIMIT: GOGC %d, limit %d; want 700 and the limit unchanged (%d)", gotGC, gotLimit, limit0)
	}
}

// TestGCPercentRun: a program runs with --gc-percent in both isolation modes, and in
// process the command leaves the collector as it found it.
func TestGCPercentRun(t *testing.T) {
	before := gogc()
	for _, isolation := range []string{isolationInProcess, isolationProcess} {
		var stdout, stderr strings.Builder
		code := run(t.Context(), []string{"run", "--isolation", isolation, "--gc-percent", "300", "-"}, strings.NewReader("let s = ''; for (let i = 0; i < 1000; i++) s += i; return s.length"), &stdout, &stderr)
		if code != exitOK || stdout.String() != "2890\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", isolation, code, stdout.String(), stderr.String())
		}
	}
	if after := gogc(); after != before {
		t.Errorf("GOGC after the runs = %d, want %d as before", after, before)
	}
}

// gogc is this process's GOGC, read without changing it.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// TestGCPercentBench: bench reports the percent its programs ran at, in both isolation
// modes, and passes the flag on to its cold children (which refuse flags they do not know).
func TestGCPercentBench(t *testing.T) {
	for _, isolation := range []string{isolationInProcess, isolationProcess} {
		line := benchLine(t, 0, "--isolation", isolation, "--gc-percent", "250", "--warmup", "0", "--measured", "1", testfs.Temp(t, "scenario.json", testfs.Read(t, s1Path)))
		if got := line["extra"].(map[string]any)["gcPercent"]; got != 250.0 {
			t.Errorf("%s: extra.gcPercent = %v, want 250", isolation, got)
		}
	}
	cold := testfs.Temp(t, "scenario.json", strings.Replace(testfs.Read(t, s1Path), `"mode": "warm"`, `"mode": "cold"`, 1))
	if line := benchLine(t, 0, "--gc-percent", "250", "--warmup", "0", "--measured", "1", cold); line["ok"] != true {
		t.Errorf("cold: %v", line)
	}
}

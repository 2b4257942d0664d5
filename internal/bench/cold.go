package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ColdChildArg is the hidden first argument of `runcode bench` that makes the process one
// run of a cold scenario: set up, create one sandbox, run once, check, print one line, exit.
// Only the bench driver starts it.
const ColdChildArg = "--cold-child"

// SpawnEnv carries the driver's spawn time (Unix nanoseconds) to a cold child, which
// counts its process start from it.
const SpawnEnv = "RUNCODE_BENCH_SPAWN_UNIX_NS"

// coldLine is what a cold child prints.
type coldLine struct {
	OK                      bool    `json:"ok"`
	Error                   string  `json:"error,omitempty"`
	ProcessStartToHarnessMs float64 `json:"processStartToHarnessMs"`
	SetupMs                 float64 `json:"setupMs"`
	CreateMs                float64 `json:"createMs"`
	ExecMs                  float64 `json:"execMs"`
	ProcessStartToResultMs  float64 `json:"processStartToResultMs"`
	PeakRSSMB               float64 `json:"peakRssMB"`
	HostCalls               int64   `json:"hostCalls"`
}

// ColdRun is the work of a cold child: it runs the scenario at path once as run n, on one
// sandbox, checks the output, and writes one line to w. start is the process's start (the
// driver's spawn time), harnessStart when the command began. ok is false when the run
// failed.
func ColdRun(ctx context.Context, path string, n int, f *Options, start, harnessStart time.Time, w io.Writer) (ok bool) {
	line := coldRun(ctx, path, n, f, start, harnessStart)
	writeLine(w, line)
	return line.OK
}

func coldRun(ctx context.Context, path string, n int, f *Options, start, harnessStart time.Time) *coldLine {
	out := &coldLine{ProcessStartToHarnessMs: round3(ms(harnessStart.Sub(start)))}
	fail := func(err error) *coldLine {
		out.OK, out.Error = false, err.Error()
		return out
	}
	t0 := time.Now()
	sc, err := readScenario(path)
	if err != nil {
		return fail(err)
	}
	env, err := newBenchEnv(ctx, sc, f)
	if err != nil {
		return fail(err)
	}
	defer env.close()
	call := env.call(n)
	t1 := time.Now()
	dispose, err := env.create()
	if err != nil {
		return fail(err)
	}
	t2 := time.Now()
	value, logs, err := env.exec(ctx, call)
	t3 := time.Now()
	if err != nil {
		return fail(err)
	}
	if err := sc.check(value, logs); err != nil {
		return fail(err)
	}
	dispose()
	out.OK = true
	out.SetupMs, out.CreateMs, out.ExecMs = round3(ms(t1.Sub(t0))), round3(ms(t2.Sub(t1))), round3(ms(t3.Sub(t2)))
	out.ProcessStartToResultMs = round3(ms(t3.Sub(start)))
	out.PeakRSSMB = peakRSSMB()
	out.HostCalls = env.tools.calls.Load()
	return out
}

// coldReport is the report line of a cold scenario.
type coldReport struct {
	lineHead
	Runs                    int            `json:"runs"`
	Warmup                  int            `json:"warmup"`
	SpawnToExitMs           stats          `json:"spawnToExitMs"`
	ProcessStartToHarnessMs stats          `json:"processStartToHarnessMs"`
	SetupMs                 stats          `json:"setupMs"`
	CreateMs                stats          `json:"createMs"`
	ExecMs                  stats          `json:"execMs"`
	ProcessStartToResultMs  stats          `json:"processStartToResultMs"`
	PeakRSSMB               stats          `json:"peakRssMB"`
	HostCalls               int64          `json:"hostCalls"`
	Floor                   any            `json:"floor"`
	Extra                   map[string]any `json:"extra"`
}

type floorLine struct {
	What          string `json:"what"`
	SpawnToExitMs stats  `json:"spawnToExitMs"`
}

type skippedFloor struct {
	What    string `json:"what"`
	Skipped bool   `json:"skipped"`
	Reason  string `json:"reason"`
}

const floorWhat = "spawn-to-exit of a hello-world Go binary built with go build"

func benchCold(ctx context.Context, path string, sc *scenario, f *Options) any {
	if f.ColdCommand == nil {
		return fail(sc, errors.New("this harness was given no command line to re-execute for a cold run"))
	}
	command, err := f.ColdCommand()
	if err != nil {
		return fail(sc, err)
	}
	if len(command) == 0 {
		return fail(sc, errors.New("the command line to re-execute for a cold run is empty"))
	}
	runs := sc.warmup + sc.measured
	var wall, harness, setup, create, execd, result, rss []float64
	var calls int64
	for i := 0; i < runs; i++ {
		args := append(slices.Clip(command[1:]), ColdChildArg, "--isolation", f.Isolation,
			"--max-parallel", strconv.Itoa(f.MaxParallel), "--run", strconv.Itoa(i+1))
		if f.GCPercent > 0 {
			args = append(args, "--gc-percent", strconv.Itoa(f.GCPercent))
		}
		args = append(args, path)
		cmd := exec.CommandContext(ctx, command[0], args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		t := time.Now()
		cmd.Env = append(slices.Clip(f.Environ), SpawnEnv+"="+strconv.FormatInt(t.UnixNano(), 10))
		err := cmd.Run()
		d := time.Since(t)
		var line coldLine
		if jerr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &line); jerr != nil {
			return fail(sc, fmt.Errorf("cold run %d: the child printed no report line (%v; exit: %v; stderr: %s)", i+1, jerr, err, strings.TrimSpace(stderr.String())))
		}
		if !line.OK {
			return fail(sc, fmt.Errorf("cold run %d: %s", i+1, line.Error))
		}
		if err != nil {
			return fail(sc, fmt.Errorf("cold run %d: the child reported success but exited with %v", i+1, err))
		}
		calls += line.HostCalls
		if i < sc.warmup {
			continue
		}
		wall = append(wall, ms(d))
		harness = append(harness, line.ProcessStartToHarnessMs)
		setup = append(setup, line.SetupMs)
		create = append(create, line.CreateMs)
		execd = append(execd, line.ExecMs)
		result = append(result, line.ProcessStartToResultMs)
		rss = append(rss, line.PeakRSSMB)
	}
	extra := benchExtra(f)
	extra["cold"] = "the driver re-executes its own binary (runcode bench " + ColdChildArg + ") once per run; the child sets up, creates one sandbox, runs once, checks expect and exits. Process start is the driver's spawn time (passed in " + SpawnEnv + "), so processStartTo* include fork and exec"
	return &coldReport{
		lineHead: passed(sc), Runs: sc.measured, Warmup: sc.warmup,
		SpawnToExitMs: summarize(wall), ProcessStartToHarnessMs: summarize(harness), SetupMs: summarize(setup),
		CreateMs: summarize(create), ExecMs: summarize(execd), ProcessStartToResultMs: summarize(result),
		PeakRSSMB: summarize(rss), HostCalls: calls, Floor: goFloor(ctx, runs, sc.warmup, f.Environ), Extra: extra,
	}
}

// goFloor measures the spawn-to-exit of a hello-world Go binary, built into a temporary
// directory with go build in environ (plus GOWORK=off and GOFLAGS=); without go on PATH it
// says why it skipped.
func goFloor(ctx context.Context, runs, warmup int, environ []string) any {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return &skippedFloor{What: floorWhat, Skipped: true, Reason: "go is not on PATH, so no hello-world binary can be built"}
	}
	dir, err := os.MkdirTemp("", "runcode-bench-floor-")
	if err != nil {
		return &skippedFloor{What: floorWhat, Skipped: true, Reason: err.Error()}
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello, world\\n\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return &skippedFloor{What: floorWhat, Skipped: true, Reason: err.Error()}
		}
	}
	bin := filepath.Join(dir, "hello")
	build := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(slices.Clip(environ), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		return &skippedFloor{What: floorWhat, Skipped: true, Reason: fmt.Sprintf("go build failed: %v: %s", err, strings.TrimSpace(string(out)))}
	}
	var wall []float64
	for i := 0; i < runs; i++ {
		cmd := exec.CommandContext(ctx, bin)
		t := time.Now()
		err := cmd.Run()
		d := time.Since(t)
		if err != nil {
			return &skippedFloor{What: floorWhat, Skipped: true, Reason: "running the hello-world binary: " + err.Error()}
		}
		if i >= warmup {
			wall = append(wall, ms(d))
		}
	}
	return &floorLine{What: floorWhat, SpawnToExitMs: summarize(wall)}
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/runcode-go/runcode/internal/bench"
	"github.com/runcode-go/runcode/ptc"
)

// benchCommand is `runcode bench`: the harness is internal/bench; the command parses the
// flags, gives the harness what only the process may do (start workers, re-execute
// itself, its environment) and turns the outcome into an exit status.
func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	harnessStart := time.Now()
	if len(args) > 0 && args[0] == bench.ColdChildArg {
		return coldChild(ctx, args[1:], harnessStart, stdout, stderr)
	}
	fs := newFlags("bench", "[flags] [SCENARIO.json…] (default: bench/scenarios/*.json)", stdout, stderr)
	var (
		f  bench.Options
		gc gcPercent
	)
	f.Define(fs)
	gc.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON report line per scenario (what scripts and the peers harness read), also when stdout is a terminal; without it, when stdout is a terminal, a table (scenario, mode, median, p90, what it measures), and JSON lines otherwise")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	paths, err := bench.ScenarioFiles(fs.Args())
	if err != nil {
		return usageError(stderr, "bench", err)
	}
	if msg := checkBench(&f, &gc); msg != "" {
		fmt.Fprintf(stderr, "runcode bench: %s\n", msg)
		return exitUsage
	}
	defer wireBench(&f, &gc)()
	out, flush := benchOutput(stdout, *asJSON)
	ok, err := bench.Run(ctx, paths, &f, out)
	flush()
	if err != nil {
		return usageError(stderr, "bench", err)
	}
	if !ok {
		return exitFail
	}
	return exitOK
}

// processInit is when this process's Go packages were initialized: the process start a
// cold child uses when no driver told it its spawn time.
var processInit = time.Now()

// coldChild is `runcode bench --cold-child`: one run of a cold scenario in a process of
// its own, started by the bench driver.
func coldChild(ctx context.Context, args []string, harnessStart time.Time, stdout, stderr io.Writer) int {
	fs := newFlags("bench "+bench.ColdChildArg, "[--isolation M] [--gc-percent N] --run N SCENARIO.json", stdout, stderr)
	var (
		f  bench.Options
		gc gcPercent
	)
	f.Define(fs)
	gc.register(fs)
	n := fs.Int("run", 1, "the run's `N`, for the program's unique comment")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "runcode bench %s: takes one scenario, got %d arguments\n", bench.ColdChildArg, fs.NArg())
		return exitUsage
	}
	if msg := checkBench(&f, &gc); msg != "" {
		fmt.Fprintf(stderr, "runcode bench: %s\n", msg)
		return exitUsage
	}
	start := processInit
	if s := os.Getenv(bench.SpawnEnv); s != "" {
		if ns, err := strconv.ParseInt(s, 10, 64); err == nil {
			start = time.Unix(0, ns)
		}
	}
	defer wireBench(&f, &gc)()
	if !bench.ColdRun(ctx, fs.Arg(0), *n, &f, start, harnessStart, stdout) {
		return exitFail
	}
	return exitOK
}

// checkBench returns what is wrong with bench's flags, or "".
func checkBench(f *bench.Options, gc *gcPercent) string {
	if msg := gc.check(); msg != "" {
		return msg
	}
	return f.Check()
}

// wireBench gives the harness the worker processes of --isolation process (one, as
// runcode run would start them, at --gc-percent), this executable's bench command for cold
// children, and the process's environment for what they start. In process it sets this
// process's collector for --gc-percent, as runcode run does; the returned function puts it
// back.
func wireBench(f *bench.Options, gc *gcPercent) (restore func()) {
	f.GCPercent = gc.n
	f.NewWorkers = func() (ptc.Runner, func() error, error) {
		return newRunner(runnerOptions{isolation: isolationProcess, workers: 1, gcPercent: f.GCPercent})
	}
	f.ColdCommand = func() ([]string, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding this executable to re-execute it: %v", err)
		}
		return []string{exe, "bench"}, nil
	}
	f.Environ = os.Environ()
	if f.Isolation == isolationProcess {
		return func() {}
	}
	return gc.forOneRun() // the in-process runs' collector; workers get theirs at start
}

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// benchPeer names runcode in the report lines.
const benchPeer = "runcode"

// Isolation modes of runcode bench --isolation; benchBoth runs each scenario in process,
// then in worker processes.
const (
	benchInProcess = "in-process"
	benchProcess   = "process"
	benchBoth      = "both"
)

// Options are the flags of `runcode bench` (and of its cold child), and what the command
// gives the harness that only a command may do. The zero value is not ready: Define sets
// the flags' defaults.
type Options struct {
	Isolation        string
	Warmup, Measured int // overrides; -1 keeps the scenario's
	Sandboxes        int // override; 0 keeps the scenario's
	MaxParallel      int
	CPUProfile       string
	MemProfile       string
	// GCPercent is the command's --gc-percent (0: not given): the collector's GOGC where
	// the programs run, which the command applies itself (to the workers it starts, or to
	// its own process in process). The harness changes no process-wide setting; it reports
	// the percent in every line's extra and passes it on to cold children. Define does not
	// define its flag: the command does, as for run and serve.
	GCPercent int

	// NewWorkers starts the worker-process runner of --isolation process (one worker) and
	// returns what closes it. Nil: --isolation process fails every scenario.
	NewWorkers func() (ptc.Runner, func() error, error)
	// ColdCommand returns the command line that runs this program's `bench` command: the
	// executable and the arguments that come before ColdChildArg. The cold driver runs it
	// once per run; its error fails the cold scenario. Nil: cold scenarios fail.
	ColdCommand func() ([]string, error)
	// Environ is the environment of the processes a cold scenario starts: each child, with
	// SpawnEnv added, and the go build of the floor's hello-world binary. Nil: they get
	// only what the driver adds.
	Environ []string
}

// Define defines the flags of `runcode bench` on fs, stored in f.
func (f *Options) Define(fs *flag.FlagSet) {
	fs.StringVar(&f.Isolation, "isolation", benchBoth, "where programs run: both (each scenario in process, then in worker processes, one report line each), process (worker processes, the default of runcode run and serve) or in-process")
	fs.IntVar(&f.Warmup, "warmup", -1, "override every scenario's warm-up runs with `N` (for quick checks; figures use the scenario's)")
	fs.IntVar(&f.Measured, "measured", -1, "override every scenario's measured runs with `N` (for quick checks)")
	fs.IntVar(&f.Sandboxes, "sandboxes", 0, "override a memory scenario's idle sandboxes with `N`")
	fs.IntVar(&f.MaxParallel, "max-parallel", 1000, "maxParallelSubCalls: `N` concurrency-safe sub-calls of one run that may overlap")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile of the whole bench to `FILE` (go tool pprof)")
	fs.StringVar(&f.MemProfile, "memprofile", "", "write an allocation profile to `FILE` at the end (go tool pprof -sample_index=alloc_space)")
}

// Check returns what is wrong with the flag values, naming the flag, or "".
func (f *Options) Check() string {
	switch {
	case f.Isolation != benchInProcess && f.Isolation != benchProcess && f.Isolation != benchBoth:
		return fmt.Sprintf("--isolation must be %s, %s or %s, got %q", benchBoth, benchProcess, benchInProcess, f.Isolation)
	case f.Warmup < -1:
		return fmt.Sprintf("--warmup must not be negative, got %d", f.Warmup)
	case f.Measured == 0 || f.Measured < -1:
		return fmt.Sprintf("--measured must be at least 1, got %d", f.Measured)
	case f.Sandboxes < 0:
		return fmt.Sprintf("--sandboxes must be at least 1, got %d", f.Sandboxes)
	case f.MaxParallel < 1:
		return fmt.Sprintf("--max-parallel must be at least 1, got %d", f.MaxParallel)
	case f.GCPercent < 0:
		return fmt.Sprintf("--gc-percent must be a positive percentage, got %d", f.GCPercent)
	}
	return ""
}

// apply puts the overrides into sc.
func (f *Options) apply(sc *scenario) {
	if f.Warmup >= 0 {
		sc.warmup = f.Warmup
	}
	if f.Measured >= 1 {
		sc.measured = f.Measured
	}
	if f.Sandboxes > 0 {
		sc.Sandboxes = f.Sandboxes
	}
}

// Run runs the scenario files at paths in order and writes one report line each to w.
// ok is false when a scenario failed; err, when the profiles could not be started and
// nothing ran. f must pass Check.
func Run(ctx context.Context, paths []string, f *Options, w io.Writer) (ok bool, err error) {
	stop, err := startProfiles(f)
	if err != nil {
		return false, err
	}
	defer stop()
	ok = true
	modes := []string{f.Isolation}
	if f.Isolation == benchBoth {
		modes = []string{benchInProcess, benchProcess}
	}
	for _, path := range paths {
		for _, mode := range modes {
			fm := *f
			fm.Isolation = mode
			line := benchScenario(ctx, path, &fm)
			writeLine(w, line)
			if r, isFail := line.(*failureLine); isFail && r != nil {
				ok = false
				if r.Scenario == "" {
					break // the file itself is bad: once is enough
				}
			}
		}
	}
	return ok, nil
}

// defaultScenarios is where runcode bench looks for scenarios when it is given none: the
// S1-S7 set kept in the repository, relative to a clone's root.
const defaultScenarios = "bench/scenarios"

// ScenarioFiles returns the scenario files to run: args, or without any, the JSON files in
// bench/scenarios under the current directory.
func ScenarioFiles(args []string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	paths, _ := filepath.Glob(filepath.Join(defaultScenarios, "*.json"))
	if len(paths) == 0 {
		return nil, fmt.Errorf("no scenario files given and none in %s/ here; run it from a clone's root, or name codemode-bench-scenario/v1 files", defaultScenarios)
	}
	return paths, nil
}

// failureLine is the report line of a scenario that failed.
type failureLine struct {
	Peer     string `json:"peer"`
	Scenario string `json:"scenario,omitempty"`
	Name     string `json:"name,omitempty"`
	Mode     string `json:"mode,omitempty"`
	OK       bool   `json:"ok"`
	Error    string `json:"error"`
}

func fail(sc *scenario, err error) *failureLine {
	l := &failureLine{Peer: benchPeer, Error: err.Error()}
	if sc != nil {
		l.Scenario, l.Name, l.Mode = sc.ID, sc.Name, sc.Mode
	}
	return l
}

// benchScenario runs the scenario at path and returns its report line.
func benchScenario(ctx context.Context, path string, f *Options) any {
	sc, err := readScenario(path)
	if err != nil {
		return fail(nil, err)
	}
	f.apply(sc)
	resetMemory()
	switch sc.Mode {
	case "warm":
		return benchWarm(ctx, sc, f)
	case "cold":
		return benchCold(ctx, path, sc, f)
	default:
		return benchMemory(ctx, sc, f)
	}
}

func writeLine(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// benchEnv is the runtime set up once per scenario: the scenario's tools in a ptc scope,
// the pipeline and the run_code executor over a pool whose programs run on sandboxes the
// driver creates itself (so create, exec and dispose are timed apart). It is the wiring
// of runcode run with the scenario's tools instead of a manifest's.
type benchEnv struct {
	sc    *scenario
	tools *benchTools
	set   *registry.ResolvedToolSet
	ex    *ptc.Executor
	// In process, runner builds the sandboxes and hands each to its run_code call.
	runner *sandboxRunner
	// With --isolation process, workers run the programs; there is no sandbox to create
	// apart from the run.
	workers      ptc.Runner
	closeWorkers func() error
	// setup is how long newBenchEnv took: the scenario's setup.
	setup time.Duration
}

func newBenchEnv(ctx context.Context, sc *scenario, f *Options) (*benchEnv, error) {
	t0 := time.Now()
	scope := registry.New()
	if _, err := scope.SetMode(registry.ModePTC); err != nil {
		return nil, err
	}
	e := &benchEnv{sc: sc, tools: &benchTools{}}
	if err := e.tools.register(scope, sc); err != nil {
		return nil, err
	}
	set, err := scope.Resolve(ctx, registry.Step{})
	if err != nil {
		return nil, err
	}
	e.set = set
	// Default budgets (compute, wall clock, output, heap sampler, stack depth) stay on: the
	// real deadline and interrupt mechanism are part of the measured cost.
	var runner ptc.Runner
	if f.Isolation == benchProcess {
		if f.NewWorkers == nil {
			return nil, errors.New("--isolation process: this harness was given no way to start worker processes")
		}
		if e.workers, e.closeWorkers, err = f.NewWorkers(); err != nil {
			return nil, err
		}
		runner = e.workers
	} else {
		if e.runner, err = newSandboxRunner(); err != nil {
			return nil, err
		}
		runner = e.runner
	}
	e.ex, err = ptc.New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), &ptc.Options{
		Pool:                runner,
		MaxParallelSubCalls: f.MaxParallel,
	})
	if err != nil {
		e.close()
		return nil, err
	}
	e.setup = time.Since(t0)
	return e, nil
}

func (e *benchEnv) close() {
	if e.runner != nil {
		e.runner.close()
	}
	if e.closeWorkers != nil {
		_ = e.closeWorkers()
	}
}

// create builds the sandbox the next run_code call runs on, and returns what disposes of
// it. With --isolation process there is nothing to build apart from the run.
func (e *benchEnv) create() (dispose func(), err error) {
	if e.runner == nil {
		return func() {}, nil
	}
	return e.runner.create()
}

// call is run n's run_code call, as a model would send it (built off the clock).
func (e *benchEnv) call(n int) pipeline.RawCall {
	args, _ := json.Marshal(map[string]string{"code": e.sc.runProgram(n), "description": describeScenario(e.sc, n)})
	return pipeline.RawCall{ID: "call-" + strconv.Itoa(n), Name: registry.RunCodeName, Arguments: string(args)}
}

// exec runs one run_code call on the sandbox created for it and returns the program's
// output, or an error for a failed run.
func (e *benchEnv) exec(ctx context.Context, call pipeline.RawCall) (json.RawMessage, []string, error) {
	res, rep := e.ex.Run(ctx, e.set, call)
	if res.IsError() {
		return nil, nil, fmt.Errorf("%s: %s failed: %s", e.sc.ID, call.ID, res.Text())
	}
	if rep == nil {
		return nil, nil, fmt.Errorf("%s: %s: run_code made no report", e.sc.ID, call.ID)
	}
	return rep.Value, rep.Logs, nil
}

// lineHead opens the report line of a scenario that ran: who ran it, which scenario in
// which mode, and whether it passed.
type lineHead struct {
	Peer     string `json:"peer"`
	Scenario string `json:"scenario"`
	Name     string `json:"name"`
	Mode     string `json:"mode"`
	OK       bool   `json:"ok"`
}

// passed is the head of the line of sc when it passed.
func passed(sc *scenario) lineHead {
	return lineHead{Peer: benchPeer, Scenario: sc.ID, Name: sc.Name, Mode: sc.Mode, OK: true}
}

// warmReport is the report line of a warm scenario.
type warmReport struct {
	lineHead
	SetupMs   float64        `json:"setupMs"`
	Runs      int            `json:"runs"`
	Warmup    int            `json:"warmup"`
	CreateMs  stats          `json:"createMs"`
	ExecMs    stats          `json:"execMs"`
	DisposeMs stats          `json:"disposeMs"`
	TotalMs   stats          `json:"totalMs"`
	WallMs    float64        `json:"wallMs"`
	HostCalls int64          `json:"hostCalls"`
	PeakRSSMB float64        `json:"peakRssMB"`
	Mem       memSnapshot    `json:"mem"`
	Extra     map[string]any `json:"extra"`
}

// benchExtra says how runcode runs the scenarios, for the extra object of every line.
func benchExtra(f *Options) map[string]any {
	return map[string]any{
		"isolation":           f.Isolation,
		"toolResults":         "direct conversion: the tool's JSON text becomes a fresh JS value on every call through runcode's own decoder (JSON.parse semantics, not JSON.parse)",
		"argumentsValidated":  true,
		"argumentValidation":  "every tool call's arguments are validated against the tool's inputSchema (JSON Schema) by the pipeline, and run_code's own arguments against its schema",
		"path":                "each run is one run_code call through the ptc executor and the pipeline (sub-calls through the full pipeline, policy stages empty)",
		"create":              createNote(f),
		"dispose":             disposeNote(f),
		"maxParallelSubCalls": f.MaxParallel,
		"limits":              "runcode defaults: compute 60s, wall clock 600s, output 1 MiB, heap sampler 512 MiB, stack depth 10000; interrupts on",
		"gcPercent":           gcNote(f),
		"go":                  goruntime.Version(),
		"gomaxprocs":          goruntime.GOMAXPROCS(0),
	}
}

func benchWarm(ctx context.Context, sc *scenario, f *Options) any {
	env, err := newBenchEnv(ctx, sc, f)
	if err != nil {
		return fail(sc, err)
	}
	defer env.close()

	runs := sc.warmup + sc.measured
	var create, execd, disposed, total []float64
	start := time.Now()
	for i := 0; i < runs; i++ {
		call := env.call(i + 1)
		a := time.Now()
		dispose, err := env.create()
		if err != nil {
			return fail(sc, err)
		}
		b := time.Now()
		value, logs, err := env.exec(ctx, call)
		c := time.Now()
		dispose()
		d := time.Now()
		if err != nil {
			return fail(sc, err)
		}
		if i == 0 || i == sc.warmup {
			if err := sc.check(value, logs); err != nil {
				return fail(sc, fmt.Errorf("run %d: %v", i+1, err))
			}
		}
		if i >= sc.warmup {
			create = append(create, ms(b.Sub(a)))
			execd = append(execd, ms(c.Sub(b)))
			disposed = append(disposed, ms(d.Sub(c)))
			total = append(total, ms(d.Sub(a)))
		}
	}
	wall := time.Since(start)
	return &warmReport{
		lineHead: passed(sc), SetupMs: round3(ms(env.setup)), Runs: sc.measured, Warmup: sc.warmup,
		CreateMs: summarize(create), ExecMs: summarize(execd), DisposeMs: summarize(disposed), TotalMs: summarize(total),
		WallMs: round3(ms(wall)), HostCalls: env.tools.calls.Load(), PeakRSSMB: peakRSSMB(), Mem: readMem(),
		Extra: benchExtra(f),
	}
}

// startProfiles starts the CPU profile; the returned function stops it and writes the
// allocation profile.
func startProfiles(f *Options) (func(), error) {
	var cpu *os.File
	if f.CPUProfile != "" {
		var err error
		if cpu, err = os.Create(f.CPUProfile); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if f.MemProfile != "" {
			if mem, err := os.Create(f.MemProfile); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(mem, 0)
				mem.Close()
			}
		}
	}, nil
}

// gcNote says at which GOGC the programs ran, for extra.gcPercent: the workers' (the
// command's --gc-percent, or their default), or this process's as the command left it.
func gcNote(f *Options) any {
	if f.Isolation != benchProcess {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	if f.GCPercent > 0 {
		return f.GCPercent
	}
	return "the worker's default"
}

func disposeNote(f *Options) string {
	if f.Isolation == benchProcess {
		return "nothing on the host: the worker drops its VM after the run; peakRssMB and mem are the host process's, the workers' memory is not in them"
	}
	return "drops the VM; Go's GC reclaims it later"
}

func createNote(f *Options) string {
	if f.Isolation == benchProcess {
		return "not separable with --isolation process: a run is one Run on the worker pool (a warm worker process with its own warm VM pool); createMs and disposeMs are 0 and exec holds everything"
	}
	return "a fresh goja VM with runcode's globals built synchronously (a sandbox of the in-process pool); the tools namespace (O(1), members materialize on first access) is installed at the start of exec, because run_code binds tools per call"
}

package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/sdkgen"
)

// budgetFlags are the run budgets (docs/run_code.md, "Budgets") that `run` and `serve`
// both take, so that the two commands spell, document and check them the same way.
type budgetFlags struct {
	timeout, compute      time.Duration
	maxOutput             byteSize
	maxImageBytes         byteSize
	maxParallel, maxCalls int
	truncate              bool
	sdkBudget             int
	noInferredTypes       bool
}

// register adds the budget flags to fs.
func (b *budgetFlags) register(fs *flag.FlagSet) {
	fs.Var((*duration)(&b.timeout), "timeout", "wall-clock `DURATION` budget of a run, e.g. 30s, from 1ms to 24h (default 600s)")
	fs.Var((*duration)(&b.compute), "compute", "compute `DURATION` budget of a run (time spent running JavaScript), from 1ms to 24h (default 60s)")
	fs.Var(&b.maxOutput, "max-output", "output budget of a run in `BYTES`, e.g. 65536 or 64KiB, from 1KiB to 1GiB (logs + result as JSON; default 1MiB); over it a run fails with output-limit, unless --truncate-output")
	fs.BoolVar(&b.truncate, "truncate-output", false, "cut output over --max-output instead of failing the run with output-limit: the result is cut to valid JSON with \"…N more items\" / \"…N more bytes\" markers, logs are cut with a marker, and the text opens with a one-line warning")
	fs.Var(&b.maxImageBytes, "max-image-bytes", "image data a run attaches to its result, in `BYTES` of base64 (about 4/3 of the files' size), from 1 to 1GiB (default 16MiB); images past it, or past the 20th, are left out and the text's last line says how many")
	fs.IntVar(&b.maxParallel, "max-parallel", 0, "`N` parallel-safe sub-calls of a run that may overlap, from 1 to 1000 (default 10)")
	fs.IntVar(&b.maxCalls, "max-calls", 0, "cap on sub-calls per run, `N`, at least 1 (default no cap)")
	registerSDKBudget(fs, &b.sdkBudget)
	fs.BoolVar(&b.noInferredTypes, "no-inferred-types", false, inferredTypesHelp)
}

// inferredTypesHelp documents --no-inferred-types.
const inferredTypesHelp = "declare the result of a tool without an output schema as JsonValue, instead of the type learned from its results (kept in --store, when given)"

// registerSDKBudget adds --sdk-budget to fs.
func registerSDKBudget(fs *flag.FlagSet, v *int) {
	fs.IntVar(v, "sdk-budget", sdkgen.DefaultBudget, "`BYTES` of declarations the SDK section may take; past it the section lists the tools as an index and programs look declarations up with tools.$search and tools.$describe (0: the default, 16384; negative: always the full SDK, as ptc.Options.SDKBudget)")
}

// The ranges of the budget flags. A flag left out means the library's default (a
// zero field); a value given must be in range, so that 0 never silently means the
// default and a budget no run can meet (an output budget of 3 bytes) is refused.
const (
	minDuration  = time.Millisecond
	maxDuration  = 24 * time.Hour
	minOutput    = 1 << 10
	maxOutput    = 1 << 30
	maxParallels = 1000
)

// check returns what is wrong with the budgets, or "". set names the flags given on
// the command line.
func (b *budgetFlags) check(set map[string]bool) string {
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"timeout", b.timeout}, {"compute", b.compute}} {
		if set[d.name] && (d.value < minDuration || d.value > maxDuration) {
			return fmt.Sprintf("--%s must be between 1ms and 24h, got %v", d.name, d.value)
		}
	}
	switch {
	case set["max-output"] && (b.maxOutput < minOutput || b.maxOutput > maxOutput):
		return fmt.Sprintf("--max-output must be between 1KiB and 1GiB, got %v", &b.maxOutput)
	case b.maxImageBytes < 0 || b.maxImageBytes > maxImageBytes:
		top, def := maxImageBytes, byteSize(ptc.DefaultMaxImageBytes)
		return fmt.Sprintf("--max-image-bytes must be from 1 byte to %s, or 0 for the default %s; got %s", top.String(), def.String(), b.maxImageBytes.String())
	case set["max-parallel"] && (b.maxParallel < 1 || b.maxParallel > maxParallels):
		return fmt.Sprintf("--max-parallel must be between 1 and %d, got %d", maxParallels, b.maxParallel)
	case set["max-calls"] && b.maxCalls < 1:
		return fmt.Sprintf("--max-calls must be at least 1 (leave it out for no cap), got %d", b.maxCalls)
	}
	return ""
}

// flagsSet returns the names of the flags given on fs's command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// maxImageBytes bounds --max-image-bytes: a run's records, which hold its images until
// it ends, are bounded by its heap budget anyway, and a larger response is one that no
// model API takes.
const maxImageBytes byteSize = 1 << 30

// options returns the executor options that apply the budgets to runs on pool.
func (b *budgetFlags) options(pool ptc.Runner) *ptc.Options {
	return &ptc.Options{
		Pool: pool,
		Limits: &runtime.Limits{
			WallClock: b.timeout, Compute: b.compute, OutputBytes: int(b.maxOutput),
		},
		MaxParallelSubCalls: b.maxParallel,
		MaxSubCalls:         b.maxCalls,
		TruncateOutput:      b.truncate,
		MaxImageBytes:       int64(b.maxImageBytes),
		SDKBudget:           b.sdkBudget,
		NoInferredTypes:     b.noInferredTypes,
	}
}

// byteSize is a flag value in bytes: an integer, optionally followed by KiB, MiB or GiB.
type byteSize int64

var byteUnits = []struct {
	suffix string
	size   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}}

func (s *byteSize) Set(text string) error {
	num, unit := text, int64(1)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(text, u.suffix); ok {
			num, unit = strings.TrimSpace(n), u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > (1<<62)/unit || n < -(1<<62)/unit {
		// The flag package prefixes the flag's name and the value.
		return fmt.Errorf("want a number of bytes, optionally followed by KiB, MiB or GiB (e.g. 1048576 or 1MiB)")
	}
	*s = byteSize(n * unit)
	return nil
}

func (s *byteSize) String() string {
	if s == nil || *s == 0 {
		return "0"
	}
	for i := len(byteUnits) - 1; i >= 0; i-- {
		if u := byteUnits[i]; int64(*s)%u.size == 0 {
			return strconv.FormatInt(int64(*s)/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(*s), 10)
}

// duration is a flag value like flag.Duration's, whose error says what a duration looks
// like (the flag package's says only "parse error").
type duration time.Duration

func (d *duration) Set(text string) error {
	v, err := time.ParseDuration(text)
	if err != nil {
		if _, nerr := strconv.ParseFloat(strings.TrimSpace(text), 64); nerr == nil {
			// A bare number: say which unit, rather than only that one is missing.
			return fmt.Errorf("a duration needs a unit: %ss for seconds or %sms for milliseconds (units: ms, s, m, h)", strings.TrimSpace(text), strings.TrimSpace(text))
		}
		return fmt.Errorf("want a duration with a unit, e.g. 30s, 2m or 500ms")
	}
	*d = duration(v)
	return nil
}

func (d *duration) String() string {
	if d == nil || *d == 0 {
		return "0s"
	}
	return time.Duration(*d).String()
}

// outputLimitHint is what the CLI adds (on stderr, outside the model-facing text) when a
// run failed at its output budget: the flags that change that.
func outputLimitHint(b *budgetFlags) string {
	budget := "the default 1MiB"
	if b.maxOutput > 0 {
		budget = b.maxOutput.String()
	}
	return fmt.Sprintf("the run's output went over its budget (%s): raise it with --max-output (e.g. --max-output 4MiB), or pass --truncate-output to cut the output instead of failing", budget)
}

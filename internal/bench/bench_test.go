package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime/worker"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerArg {
		// The worker processes of the benchmarks in process isolation: this test binary,
		// re-executed, in the worker role, as runcode's __worker.
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	testleak.VerifyTestMain(m)
}

// s1Path and s2Path are scenarios S1 (trivial) and S2 (sequential) of the set Run
// reads by default, from the repository's root.
var (
	s1Path = filepath.Join("..", "..", defaultScenarios, "s1-trivial.json")
	s2Path = filepath.Join("..", "..", defaultScenarios, "s2-sequential.json")
)

func TestParseScenarioRejects(t *testing.T) {
	good := map[string]any{}
	if err := json.Unmarshal([]byte(testfs.Read(t, s2Path)), &good); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"other format", func(m map[string]any) { m["format"] = "codemode-bench-scenario/v2" },
			`format is "codemode-bench-scenario/v2"; runcode bench reads only "codemode-bench-scenario/v1"`},
		{"no format", func(m map[string]any) { delete(m, "format") }, `format is ""; runcode bench reads only`},
		{"unknown field", func(m map[string]any) { m["iteration"] = 3 }, `not a scenario: json: unknown field "iteration"`},
		{"no id", func(m map[string]any) { delete(m, "id") }, "id is missing"},
		{"bad mode", func(m map[string]any) { m["mode"] = "hot" }, `S2: mode is "hot"; want warm, cold or memory`},
		{"no measured", func(m map[string]any) { m["iterations"] = map[string]any{"warmup": 1} }, "S2: iterations needs warmup and measured"},
		{"zero measured", func(m map[string]any) { m["iterations"] = map[string]any{"warmup": 1, "measured": 0} }, "S2: iterations.measured must be at least 1, got 0"},
		{"negative warmup", func(m map[string]any) { m["iterations"] = map[string]any{"warmup": -1, "measured": 2} }, "S2: iterations.warmup must not be negative, got -1"},
		{"memory without sandboxes", func(m map[string]any) { m["mode"] = "memory" }, "S2: memory mode needs sandboxes of at least 1, got 0"},
		{"no code", func(m map[string]any) { delete(m, "code") }, "S2: code is missing"},
		{"no expect", func(m map[string]any) { delete(m, "expect") }, "S2: expect needs result and logs"},
		{"no expected logs", func(m map[string]any) { m["expect"] = map[string]any{"result": nil} }, "S2: expect needs result and logs"},
		{"bad tool name", func(m map[string]any) { tool(m)["name"] = "my-tool" }, `S2: tools[0].name "my-tool" is not a JavaScript identifier`},
		{"bad behavior", func(m map[string]any) { tool(m)["behavior"] = map[string]any{"type": "fail"} }, `S2: tool "echo": behavior type "fail"; want echo, sleep or rows`},
		{"sleep without ms", func(m map[string]any) { tool(m)["behavior"] = map[string]any{"type": "sleep"} }, `S2: tool "echo": behavior sleep needs ms of at least 0`},
		{"rows without count", func(m map[string]any) { tool(m)["behavior"] = map[string]any{"type": "rows"} }, `S2: tool "echo": behavior rows needs count of at least 0`},
		{"duplicate tool", func(m map[string]any) { m["tools"] = append(m["tools"].([]any), m["tools"].([]any)[0]) }, `S2: tool "echo" is declared twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			_ = json.Unmarshal([]byte(testfs.Read(t, s2Path)), &m)
			tt.change(m)
			data, _ := json.Marshal(m)
			_, err := parseScenario(data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := parseScenario([]byte(testfs.Read(t, s2Path) + " {}")); err == nil || !strings.Contains(err.Error(), "text after the JSON object") {
		t.Errorf("trailing text: got %v", err)
	}
	if _, err := parseScenario([]byte(testfs.Read(t, s2Path))); err != nil {
		t.Errorf("S2: %v", err)
	}
}

func tool(m map[string]any) map[string]any { return m["tools"].([]any)[0].(map[string]any) }

// The scenarios kept in the repository parse, and are what runcode bench runs when it is
// given no files.
func TestRepositoryScenarios(t *testing.T) {
	t.Chdir("../..")
	files, err := ScenarioFiles(nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		sc, err := readScenario(f)
		if err != nil {
			t.Error(err)
			continue
		}
		ids = append(ids, sc.ID)
	}
	if want := []string{"S1", "S2", "S3", "S4", "S5", "S6", "S7"}; !slices.Equal(ids, want) {
		t.Errorf("default scenarios %v, want %v", ids, want)
	}
	if got, _ := ScenarioFiles([]string{"x.json"}); !slices.Equal(got, []string{"x.json"}) {
		t.Errorf("named files: got %v", got)
	}
	t.Chdir(t.TempDir())
	if _, err := ScenarioFiles(nil); err == nil || !strings.Contains(err.Error(), "bench/scenarios/") {
		t.Errorf("no scenarios here: got %v", err)
	}
}

// The format says: JSON.stringify of 10,000 rows is 1,170,851 bytes.
func TestRowsFormula(t *testing.T) {
	data := rowsJSON(10000)
	if len(data) != 1170851 {
		t.Errorf("10,000 rows are %d bytes, want 1,170,851", len(data))
	}
	first := `[{"id":1,"category":"books","region":"us-east","priceCents":100,"qty":0,"active":false,"created":"2024-01-01"},` +
		`{"id":2,"category":"electronics","region":"eu-central","priceCents":8019,"qty":31,"active":true,"created":"2024-02-02"}`
	if !strings.HasPrefix(string(data), first) {
		t.Errorf("rows start %s, want %s", data[:len(first)], first)
	}
	v, text, err := rowsValue(10000)
	if err != nil || text != string(data) || v.String() != text {
		t.Errorf("rowsValue: %v; text equal %v", err, text == string(data))
	}
}

func TestNearestRank(t *testing.T) {
	s := summarize([]float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6})
	want := stats{N: 10, Median: 5, P90: 9, Min: 1, Max: 10, Mean: 5.5}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	// p90 of 11 values is the value at rank ceil(9.9) = 10; the median at rank ceil(5.5) = 6.
	s = summarize([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	if s.P90 != 10 || s.Median != 6 {
		t.Errorf("11 values: got %+v", s)
	}
	if s := summarize([]float64{0.25}); s.Median != 0.25 || s.P90 != 0.25 {
		t.Errorf("one value: got %+v", s)
	}
	if s := summarize(nil); s.N != 0 {
		t.Errorf("no values: got %+v", s)
	}
}

func TestCheckExpect(t *testing.T) {
	sc, err := parseScenario([]byte(testfs.Read(t, s2Path)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.check(json.RawMessage(`{"last":"msg-9","total":45.0,"first":"msg-0"}`), []string{"calls 10"}); err != nil {
		t.Errorf("equal output: %v", err)
	}
	if err := sc.check(json.RawMessage(`{"total":44,"first":"msg-0","last":"msg-9"}`), []string{"calls 10"}); err == nil || !strings.Contains(err.Error(), "S2: expect failed: result is") {
		t.Errorf("other result: %v", err)
	}
	if err := sc.check(json.RawMessage(`{"total":45,"first":"msg-0","last":"msg-9"}`), []string{"calls  10"}); err == nil || !strings.Contains(err.Error(), `expect failed: logs are ["calls  10"], want ["calls 10"]`) {
		t.Errorf("other logs: %v", err)
	}
	sc.Expect.Result = json.RawMessage("null") // do not check the result
	if err := sc.check(nil, []string{"calls 10"}); err != nil {
		t.Errorf("unchecked result: %v", err)
	}
}

func TestRunProgramIsUnique(t *testing.T) {
	sc, _ := parseScenario([]byte(testfs.Read(t, s1Path)))
	if got := sc.runProgram(7); got != "return 1 + 1;\n//# run 7" {
		t.Errorf("got %q", got)
	}
}

// The cold child's work, in this process: one sandbox, one run, checked.
func TestColdRun(t *testing.T) {
	path := testfs.Temp(t, "scenario.json", strings.Replace(testfs.Read(t, s2Path), `"mode": "warm"`, `"mode": "cold"`, 1))
	f := &Options{Isolation: benchInProcess, MaxParallel: 10}
	now := time.Now()
	line := coldRun(context.Background(), path, 3, f, now, now)
	if !line.OK || line.HostCalls != 10 || line.ProcessStartToResultMs <= 0 {
		t.Fatalf("line: %+v", line)
	}
	bad := testfs.Temp(t, "scenario.json", strings.Replace(strings.Replace(testfs.Read(t, s2Path), `"mode": "warm"`, `"mode": "cold"`, 1), `"calls 10"`, `"calls"`, 1))
	if line := coldRun(context.Background(), bad, 1, f, now, now); line.OK || !strings.Contains(line.Error, "expect failed") {
		t.Fatalf("mismatch: %+v", line)
	}
}

const s4Text = `{"format":"codemode-bench-scenario/v1","id":"S4","name":"data","description":"d","mode":"warm",
  "iterations":{"warmup":5,"measured":50},
  "tools":[{"name":"list_orders","description":"d","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":10000}},"additionalProperties":false},"behavior":{"type":"rows","count":10000}}],
  "code":"const rows = await tools.list_orders({ limit: 10000 });\nconst active = rows.filter(function (r) { return r.active && r.qty > 10; });\nreturn { total: rows.length, active: active.length };",
  "expect":{"result":{"total":10000,"active":5200},"logs":[]}}`

// benchScenarioEnv parses a scenario's text and sets up its in-process bench
// environment, closed when b ends.
func benchScenarioEnv(b *testing.B, text string) (*scenario, *benchEnv) {
	b.Helper()
	sc, err := parseScenario([]byte(text))
	if err != nil {
		b.Fatal(err)
	}
	env, err := newBenchEnv(context.Background(), sc, &Options{Isolation: benchInProcess, MaxParallel: 1000})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(env.close)
	return sc, env
}

// prepare returns run n's call and the dispose of the sandbox created for it.
func prepare(b *testing.B, env *benchEnv, n int) (pipeline.RawCall, func()) {
	b.Helper()
	call := env.call(n)
	dispose, err := env.create()
	if err != nil {
		b.Fatal(err)
	}
	return call, dispose
}

// checkRun fails the benchmark on run n's error, and on run 1's output if the scenario
// does not expect it.
func checkRun(b *testing.B, sc *scenario, n int, value json.RawMessage, logs []string, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
	if n == 1 {
		if err := sc.check(value, logs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScenario times one run of a scenario as runcode bench does (create, exec,
// dispose: a fresh VM and one run_code call through the pipeline). Run narrowly, e.g.
//
//	go test -run '^$' -bench Scenario -benchtime 200x ./internal/bench/
func BenchmarkScenario(b *testing.B) {
	for _, c := range []struct{ name, text string }{{"S1", testfs.Read(b, s1Path)}, {"S2", testfs.Read(b, s2Path)}, {"S4-rows", s4Text}} {
		b.Run(c.name, func(b *testing.B) {
			sc, env := benchScenarioEnv(b, c.text)
			b.ReportAllocs()
			benchRuns(b, sc, env)
		})
	}
}

// benchRuns times the runs of sc on env as runcode bench does (create, exec, dispose each),
// checking the first run's output against the scenario's expect.
func benchRuns(b *testing.B, sc *scenario, env *benchEnv) {
	b.Helper()
	n := 0
	for b.Loop() {
		n++
		call, dispose := prepare(b, env, n)
		value, logs, err := env.exec(context.Background(), call)
		dispose()
		checkRun(b, sc, n, value, logs, err)
	}
}

// Without go on PATH the cold floor is skipped with the reason.
func TestGoFloorSkipsWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	got, ok := goFloor(context.Background(), 2, 1, nil).(*skippedFloor)
	if !ok || !got.Skipped || got.Reason != "go is not on PATH, so no hello-world binary can be built" {
		t.Fatalf("got %#v", got)
	}
}

const s3Text = `{"format":"codemode-bench-scenario/v1","id":"S3","name":"fanout","description":"d","mode":"warm",
  "iterations":{"warmup":5,"measured":50},
  "tools":[{"name":"slow_lookup","description":"d","inputSchema":{"type":"object","properties":{"i":{"type":"integer"}},"required":["i"],"additionalProperties":false},"behavior":{"type":"sleep","ms":10}}],
  "code":"const pending = [];\nfor (let i = 0; i < 100; i++) {\n  pending.push(tools.slow_lookup({ i: i }));\n}\nconst answers = await Promise.all(pending);\nlet sum = 0;\nfor (const a of answers) sum += a.i;\nconsole.log(\"answers\", answers.length);\nreturn { n: answers.length, sum: sum };",
  "expect":{"result":{"n":100,"sum":4950},"logs":["answers 100"]}}`

// BenchmarkS3Timeline splits a run of bench scenario S3 (100 calls under Promise.all to a
// tool that answers after a 10 ms timer) into where its time goes, as medians over the
// runs: from the run's start to the first tool body's start, from the first body's start
// to the last's, how late the last body resumes after its timer was due, and from then
// to the end of the run. The tool is the scenario's sleep behaviour, instrumented.
func BenchmarkS3Timeline(b *testing.B) {
	sc, env := benchScenarioEnv(b, s3Text)
	var (
		mu           sync.Mutex
		starts, ends []time.Time
	)
	env.set = testreg.ResolveIn(b, testreg.Scope(b, registry.ModePTC), &registry.Tool{
		Name:              "slow_lookup",
		Parameters:        registry.RawSchema(sc.Tools[0].InputSchema),
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(ctx context.Context, c *registry.Call) (any, error) {
			start := time.Now()
			t := time.NewTimer(10 * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			end := time.Now()
			mu.Lock()
			starts, ends = append(starts, start), append(ends, end)
			mu.Unlock()
			return c.Args, nil
		},
	})
	var first, spread, late, tail []time.Duration
	n := 0
	for b.Loop() {
		n++
		call, dispose := prepare(b, env, n)
		starts, ends = starts[:0], ends[:0]
		t0 := time.Now()
		value, logs, err := env.exec(context.Background(), call)
		t1 := time.Now()
		dispose()
		checkRun(b, sc, n, value, logs, err)
		slices.SortFunc(starts, time.Time.Compare)
		slices.SortFunc(ends, time.Time.Compare)
		last := starts[len(starts)-1]
		first = append(first, starts[0].Sub(t0))
		spread = append(spread, last.Sub(starts[0]))
		late = append(late, ends[len(ends)-1].Sub(last.Add(10*time.Millisecond)))
		tail = append(tail, t1.Sub(ends[len(ends)-1]))
	}
	for _, m := range []struct {
		unit string
		d    []time.Duration
	}{{"ms-to-first-start", first}, {"ms-first-to-last-start", spread}, {"ms-last-late", late}, {"ms-last-end-to-done", tail}} {
		slices.Sort(m.d)
		b.ReportMetric(float64(m.d[len(m.d)/2])/1e6, m.unit)
	}
}

// What only the command can give: without a way to start workers, --isolation process
// fails the scenario; without a command line to re-execute, a cold scenario fails; each
// with a line that says why.
func TestOptionsFromTheCommand(t *testing.T) {
	warm := s1Path
	cold := testfs.Temp(t, "scenario.json", strings.Replace(testfs.Read(t, s1Path), `"mode": "warm"`, `"mode": "cold"`, 1))
	tests := []struct {
		name  string
		path  string
		opts  Options
		error string
	}{
		{"no workers", warm, Options{Isolation: benchProcess},
			"--isolation process: this harness was given no way to start worker processes"},
		{"workers fail", warm, Options{Isolation: benchProcess, NewWorkers: func() (ptc.Runner, func() error, error) { return nil, nil, errors.New("no workers here") }},
			"no workers here"},
		{"no cold command", cold, Options{Isolation: benchInProcess},
			"this harness was given no command line to re-execute for a cold run"},
		{"cold command fails", cold, Options{Isolation: benchInProcess, ColdCommand: func() ([]string, error) { return nil, errors.New("finding it: gone") }},
			"finding it: gone"},
		{"empty cold command", cold, Options{Isolation: benchInProcess, ColdCommand: func() ([]string, error) { return nil, nil }},
			"the command line to re-execute for a cold run is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Warmup, o.Measured, o.MaxParallel = 0, 1, 10
			var out bytes.Buffer
			ok, err := Run(context.Background(), []string{tt.path}, &o, &out)
			if ok || err != nil {
				t.Fatalf("Run: ok %v, err %v; want a failed scenario", ok, err)
			}
			var got failureLine
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%v: %s", err, out.Bytes())
			}
			mode := "warm"
			if tt.path == cold {
				mode = "cold"
			}
			want := failureLine{Peer: "runcode", Scenario: "S1", Name: "trivial", Mode: mode, Error: tt.error}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("line (-want +got):\n%s", diff)
			}
		})
	}
}

// A profile that cannot be written stops Run before any scenario runs.
func TestRunProfileError(t *testing.T) {
	o := Options{Isolation: benchInProcess, Warmup: -1, Measured: -1, MaxParallel: 1, CPUProfile: filepath.Join(t.TempDir(), "no", "cpu.prof")}
	var out bytes.Buffer
	ok, err := Run(context.Background(), []string{s1Path}, &o, &out)
	if ok || err == nil || !strings.HasPrefix(err.Error(), "--cpuprofile: ") || out.Len() != 0 {
		t.Fatalf("ok %v, err %v, output %q; want a --cpuprofile error and no line", ok, err, out.String())
	}
}

// ColdRun writes the cold child's one line and says whether the run passed.
func TestColdRunWritesLine(t *testing.T) {
	path := testfs.Temp(t, "scenario.json", strings.Replace(testfs.Read(t, s1Path), `"mode": "warm"`, `"mode": "cold"`, 1))
	o := Options{Isolation: benchInProcess, MaxParallel: 10}
	var out bytes.Buffer
	now := time.Now()
	if !ColdRun(context.Background(), path, 1, &o, now, now, &out) {
		t.Fatalf("ColdRun failed: %s", out.String())
	}
	var line coldLine
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || !line.OK || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("line %q: %v", out.String(), err)
	}
	out.Reset()
	if ColdRun(context.Background(), filepath.Join(t.TempDir(), "missing.json"), 1, &o, now, now, &out) {
		t.Fatalf("a missing scenario passed: %s", out.String())
	}
	if !strings.Contains(out.String(), `"ok":false,"error":"`) || !strings.Contains(out.String(), "missing.json: cannot read the scenario: no such file or directory") {
		t.Errorf("line %q", out.String())
	}
}

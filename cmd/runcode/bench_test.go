package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testfs"
)

// scenariosDir holds the S1-S7 scenarios that runcode bench runs by default.
const scenariosDir = "../../bench/scenarios"

// s1Path and s2Path are S1 (trivial) and S2 (sequential).
var s1Path, s2Path = filepath.Join(scenariosDir, "s1-trivial.json"), filepath.Join(scenariosDir, "s2-sequential.json")

// benchLine runs runcode bench and decodes its one report line: in process, unless args
// name an isolation mode.
func benchLine(t *testing.T, wantCode int, args ...string) map[string]any {
	t.Helper()
	if !slices.Contains(args, "--isolation") {
		args = append([]string{"--isolation", isolationInProcess}, args...)
	}
	code, stdout, stderr := runCLI(t, append([]string{"bench"}, args...)...)
	if code != wantCode {
		t.Fatalf("exit %d, want %d; stdout %s; stderr %s", code, wantCode, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line, got %q", stdout)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatalf("%v: %s", err, lines[0])
	}
	return line
}

func TestBenchWarmS1(t *testing.T) {
	line := benchLine(t, 0, "--warmup", "1", "--measured", "3", s1Path)
	if line["ok"] != true || line["peer"] != "runcode" || line["scenario"] != "S1" || line["mode"] != "warm" || line["runs"] != 3.0 || line["warmup"] != 1.0 {
		t.Fatalf("line: %v", line)
	}
	for _, k := range []string{"createMs", "execMs", "disposeMs", "totalMs"} {
		s, ok := line[k].(map[string]any)
		if !ok || s["n"] != 3.0 {
			t.Errorf("%s: %v", k, line[k])
		}
	}
	extra := line["extra"].(map[string]any)
	if extra["argumentsValidated"] != true || !strings.Contains(extra["toolResults"].(string), "direct conversion") {
		t.Errorf("extra: %v", extra)
	}
}

func TestBenchWarmS2CountsCalls(t *testing.T) {
	line := benchLine(t, 0, "--warmup", "1", "--measured", "2", s2Path)
	if line["ok"] != true || line["hostCalls"] != 30.0 {
		t.Fatalf("line: %v", line)
	}
}

func TestBenchExpectMismatchFails(t *testing.T) {
	text := strings.Replace(testfs.Read(t, s2Path), `"logs": ["calls 10"]`, `"logs": ["calls 11"]`, 1)
	line := benchLine(t, 1, "--warmup", "0", "--measured", "1", testfs.Temp(t, "scenario.json", text))
	if line["ok"] != false || !strings.Contains(line["error"].(string), `run 1: S2: expect failed: logs are ["calls 10"], want ["calls 11"]`) {
		t.Fatalf("line: %v", line)
	}
}

func TestBenchRejectsOtherFormat(t *testing.T) {
	path := testfs.Temp(t, "scenario.json", strings.Replace(testfs.Read(t, s1Path), "/v1", "/v0", 1))
	line := benchLine(t, 1, path)
	if line["ok"] != false || line["error"] != path+`: format is "codemode-bench-scenario/v0"; runcode bench reads only "codemode-bench-scenario/v1"` {
		t.Fatalf("line: %v", line)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--isolation", "vm", "x.json"}, `runcode bench: --isolation must be both, process or in-process, got "vm"`},
		{[]string{"--measured", "0", "x.json"}, "runcode bench: --measured must be at least 1, got 0"},
		{[]string{"--cold-child"}, "runcode bench --cold-child: takes one scenario, got 0 arguments"},
		{[]string{"--cold-child", "--isolation", "vm", "x.json"}, `runcode bench: --isolation must be both, process or in-process, got "vm"`},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"bench"}, tt.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// Every rows call gives the program a fresh value: changing one answer does not change the
// next; a sleep tool answers with its arguments.
func TestBenchRowsFreshAndSleep(t *testing.T) {
	text := `{"format":"codemode-bench-scenario/v1","id":"T","name":"t","description":"d","mode":"warm",
	  "iterations":{"warmup":0,"measured":2},
	  "tools":[{"name":"rows","description":"d","inputSchema":{"type":"object"},"behavior":{"type":"rows","count":3}},
	           {"name":"nap","description":"d","inputSchema":{"type":"object"},"behavior":{"type":"sleep","ms":1}}],
	  "code":"const a = await tools.rows({}); a[0].id = 99; a.pop(); const b = await tools.rows({}); const s = await Promise.all([tools.nap({k: 1}), tools.nap({k: 2})]); console.log('rows', b.length, b[0].id); return [b[2].created, s[1].k];",
	  "expect":{"result":["2024-03-03", 2],"logs":["rows 3 1"]}}`
	line := benchLine(t, 0, testfs.Temp(t, "scenario.json", text))
	if line["ok"] != true || line["hostCalls"] != 8.0 {
		t.Fatalf("line: %v", line)
	}
}

func TestBenchMemory(t *testing.T) {
	text := strings.Replace(strings.Replace(testfs.Read(t, s2Path), `"mode": "warm"`, `"mode": "memory", "sandboxes": 3`, 1), `"warmup": 20`, `"warmup": 1`, 1)
	line := benchLine(t, 0, testfs.Temp(t, "scenario.json", text))
	if line["ok"] != true || line["sandboxes"] != 3.0 || line["hostCalls"] != 40.0 {
		t.Fatalf("line: %v", line)
	}
	for _, k := range []string{"before", "after", "rssPerSandboxMB", "heapPerSandboxMB"} {
		if _, ok := line[k]; !ok {
			t.Errorf("no %s in %v", k, line)
		}
	}
}

// A cold scenario re-executes this binary (the test binary, see TestMain) once per run as
// "bench --cold-child", and reports the runs and the floor.
func TestBenchCold(t *testing.T) {
	path := testfs.Temp(t, "scenario.json", strings.Replace(testfs.Read(t, s2Path), `"mode": "warm"`, `"mode": "cold"`, 1))
	line := benchLine(t, 0, "--warmup", "1", "--measured", "2", path)
	if line["ok"] != true || line["mode"] != "cold" || line["runs"] != 2.0 || line["hostCalls"] != 30.0 {
		t.Fatalf("line: %v", line)
	}
	for _, k := range []string{"spawnToExitMs", "processStartToHarnessMs", "setupMs", "createMs", "execMs", "processStartToResultMs", "peakRssMB"} {
		if s, ok := line[k].(map[string]any); !ok || s["n"] != 2.0 {
			t.Errorf("%s: %v", k, line[k])
		}
	}
	if floor, ok := line["floor"].(map[string]any); !ok || !strings.HasPrefix(floor["what"].(string), "spawn-to-exit of a hello-world Go binary") {
		t.Errorf("floor: %v", line["floor"])
	}
	if extra := line["extra"].(map[string]any); !strings.Contains(extra["cold"].(string), "runcode bench --cold-child") {
		t.Errorf("extra: %v", extra)
	}
	// A failing child's line becomes the scenario's failure.
	bad := testfs.Temp(t, "scenario.json", strings.Replace(strings.Replace(testfs.Read(t, s2Path), `"mode": "warm"`, `"mode": "cold"`, 1), `"calls 10"`, `"calls"`, 1))
	line = benchLine(t, 1, "--warmup", "0", "--measured", "1", bad)
	if line["ok"] != false || !strings.HasPrefix(line["error"].(string), "cold run 1: S2: expect failed: logs are") {
		t.Fatalf("line: %v", line)
	}
}

// With --isolation process the programs run in a worker process (the test binary, see
// TestMain), and the line says so.
func TestBenchWarmProcess(t *testing.T) {
	line := benchLine(t, 0, "--isolation", "process", "--warmup", "1", "--measured", "2", s2Path)
	if line["ok"] != true || line["hostCalls"] != 30.0 || line["extra"].(map[string]any)["isolation"] != "process" {
		t.Fatalf("line: %v", line)
	}
}

// TestBenchBothModes: with no --isolation, bench runs each scenario in process, then in a
// worker process, one report line each.
func TestBenchBothModes(t *testing.T) {
	code, stdout, stderr := runCLI(t, "bench", "--warmup", "0", "--measured", "1", s1Path)
	if code != 0 {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var line struct {
			Scenario string         `json:"scenario"`
			OK       bool           `json:"ok"`
			Extra    map[string]any `json:"extra"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got = append(got, fmt.Sprintf("%s %v %v", line.Scenario, line.OK, line.Extra["isolation"]))
	}
	if diff := cmp.Diff([]string{"S1 true in-process", "S1 true process"}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBenchTable: on a terminal, runcode bench's report lines become a table of
// scenario, mode (and isolation), median, p90 and what the figures measure, one row
// per line as it comes (a line may arrive in pieces); a failed or skipped scenario
// says so on its row.
func TestBenchTable(t *testing.T) {
	lines := []string{
		`{"peer":"runcode","scenario":"S1","name":"trivial","mode":"warm","ok":true,"runs":3,"totalMs":{"n":3,"median":3.125,"p90":7.546},"extra":{"isolation":"in-process","create":"a fresh goja VM with runcode's globals built synchronously"}}`,
		`{"peer":"runcode","scenario":"S6","name":"cold","mode":"cold","ok":true,"runs":2,"spawnToExitMs":{"n":2,"median":123.4,"p90":150.9},"extra":{"isolation":"process"}}`,
		`{"peer":"runcode","scenario":"S7","name":"idle-memory","mode":"memory","ok":true,"sandboxes":100,"rssPerSandboxMB":1.234}`,
		`{"peer":"runcode","scenario":"S2","name":"sequential","mode":"warm","ok":false,"error":"run 1: S2: expect failed: logs are [\"calls 10\"], want [\"calls 11\"]"}`,
		`{"peer":"runcode","scenario":"S7","name":"idle-memory","mode":"memory","ok":true,"skipped":true,"reason":"RSS is not available on this system"}`,
		`{"peer":"runcode","ok":false,"error":"x.json: format is \"v0\""}`,
	}
	var out strings.Builder
	tbl := newBenchTable(&out)
	text := strings.Join(lines, "\n") + "\n"
	for len(text) > 0 { // in pieces, as a pipe may deliver them
		n := min(len(text), 50)
		tbl.Write([]byte(text[:n]))
		text = text[n:]
	}
	tbl.flush()
	want := []string{
		"SCENARIO          MODE                    MEDIAN         P90  WHAT IT MEASURES",
		"S1 trivial        warm, in-process       3.12 ms     7.55 ms  one run: create, exec, dispose (3 runs)",
		"S6 cold           cold, process           123 ms      151 ms  a fresh process, spawn to exit (2 runs)",
		"S7 idle-memory    memory                 1.23 MB           -  RSS per idle warm sandbox (100 sandboxes)",
		`S2 sequential     warm                         -           -  FAILED: run 1: S2: expect failed: logs are ["calls 10"], want ["calls 11"]`,
		"S7 idle-memory    memory                       -           -  skipped: RSS is not available on this system",
		`                                               -           -  FAILED: x.json: format is "v0"`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestBenchJSONFlag: --json (and any stdout that is not a terminal, as in these tests)
// prints the JSON report lines; --help documents both.
func TestBenchJSONFlag(t *testing.T) {
	line := benchLine(t, 0, "--json", "--warmup", "0", "--measured", "1", s1Path)
	if line["ok"] != true || line["scenario"] != "S1" {
		t.Errorf("line: %v", line)
	}
	if _, err := json.Marshal(line); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "bench", "--help")
	for _, want := range []string{"-json", "when stdout is a terminal", "a table"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("bench --help lacks %q:\n%s", want, stdout)
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// benchOutput is where runcode bench writes its report lines: stdout as is (one JSON
// line per scenario, for scripts and the peers harness) with --json or when stdout is
// not a terminal, else a table for a person. flush ends the table.
func benchOutput(stdout io.Writer, asJSON bool) (w io.Writer, flush func()) {
	if f, ok := stdout.(*os.File); asJSON || !ok || !isTerminal(f) {
		return stdout, func() {}
	}
	t := newBenchTable(stdout)
	return t, t.flush
}

// benchTable turns report lines into rows: scenario, mode, median, p90 and what the
// figures measure. Rows are printed as their scenarios finish, so the columns have
// fixed widths (a longer cell pushes the rest of its row).
type benchTable struct {
	out     io.Writer
	pending []byte // a line not yet ended
	header  bool
}

func newBenchTable(out io.Writer) *benchTable { return &benchTable{out: out} }

func (t *benchTable) Write(p []byte) (int, error) {
	t.pending = append(t.pending, p...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		t.row(t.pending[:i])
		t.pending = t.pending[i+1:]
	}
}

// flush prints a last line that did not end with a newline.
func (t *benchTable) flush() {
	if len(bytes.TrimSpace(t.pending)) > 0 {
		t.row(t.pending)
	}
	t.pending = nil
}

// benchStats is a stats object of a report line.
type benchStats struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
}

// benchReport is what the table reads of a report line (internal/bench writes it).
type benchReport struct {
	Scenario      string          `json:"scenario"`
	Name          string          `json:"name"`
	Mode          string          `json:"mode"`
	OK            bool            `json:"ok"`
	Error         string          `json:"error"`
	Skipped       bool            `json:"skipped"`
	Reason        string          `json:"reason"`
	Runs          int             `json:"runs"`
	TotalMs       *benchStats     `json:"totalMs"`
	SpawnToExitMs *benchStats     `json:"spawnToExitMs"`
	Sandboxes     int             `json:"sandboxes"`
	RSSPerSandbox *float64        `json:"rssPerSandboxMB"`
	Extra         json.RawMessage `json:"extra"`
}

// row prints the row of one report line (and the header before the first).
func (t *benchTable) row(line []byte) {
	if !t.header {
		t.header = true
		t.cells("SCENARIO", "MODE", "MEDIAN", "P90", "WHAT IT MEASURES")
	}
	var r benchReport
	if err := json.Unmarshal(line, &r); err != nil {
		t.cells("?", "", "", "", strings.TrimSpace(string(line)))
		return
	}
	var extra struct {
		Isolation string `json:"isolation"`
	}
	_ = json.Unmarshal(r.Extra, &extra)
	name := strings.TrimSpace(r.Scenario + " " + r.Name)
	mode := r.Mode
	if extra.Isolation != "" {
		mode += ", " + extra.Isolation
	}
	median, p90, what := "-", "-", ""
	switch {
	case !r.OK:
		what = "FAILED: " + firstLine(r.Error)
	case r.Skipped:
		what = "skipped: " + firstLine(r.Reason)
	case r.SpawnToExitMs != nil:
		median, p90 = ms(r.SpawnToExitMs.Median), ms(r.SpawnToExitMs.P90)
		what = fmt.Sprintf("a fresh process, spawn to exit (%d runs)", r.SpawnToExitMs.N)
	case r.RSSPerSandbox != nil:
		median = fmt.Sprintf("%.2f MB", *r.RSSPerSandbox)
		what = fmt.Sprintf("RSS per idle warm sandbox (%d sandboxes)", r.Sandboxes)
	case r.TotalMs != nil:
		median, p90 = ms(r.TotalMs.Median), ms(r.TotalMs.P90)
		what = fmt.Sprintf("one run: create, exec, dispose (%d runs)", r.TotalMs.N)
	}
	t.cells(name, mode, median, p90, what)
}

// cells prints one row.
func (t *benchTable) cells(name, mode, median, p90, what string) {
	row := fmt.Sprintf("%-16s  %-18s  %10s  %10s  %s", name, mode, median, p90, what)
	fmt.Fprintln(t.out, strings.TrimRight(row, " "))
}

// ms formats milliseconds to about three significant digits.
func ms(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f ms", v)
	case v < 100:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

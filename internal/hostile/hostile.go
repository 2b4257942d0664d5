package hostile

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

//go:embed hostile.txtar
var archive string

// Budgets are what one program runs with: the corpus's (see hostile.txtar's comment), or
// a program's own heap or compute budget where it gives one.
type Budgets struct {
	Compute, WallClock      time.Duration
	HeapBytes               int64
	OutputBytes, StackDepth int
}

var corpus = Budgets{Compute: 3 * time.Second, WallClock: 30 * time.Second, HeapBytes: 32 << 20, OutputBytes: 64 << 10, StackDepth: 10000}

// The isolation modes a program can be run in. A program marked "// mode process" holds
// its outcome only in a worker process: in process it is written to exhaust the host, which
// only a process boundary stops.
const (
	InProcess = "in-process"
	Process   = "process"
)

// Run runs every program of the corpus that holds in mode as a subtest of t, through run,
// which runs code with budgets b and returns the model-facing text and whether the run
// failed. Each must end with its outcome, and a trivial program run after it must still
// succeed.
func Run(t *testing.T, mode string, run func(t *testing.T, code string, b Budgets) (text string, failed bool)) {
	cases, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.mode != "" && c.mode != mode {
				t.Skipf("holds only in %s isolation: it is written to exhaust the process it runs in", c.mode)
			}
			if msg := c.check(run(t, c.code, c.budgets)); msg != "" {
				t.Error(msg)
			}
			if got, _ := run(t, "return 'healthy'", corpus); got != "healthy" {
				t.Errorf("the next run = %q, want healthy", got)
			}
		})
	}
}

// A test is one program of the corpus and the outcome it must get.
type test struct {
	name, code string
	// kinds are the failure kinds the run may end with; none for a success.
	kinds []string
	// want is the success's exact model-facing text, or how the failure's message starts.
	want    string
	budgets Budgets
	// mode is the one isolation mode the outcome holds in, or "" for both.
	mode string
}

// parse parses the corpus: "-- name --" lines start a program, whose first line is its
// "// want" line ("// want KIND|KIND" for a failure of any of those kinds whatever its
// message; in a want line's text \n stands for a line break); "// heap N" gives it N MiB,
// "// mode M" limits it to one isolation mode; "@@repeat N TEXT" lines are expanded.
func parse() ([]test, error) {
	var cases []test
	var cur *test
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.code = body.String()
			cases = append(cases, *cur)
		}
		body.Reset()
	}
	for _, line := range strings.Split(archive, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			cur = &test{name: strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"), budgets: corpus}
			continue
		}
		if cur == nil {
			continue // the archive's comment
		}
		switch {
		case body.Len() == 0 && cur.kinds == nil && cur.want == "" && strings.HasPrefix(line, "// want "):
			kind, want, ok := strings.Cut(strings.TrimPrefix(line, "// want "), ": ")
			if !ok && (kind == "ok" || kind == "") {
				return nil, fmt.Errorf("%s: a success's want line without \": \": %q", cur.name, line)
			}
			if kind != "ok" {
				cur.kinds = strings.Split(kind, "|")
			}
			cur.want = strings.ReplaceAll(want, `\n`, "\n")
		case strings.HasPrefix(line, "// heap "):
			mib, err := strconv.ParseInt(strings.TrimPrefix(line, "// heap "), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", cur.name, err)
			}
			cur.budgets.HeapBytes = mib << 20
		case strings.HasPrefix(line, "// mode "):
			cur.mode = strings.TrimPrefix(line, "// mode ")
			if cur.mode != Process && cur.mode != InProcess {
				return nil, fmt.Errorf("%s: unknown mode %q", cur.name, cur.mode)
			}
		case strings.HasPrefix(line, "// wall "):
			secs, err := strconv.Atoi(strings.TrimPrefix(line, "// wall "))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", cur.name, err)
			}
			cur.budgets.WallClock = time.Duration(secs) * time.Second
		case strings.HasPrefix(line, "// compute "):
			secs, err := strconv.Atoi(strings.TrimPrefix(line, "// compute "))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", cur.name, err)
			}
			cur.budgets.Compute = time.Duration(secs) * time.Second
		case strings.HasPrefix(line, "@@repeat "):
			f := strings.SplitN(line, " ", 3)
			n, err := strconv.Atoi(f[1])
			if err != nil || len(f) < 3 {
				return nil, fmt.Errorf("%s: bad repeat line %q", cur.name, line)
			}
			body.WriteString(strings.Repeat(f[2], n) + "\n")
		default:
			body.WriteString(line + "\n")
		}
	}
	flush()
	if len(cases) == 0 {
		return nil, fmt.Errorf("hostile.txtar holds no programs")
	}
	for _, c := range cases {
		if c.want == "" && c.kinds == nil {
			return nil, fmt.Errorf("%s: no want line", c.name)
		}
	}
	return cases, nil
}

// check returns what is wrong with a run of c that ended with the model-facing text
// (failed says whether it was a failure), or "".
func (c *test) check(text string, failed bool) string {
	if c.kinds == nil {
		if failed || text != c.want {
			return "got " + clip(text) + ", want " + strconv.Quote(c.want)
		}
		return ""
	}
	var prefixes []string
	for _, k := range c.kinds {
		p := "Error: code run failed (" + k + "): " + c.want
		if failed && strings.HasPrefix(text, p) {
			return ""
		}
		prefixes = append(prefixes, strconv.Quote(p))
	}
	return "got " + clip(text) + ", want a text that starts with " + strings.Join(prefixes, " or ")
}

func clip(s string) string {
	if len(s) > 300 {
		return strconv.Quote(s[:300]) + "…"
	}
	return strconv.Quote(s)
}

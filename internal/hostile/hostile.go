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

// Run runs every program of the corpus as a subtest of t, through run, which runs code with
// budgets b and returns the model-facing text and whether the run failed. Each must end
// with its outcome, and a trivial program run after it must still succeed.
func Run(t *testing.T, run func(t *testing.T, code string, b Budgets) (text string, failed bool)) {
	cases, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
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
	// kind is the failure kind the run must end with; "" for a success.
	kind string
	// want is the success's exact model-facing text, or how the failure's message starts.
	want    string
	budgets Budgets
}

// parse parses the corpus: "-- name --" lines start a program, whose first line is its
// "// want" line (in whose text \n stands for a line break); "// heap N" gives it N MiB; "@@repeat N TEXT" lines are expanded.
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
		case body.Len() == 0 && cur.want == "" && strings.HasPrefix(line, "// want "):
			kind, want, ok := strings.Cut(strings.TrimPrefix(line, "// want "), ": ")
			if !ok {
				return nil, fmt.Errorf("%s: a want line without \": \": %q", cur.name, line)
			}
			if kind != "ok" {
				cur.kind = kind
			}
			cur.want = strings.ReplaceAll(want, `\n`, "\n")
		case strings.HasPrefix(line, "// heap "):
			mib, err := strconv.ParseInt(strings.TrimPrefix(line, "// heap "), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", cur.name, err)
			}
			cur.budgets.HeapBytes = mib << 20
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
		if c.want == "" {
			return nil, fmt.Errorf("%s: no want line", c.name)
		}
	}
	return cases, nil
}

// check returns what is wrong with a run of c that ended with the model-facing text
// (failed says whether it was a failure), or "".
func (c *test) check(text string, failed bool) string {
	if c.kind == "" {
		if failed || text != c.want {
			return "got " + clip(text) + ", want " + strconv.Quote(c.want)
		}
		return ""
	}
	prefix := "Error: code run failed (" + c.kind + "): " + c.want
	if !strings.HasPrefix(text, prefix) {
		return "got " + clip(text) + ", want a text that starts with " + strconv.Quote(prefix)
	}
	return ""
}

func clip(s string) string {
	if len(s) > 300 {
		return strconv.Quote(s[:300]) + "…"
	}
	return strconv.Quote(s)
}

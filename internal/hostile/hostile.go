package hostile

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"
)

//go:embed hostile.txtar
var archive string

// The budgets every program of the corpus runs with (see hostile.txtar's comment).
const (
	Compute     = 3 * time.Second
	WallClock   = 30 * time.Second
	HeapBytes   = 32 << 20
	OutputBytes = 64 << 10
)

// Case is one program of the corpus and the outcome it must get.
type Case struct {
	Name, Code string
	// Kind is the failure kind the run must end with; "" for a success.
	Kind string
	// Want is the success's exact model-facing text, or how the failure's message starts.
	Want string
	// HeapBytes is the program's own heap budget, or 0 for the corpus's.
	HeapBytes int64
	// Compute is the program's own compute budget, or 0 for the corpus's.
	Compute time.Duration
}

// Cases parses the corpus: "-- name --" lines start a program, whose first line is its
// "// want" line (in whose text \n stands for a line break); "// heap N" gives it N MiB; "@@repeat N TEXT" lines are expanded.
func Cases() ([]Case, error) {
	var cases []Case
	var cur *Case
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.Code = body.String()
			cases = append(cases, *cur)
		}
		body.Reset()
	}
	for _, line := range strings.Split(archive, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			cur = &Case{Name: strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --")}
			continue
		}
		if cur == nil {
			continue // the archive's comment
		}
		switch {
		case body.Len() == 0 && cur.Want == "" && strings.HasPrefix(line, "// want "):
			kind, want, ok := strings.Cut(strings.TrimPrefix(line, "// want "), ": ")
			if !ok {
				return nil, fmt.Errorf("%s: a want line without \": \": %q", cur.Name, line)
			}
			if kind != "ok" {
				cur.Kind = kind
			}
			cur.Want = strings.ReplaceAll(want, `\n`, "\n")
		case strings.HasPrefix(line, "// heap "):
			mib, err := strconv.ParseInt(strings.TrimPrefix(line, "// heap "), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", cur.Name, err)
			}
			cur.HeapBytes = mib << 20
		case strings.HasPrefix(line, "// compute "):
			secs, err := strconv.Atoi(strings.TrimPrefix(line, "// compute "))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", cur.Name, err)
			}
			cur.Compute = time.Duration(secs) * time.Second
		case strings.HasPrefix(line, "@@repeat "):
			f := strings.SplitN(line, " ", 3)
			n, err := strconv.Atoi(f[1])
			if err != nil || len(f) < 3 {
				return nil, fmt.Errorf("%s: bad repeat line %q", cur.Name, line)
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
		if c.Want == "" {
			return nil, fmt.Errorf("%s: no want line", c.Name)
		}
	}
	return cases, nil
}

// Check returns what is wrong with a run of c that ended with the model-facing text
// (failed says whether it was a failure), or "".
func (c *Case) Check(text string, failed bool) string {
	if c.Kind == "" {
		if failed || text != c.Want {
			return "got " + clip(text) + ", want " + strconv.Quote(c.Want)
		}
		return ""
	}
	prefix := "Error: code run failed (" + c.Kind + "): " + c.Want
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

package runtime

import (
	"testing"

	"github.com/runcode-go/runcode/internal/hostile"
)

// TestHostileCorpus runs the hostile corpus (internal/hostile) in process: each program
// ends with its outcome, and the pool still serves the next run. runtime/worker runs the
// same corpus in worker processes, so every shape has one outcome in both modes.
func TestHostileCorpus(t *testing.T) {
	cases, err := hostile.Cases()
	if err != nil {
		t.Fatal(err)
	}
	base := Limits{Compute: hostile.Compute, WallClock: hostile.WallClock, HeapBytes: hostile.HeapBytes, OutputBytes: hostile.OutputBytes}
	p := newTestPool(t, &base)
	var tools fakeTools
	ns := tools.namespace(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			limits := base
			if c.HeapBytes != 0 {
				limits.HeapBytes = c.HeapBytes
			}
			if c.Compute != 0 {
				limits.Compute = c.Compute
			}
			res := runCode(t, p, c.Code, &RunOptions{Namespaces: []*Namespace{ns}, Limits: &limits, ProgramBytes: 2 << 20})
			if msg := c.Check(res.Text(), res.Failure != nil); msg != "" {
				t.Error(msg)
			}
			if got := runCode(t, p, "return 'healthy'", nil).Text(); got != "healthy" {
				t.Errorf("the next run = %q, want healthy", got)
			}
		})
	}
}

package runtime

import (
	"testing"

	"github.com/runcode-go/runcode/internal/hostile"
)

// TestHostileCorpus runs the hostile corpus (internal/hostile) in process: each program
// ends with its outcome, and the pool still serves the next run. runtime/worker runs the
// same corpus in worker processes, so every shape has one outcome in both modes.
func TestHostileCorpus(t *testing.T) {
	p := newTestPool(t, nil)
	var tools fakeTools
	ns := tools.namespace(t)
	hostile.Run(t, hostile.InProcess, func(t *testing.T, code string, b hostile.Budgets) (string, bool) {
		limits := Limits{Compute: b.Compute, WallClock: b.WallClock, HeapBytes: b.HeapBytes, OutputBytes: b.OutputBytes, StackDepth: b.StackDepth}
		res := runCode(t, p, code, &RunOptions{Namespaces: []*Namespace{ns}, Limits: &limits, ProgramBytes: 2 << 20})
		return res.Text(), res.Failure != nil
	})
}

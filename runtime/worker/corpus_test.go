package worker

import (
	"testing"

	"github.com/runcode-go/runcode/internal/hostile"
	"github.com/runcode-go/runcode/runtime"
)

// TestHostileCorpus runs the hostile corpus (internal/hostile) in worker processes: each
// program ends exactly as it does in process (runtime's TestHostileCorpus), so a worker
// that dies on a shape the in-process guards catch fails here.
func TestHostileCorpus(t *testing.T) {
	p := newTestPool(t, 1)
	var tools fakeTools
	ns := tools.namespace(t)
	hostile.Run(t, hostile.Process, func(t *testing.T, code string, b hostile.Budgets) (string, bool) {
		limits := runtime.Limits{Compute: b.Compute, WallClock: b.WallClock, HeapBytes: b.HeapBytes, OutputBytes: b.OutputBytes, StackDepth: b.StackDepth}
		res := runCode(t, p, code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}, Limits: &limits, ProgramBytes: 2 << 20})
		return res.Text(), res.Failure != nil
	})
}

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
	cases, err := hostile.Cases()
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPool(t, 1)
	var tools fakeTools
	ns := tools.namespace(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			limits := runtime.Limits{Compute: hostile.Compute, WallClock: hostile.WallClock, HeapBytes: hostile.HeapBytes, OutputBytes: hostile.OutputBytes, StackDepth: 10000}
			if c.HeapBytes != 0 {
				limits.HeapBytes = c.HeapBytes
			}
			if c.Compute != 0 {
				limits.Compute = c.Compute
			}
			res := runCode(t, p, c.Code, &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}, Limits: &limits, ProgramBytes: 2 << 20})
			if msg := c.Check(res.Text(), res.Failure != nil); msg != "" {
				t.Error(msg)
			}
			if got := runCode(t, p, "return 'healthy'", nil).Text(); got != "healthy" {
				t.Errorf("the next run = %q, want healthy", got)
			}
		})
	}
}

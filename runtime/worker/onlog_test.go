package worker

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/runtime"
)

// TestOnLog: a worker's streamed log entries reach RunOptions.OnLog on the host, in
// order, as in process, before Run returns.
func TestOnLog(t *testing.T) {
	p := newTestPool(t, 1)
	var mu sync.Mutex
	var got []string
	res := runCode(t, p, `console.log('a', 1); await tools.echo({}); console.warn({b: 2}); return 3`, &runtime.RunOptions{
		Namespaces: []*runtime.Namespace{(&fakeTools{}).namespace(t)},
		OnLog: func(e string) {
			mu.Lock()
			got = append(got, e)
			mu.Unlock()
		},
	})
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(res.Logs, got); diff != "" {
		t.Errorf("OnLog entries (-result's logs +seen):\n%s", diff)
	}
	if len(got) != 2 {
		t.Errorf("OnLog saw %q, want two entries", got)
	}
}

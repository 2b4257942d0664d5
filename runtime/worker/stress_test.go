package worker

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/runcode-go/runcode/runtime"
)

// TestStress runs 40 programs on 4 workers, 8 at a time, a quarter of them hostile (memory
// bombs past the in-process guards, busy loops, log floods, crashes of the hard memory
// limit), and wants every well-behaved run to succeed with its own output and every hostile
// one to fail only itself. Afterwards no worker process, descriptor or goroutine (goleak in
// TestMain) is left. Bounded by count, not time.
func TestStress(t *testing.T) {
	fdsBefore := openFDs(t)
	p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 4, Limits: testLimits, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hostile := []struct {
		code  string
		kinds []runtime.Kind
	}{
		// A computed name, which the typed-array guard does not see: the worker's limit holds it.
		{"const a = new globalThis['Array' + 'Buffer'](3e10); return a.byteLength", []runtime.Kind{runtime.KindMemoryLimit}},
		{"while (true) {}", []runtime.Kind{runtime.KindTimeout}},
		// With eight runs at once on two cores under -race, the flood's 64 KiB output
		// budget and its 300 ms compute budget race each other; either ends only its run.
		// (TestHostilePrograms pins output-limit for it when it runs alone.)
		{"while (true) console.log('flood')", []runtime.Kind{runtime.KindOutputLimit, runtime.KindTimeout}},
		// Zeroing 48 MiB buffers is compute too: on a loaded machine the 300 ms budget can
		// run out before the heap check or the hard limit stops the bomb. Either ends only
		// its run (TestHostilePrograms pins memory-limit for it when it runs alone).
		{"const a = []; while (true) a.push({k: 'v', n: a.length})", []runtime.Kind{runtime.KindMemoryLimit, runtime.KindTimeout}},
		{"const a = []; for (;;) a.push(new ArrayBuffer(48 << 20))", []runtime.Kind{runtime.KindMemoryLimit, runtime.KindTimeout}},
	}
	const runs = 40
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	errs := make(chan string, runs)
	for i := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var f fakeTools
			opts := &runtime.RunOptions{Namespaces: []*runtime.Namespace{f.namespace(t)}}
			if i%4 == 3 {
				h := hostile[(i/4)%len(hostile)]
				res, err := p.Run(context.Background(), h.code, opts)
				if err != nil || res.Failure == nil || !slices.Contains(h.kinds, res.Failure.Kind) {
					errs <- fmt.Sprintf("hostile run %d (%s): %v %.200s", i, h.code, err, res.Text())
				}
				return
			}
			code := fmt.Sprintf("console.log('run', %d); const r = await tools.echo({i: %d}); return r.i * 2", i, i)
			res, err := p.Run(context.Background(), code, opts)
			if want := fmt.Sprintf("run %d\n%d", i, 2*i); err != nil || res.Text() != want {
				errs <- fmt.Sprintf("run %d: %v %q, want %q", i, err, res.Text(), want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left after Close: %q", c)
	}
	if after := openFDs(t); after > fdsBefore {
		t.Errorf("%d descriptors open after Close, %d before", after, fdsBefore)
	}
	t.Logf("%d workers started for %d runs", p.spawned.Load(), runs)
}

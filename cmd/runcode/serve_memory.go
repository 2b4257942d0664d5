package main

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/runcode-go/runcode/pipeline"
)

// returnAbove is how much memory the Go runtime may hold from the system (heap, stacks,
// its own structures, less what it has already released) before the server gives freed
// memory back after a call.
const returnAbove = 256 << 20

// memoryReturner gives the heap back to the system once a top-level call has answered and
// the process holds more than returnAbove: Go's scavenger returns freed memory at its own
// slow pace, so a server that has just carried a run's large arguments, results or images
// would hold them in its RSS for minutes. Returns run one at a time on a goroutine of
// their own; calls that end while one runs ask for one more after it. Safe for concurrent
// use.
type memoryReturner struct {
	mu             sync.Mutex
	running, again bool
	wg             sync.WaitGroup
}

// Event is the pipeline sink: a result without a parent is a top-level call's.
func (m *memoryReturner) Event(e pipeline.Event) {
	if e.Type != pipeline.EventResult || e.ParentID != "" || held() < returnAbove {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		m.again = true
		return
	}
	m.running = true
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.mu.Lock()
		for {
			m.again = false
			m.mu.Unlock()
			debug.FreeOSMemory()
			m.mu.Lock()
			if !m.again {
				m.running = false
				m.mu.Unlock()
				return
			}
		}
	}()
}

// wait waits for a return in progress, so that the server exits with nothing running.
func (m *memoryReturner) wait() { m.wg.Wait() }

// held is the memory the Go runtime holds from the system.
func held() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

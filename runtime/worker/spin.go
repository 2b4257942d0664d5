package worker

import (
	"sync/atomic"
	"time"
)

// spin says when one end of the channel may poll for the other's next frame instead of
// waiting for it in the poller (spinReader, spin_linux.go): only while a run is in flight
// (on), and in one wait only up to spinWindow past the later of the wait's start and this
// end's last write (the frame the other end is answering: a run, a call, a result), never
// more than spinMax. A spin is safe for concurrent use; its zero value is off.
type spin struct {
	on   atomic.Bool  // a run is in flight
	last atomic.Int64 // when this end last wrote a frame (spinClock)
}

// The bounds of one wait's spin, and how many waits skip spinning after spins ran out in a
// row, chosen by measurement (BENCHMARKS.md, "runtime/worker design notes"). Variables for
// the tests.
var (
	spinWindow  = 100 * time.Microsecond
	spinMax     = 400 * time.Microsecond
	spinBackoff = 64
)

// wrote records that this end just wrote a frame.
func (s *spin) wrote() { s.last.Store(spinClock()) }

// deadline returns when a wait that began at start (spinClock) stops spinning.
func (s *spin) deadline(start int64) int64 {
	return min(max(start, s.last.Load())+int64(spinWindow), start+int64(spinMax))
}

var spinEpoch = time.Now()

// spinClock is a monotonic clock in nanoseconds.
func spinClock() int64 { return int64(time.Since(spinEpoch)) }

package worker

import (
	"sync/atomic"
	"time"
)

// spin says when one end of the channel may poll for the other's next frame instead of
// waiting in the poller (spinReader): only while a run is in flight (on), and in one wait
// up to spinWindow past the later of its start and this end's last write, at most spinMax.
// A spin is safe for concurrent use; its zero value is off.
type spin struct {
	on   atomic.Bool  // a run is in flight
	last atomic.Int64 // when this end last wrote a frame (spinClock)
}

// The bounds of one wait's spin and of the back-off, chosen by measurement (BENCHMARKS.md,
// "runtime/worker design notes"). Variables for the tests.
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

package jsvm

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// Draws are runtime.Draws: the clock readings (Unix nanoseconds) and Math.random()
// results a program drew, in order. Draws is a plain value.
type Draws struct {
	Clock  []int64
	Random []float64
}

// MaxDraws bounds the clock readings a run records, and the random numbers (a busy wait
// draws millions); past it the run draws unrecorded, and a replay then gets real values.
const MaxDraws = 1 << 16

// recorder replays a run's earlier draws and records the first MaxDraws of each kind.
// The VM goroutine draws; snapshot may be called from any goroutine.
type recorder struct {
	replay Draws // values to give back first
	mu     sync.Mutex
	got    Draws  // the values given, replayed ones first, up to MaxDraws of each
	n      [2]int // the clock readings and random numbers drawn
}

func newRecorder(replay *Draws) *recorder {
	return &recorder{replay: *replay}
}

// install makes vm draw through the recorder.
func (d *recorder) install(vm *goja.Runtime) {
	vm.SetTimeSource(func() time.Time {
		d.mu.Lock()
		defer d.mu.Unlock()
		var ns int64
		if n := d.n[0]; n < len(d.replay.Clock) {
			ns = d.replay.Clock[n]
		} else {
			ns = time.Now().UnixNano()
		}
		d.n[0]++
		if len(d.got.Clock) < MaxDraws {
			d.got.Clock = append(d.got.Clock, ns)
		}
		return time.Unix(0, ns)
	})
	vm.SetRandSource(func() float64 {
		d.mu.Lock()
		defer d.mu.Unlock()
		var f float64
		if n := d.n[1]; n < len(d.replay.Random) {
			f = d.replay.Random[n]
		} else {
			f = rand.Float64()
		}
		d.n[1]++
		if len(d.got.Random) < MaxDraws {
			d.got.Random = append(d.got.Random, f)
		}
		return f
	})
}

// snapshot returns the draws so far. The slices are capped at their length, so the
// recorder's later appends never write into what a snapshot shows.
func (d *recorder) snapshot() *Draws {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, r := d.got.Clock, d.got.Random
	return &Draws{Clock: c[:len(c):len(c)], Random: r[:len(r):len(r)]}
}

type drawsKey struct{}

// WithDraws returns ctx carrying d for CallDraws.
func WithDraws(ctx context.Context, d *Draws) context.Context {
	return context.WithValue(ctx, drawsKey{}, d)
}

// CallDraws returns the draws ctx carries, or nil: in a StartFunc's context, those the
// run had made when it made the call (Job.Draws).
func CallDraws(ctx context.Context) *Draws {
	d, _ := ctx.Value(drawsKey{}).(*Draws)
	return d
}

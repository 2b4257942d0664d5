package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/runcode-go/runcode/internal/jsvm"
)

// Draws are the clock and random values a program drew, in the order it drew them: what a
// run resumed by replay must see again so that it makes the same calls. Date.now(), new
// Date() and Date() read the clock; Math.random() draws a random number. Draws is a plain
// value; it marshals to JSON losslessly.
type Draws struct {
	// Clock holds the clock's readings, in nanoseconds since the Unix epoch.
	Clock []int64 `json:"clock,omitempty"`
	// Random holds Math.random()'s results.
	Random []float64 `json:"random,omitempty"`
}

// MaxDraws bounds the clock readings a run records, and the random numbers
// (RunOptions.Draws).
const MaxDraws = jsvm.MaxDraws

// WithDraws returns ctx carrying d for [CallDraws]. A host that forwards a run's calls
// (a worker's parent) uses it to hand the draws it was told about to the StartFunc.
func WithDraws(ctx context.Context, d *Draws) context.Context {
	return jsvm.WithDraws(ctx, (*jsvm.Draws)(d))
}

// CallDraws returns, from the context a StartFunc was given, the values the run had drawn
// when it made the call (RunOptions.Draws), or nil when the run does not record draws.
func CallDraws(ctx context.Context) *Draws { return (*Draws)(jsvm.CallDraws(ctx)) }

// State is a session's key/value state as a run starts with it (RunOptions.State):
// values as lossless JSON by key, and the bounds of what the run may make of it. It is a
// plain value.
type State struct {
	Values map[string]json.RawMessage `json:"values,omitempty"`
	// MaxValue bounds one value's JSON and MaxTotal the keys and values together, in
	// bytes; past either, state.set throws a RangeError. Both must be positive.
	MaxValue int `json:"maxValue"`
	MaxTotal int `json:"maxTotal"`
}

// Left is what a run had left of its budgets when it made a call ([CallLeft]).
type Left struct {
	// Compute is the compute budget not yet used; WallClock the time to the run's
	// wall-clock ceiling. Either may be negative when the run is already over it.
	Compute, WallClock time.Duration
}

// WithLeft returns ctx carrying l for [CallLeft]. A host that forwards a run's calls (a
// worker's parent) uses it to hand the budgets its worker reported to the StartFunc.
func WithLeft(ctx context.Context, l Left) context.Context {
	return jsvm.WithLeft(ctx, jsvm.Left(l))
}

// CallLeft returns, from the context a StartFunc was given, what the run had left of its
// budgets when it made the call, so that a call that runs a program of its own gives it no
// more; ok is false for a context that no run's call carries.
func CallLeft(ctx context.Context) (l Left, ok bool) {
	v, ok := jsvm.CallLeft(ctx)
	return Left(v), ok
}

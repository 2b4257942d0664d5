package runtime

import (
	"time"

	"github.com/runcode-go/runcode/internal/jsvm"
)

// Limits are the budgets of one run (docs/run_code.md, "Budgets"). A zero field means
// the default named on it. Limits is a plain value; copies are independent.
type Limits struct {
	// Compute bounds the time the VM spends running the program's JavaScript. Time spent
	// waiting for host work or timers accrues nothing. Zero means 60s.
	Compute time.Duration
	// WallClock bounds the whole run, waiting included. Zero means 600s.
	WallClock time.Duration
	// OutputBytes bounds logs plus result as JSON: the logs array as JSON text plus the
	// completion's JSON (or the failure message as a JSON string). Zero means 1 MiB.
	OutputBytes int
	// HeapBytes bounds the live heap the run's own allocations hold (in process, through
	// the heap profile; a worker also has a hard limit sized from it). It sizes the guards
	// on allocation-heavy built-ins too: a string of at most HeapBytes/4 characters from
	// one call, a fill, join or Array.from of at most HeapBytes/16 elements, an ArrayBuffer
	// or typed array of at most HeapBytes bytes. Zero means 512 MiB.
	HeapBytes int64
	// StackDepth bounds the JavaScript call stack; deeper recursion fails the run with
	// "RangeError: Maximum call stack size exceeded". Zero means 10000.
	StackDepth int
}

// MaxDepth bounds the nesting of a completion or of a call's arguments: a deeper value is
// not lossless JSON here. It leaves ample room under the tool pipeline's own bound, which
// also counts the containers a result is carried in.
const MaxDepth = 1000

// DefaultLimits returns the documented defaults: what each zero field of Limits means.
func DefaultLimits() Limits { return Limits(jsvm.DefaultLimits) }

// WithDefaults returns l with its zero fields filled from base (when not nil) and then
// from DefaultLimits: the budgets a run with these limits gets from a pool whose limits
// are base. A negative field is an *OptionError.
func (l Limits) WithDefaults(base *Limits) (Limits, error) {
	v := jsvm.Limits(l)
	if base != nil {
		v = v.Or(jsvm.Limits(*base))
	}
	for _, f := range []struct {
		name     string
		negative bool
	}{
		{"Compute", v.Compute < 0},
		{"WallClock", v.WallClock < 0},
		{"OutputBytes", v.OutputBytes < 0},
		{"HeapBytes", v.HeapBytes < 0},
		{"StackDepth", v.StackDepth < 0},
	} {
		if f.negative {
			return Limits(v), negativeOption("Limits." + f.name)
		}
	}
	return Limits(v.Or(jsvm.DefaultLimits)), nil
}

// negativeOption is the *OptionError for a field that must not be negative.
func negativeOption(field string) *OptionError {
	return &OptionError{Field: field, Reason: "must not be negative"}
}

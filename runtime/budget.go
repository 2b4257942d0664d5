package runtime

import (
	"fmt"
	goruntime "runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// MatchTimeout bounds one backtracking regexp match (regexp2, which goja uses for
// lookarounds and backreferences).
const MatchTimeout = 100 * time.Millisecond

var setMatchTimeout = sync.OnceFunc(func() { regexp2.DefaultMatchTimeout = MatchTimeout })

// What the in-process guards cannot do. goja checks its interrupt flag only between
// bytecode instructions, so a single native call runs to its end:
//   - Allocation-heavy built-ins (repeat, padStart/padEnd, fill, join, Array.from of an
//     array-like, default sort, bind name growth) are guarded below; JSON.stringify and
//     JSON.parse are replaced (json.go). Array(n) itself is cheap in goja (a sparse
//     array), but other native paths over a huge one are not guarded: spreading it
//     ([...Array(1e9)]), iterating it (map, indexOf), typed-array constructors. The
//     compute budget and Grace bound how long Run waits for them; the abandoned VM
//     goroutine finishes the call on its own.
//   - Catastrophic regexp backtracking: goja falls back to regexp2 for lookarounds and
//     backreferences. regexp2's match timeout is a package variable
//     (regexp2.DefaultMatchTimeout) read when a pattern is compiled; NewPool sets it once
//     to MatchTimeout (measured in notes/goja.md: a 24.6 s backtracking case ends in about
//     200 ms). goja reports a timed-out match as "no match" rather than throwing, so such
//     a regexp quietly fails to match instead of raising the RangeError the spec asks
//     for; no hook in goja lets us do better. Setting the variable affects every regexp2
//     user in the process; embedders that rely on another value can set it after NewPool.
//   - Go's "fatal error: out of memory" is not recoverable; a hard memory limit needs the
//     worker-process isolation of package runtime/worker (kinds memory-limit and
//     worker-exit).

// Limits are the budgets of one run (spec §7). A zero field means the default named on it.
// Limits is a plain value; copies are independent.
type Limits struct {
	// Compute bounds the time the VM spends running the program's JavaScript. Time spent
	// waiting for host work or timers accrues nothing. Zero means 60s.
	Compute time.Duration
	// WallClock bounds the whole run, waiting included. Zero means 600s.
	WallClock time.Duration
	// OutputBytes bounds logs plus result as JSON: the logs array as JSON text plus the
	// completion's JSON (or the failure message as a JSON string). Zero means 1 MiB.
	OutputBytes int
	// HeapBytes bounds how much the Go heap may grow during the run, as seen by a sampler
	// every 10ms; it also sizes the guards on allocation-heavy built-ins (a single string
	// can hold at most HeapBytes/4 characters, a single fill/join/sort at most HeapBytes/16
	// elements). Zero means 512 MiB. The sampler sees the whole process, so concurrent
	// runs share the headroom; a hard limit needs worker isolation.
	HeapBytes int64
	// StackDepth bounds the JavaScript call stack; deeper recursion fails the run with
	// "RangeError: Maximum call stack size exceeded". Zero means 10000.
	StackDepth int
}

// Defaults of spec §7.
const (
	defaultCompute    = 60 * time.Second
	defaultWallClock  = 600 * time.Second
	defaultOutput     = 1 << 20
	defaultHeap       = 512 << 20
	defaultStackDepth = 10000
	sampleEvery       = 10 * time.Millisecond
	// nativeSortMax is the longest array sorted by goja's native default sort, which no
	// interrupt can stop; longer ones are sorted through a JavaScript comparator with the
	// same order, which the compute budget can interrupt.
	nativeSortMax = 1 << 14
	// maxBoundName caps the name of a bound function: each bind prepends "bound ", so a
	// long bind chain would otherwise grow names quadratically and exhaust memory.
	maxBoundName = 256
)

// withDefaults fills zero fields from base, then from the spec's defaults, and validates.
func (l Limits) withDefaults(base *Limits) (Limits, error) {
	if base != nil {
		if l.Compute == 0 {
			l.Compute = base.Compute
		}
		if l.WallClock == 0 {
			l.WallClock = base.WallClock
		}
		if l.OutputBytes == 0 {
			l.OutputBytes = base.OutputBytes
		}
		if l.HeapBytes == 0 {
			l.HeapBytes = base.HeapBytes
		}
		if l.StackDepth == 0 {
			l.StackDepth = base.StackDepth
		}
	}
	switch {
	case l.Compute < 0:
		return l, &OptionError{Field: "Limits.Compute", Reason: "must not be negative"}
	case l.WallClock < 0:
		return l, &OptionError{Field: "Limits.WallClock", Reason: "must not be negative"}
	case l.OutputBytes < 0:
		return l, &OptionError{Field: "Limits.OutputBytes", Reason: "must not be negative"}
	case l.HeapBytes < 0:
		return l, &OptionError{Field: "Limits.HeapBytes", Reason: "must not be negative"}
	case l.StackDepth < 0:
		return l, &OptionError{Field: "Limits.StackDepth", Reason: "must not be negative"}
	}
	if l.Compute == 0 {
		l.Compute = defaultCompute
	}
	if l.WallClock == 0 {
		l.WallClock = defaultWallClock
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = defaultOutput
	}
	if l.HeapBytes == 0 {
		l.HeapBytes = defaultHeap
	}
	if l.StackDepth == 0 {
		l.StackDepth = defaultStackDepth
	}
	return l, nil
}

func (r *run) maxStringBytes() int { return int(r.limits.HeapBytes / 4) }
func (r *run) maxElements() int64  { return r.limits.HeapBytes / 16 }

// enter marks the start of VM work (running the program or a loop callback) and arms the
// compute watchdog for what is left of the budget. VM goroutine only.
func (r *run) enter() {
	r.mu.Lock()
	r.busy = true
	r.busySince = time.Now()
	left := r.limits.Compute - r.used
	r.mu.Unlock()
	if r.compute == nil {
		r.compute = time.AfterFunc(max(left, 0), r.computeExpired)
	} else {
		r.compute.Reset(max(left, 0))
	}
}

// leave ends a stretch of VM work and books it against the compute budget.
func (r *run) leave() {
	r.compute.Stop()
	r.mu.Lock()
	r.busy = false
	r.used += time.Since(r.busySince)
	r.mu.Unlock()
}

// computeExpired runs on the timer goroutine. A timer that fires just after leave sees
// busy == false and does nothing.
func (r *run) computeExpired() {
	r.mu.Lock()
	busy, used := r.busy, r.used+time.Since(r.busySince)
	r.mu.Unlock()
	if !busy {
		return
	}
	if used < r.limits.Compute {
		r.compute.Reset(r.limits.Compute - used)
		return
	}
	r.fail(KindTimeout, fmt.Sprintf("compute budget exhausted (%dms busy)", r.limits.Compute.Milliseconds()))
}

// heapObjects is the runtime/metrics sample the heap sampler reads.
const heapObjects = "/memory/classes/heap/objects:bytes"

// startHeapSampler fails the run once the heap has grown by more than the budget since
// the run started, checking every sampleEvery. It is a timer that re-arms itself rather
// than a goroutine with a ticker: most runs end before the first check, and then cost
// no goroutine at all. stop is safe to call once, from any goroutine.
func (r *run) startHeapSampler() (stop func()) {
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() int64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}
	base := read()
	var (
		mu      sync.Mutex
		stopped bool
		t       *time.Timer
	)
	mu.Lock()
	defer mu.Unlock()
	t = time.AfterFunc(sampleEvery, func() {
		mu.Lock()
		over := !stopped && read()-base > r.limits.HeapBytes
		if !stopped && !over {
			t.Reset(sampleEvery)
		}
		mu.Unlock()
		if over {
			r.fail(KindMemoryLimit, fmt.Sprintf("heap limit of %d MiB exceeded", r.limits.HeapBytes>>20))
			goruntime.GC() // give back what the interrupted program held, for the next runs
		}
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}

// installGuards replaces the built-ins that can allocate or spin inside one native call,
// where goja's interrupt cannot reach, with size-checking wrappers. Over a bound they throw
// a catchable RangeError, as V8 does for an invalid string or array length.
func installGuards(r *run) error {
	vm := r.vm
	// Reach String.prototype and Function.prototype through instances: going through
	// the String and Function constructors would build them and their statics, about
	// 5 KB per idle VM that most programs never touch.
	strProto := vm.ToValue("").ToObject(vm).Prototype()
	arrProto := r.in.arrayProto
	fnProto := r.in.errorCtor.Prototype() // Error, like every function, inherits from it

	r.guard(strProto, "repeat", func(call goja.FunctionCall) {
		n := call.Argument(0).ToFloat()
		if n > 0 && float64(r.thisLen(call, true))*n > float64(r.maxStringBytes()) {
			panic(r.rangeError("Invalid string length"))
		}
	})
	for _, name := range []string{"padStart", "padEnd"} {
		r.guard(strProto, name, func(call goja.FunctionCall) {
			if call.Argument(0).ToFloat() > float64(r.maxStringBytes()) {
				panic(r.rangeError("Invalid string length"))
			}
		})
	}
	r.guard(arrProto, "fill", func(call goja.FunctionCall) {
		n := r.thisLen(call, false)
		start, end := relIndex(call.Argument(1), n, 0), relIndex(call.Argument(2), n, n)
		if end-start > r.maxElements() {
			panic(r.rangeError("Invalid array length"))
		}
	})
	r.guard(vm.Get("Array").ToObject(vm), "from", func(call goja.FunctionCall) {
		// Array.from({length: n}) builds n elements in one native call.
		src, ok := call.Argument(0).(*goja.Object)
		if !ok || src.GetSymbol(goja.SymIterator) != nil && !goja.IsUndefined(src.GetSymbol(goja.SymIterator)) {
			return
		}
		if src.Get("length") != nil && src.Get("length").ToFloat() > float64(r.maxElements()) {
			panic(r.rangeError("Invalid array length"))
		}
	})
	r.guard(arrProto, "join", func(call goja.FunctionCall) {
		n := r.thisLen(call, false)
		sep := int64(1)
		if s := call.Argument(0); !goja.IsUndefined(s) {
			sep = int64(len(s.String()))
		}
		if n > r.maxElements() || (n-1)*sep > int64(r.maxStringBytes()) {
			panic(r.rangeError("Invalid string length"))
		}
	})
	for _, name := range []string{"sort", "toSorted"} {
		r.guardCall(arrProto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			args := call.Arguments
			if goja.IsUndefined(call.Argument(0)) {
				n := r.thisLen(call, false)
				if n > r.maxElements() {
					panic(r.rangeError("Invalid array length"))
				}
				if n > nativeSortMax {
					args = []goja.Value{r.helpers().compare}
				}
			}
			v, err := orig(call.This, args...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	r.guardCall(fnProto, "bind", func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		if f, ok := v.(*goja.Object); ok {
			if name := f.Get("name"); name != nil && len(name.String()) > maxBoundName {
				_ = f.DefineDataProperty("name", vm.ToValue(name.String()[:maxBoundName]), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
		}
		return v
	})
	installJSON(r)
	return nil
}

// guard wraps proto[name] with a check that runs before the original.
func (r *run) guard(proto *goja.Object, name string, check func(goja.FunctionCall)) {
	r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
		check(call)
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err) // rethrow the original's exception (or interrupt) unchanged
		}
		return v
	})
}

// guardCall replaces proto[name] with wrap, keeping the original's name and length.
func (r *run) guardCall(proto *goja.Object, name string, wrap func(goja.FunctionCall, goja.Callable) goja.Value) {
	origV := proto.Get(name)
	orig, ok := goja.AssertFunction(origV)
	if !ok {
		return
	}
	length := origV.ToObject(r.vm).Get("length")
	f := r.native(func(call goja.FunctionCall) goja.Value { return wrap(call, orig) }).ToObject(r.vm)
	_ = f.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = proto.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// thisLen is the length of the receiver: its string length, or its "length" property.
func (r *run) thisLen(call goja.FunctionCall, str bool) int64 {
	if goja.IsUndefined(call.This) || goja.IsNull(call.This) {
		return 0 // the original throws the right TypeError
	}
	if str {
		if s, ok := call.This.(goja.String); ok {
			return int64(s.Length())
		}
		return int64(len(call.This.String()))
	}
	return call.This.ToObject(r.vm).Get("length").ToInteger()
}

// relIndex resolves a relative start/end argument the way Array.prototype.fill does.
func relIndex(v goja.Value, n, def int64) int64 {
	if goja.IsUndefined(v) {
		return def
	}
	i := v.ToInteger()
	if i < 0 {
		return max(n+i, 0)
	}
	return min(i, n)
}

func (r *run) rangeError(msg string) *goja.Object {
	e, err := r.vm.New(r.in.rangeCtor, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.NewTypeError(msg)
	}
	return e
}

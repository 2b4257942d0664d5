package jsvm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/runcode-go/runcode/internal/jsprep"
)

// VM is one goja VM and the state of the one program run on it (its methods call it r).
// A Host builds it warm; Run uses it for exactly one program, then it is dropped. What mu
// guards is shared with watchdog goroutines; the rest belongs to the VM goroutine.
type VM struct {
	vm       *goja.Runtime
	host     *Host
	globals         // globals.go
	loop     *loop  // loop.go
	timers   timers // loop.go
	budget          // budget.go
	heapSlot        // memory.go
	calls           // namespace.go
	ledger          // completion.go

	prg          *jsprep.Program
	programBytes int             // Job.ProgramBytes
	fileName     string          // Job.FileName
	parent       context.Context // the caller's
	ctx          context.Context // host work; cancelled when the run ends
	cancel       context.CancelCauseFunc
	inHost       bool            // a host function (native) is in progress on the VM goroutine
	rejected     []*goja.Promise // rejected without a handler, in order; nil once handled
	rejectedAt   map[*goja.Promise]int
	main         *goja.Promise

	stopping atomic.Bool   // a failure was recorded; walkers should give up
	stopped  chan struct{} // closed with the first failure
	mu       sync.Mutex    // guards failure and settled, and the ledger and the budget's time
	failure  *Failure
	settled  bool // the outcome is final; later failures are ignored
}

// warmPrg materializes the async function and Promise machinery while the VM is built in
// the background, off the run's clock. Compiled on first use, not at package init.
var warmPrg = compileOnce("warm.js", "(async () => {})()")

// intrinsics are captured before any program runs, so programs cannot redirect what the
// runtime itself calls.
type intrinsics struct {
	objectProto, arrayProto *goja.Object
	errorCtor               *goja.Object
	// Filled by helpers() on first use.
	entries, date, typedName       goja.Callable
	fnLabel, keys                  goja.Callable
	mapProto, setProto, typedProto *goja.Object
}

// newVM builds a warm VM for h: globals installed, nothing run.
func newVM(h *Host) (*VM, error) {
	r := &VM{vm: goja.New(), host: h, loop: newLoop(), stopped: make(chan struct{}), ledger: ledger{logBytes: 2}}
	r.timers.r = r
	r.limits = DefaultLimits
	r.vm.SetPromiseRejectionTracker(r.trackRejection)
	if err := r.installGlobals(); err != nil {
		return nil, fmt.Errorf("runtime: building a VM: %w", err)
	}
	if _, err := r.vm.RunProgram(warmPrg()); err != nil {
		return nil, fmt.Errorf("runtime: building a VM: %w", err)
	}
	return r, nil
}

// trackRejection keeps the rejected promises that have no handler yet, in order, in O(1):
// goja calls it where no interrupt reaches. A handled promise leaves a hole.
func (r *VM) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		if r.rejectedAt == nil {
			r.rejectedAt = map[*goja.Promise]int{}
		}
		r.rejectedAt[p] = len(r.rejected)
		r.rejected = append(r.rejected, p)
	case goja.PromiseRejectionHandle:
		if i, ok := r.rejectedAt[p]; ok {
			r.rejected[i] = nil
			delete(r.rejectedAt, p)
		}
	}
}

// fail records the run's failure (the first one wins), interrupts the VM and wakes the
// loop. Safe to call from any goroutine.
func (r *VM) fail(kind Kind, msg string) bool {
	r.mu.Lock()
	if r.failure != nil || r.settled {
		r.mu.Unlock()
		return false
	}
	r.failure = &Failure{Kind: kind, Message: msg}
	vm := r.vm // dropIfBudgetFailed clears it under mu once the run is over
	r.mu.Unlock()
	r.stopping.Store(true)
	if vm != nil {
		vm.Interrupt(errStop)
	}
	close(r.stopped)
	r.loop.signal()
	return true
}

var errStop = errors.New("run stopped")

func (r *VM) failed() bool { return r.stopping.Load() }

// growStack grows the calling goroutine's stack to 64 KB in one step, while it is still
// shallow: goja recurses deeply, and doubling a fresh 8 KB stack several times copies
// every frame each time (BENCHMARKS.md, "internal/jsvm design notes").
//
//go:noinline
func growStack() {
	var pad [40 << 10]byte
	touchStack(pad[:])
}

//go:noinline
func touchStack(b []byte) { b[len(b)-1] = 1 }

// release drops what the run kept of the caller's side, so that a VM a caller holds on
// to (runcode bench's sandbox) does not keep the caller's context and per-run state
// alive. VM goroutine, after finish: nothing reads these any more.
func (r *VM) release() {
	r.parent, r.ctx, r.cancel = nil, nil, nil
	r.prg, r.onLog, r.namespaces = nil, nil, nil
}

// prepare prepares code for this run, as compute time of the run, and reports whether
// there is a program to run: a program that does not parse fails the run.
func (r *VM) prepare(code string) bool {
	r.enter()
	prg, err := jsprep.Prepare(code, r.programBytes)
	r.leave()
	if err != nil {
		var f *jsprep.Failure
		if !errors.As(err, &f) {
			f = &jsprep.Failure{Message: "internal error: " + err.Error()}
		}
		r.fail(KindException, f.Message)
		return false
	}
	if r.failed() { // a budget ran out while it compiled
		return false
	}
	r.prg = prg
	return true
}

// dropIfBudgetFailed drops the VM of a run that ended at its memory or time budget and
// has the governor give the memory back. VM goroutine, last.
func (r *VM) dropIfBudgetFailed() {
	r.mu.Lock()
	f := r.failure
	r.mu.Unlock()
	if f == nil || f.Kind != KindMemoryLimit && f.Kind != KindTimeout {
		return
	}
	// Everything that holds the VM's objects; fail reads vm from a watchdog's goroutine.
	r.mu.Lock()
	r.vm = nil
	r.mu.Unlock()
	r.globals, r.main, r.rejected, r.rejectedAt = globals{}, nil, nil, nil
	r.timers.live, r.timers.armed = nil, nil
	gov.release()
}

// exec runs the program to completion on the VM goroutine, leaving the outcome in the
// run's failure, logs and value. Watchdogs must already be armed.
func (r *VM) exec() {
	defer func() {
		if x := recover(); x != nil {
			r.fail(KindException, fmt.Sprintf("internal error: %v", x))
		}
	}()
	r.scope.settleNamed(r.prg.Code)
	r.guardBuffers(r.prg.Code)
	r.removeGoError()
	r.enter()
	v, err := r.vm.RunProgram(r.prg.Compiled)
	r.leave()
	if err != nil {
		r.enter()
		defer r.leave()
		r.failFrom(err)
		return
	}
	// Prepare accepts only programs whose value is the async wrapper's promise.
	main, ok := v.Export().(*goja.Promise)
	if !ok {
		r.fail(KindException, "internal error: the program did not evaluate to its promise")
		return
	}
	r.main = main
	for !r.failed() && r.main.State() == goja.PromiseStatePending {
		batch, pending := r.loop.take()
		if len(batch) == 0 {
			if !pending {
				r.fail(KindException, msgNeverSettled)
				break
			}
			select {
			case <-r.loop.wake:
			case <-r.stopped:
			}
			continue
		}
		if r.cancelled() {
			break
		}
		for _, cb := range batch {
			r.enter()
			err := cb()
			if err != nil {
				r.failFrom(err)
			}
			r.leave()
			if err != nil {
				break
			}
		}
	}
	if r.failed() {
		return
	}
	// Rendering rejections and encoding the completion can run program code (getters,
	// toString), so it is compute time too.
	r.enter()
	defer r.leave()
	r.reportUnawaited()
	r.reportRejections()
	switch r.main.State() {
	case goja.PromiseStateRejected:
		r.failException(r.main.Result())
	case goja.PromiseStateFulfilled:
		r.complete(r.main.Result())
	}
	// The outcome is decided: a budget or cancellation firing from now on must not change it.
	r.mu.Lock()
	r.settled = true
	r.mu.Unlock()
}

// cancelled records an abort when the caller's context or the pool is done: host calls
// see the cancellation too and may settle before the watchdog fires, and the outcome must
// be the abort, not their rejections.
func (r *VM) cancelled() bool {
	switch {
	case r.parent.Err() != nil:
		r.fail(KindAbort, context.Cause(r.parent).Error())
	case r.host.ctx.Err() != nil:
		r.fail(KindAbort, msgPoolClosed)
	default:
		return false
	}
	return true
}

// reportRejections logs every promise the program rejected and never handled, like Node's
// "Uncaught (in promise)". The main promise is the run's own outcome, not a dropped one.
func (r *VM) reportRejections() {
	for _, p := range r.rejected {
		if p == nil || p == r.main || p.State() != goja.PromiseStateRejected {
			continue
		}
		r.appendLog("Uncaught (in promise) " + r.describe(p.Result()))
		if r.failed() {
			return
		}
	}
}

// failFrom turns an error out of goja into the run's failure.
func (r *VM) failFrom(err error) {
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.As(err, &ie):
		r.fail(KindException, "interrupted") // a recorded failure wins over this
	case errors.As(err, &so):
		msg := msgStackOverflow
		frames := r.cleanStack(so.String())
		if i := strings.IndexByte(frames, '\n'); i >= 0 {
			lines := strings.Split(frames[i+1:], "\n")
			msg += "\n" + strings.Join(lines[:min(len(lines), 5)], "\n")
		}
		r.failMessage(msg)
	case errors.As(err, &ex):
		r.failException(ex.Value())
	default:
		r.failMessage(err.Error())
	}
}

// failException fails the run with a thrown value, as failMessage does.
func (r *VM) failException(v goja.Value) {
	r.failMessage(r.describe(v))
}

// failMessage fails the run as exception, or as output-limit when logs plus message do
// not fit (cut instead in truncation mode).
func (r *VM) failMessage(msg string) {
	r.mu.Lock()
	fits := r.logBytes+jsonStringLen(msg) <= r.limits.OutputBytes
	if !fits && r.truncate {
		if cut, ok := cutString(msg, r.outputLimit()+truncMarkerRoom-r.logBytes); ok {
			msg, fits, r.cut = cut, true, true
		}
	}
	r.mu.Unlock()
	if !fits {
		r.fail(KindOutputLimit, r.outputLimitMessage())
		return
	}
	r.fail(KindException, msg)
}

// describe renders a thrown value for the model: an Error's stack, String(value) otherwise.
func (r *VM) describe(v goja.Value) (s string) {
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Error" {
		return r.errorText(o)
	}
	if sym, ok := v.(*goja.Symbol); ok {
		return "Symbol(" + sym.String() + ")" // goja's String() is the bare description
	}
	if ex := r.vm.Try(func() { s = v.String() }); ex != nil {
		return msgUnrenderable
	}
	return s
}

// errorText is an Error's stack with positions in the model's own text, or String(err),
// with the list of real globals appended to a ReferenceError for a missing name.
func (r *VM) errorText(o *goja.Object) (s string) {
	if ex := r.vm.Try(func() {
		if st := o.Get("stack"); st != nil && goja.IsString(st) {
			s = r.cleanStack(st.String())
		} else {
			s = o.String()
		}
	}); ex != nil {
		return msgUnrenderable
	}
	s = undefinedOrNull(s)
	if strings.HasPrefix(s, "ReferenceError: ") && strings.Contains(firstLine(s), " is not defined") {
		s += "\n" + r.globalsHint()
	}
	if hint := r.memberHint(firstLine(s)); hint != "" {
		s += "\n" + hint
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// globalsHint lists the globals that exist, for a ReferenceError.
func (r *VM) globalsHint() string {
	var names []string
	for _, ns := range r.namespaces {
		names = append(names, ns.Global)
		if ns.ErrorClass != "" {
			names = append(names, ns.ErrorClass)
		}
	}
	names = append(names, hostGlobals...)
	return "Available globals: the ECMAScript built-ins, " + strings.Join(names, ", ") +
		" (no require, import, process, fetch, filesystem or network)"
}

var frameRe = lazyRegexp(`program\.(js|ts):(\d+):(\d+)(\(\d+\))?`)

// cleanStack rewrites goja's stack text for the model: "    at" indentation, positions in
// the model's text, no bytecode offsets, no frames past the model's lines.
func (r *VM) cleanStack(st string) string {
	lines := strings.Split(strings.TrimRight(st, "\n"), "\n")
	out := lines[:0]
	for i, l := range lines {
		if i > 0 && strings.HasPrefix(l, "\tat ") {
			l = "    at " + l[len("\tat "):]
			drop := false
			l = frameRe().ReplaceAllStringFunc(l, func(m string) string {
				sm := frameRe().FindStringSubmatch(m)
				line, _ := strconv.Atoi(sm[2])
				col, _ := strconv.Atoi(sm[3])
				if r.prg != nil && line > r.prg.Lines {
					drop = true
				}
				if line == 1 {
					col = max(col-len(jsprep.WrapOpen), 1)
				}
				name := "program." + sm[1]
				if r.fileName != "" {
					name = r.fileName
				}
				return name + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
			})
			if drop {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// native wraps a Go function reachable from JavaScript: a Go panic in it fails this run
// instead of crashing the host; goja's own throws pass through. Only the outermost host
// function recovers: a recover and re-panic at every level of a deep native recursion
// costs time quadratic in its depth (goja unwinds a foreign panic through them anyway).
func (r *VM) native(fn func(goja.FunctionCall) goja.Value) goja.Value {
	return r.vm.ToValue(func(call goja.FunctionCall) (ret goja.Value) {
		if r.inHost {
			return fn(call)
		}
		r.inHost = true
		defer func() {
			r.inHost = false
			if x := recover(); x != nil {
				if isGojaPanic(x) {
					panic(x)
				}
				r.fail(KindException, fmt.Sprintf("internal error: a host function panicked: %v", x))
				ret = goja.Undefined()
			}
		}()
		return fn(call)
	})
}

// isGojaPanic reports whether a recovered value is goja's own way of throwing (a JS value,
// an exception, an interrupt or a stack overflow), which must keep unwinding.
func isGojaPanic(x any) bool {
	switch x.(type) {
	case goja.Value, *goja.Exception, *goja.InterruptedError, *goja.StackOverflowError:
		return true
	}
	t := reflect.TypeOf(x)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.HasPrefix(t.PkgPath(), "github.com/dop251/goja")
}

func (r *VM) dateString(o *goja.Object) string {
	v, err := r.helpers().date(goja.Undefined(), o)
	if err != nil {
		return "Invalid Date"
	}
	return v.String()
}

// brand tells Maps, Sets and typed arrays (all "Object" to goja) by their prototype chain.
func (r *VM) brand(o *goja.Object) string {
	in := r.helpers()
	for p := o.Prototype(); p != nil; p = p.Prototype() {
		switch p {
		case in.mapProto:
			return "Map"
		case in.setProto:
			return "Set"
		case in.typedProto:
			if v, err := in.typedName(goja.Undefined(), o); err == nil {
				return v.String()
			}
			return "Object"
		case r.in.objectProto:
			return "Object"
		}
	}
	return "Object"
}

func (r *VM) primitiveOf(o *goja.Object) goja.Value {
	return r.vm.ToValue(o.Export())
}

// undefinedOrNull corrects goja's "Cannot read property 'x' of undefined", which it also
// says of null, to "of undefined or null".
func undefinedOrNull(s string) string {
	first, rest, _ := strings.Cut(s, "\n")
	if strings.HasPrefix(first, "TypeError: Cannot read property '") && strings.HasSuffix(first, "' of undefined") {
		first += " or null"
		if rest != "" {
			return first + "\n" + rest
		}
		return first
	}
	return s
}

// noMember is goja's message for calling a member an object does not have.
var noMember = lazyRegexp(`^TypeError: Object has no member '(.+)'`)

// memberHint adds a did-you-mean to goja's "Object has no member 'x'" when x is close to
// a member of an installed namespace (tools.raed_file -> tools.read_file). goja does not
// say which object it was, so the hint names the namespace.
func (r *VM) memberHint(first string) string {
	m := noMember().FindStringSubmatch(first)
	if m == nil {
		return ""
	}
	for _, ns := range r.namespaces {
		if ns.index[m[1]] {
			continue // a member of this namespace: the call was on another object
		}
		if best := jsprep.Suggest(m[1], ns.Members); best != "" {
			access := ns.Global + "." + best
			if !identRe().MatchString(best) {
				access = fmt.Sprintf("%s[%q]", ns.Global, best)
			}
			return fmt.Sprintf("%s has no member %q; did you mean %s?", ns.Global, m[1], access)
		}
	}
	return ""
}

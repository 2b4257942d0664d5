package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/runcode-go/runcode/internal/jsvm"
	"github.com/runcode-go/runcode/runtime"
)

// handle validates one frame of a run: a call is started through the real namespace and
// its result written back, log entries are kept, done ends the run. Anything else is a
// protocol violation.
func (p *Pool) handle(ctx context.Context, w *proc, rs *hostRun, nss []*runtime.Namespace, m *message) (*runtime.Result, error) {
	switch m.T {
	case tCall:
		if m.ID != rs.next+1 {
			return nil, protocolError("call id %d, want %d", m.ID, rs.next+1)
		}
		rs.next = m.ID
		if m.NSI < 0 || m.NSI >= len(nss) {
			return nil, protocolError("call %d names namespace %d of %d", m.ID, m.NSI, len(nss))
		}
		ns := nss[m.NSI]
		if !ns.Has(m.Member) {
			return nil, protocolError("call %d names %q, not a member of %s", m.ID, m.Member, ns.Global())
		}
		if len(m.Args) == 0 {
			return nil, protocolError("call %d has no arguments", m.ID)
		}
		if m.Left <= 0 {
			return nil, protocolError("call %d does not say what its run has left", m.ID)
		}
		// The compute left is the worker's reading; the wall clock's deadline is the host's.
		ctx = runtime.WithLeft(ctx, runtime.Left{Compute: time.Duration(m.Left), WallClock: time.Until(rs.deadline)})
		// The host holds a call's arguments and result until written back: they count
		// against the run's heap budget, or a program could grow the host, not its worker.
		args := int64(len(m.Args))
		if !rs.hold(w, args) {
			return nil, nil
		}
		rs.calls.Add(1)
		p.calls.Add(1)
		id := m.ID
		if rs.draws {
			d := m.Draws
			if d == nil {
				d = &runtime.Draws{}
			}
			ctx = runtime.WithDraws(ctx, d)
		} else if m.Draws != nil {
			return nil, protocolError("call %d carries draws the run did not ask for", m.ID)
		}
		var once atomic.Bool
		start(ctx, ns, m.Member, m.Args, func(out json.RawMessage, err error) {
			if !once.CompareAndSwap(false, true) {
				return
			}
			if f := failureOf(err); f != nil {
				// The host ends the run (runtime.StartFunc): the worker is killed with it.
				rs.cutOff.Store(true)
				w.kill(f)
				rs.held.Add(-args)
				p.calls.Done()
				rs.calls.Done()
				return
			}
			res := reply(id, out, err)
			size := res.heldSize()
			if !rs.hold(w, size-args) {
				rs.held.Add(-size)
				p.calls.Done()
				rs.calls.Done()
				return
			}
			// A goroutine for the write: done may be called on a scheduler's goroutine,
			// which must not block on a full pipe.
			go func() {
				defer p.calls.Done()
				defer rs.calls.Done()
				defer rs.held.Add(-size)
				var fse *frameSizeError
				if err := w.sendIf(rs, res); errors.As(err, &fse) {
					// Too large to send: the call fails rather than never ending.
					w.sendIf(rs, reply(id, nil, fmt.Errorf("the tool's result is too large to pass to the worker process: %d bytes framed, over the %d-byte limit", fse.n, fse.max)))
				}
			}()
		})
		return nil, nil
	case tLog:
		if m.ID != rs.id {
			return nil, protocolError("a log frame for run %d during run %d", m.ID, rs.id)
		}
		for _, e := range m.Logs {
			if rs.logBytes += len(e); rs.logBytes > rs.maxLog {
				return nil, protocolError("log entries of %d bytes, over the run's %d-byte output budget", rs.logBytes, rs.maxLog)
			}
		}
		rs.logs = append(rs.logs, m.Logs...)
		if rs.onLog != nil {
			for _, e := range m.Logs {
				rs.onLog(e)
			}
		}
		return nil, nil
	case tDone:
		if m.ID != rs.id {
			return nil, protocolError("a done frame for run %d during run %d", m.ID, rs.id)
		}
		if m.Compute < 0 {
			return nil, protocolError("a done frame with a negative compute time")
		}
		if m.Draws != nil && !rs.draws {
			return nil, protocolError("a done frame with draws the run did not ask for")
		}
		res := &runtime.Result{Logs: m.Logs, Compute: time.Duration(m.Compute), Draws: m.Draws}
		if m.Failure != nil {
			if !validKind(m.Failure.Kind) {
				return nil, protocolError("a failure of kind %q", m.Failure.Kind)
			}
			if len(m.Value) > 0 {
				return nil, protocolError("a failed run with a value")
			}
			res.Failure = &runtime.Failure{Kind: m.Failure.Kind, Message: m.Failure.Message}
		} else {
			res.State = m.StateOut
			if len(m.Value) > 0 {
				res.Value, res.FullValue = m.Value, m.Full
			}
		}
		return res, nil
	}
	return nil, protocolError("an unexpected %q frame during a run", m.T)
}

// msgHeld is the failure of a run whose calls in flight hold more than its heap budget.
const msgHeld = "heap limit of %d MiB exceeded by the arguments and results of calls in flight"

// hold counts n more bytes the host holds for the run (fewer if n < 0). Over the run's
// heap budget it kills and cuts off the worker, keeping its logs. Safe for concurrent use.
func (rs *hostRun) hold(w *proc, n int64) bool {
	if rs.held.Add(n) <= rs.maxHeld {
		return true
	}
	rs.cutOff.Store(true)
	w.kill(&runtime.Failure{Kind: runtime.KindMemoryLimit, Message: fmt.Sprintf(msgHeld, rs.maxHeld>>20)})
	return false
}

// start calls the namespace's StartFunc, turning a panic into its outcome.
func start(ctx context.Context, ns *runtime.Namespace, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	defer func() {
		if x := recover(); x != nil {
			done(nil, &jsvm.PanicError{Value: x})
		}
	}()
	ns.Start(ctx, member, args, done)
}

// failureOf returns the *runtime.Failure in err's chain, or nil (allocating only for an
// error, not on every call's outcome).
func failureOf(err error) *runtime.Failure {
	if err == nil {
		return nil
	}
	var f *runtime.Failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// heldSize is what a result frame holds: its value or its error's text.
func (m *message) heldSize() int64 {
	n := len(m.Value) + len(m.Panic)
	if m.Error != nil {
		n += len(m.Error.Message)
		for k, v := range m.Error.Fields {
			n += len(k) + len(v)
		}
	}
	return int64(n)
}

// reply encodes a call's outcome as a result frame.
func reply(id uint64, out json.RawMessage, err error) *message {
	m := &message{T: tResult, ID: id}
	switch {
	case err != nil:
		var ce *runtime.CallError
		if hp, ok := err.(*jsvm.PanicError); ok { // the host's StartFunc, or runtime.Async's call, panicked
			if m.Panic = fmt.Sprint(hp.Value); m.Panic == "" {
				m.Panic = "panic"
			}
		} else if errors.As(err, &ce) {
			m.Error = &callError{Message: ce.Message, Fields: ce.Fields}
		} else {
			m.Error = &callError{Message: err.Error()}
		}
	default:
		// As it came, JSON or not: the worker's runtime checks it, as in process.
		m.Value = out
	}
	return m
}

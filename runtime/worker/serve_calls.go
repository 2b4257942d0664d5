package worker

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/runcode-go/runcode/internal/jsvm"
	"github.com/runcode-go/runcode/runtime"
)

// proxy returns the worker-side namespace for spec: same global, members and error class;
// start binds it to a run (WithStart), whose calls go to the host. A run frame with the
// last one's namespaces (message.Same) reuses its proxies.
func (s *server) proxy(i int, spec nsSpec) (*jsvm.Namespace, error) {
	ns, err := jsvm.NewNamespace(spec.Global, spec.Members, unbound, &jsvm.NamespaceOptions{
		ErrorClass: spec.ErrorClass, MemberProperty: spec.MemberProperty, Noun: spec.Noun, SnapshotFields: spec.SnapshotFields,
	})
	if err != nil {
		return nil, protocolError("namespace %d: %v", i, err)
	}
	return ns, nil
}

// call forwards one namespace call to the host. VM goroutine: in the program's call order.
// The reader goroutine calls done when the host's result arrives; when the run ends
// first, every call still out is done with the run's cause.
func (r *wrun) call(ctx context.Context, nsi int, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	r.watch.Do(func() { context.AfterFunc(ctx, func() { r.abandon(context.Cause(ctx)) }) })
	r.mu.Lock()
	r.next++
	id := r.next
	r.pending[id] = done
	r.mu.Unlock()
	m := &message{T: tCall, ID: id, NSI: nsi, Member: member, Args: args, Draws: (*runtime.Draws)(jsvm.CallDraws(ctx))}
	if l, ok := jsvm.CallLeft(ctx); ok {
		m.Left = max(int64(l.Compute), 1)
	}
	if err := r.s.send(m); err != nil {
		if done := r.take(id); done != nil {
			done(nil, err)
		}
	}
}

// take removes and returns the done function of call id, or nil if it has none.
func (r *wrun) take(id uint64) func(json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := r.pending[id]
	delete(r.pending, id)
	return done
}

// abandon ends every call still out with cause.
func (r *wrun) abandon(cause error) {
	r.mu.Lock()
	out := r.pending
	r.pending = map[uint64]func(json.RawMessage, error){}
	r.mu.Unlock()
	for _, done := range out {
		done(nil, cause)
	}
}

// deliver hands a result frame to its call. A result for a call that already gave up (its
// run ended) is dropped; one for an id never handed out is a protocol violation.
func (r *wrun) deliver(m *message) error {
	r.mu.Lock()
	if m.ID == 0 || m.ID > r.next {
		r.mu.Unlock()
		return protocolError("a result for call %d, which was never made", m.ID)
	}
	done := r.pending[m.ID]
	delete(r.pending, m.ID)
	r.mu.Unlock()
	if done == nil {
		return nil
	}
	switch {
	case m.Panic != "":
		done(nil, &jsvm.PanicError{Value: m.Panic})
	case m.Error != nil:
		done(nil, &jsvm.CallError{Message: m.Error.Message, Fields: m.Error.Fields})
	default:
		done(m.Value, nil)
	}
	return nil
}

// unbound is the start of a cached namespace not bound to a run; a run never sees it.
func unbound(_ context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
	done(nil, errors.New("internal error: a namespace call outside a run"))
}

package ptc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// The bounds of a session's state (docs/run_code.md, "State across runs").
const (
	DefaultStateValueBytes = 1 << 20
	DefaultStateBytes      = 16 << 20
)

// kindState keys, in a store, a session's state; the key is the session's name.
const kindState = "state"

// ErrStateChanged fails a run whose session's state another run changed since it began:
// its own changes are not kept.
var ErrStateChanged = errors.New("state changed by another run; run again")

// sessionState is what a run began with: the session, its state and the version read.
type sessionState struct {
	Session string                     `json:"session"`
	Values  map[string]json.RawMessage `json:"values,omitempty"`
	Version int64                      `json:"version"`
}

// loadState reads the state of the session ctx names, or nil when it names none.
func (e *Executor) loadState(ctx context.Context) (*sessionState, error) {
	session := pipeline.Session(ctx)
	if session == "" {
		return nil, nil
	}
	s := &sessionState{Session: session}
	rec, err := e.store.Get(ctx, kindState, session)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return s, nil
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(rec.Data, &s.Values); err != nil {
		return nil, errors.New("the session's stored state is not readable")
	}
	s.Version = rec.Version
	return s, nil
}

// runState is the RunOptions.State of a run that began with s.
func (e *Executor) runState(s *sessionState) *runtime.State {
	if s == nil {
		return nil
	}
	return &runtime.State{Values: s.Values, MaxValue: cmp.Or(e.o.StateValueBytes, DefaultStateValueBytes), MaxTotal: cmp.Or(e.o.StateBytes, DefaultStateBytes)}
}

// commitState keeps the state a run that ended ok left, if it changed it: atomically,
// and only if no other run changed the session's state since this one began.
func (e *Executor) commitState(ctx context.Context, s *sessionState, values map[string]json.RawMessage) error {
	if s == nil || values == nil {
		return nil
	}
	data, err := json.Marshal(values)
	if err != nil {
		return err
	}
	_, err = e.store.Put(context.WithoutCancel(ctx), store.Record{Kind: kindState, Key: s.Session, Data: data}, s.Version)
	if errors.Is(err, store.ErrConflict) {
		return ErrStateChanged
	}
	return err
}

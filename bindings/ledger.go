package bindings

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Ledger makes a run resumable: its sub-calls are recorded as they start and end, a call
// that waits for a person's decision pauses the run instead of failing, and a resumed run
// replays the calls recorded before. The caller owns persistence (Record) and the
// decisions; bindings only keeps the order. A Ledger is read by one run; Record is called
// from that run's goroutines, one call at a time.
type Ledger struct {
	// Entries are the calls an earlier attempt of the run recorded, by Seq from 1. A
	// resumed run's call n is matched against entry n by tool and arguments: a done
	// entry gives back its outcome without reaching the tool, a pending one runs with its
	// decision, a started one (in flight when the host died) runs again only if its tool
	// is idempotent, and a mismatch fails the run with kind replay-diverged.
	Entries []Entry
	// Decisions are the person's decisions on pending calls, by sub-call id.
	Decisions map[string]pipeline.Verdict
	// Record is called with each entry as it is made or changes (started, then done or
	// pending), before the call goes on: a durable store keeps it so that a run whose
	// host dies can be resumed without doing anything twice. An error fails the run. Nil
	// means the entries are not kept.
	Record func(Entry) error
	// OnPause is called once, when every call that was in flight when a call began to
	// wait for a decision has ended: the caller then ends the run (cancels it) and
	// reports it paused with [Run.Pending]. Calls the program makes after the first
	// pending one are not started. Required.
	OnPause func()
}

// Entry states.
const (
	EntryStarted = "started" // dispatched, no outcome yet
	EntryDone    = "done"    // ended with Outcome
	EntryPending = "pending" // waits for a person's decision
)

// Entry is one recorded sub-call: its place in the run's call order, what it asked for
// and what came of it. It marshals to JSON and back without loss.
type Entry struct {
	Seq  int            `json:"seq"`
	ID   string         `json:"id"`
	Tool string         `json:"tool"`
	Args registry.Value `json:"args"`
	// State is EntryStarted, EntryDone or EntryPending.
	State string `json:"state"`
	// Outcome is set when State is EntryDone.
	Outcome *Outcome `json:"outcome,omitempty"`
	// Message is the approval text of a pending call.
	Message string `json:"message,omitempty"`
	// Draws are the clock and random values the program drew after the previous call
	// began and before this one did (runtime.CallDraws, less what the entries before
	// hold), so that a run resumed after a crash sees them again: the entries' draws in
	// Seq order are every draw the program made before its last call. Each entry holds
	// only its own, so recording a call costs what the program drew since the last, not
	// everything it ever drew.
	Draws *runtime.Draws `json:"draws,omitempty"`
}

// Outcome is a recorded call's result, as the program and the run's report saw it.
type Outcome struct {
	Value    registry.Value               `json:"value,omitzero"`
	Content  []registry.Content           `json:"content,omitempty"`
	Code     pipeline.Code                `json:"code,omitempty"` // set for a failed call
	Message  string                       `json:"message,omitempty"`
	Contexts []pipeline.AdditionalContext `json:"contexts,omitempty"`
}

func outcomeOf(res *pipeline.Result) *Outcome {
	o := &Outcome{Value: res.Value, Content: res.Content, Contexts: res.Contexts}
	if res.Error != nil {
		o.Code, o.Message = res.Error.Code, res.Error.Message
	}
	return o
}

// result rebuilds the pipeline result a recorded outcome came from.
func (o *Outcome) result(id, name string) *pipeline.Result {
	res := &pipeline.Result{CallID: id, Name: name, Value: o.Value, Content: o.Content, Contexts: o.Contexts}
	if o.Code != "" {
		res.Error = &pipeline.ToolError{Code: o.Code, Message: o.Message}
	}
	return res
}

// diverged is the failure of a resumed run whose program asked for something else than
// its recorded run did at the same point.
func diverged(name string, args registry.Value, e *Entry) *runtime.Failure {
	return &runtime.Failure{Kind: runtime.KindReplayDiverged, Message: fmt.Sprintf(
		"run_code could not resume: the program asked for %s(%s) where the recorded run had %s(%s)", name, args.String(), e.Tool, e.Args.String())}
}

// interrupted is the failure of a resumed run that met a call in flight at a crash whose
// tool is not idempotent.
func interrupted(name string) *runtime.Failure {
	return &runtime.Failure{Kind: runtime.KindInterrupted, Message: fmt.Sprintf(
		"run_code was interrupted while %s was running; it did not run again because it is not idempotent", name)}
}

// replay looks call seq up in the ledger before it is dispatched. It returns the recorded
// result of a call that ended (not dispatched again), or the failure that ends the run,
// or neither: the call is dispatched, and has been recorded as started.
func (r *Run) replay(ctx context.Context, seq int, rec *SubCall) (*pipeline.Result, *runtime.Failure) {
	l := r.ledger
	fresh := r.drawnSince(runtime.CallDraws(ctx))
	if seq <= len(l.Entries) {
		e := &l.Entries[seq-1]
		if e.Tool != rec.Name || e.ID != rec.ID || !e.Args.Equal(rec.Args) {
			return nil, diverged(rec.Name, rec.Args, e)
		}
		switch e.State {
		case EntryDone:
			if e.Outcome == nil {
				return nil, internalFailure(fmt.Errorf("recorded call %s has no outcome", e.ID))
			}
			r.keep(*e)
			return e.Outcome.result(rec.ID, rec.Name), nil
		case EntryStarted:
			// In flight when the host died: did it run? Only an idempotent tool may run again.
			if entry, ok := r.set.Get(rec.Name); !ok || !entry.Tool.Idempotent {
				return nil, interrupted(rec.Name)
			}
		case EntryPending: // dispatched again; its decision (if any) answers its Ask
		default:
			return nil, internalFailure(fmt.Errorf("recorded call %s has the unknown state %q", e.ID, e.State))
		}
	}
	e := Entry{Seq: seq, ID: rec.ID, Tool: rec.Name, Args: rec.Args, State: EntryStarted, Draws: fresh}
	r.keep(e)
	if err := r.record(e); err != nil {
		return nil, internalFailure(err)
	}
	return nil, nil
}

// drawnSince returns the draws of all (a call's CallDraws) that the previous call's did
// not hold, and remembers all's for the next call. Nil when the run records no draws.
// Calls start one at a time, in Seq order.
func (r *Run) drawnSince(all *runtime.Draws) *runtime.Draws {
	if all == nil {
		return nil
	}
	d := &runtime.Draws{Clock: all.Clock[min(r.drawn[0], len(all.Clock)):], Random: all.Random[min(r.drawn[1], len(all.Random)):]}
	r.drawn = [2]int{len(all.Clock), len(all.Random)}
	if len(d.Clock) == 0 {
		d.Clock = nil
	}
	if len(d.Random) == 0 {
		d.Random = nil
	}
	return d
}

// keep makes e the run's entry e.Seq (see Run.Entries).
func (r *Run) keep(e Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.entries) < e.Seq {
		r.entries = append(r.entries, Entry{})
	}
	r.entries[e.Seq-1] = e
}

// Entries returns the run's ledger as it stands: every call it dispatched or replayed,
// by Seq. A caller that records nothing as it goes (Ledger.Record nil) keeps these when
// the run pauses. Entries is empty for a run without a Ledger.
func (r *Run) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.entries)
}

// settled records a dispatched call's outcome. It reports whether the outcome goes to
// the program: a call that waits for a decision does not settle, and the run pauses once
// the calls in flight have ended.
func (r *Run) settled(seq int, rec *SubCall, res *pipeline.Result, done func(json.RawMessage, error)) bool {
	e := Entry{Seq: seq, ID: rec.ID, Tool: rec.Name, Args: rec.Args}
	waits := res.Error != nil && res.Error.Code == pipeline.CodeApprovalPending
	if waits {
		e.State, e.Message = EntryPending, res.Error.Message
	} else {
		e.State, e.Outcome = EntryDone, outcomeOf(res)
	}
	r.mu.Lock()
	if prev := r.entries[seq-1]; prev.Draws != nil {
		e.Draws = prev.Draws
	}
	r.mu.Unlock()
	r.keep(e)
	err := r.record(e)
	r.mu.Lock()
	r.inflight--
	released := false
	if waits {
		r.pausing = true
		r.pending = append(r.pending, pipeline.PendingCall{ID: e.ID, Tool: e.Tool, Arguments: json.RawMessage(e.Args.String()), Message: e.Message})
		if released = r.released; !released {
			r.stalled = append(r.stalled, done)
		}
	}
	pause := r.pausing && r.inflight == 0
	r.mu.Unlock()
	if released { // the run ended first: answer at once, as releaseStalled did the others
		done(nil, errPausedCall)
	}
	if err != nil {
		done(nil, internalFailure(err))
		return false
	}
	if pause {
		r.paused.Do(r.ledger.OnPause)
	}
	return !waits
}

// record hands e to the ledger's Record.
func (r *Run) record(e Entry) error {
	if r.ledger.Record == nil {
		return nil
	}
	if err := r.ledger.Record(e); err != nil {
		return fmt.Errorf("recording call %s: %w", e.ID, err)
	}
	return nil
}

// releaseStalled answers the calls held back by a pause once the run is over, so that
// the runtime does not wait for them.
func (r *Run) releaseStalled() {
	r.mu.Lock()
	stalled := r.stalled
	r.stalled, r.released = nil, true
	r.mu.Unlock()
	for _, done := range stalled {
		done(nil, errPausedCall)
	}
}

// errPausedCall answers a call held back by a pause once its run is over; the run has
// ended, so the program never sees it.
var errPausedCall = &runtime.CallError{Message: "run_code run paused", Fields: map[string]string{"code": string(pipeline.CodeAbortedBeforeDispatch)}}

// Pending returns the calls that wait for a person's decision, in the order they began
// to wait. It is empty unless the run has a Ledger and paused.
func (r *Run) Pending() []pipeline.PendingCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pending)
}

func internalFailure(err error) *runtime.Failure {
	return &runtime.Failure{Kind: runtime.KindException, Message: "internal error: " + err.Error()}
}

package genkit

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/firebase/genkit/go/ai"
	"github.com/runcode-go/runcode/pipeline"
)

// Paused is the error [Adapter.Execute] returns when a run_code call of the message
// paused: its program reached a tool call that needs a person's approval (a
// pre-execute hook answered pipeline.Ask) and no approver answered during the call.
// Find it with errors.As. Nothing of the pause goes to the model: the host asks the
// person about each of Pending and calls [Paused.Resume] with the decisions, which
// returns the messages Execute would have returned, or another *Paused when a run
// reaches another call needing approval.
//
// A Paused holds the adapter and the results of the message's other calls, and no
// context: it can wait until the executor forgets the paused runs
// (ptc.Options.PauseTTL, an hour by default), and be resumed from any goroutine. It
// resumes once; it is safe for concurrent use. To resume in another process or on
// another replica, save it with json.Marshal and load it there with
// [Adapter.LoadPaused], on an executor that shares the paused runs' store.
type Paused struct {
	// Pending are the calls awaiting a decision: those of each paused run_code call,
	// in the message's order, and within one run in the order they began to wait.
	Pending []PendingCall

	a       *Adapter
	batch   []pipeline.RawCall
	reqs    []*ai.ToolRequest
	results []*pipeline.Result
	resumed atomic.Bool
}

// PendingCall is a call of a run_code program that waits for a person's decision.
type PendingCall struct {
	// CallID is the id of the run_code call whose program made the call: its tool
	// request's Ref, or the id Execute gave a request without one.
	CallID string
	// PendingCall is the call: its ID (the key of its decision), Tool, Arguments
	// (canonical JSON) and Message, the approval text.
	pipeline.PendingCall
}

// paused returns the pause of a batch in which a call paused, or nil.
func (a *Adapter) paused(batch []pipeline.RawCall, reqs []*ai.ToolRequest, results []*pipeline.Result) *Paused {
	p := &Paused{a: a, batch: batch, reqs: reqs, results: results}
	p.Pending = pending(batch, results)
	if len(p.Pending) == 0 {
		return nil
	}
	return p
}

// pending lists the calls awaiting a decision, from the results.
func pending(batch []pipeline.RawCall, results []*pipeline.Result) []PendingCall {
	var out []PendingCall
	for i, res := range results {
		if res.Pause == nil {
			continue
		}
		for _, c := range res.Pause.Pending {
			out = append(out, PendingCall{CallID: batch[i].ID, PendingCall: c})
		}
	}
	return out
}

// Error says which calls wait: "genkit: run_code paused: waiting for approval of
// <tool> (<n> pending)", one tool name or the first and "and N more".
func (p *Paused) Error() string { return "genkit: " + waiting(pending(p.batch, p.results)) }

// waiting is pipeline.Waiting for ps.
func waiting(ps []PendingCall) string {
	if len(ps) == 0 {
		return pipeline.Waiting("", 0)
	}
	return pipeline.Waiting(ps[0].Tool, len(ps))
}

// Resume goes on with the paused runs: decisions holds a person's verdict on pending
// calls, by their ID (pipeline.Verdict{Approve: true}, or a rejection with an optional
// reason, which the program sees as a ToolCallError with code DENIED). Each run with a
// decision runs again by replay (its recorded calls are not made again); a run none of
// whose calls is decided is left as it was. Resume returns the messages that answer
// the model message, as Execute does, or another *Paused with what still waits.
//
// A run that cannot resume (its pause expired, the store failed) is answered with a
// tool response saying why. Resume fails, resuming nothing, when decisions is empty or
// names a call that is not pending, when ctx is done, when the pause was resumed
// already, and when the adapter's executor is not a pipeline.Resumer.
func (p *Paused) Resume(ctx context.Context, decisions map[string]pipeline.Verdict) ([]*ai.Message, error) {
	results, err := pipeline.ResumeBatch(ctx, p.a.exec, p.a.set, p.batch, p.results, decisions, &p.resumed)
	if err != nil {
		return nil, fmt.Errorf("genkit: Resume: %w", err)
	}
	if next := p.a.paused(p.batch, p.reqs, results); next != nil {
		return nil, next
	}
	return p.a.messages(p.batch, p.reqs, results), nil
}

// pausedHost names this adapter's pauses in their encoding (pipeline.PausedBatch.Host).
const pausedHost = "genkit"

// MarshalJSON encodes the pause for [Adapter.LoadPaused]: the message's calls, the
// results they had and the paused runs' continuations (pipeline.PausedBatch says what
// it holds: the tool output of the message's finished calls, and no authority). Each
// paused run resumes once however many copies are loaded: its store checks.
func (p *Paused) MarshalJSON() ([]byte, error) {
	refs := make([]string, len(p.reqs))
	for i, r := range p.reqs {
		refs[i] = r.Ref
	}
	extra, err := json.Marshal(refs)
	if err != nil {
		return nil, err
	}
	return json.Marshal(pipeline.PausedBatch{Host: pausedHost, Calls: p.batch, Results: p.results, Extra: extra})
}

// LoadPaused decodes a pause that [Paused.MarshalJSON] encoded, so that this adapter
// resumes it: a host keeps the encoding beside its conversation and, when the person
// decides (in another process, on another replica), loads it on an adapter for the
// same tool set whose executor shares the paused runs' store (ptc.Options.Store). It
// fails, naming what is wrong, on data that is not this adapter's pause.
func (a *Adapter) LoadPaused(data []byte) (*Paused, error) {
	b, err := pipeline.LoadPausedBatch(data, pausedHost)
	if err != nil {
		return nil, fmt.Errorf("genkit: LoadPaused: %w", err)
	}
	// Each call's tool request as the responses name it: its name, and its ref (empty
	// when Execute gave the call its id).
	var refs []string
	if err := json.Unmarshal(b.Extra, &refs); err != nil || len(refs) != len(b.Calls) {
		return nil, fmt.Errorf("genkit: LoadPaused: extra %s is not one tool request ref for each of the %d calls", b.Extra, len(b.Calls))
	}
	reqs := make([]*ai.ToolRequest, len(refs))
	for i, c := range b.Calls {
		if refs[i] != "" && refs[i] != c.ID {
			return nil, fmt.Errorf("genkit: LoadPaused: call %q has the ref %q", c.ID, refs[i])
		}
		reqs[i] = &ai.ToolRequest{Name: c.Name, Ref: refs[i]}
	}
	return a.paused(b.Calls, reqs, b.Results), nil
}

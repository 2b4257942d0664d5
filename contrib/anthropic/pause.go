package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/pipeline"
)

// Paused is the error [Adapter.Execute] returns when a run_code call of the message
// paused: its program reached a tool call that needs a person's approval
// (a pre-execute hook answered pipeline.Ask) and no approver answered during the call
// (pipeline.Options.Approve is nil, or answered Unavailable or Deferred). Find it with
// errors.As. Nothing of the pause goes to the model: the host asks the person about
// each of Pending and calls [Paused.Resume] with the decisions, which returns the user
// turn Execute would have returned, or another *Paused when a run reaches another call
// needing approval.
//
// A Paused holds the adapter and the results of the message's other calls, and no
// context: it can wait for minutes, until the executor forgets the paused runs
// (ptc.Options.PauseTTL, an hour by default), and be resumed from any goroutine. It
// resumes once; it is safe for concurrent use. To resume in another process or on
// another replica, save it with json.Marshal and load it there with
// [Adapter.LoadPaused], on an executor that shares the paused runs' store.
type Paused struct {
	// Pending are the calls awaiting a decision: those of each paused run_code call, in
	// the message's order, and within one run in the order they began to wait. It is
	// the caller's copy: changing it changes nothing of the pause.
	Pending []PendingCall

	a        *Adapter
	batch    []pipeline.RawCall
	toolsets []string
	// results are one per call of batch; a paused call's carries its pause.
	results []*pipeline.Result
	resumed atomic.Bool
}

// PendingCall is a call of a run_code program that waits for a person's decision.
type PendingCall struct {
	// ToolUseID is the id of the run_code tool_use whose program made the call.
	ToolUseID string
	// PendingCall is the call: its ID (the key of its decision in [Paused.Resume]),
	// Tool, Arguments (canonical JSON) and Message, the approval text (the pre-execute
	// hook's reason, or `tool "<name>" requires approval`).
	pipeline.PendingCall
}

// paused returns the pause of a batch in which a run_code call paused, or nil.
func (a *Adapter) paused(batch []pipeline.RawCall, toolsets []string, results []*pipeline.Result) *Paused {
	p := &Paused{a: a, batch: batch, toolsets: toolsets, results: results}
	p.Pending = p.pending()
	if len(p.Pending) == 0 {
		return nil
	}
	return p
}

// pending lists the calls awaiting a decision, from the results.
func (p *Paused) pending() []PendingCall {
	var out []PendingCall
	for i, res := range p.results {
		if res.Pause == nil {
			continue
		}
		for _, c := range res.Pause.Pending {
			out = append(out, PendingCall{ToolUseID: p.batch[i].ID, PendingCall: c})
		}
	}
	return out
}

// Error says which calls wait, as the model would have read it: "anthropic: run_code
// paused: waiting for approval of <tool> (<n> pending)", one tool name or the first
// and "and N more".
func (p *Paused) Error() string {
	pending := p.pending()
	return "anthropic: " + pipeline.Waiting(pending[0].Tool, len(pending))
}

// Resume goes on with the paused runs: decisions holds a person's verdict on pending
// calls, by their ID (pipeline.Verdict{Approve: true}, or a rejection with an optional
// reason, which the program sees as a ToolCallError with code DENIED and the message
// `the user rejected tool "<tool>": <reason>`). Each run with a decision runs again by
// replay (its recorded calls are not made again); a run none of whose calls is decided
// is left as it was. Resume returns the user turn that answers the message, as Execute
// does (one tool_result per tool_use, in order, the calls that did not pause answered
// with the results they had), or another *Paused with what still waits: a call left
// out of decisions, or a call the resumed program made next.
//
// A run that cannot resume (its pause expired, the store failed) answers its tool_use
// with an is_error tool_result saying why, so that the turn is complete. Resume fails,
// resuming nothing, when decisions is empty or names a call that is not pending, when
// ctx is done, when the pause was resumed already, and when the adapter's executor is
// not a pipeline.Resumer.
func (p *Paused) Resume(ctx context.Context, decisions map[string]pipeline.Verdict) (sdk.MessageParam, error) {
	results, err := pipeline.ResumeBatch(ctx, p.a.exec, p.a.set, p.batch, p.results, decisions, &p.resumed)
	if err != nil {
		return sdk.MessageParam{}, fmt.Errorf("anthropic: Resume: %w", err)
	}
	if next := p.a.paused(p.batch, p.toolsets, results); next != nil {
		return sdk.MessageParam{}, next
	}
	return p.a.turn(p.batch, p.toolsets, results), nil
}

// pausedHost names this adapter's pauses in their encoding (pipeline.PausedBatch.Host).
const pausedHost = "anthropic"

// MarshalJSON encodes the pause for [Adapter.LoadPaused]: the message's calls, the
// results they had and the paused runs' continuations (pipeline.PausedBatch says what
// it holds: the tool output of the message's finished calls, and no authority). Each
// paused run resumes once however many copies are loaded: its store checks.
func (p *Paused) MarshalJSON() ([]byte, error) {
	toolsets, err := json.Marshal(p.toolsets)
	if err != nil {
		return nil, err
	}
	return json.Marshal(pipeline.PausedBatch{Host: pausedHost, Calls: p.batch, Results: p.results, Extra: toolsets})
}

// LoadPaused decodes a pause that [Paused.MarshalJSON] encoded, so that this adapter
// resumes it: a host keeps the encoding beside its conversation and, when the person
// decides (in another process, on another replica), loads it on an adapter for the
// same tool set whose executor shares the paused runs' store (ptc.Options.Store). It
// fails, naming what is wrong, on data that is not this adapter's pause.
func (a *Adapter) LoadPaused(data []byte) (*Paused, error) {
	b, err := pipeline.LoadPausedBatch(data, pausedHost)
	if err != nil {
		return nil, fmt.Errorf("anthropic: LoadPaused: %w", err)
	}
	var toolsets []string
	if err := json.Unmarshal(b.Extra, &toolsets); err != nil || len(toolsets) != len(b.Calls) {
		return nil, fmt.Errorf("anthropic: LoadPaused: extra %s is not one toolset name for each of the %d calls", b.Extra, len(b.Calls))
	}
	return a.paused(b.Calls, toolsets, b.Results), nil
}

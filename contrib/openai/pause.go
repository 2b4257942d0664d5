package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/pipeline"
)

// ChatPaused is the error [Step.ExecuteChat] returns when a run_code call of the
// message paused; its Resume returns the messages ExecuteChat would have returned.
type ChatPaused = Paused[[]oai.ChatCompletionMessageParamUnion]

// ResponsesPaused is the error [Step.ExecuteResponses] returns when a run_code call of
// the response paused; its Resume returns the items ExecuteResponses would have
// returned.
type ResponsesPaused = Paused[[]responses.ResponseInputItemUnionParam]

// Paused is the error a Step's Execute method returns when a run_code call of the
// model's reply paused: its program reached a tool call that needs a person's approval
// (a pre-execute hook answered pipeline.Ask) and no approver answered during the call
// (pipeline.Options.Approve is nil, or answered Unavailable or Deferred). T is what
// the Execute method returns; a host names the two by [ChatPaused] and
// [ResponsesPaused] and finds them with errors.As. Nothing of the pause goes to the
// model: the host asks the person about each of Pending and calls [Paused.Resume] with
// the decisions, which returns what the Execute method would have returned, or another
// *Paused when a run reaches another call needing approval.
//
// A Paused holds the step and the results of the reply's other calls, and no context:
// it can wait for minutes, until the executor forgets the paused runs
// (ptc.Options.PauseTTL, an hour by default), and be resumed from any goroutine. It
// resumes once; it is safe for concurrent use. To resume in another process or on
// another replica, save it with json.Marshal and load it there with
// [Step.LoadChatPaused] or [Step.LoadResponsesPaused], on a step whose executor shares
// the paused runs' store.
type Paused[T any] struct {
	// Pending are the calls awaiting a decision: those of each paused run_code call, in
	// the reply's order, and within one run in the order they began to wait. It is the
	// caller's copy: changing it changes nothing of the pause.
	Pending []PendingCall

	s *Step
	// host names the API in the pause's encoding: chatHost or responsesHost.
	host  string
	calls []pipeline.RawCall
	// results are one per call; a paused call's carries its pause.
	results []*pipeline.Result
	render  func([]pipeline.RawCall, []*pipeline.Result) T
	resumed atomic.Bool
}

// PendingCall is a call of a run_code program that waits for a person's decision.
type PendingCall struct {
	// CallID is the id of the run_code function call whose program made the call: the
	// Chat tool call's id, or the Responses function_call's call_id.
	CallID string
	// PendingCall is the call: its ID (the key of its decision in [Paused.Resume]),
	// Tool, Arguments (canonical JSON) and Message, the approval text (the pre-execute
	// hook's reason, or `tool "<name>" requires approval`).
	pipeline.PendingCall
}

// newPaused returns the pause of a batch in which a run_code call paused, or nil.
func newPaused[T any](s *Step, host string, calls []pipeline.RawCall, results []*pipeline.Result, render func([]pipeline.RawCall, []*pipeline.Result) T) *Paused[T] {
	p := &Paused[T]{s: s, host: host, calls: calls, results: results, render: render}
	p.Pending = p.pending()
	if len(p.Pending) == 0 {
		return nil
	}
	return p
}

// pending lists the calls awaiting a decision, from the results.
func (p *Paused[T]) pending() []PendingCall {
	var out []PendingCall
	for i, res := range p.results {
		if res.Pause == nil {
			continue
		}
		for _, c := range res.Pause.Pending {
			out = append(out, PendingCall{CallID: p.calls[i].ID, PendingCall: c})
		}
	}
	return out
}

// Error says which calls wait, as the model would have read it: "openai: run_code
// paused: waiting for approval of <tool> (<n> pending)", one tool name or the first and
// "and N more".
func (p *Paused[T]) Error() string {
	pending := p.pending()
	return "openai: " + pipeline.Waiting(pending[0].Tool, len(pending))
}

// Resume goes on with the paused runs: decisions holds a person's verdict on pending
// calls, by their ID (pipeline.Verdict{Approve: true}, or a rejection with an optional
// reason, which the program sees as a ToolCallError with code DENIED and the message
// `the user rejected tool "<tool>": <reason>`). Each run with a decision runs again by
// replay (its recorded calls are not made again); a run none of whose calls is decided
// is left as it was. Resume returns what the Execute method would have returned (one
// answer per call, in call order, the calls that did not pause answered with the
// results they had), or another *Paused with what still waits: a call left out of
// decisions, or a call the resumed program made next.
//
// A run that cannot resume (its pause expired, the store failed) answers its call with
// an "Error: run_code could not resume: …" output, so that every call is answered.
// Resume fails, resuming nothing, when decisions is empty or names a call that is not
// pending, when ctx is done, when the pause was resumed already, and when the step's
// executor is not a pipeline.Resumer.
func (p *Paused[T]) Resume(ctx context.Context, decisions map[string]pipeline.Verdict) (T, error) {
	var zero T
	results, err := pipeline.ResumeBatch(ctx, p.s.ex, p.s.set, p.calls, p.results, decisions, &p.resumed)
	if err != nil {
		return zero, fmt.Errorf("openai: Resume: %w", err)
	}
	if next := newPaused(p.s, p.host, p.calls, results, p.render); next != nil {
		return zero, next
	}
	return p.render(p.calls, results), nil
}

// The names of this package's pauses in their encoding (pipeline.PausedBatch.Host).
const (
	chatHost      = "openai.chat"
	responsesHost = "openai.responses"
)

// MarshalJSON encodes the pause for [Step.LoadChatPaused] or [Step.LoadResponsesPaused]:
// the reply's calls, the results they had and the paused runs' continuations
// (pipeline.PausedBatch says what it holds: the tool output of the reply's finished
// calls, and no authority). Each paused run resumes once however many copies are
// loaded: its store checks.
func (p *Paused[T]) MarshalJSON() ([]byte, error) {
	return json.Marshal(pipeline.PausedBatch{Host: p.host, Calls: p.calls, Results: p.results})
}

// LoadChatPaused decodes a [ChatPaused] that its MarshalJSON encoded, so that this step
// resumes it: a host keeps the encoding beside its conversation and, when the person
// decides (in another process, on another replica), loads it on a step for the same
// tool set whose executor shares the paused runs' store (ptc.Options.Store). It fails,
// naming what is wrong, on data that is not a Chat pause.
func (s *Step) LoadChatPaused(data []byte) (*ChatPaused, error) {
	return loadPaused(s, "LoadChatPaused", chatHost, data, s.chatMessages)
}

// LoadResponsesPaused is [Step.LoadChatPaused] for a [ResponsesPaused].
func (s *Step) LoadResponsesPaused(data []byte) (*ResponsesPaused, error) {
	return loadPaused(s, "LoadResponsesPaused", responsesHost, data, s.responsesItems)
}

func loadPaused[T any](s *Step, method, host string, data []byte, render func([]pipeline.RawCall, []*pipeline.Result) T) (*Paused[T], error) {
	b, err := pipeline.LoadPausedBatch(data, host)
	if err != nil {
		return nil, fmt.Errorf("openai: %s: %w", method, err)
	}
	return newPaused(s, host, b.Calls, b.Results, render), nil
}

package genkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// interruptKey is the member of an interrupt's metadata that holds a [PauseInfo].
const interruptKey = "runcode"

// PauseInfo is what the interrupt of a paused run_code run carries, as JSON text in
// its tool request part's metadata ("interrupt" → "runcode"), from which [PauseOf]
// reads it.
type PauseInfo struct {
	// CallID is the pipeline's id of the run_code call that paused.
	CallID string `json:"callId"`
	// Continuation resumes the run, once (the pause's pipeline.Pause.Continuation).
	Continuation string `json:"continuation"`
	// Pending are the calls awaiting a decision, in the order they began to wait: each
	// one's ID (the key of its decision), Tool, Arguments and Message (the approval
	// text).
	Pending []pipeline.PendingCall `json:"pending"`
}

// String says which calls wait, as the model would have read it.
func (p *PauseInfo) String() string {
	ps := make([]PendingCall, len(p.Pending))
	for i, c := range p.Pending {
		ps[i] = PendingCall{CallID: p.CallID, PendingCall: c}
	}
	return waiting(ps)
}

// PauseOf returns the pause an interrupt part carries (one of ai.ModelResponse's
// Interrupts), or false for a part that is not the interrupt of a paused run_code run.
func PauseOf(p *ai.Part) (*PauseInfo, bool) {
	if !p.IsInterrupt() {
		return nil, false
	}
	meta, ok := p.Metadata["interrupt"].(map[string]any)
	if !ok {
		return nil, false
	}
	text, ok := meta[interruptKey].(string)
	if !ok {
		return nil, false
	}
	var info PauseInfo
	if err := json.Unmarshal([]byte(text), &info); err != nil || info.Continuation == "" || len(info.Pending) == 0 {
		return nil, false
	}
	return &info, true
}

// Tools returns the tools of the description as Genkit tools, for genkit.Generate's
// own tool loop (ai.WithTools): tools made with ai.NewTool, the registry's JSON Schema
// as their input schema and a string as their output. Genkit registers them for the
// call and runs a model message's tool requests on goroutines of its own, so each
// call runs through the executor as a batch of one, with an id "genkit-<n>". A tool
// answers with its result's text; a failed call with its "Error: ..." text, not a Go
// error, so the model reads it and Generate goes on. An image becomes a line saying
// it was left out: Genkit answers an interrupt of a multipart tool (which could carry
// images) only with an object output, so images need [Adapter.Execute]. Genkit itself checks a request's
// input against the schema before the tool runs, and fails the Generate on a
// mismatch.
//
// A run_code run that pauses for approval interrupts the generation
// (ai.ToolContext.Interrupt): Generate returns a response with FinishReason
// "interrupted", whose Interrupts carry a [PauseInfo] ([PauseOf]). Answer each with
// [Adapter.Respond] and generate again with ai.WithToolResponses. The tools are made
// once, in New; the slice is a copy.
func (a *Adapter) Tools() []ai.ToolRef { return slices.Clone(a.tools) }

// tool is one described tool as a Genkit tool whose output is the result's text.
func (a *Adapter) tool(s registry.ToolSchema, in map[string]any) ai.ToolRef {
	return ai.NewTool(s.Name, s.Description, func(tc *ai.ToolContext, input any) (string, error) {
		args, err := arguments(input)
		if err != nil {
			return "", err
		}
		id := a.nextID()
		results, err := a.execute(tc, []pipeline.RawCall{{ID: id, Name: s.Name, Arguments: args, Agent: a.opts.Agent}})
		if err != nil {
			return "", err
		}
		res := results[0]
		if res.Pause != nil {
			return "", tc.Interrupt(&ai.InterruptOptions{Metadata: interruptMeta(id, res.Pause)})
		}
		return joinText(parts(res), new(int), omitted), nil
	}, ai.WithInputSchema(clone(in)))
}

// omitted is the line that stands for an image in a text-only answer.
func omitted(int) string {
	return "[image omitted: Genkit's tool loop answers with text only]"
}

// interruptMeta is the interrupt metadata of a paused call: the PauseInfo as JSON
// text, so that the pending calls' arguments keep their bytes through any
// serialization of the history.
func interruptMeta(callID string, p *pipeline.Pause) map[string]any {
	data, _ := json.Marshal(PauseInfo{CallID: callID, Continuation: p.Continuation, Pending: p.Pending})
	return map[string]any{interruptKey: string(data)}
}

// Respond resumes the run_code run whose interrupt is p (a part of the interrupted
// response's Interrupts) with a person's decisions on its pending calls, by their ID:
// pipeline.Verdict{Approve: true}, or a rejection with an optional reason, which the
// program sees as a ToolCallError with code DENIED. The run runs again by replay (its
// recorded calls are not made again).
//
// It returns the tool response part that answers the interrupted request, for the
// next Generate's ai.WithToolResponses (with ai.WithMessages of the response's
// History): the run's text as the output, an image as a line saying it was left out,
// as [Adapter.Tools] answers.
// When the resumed run pauses again (a call left out of decisions, or a next call
// that needs approval), it returns an interrupt part instead (IsInterrupt is true),
// with the new pause for [PauseOf]: ask again and Respond to that part. (Respond
// answers with a response rather than a restart, ai.WithToolRestarts, because Genkit
// fails a generation whose restarted tool interrupts again.)
//
// A run that cannot resume (its pause expired, the store failed, or its continuation
// was spent by an earlier Respond to the same part: a continuation resumes once) is
// answered with a response saying why, so that the model learns it. Respond fails,
// resuming nothing, when p is not the interrupt of a paused run_code run, when
// decisions is empty or names a call that is not pending, when ctx is done, and when
// the adapter's executor is not a pipeline.Resumer.
func (a *Adapter) Respond(ctx context.Context, p *ai.Part, decisions map[string]pipeline.Verdict) (*ai.Part, error) {
	info, ok := PauseOf(p)
	if !ok {
		return nil, errors.New("genkit: Respond: the part is not the interrupt of a paused run_code run")
	}
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("genkit: Respond: %w", err)
	}
	rs, ok := a.exec.(pipeline.Resumer)
	if !ok {
		return nil, fmt.Errorf("genkit: Respond: the executor (%T) cannot resume runs: it is not a pipeline.Resumer", a.exec)
	}
	var ids []string
	for _, c := range info.Pending {
		ids = append(ids, c.ID)
	}
	if len(decisions) == 0 {
		return nil, fmt.Errorf("genkit: Respond: no decisions: decide at least one of the pending calls (%s)", strings.Join(ids, ", "))
	}
	for _, id := range slices.Sorted(maps.Keys(decisions)) {
		if !slices.Contains(ids, id) {
			return nil, fmt.Errorf("genkit: Respond: no call %q is pending (pending: %s)", id, strings.Join(ids, ", "))
		}
	}
	call := pipeline.RawCall{ID: info.CallID, Name: p.ToolRequest.Name}
	res, err := rs.Resume(ctx, a.set, info.Continuation, decisions)
	switch {
	case err != nil:
		res = pipeline.ResumeFailed(call, err)
	case res == nil:
		res = pipeline.ResumeFailed(call, fmt.Errorf("the executor's Resume returned no result for call %q", info.CallID))
	}
	if res.Pause != nil {
		again := *p
		again.Metadata = maps.Clone(p.Metadata)
		again.Metadata["interrupt"] = interruptMeta(info.CallID, res.Pause)
		return &again, nil
	}
	out := ai.NewResponseForToolRequest(p, joinText(parts(res), new(int), omitted))
	out.Metadata = map[string]any{"interruptResponse": true}
	return out, nil
}

package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/pipeline"
)

// RunnerCallPrefix starts the call ids the tool runner's calls get: the runner does not
// pass a tool_use id to a tool, so each call is numbered, "runner-1", "runner-2"…, and a
// run_code sub-call is "runner-1:code:1".
const RunnerCallPrefix = "runner-"

// runnerState is what the tool-runner tools of one adapter share.
type runnerState struct {
	// mu runs the runner's calls one at a time: the runner starts every tool_use of a
	// message on its own goroutine, and a tool that must run alone (one whose
	// concurrency classifier says no) would otherwise overlap the others.
	mu    sync.Mutex
	calls atomic.Int64
}

// BetaTools returns the adapter's tools for the SDK's tool runner
// (client.Beta.Messages.NewToolRunner), which sends each tool's name, description and
// input schema and calls it for each tool_use.
//
// The runner calls tools one by one, so it cannot run a message's calls as one batch:
// these tools run them one at a time (in the order the runner's goroutines reach them),
// each through the executor as a batch of one. Use [Adapter.Execute] in a loop of your
// own for the scheduler's parallelism and call-order guarantees. The runner's
// definitions carry no defer_loading. A failed call becomes the runner's is_error
// tool_result, whose text is the result's text; the images a failed run_code attached
// are not sent, because the runner's error path takes text only.
//
// The runner cannot wait for a person: a run_code run that pauses for approval (see
// [Paused]) becomes an is_error tool_result saying the program stopped at that call.
// For approvals, use Execute, whose *Paused waits for the person, or give the pipeline
// an approver that answers during the call (pipeline.Options.Approve).
func (a *Adapter) BetaTools() []sdk.BetaTool {
	out := make([]sdk.BetaTool, len(a.tools))
	for i, t := range a.tools {
		tp := t.OfTool
		schema := sdk.BetaToolInputSchemaParam{Type: "object", Properties: tp.InputSchema.Properties,
			Required: slices.Clone(tp.InputSchema.Required), ExtraFields: maps.Clone(tp.InputSchema.ExtraFields)}
		out[i] = &betaTool{a: a, name: a.names[i], description: tp.Description.Value, schema: schema}
	}
	return out
}

// BetaSystem returns [Adapter.System] as the beta API's system blocks, for the tool
// runner's parameters.
func (a *Adapter) BetaSystem() []sdk.BetaTextBlockParam {
	out := make([]sdk.BetaTextBlockParam, len(a.system))
	for i, s := range a.system {
		out[i] = sdk.BetaTextBlockParam{Text: s.Text}
		if s.CacheControl.Type != "" {
			cc := sdk.NewBetaCacheControlEphemeralParam()
			cc.TTL = sdk.BetaCacheControlEphemeralTTL(s.CacheControl.TTL)
			out[i].CacheControl = cc
		}
	}
	return out
}

// betaTool is one of an adapter's tools as the tool runner's sdk.BetaTool.
type betaTool struct {
	a           *Adapter
	name        string
	description string
	schema      sdk.BetaToolInputSchemaParam
}

func (t *betaTool) Name() string                              { return t.name }
func (t *betaTool) Description() string                       { return t.description }
func (t *betaTool) InputSchema() sdk.BetaToolInputSchemaParam { return t.schema }

// Execute runs one call through the executor. A failed result is returned as an error
// whose message is the result's text without its "Error: " opening, which the runner
// puts back. So is a run_code run that paused for approval (see [runnerPause]).
func (t *betaTool) Execute(ctx context.Context, input json.RawMessage) ([]sdk.BetaToolResultBlockParamContentUnion, error) {
	st := t.a.runner
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%s%d", RunnerCallPrefix, st.calls.Add(1))
	results, err := t.a.execute(ctx, []pipeline.RawCall{{ID: id, Name: t.name, Arguments: arguments(input), Agent: t.a.agent}})
	if err != nil {
		return nil, err
	}
	if p := results[0].Pause; p != nil {
		return nil, runnerPause(p)
	}
	res := toolResult(id, results[0], t.a.maxImage)
	if res.IsError.Value {
		var texts []string
		for _, b := range res.Content {
			if b.OfText != nil {
				texts = append(texts, b.OfText.Text)
			}
		}
		return nil, errors.New(strings.TrimPrefix(strings.Join(texts, "\n"), "Error: "))
	}
	return betaContent(res.Content)
}

// betaContent converts tool_result blocks to the beta API's through their JSON, which
// the two APIs share.
func betaContent(in []sdk.ToolResultBlockParamContentUnion) ([]sdk.BetaToolResultBlockParamContentUnion, error) {
	out := make([]sdk.BetaToolResultBlockParamContentUnion, len(in))
	for i, b := range in {
		data, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("anthropic: encode a tool_result block: %w", err)
		}
		if err := json.Unmarshal(data, &out[i]); err != nil {
			return nil, fmt.Errorf("anthropic: decode a tool_result block as the beta API's: %w", err)
		}
	}
	return out, nil
}

// runnerPause is the runner's answer to a run_code run that paused for a person's
// approval. The runner sends whatever a tool returns to the model and goes on, so it
// cannot stop for the person (Adapter.Execute can: it returns a *Paused). The pause
// text would tell the model the run resumes later, which nothing here does, so the
// model reads instead that the program stopped there. The paused run is left to
// expire in the executor's store.
func runnerPause(p *pipeline.Pause) error {
	what := "a tool"
	if len(p.Pending) > 0 { // always, from ptc; a custom executor's pause may list none
		what = p.Pending[0].Tool
	}
	if len(p.Pending) > 1 {
		what += fmt.Sprintf(" and %d more", len(p.Pending)-1)
	}
	return fmt.Errorf("run_code stopped before it finished: the program called %s, which needs a person's approval, and none can be asked for here (the calls it had started before ran)", what)
}

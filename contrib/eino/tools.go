package eino

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// PauseInfo is the info of the Eino interrupt that a tool of [Adapter.Tools] or
// [Adapter.EnhancedTools] raises when its run_code run pauses for a person's approval:
// an ADK runner's interrupted event carries it in InterruptContexts[i].Info, a graph's
// interrupt error in compose.ExtractInterruptInfo's InterruptContexts. The host asks the
// person about each of Pending and resumes that interrupt's ID with [Decisions] as the
// resume data.
type PauseInfo struct {
	// ToolCallID is the id of the run_code tool call that paused.
	ToolCallID string
	// Pending are the calls awaiting a decision, in the order they began to wait: each
	// one's ID (the key of its decision), Tool, Arguments and Message (the approval
	// text).
	Pending []pipeline.PendingCall
}

// String says which calls wait, as the model would have read it.
func (p *PauseInfo) String() string {
	ps := make([]PendingCall, len(p.Pending))
	for i, c := range p.Pending {
		ps[i] = PendingCall{ToolCallID: p.ToolCallID, PendingCall: c}
	}
	return waiting(ps)
}

// Decisions is the resume data for an interrupt with a [*PauseInfo]: a person's
// verdict on pending calls, by their ID. A decision on a call that is not pending in
// that run is ignored; an interrupt resumed with no decision on any of its calls (or
// left out of the resume targets) interrupts again, as it was.
type Decisions = map[string]pipeline.Verdict

// pauseState is what an interrupt keeps in Eino's checkpoint to resume the run.
type pauseState struct {
	CallID       string
	Continuation string
	Pending      []pipeline.PendingCall
}

func init() {
	schema.RegisterName[pauseState]("runcode_eino_pause_state")
	schema.RegisterName[*PauseInfo]("runcode_eino_pause_info")
}

// Tools returns the tools of the description as Eino invokable tools, for a
// compose.ToolsNode, the ReAct agent (flow/agent/react) or ADK's ChatModelAgent. Each
// call runs through the executor as a batch of one (Eino's ToolsNode runs a message's
// calls on goroutines of its own; [Adapter.Execute] keeps them in one batch), with the
// tool call's id from compose.GetToolCallID, or "eino-<n>" outside a ToolsNode. A tool
// answers with its result's text, a failed call with its "Error: ..." text (not a Go
// error, so the model reads it); an image becomes a line saying it was left out (use
// [Adapter.EnhancedTools] to send images).
//
// A run_code run that pauses for approval raises an Eino interrupt
// (tool.StatefulInterrupt) with a [*PauseInfo]; resumed with [Decisions], the tool
// resumes the run by replay. An interrupt needs Eino's checkpointing: an adk.Runner
// with a CheckPointStore, or a graph compiled with one.
func (a *Adapter) Tools() []tool.BaseTool {
	n := new(atomic.Int64)
	out := make([]tool.BaseTool, len(a.schemas))
	for i, s := range a.schemas {
		out[i] = &invokable{runner{a: a, schema: s, n: n}}
	}
	return out
}

// EnhancedTools returns the tools of [Adapter.Tools] as tool.EnhancedInvokableTool,
// which answer with a schema.ToolResult: text parts, and each image as an image part
// with its base64 data and media type. Eino's ToolsNode puts the parts in the tool
// message's UserInputMultiContent; a chat model component must accept that (eino-ext's
// OpenAI model does not: use Tools with it).
func (a *Adapter) EnhancedTools() []tool.BaseTool {
	n := new(atomic.Int64)
	out := make([]tool.BaseTool, len(a.schemas))
	for i, s := range a.schemas {
		out[i] = &enhanced{runner{a: a, schema: s, n: n}}
	}
	return out
}

// runner runs one tool's calls through the adapter.
type runner struct {
	a      *Adapter
	schema registry.ToolSchema
	n      *atomic.Int64
}

func (r *runner) Info(context.Context) (*schema.ToolInfo, error) { return toolInfo(r.schema), nil }

// run executes one call, or resumes the run it interrupted, and returns its parts;
// an error is an interrupt, or the executor breaking its contract.
func (r *runner) run(ctx context.Context, args string) ([]schema.ToolOutputPart, error) {
	var res *pipeline.Result
	if was, has, st := tool.GetInterruptState[pauseState](ctx); was && has {
		_, _, data := tool.GetResumeContext[Decisions](ctx)
		mine := Decisions{}
		for _, c := range st.Pending {
			if v, ok := data[c.ID]; ok {
				mine[c.ID] = v
			}
		}
		if len(mine) == 0 { // not resumed, or nothing of this run decided: wait on
			return nil, tool.StatefulInterrupt(ctx, st.info(), st)
		}
		res = r.resume(ctx, st, mine)
	} else {
		id := compose.GetToolCallID(ctx)
		if id == "" {
			id = "eino-" + strconv.FormatInt(r.n.Add(1), 10)
		}
		call := pipeline.RawCall{ID: id, Name: r.schema.Name, Arguments: args, Agent: r.a.opts.Agent}
		results, err := r.a.execute(ctx, []pipeline.RawCall{call})
		if err != nil {
			return nil, err
		}
		res = results[0]
	}
	if res.Pause != nil {
		st := pauseState{CallID: res.CallID, Continuation: res.Pause.Continuation, Pending: slices.Clone(res.Pause.Pending)}
		return nil, tool.StatefulInterrupt(ctx, st.info(), st)
	}
	return parts(res), nil
}

// resume goes on with the run st paused, with the decisions on its calls; a run that
// cannot resume answers with why.
func (r *runner) resume(ctx context.Context, st pauseState, decisions Decisions) *pipeline.Result {
	call := pipeline.RawCall{ID: st.CallID, Name: r.schema.Name}
	rs, ok := r.a.exec.(pipeline.Resumer)
	if !ok {
		return pipeline.ResumeFailed(call, fmt.Errorf("the executor (%T) cannot resume runs: it is not a pipeline.Resumer", r.a.exec))
	}
	res, err := rs.Resume(ctx, r.a.set, st.Continuation, decisions)
	switch {
	case err != nil:
		return pipeline.ResumeFailed(call, err)
	case res == nil:
		return pipeline.ResumeFailed(call, fmt.Errorf("the executor's Resume returned no result for call %q", st.CallID))
	}
	return res
}

func (st pauseState) info() *PauseInfo {
	return &PauseInfo{ToolCallID: st.CallID, Pending: slices.Clone(st.Pending)}
}

// invokable is a described tool as an Eino InvokableTool.
type invokable struct{ runner }

func (t *invokable) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	ps, err := t.run(ctx, args)
	if err != nil {
		return "", err
	}
	return joinText(ps, new(int), func(int) string {
		return "[image omitted: this tool answers Eino with text only]"
	}), nil
}

// enhanced is a described tool as an Eino EnhancedInvokableTool.
type enhanced struct{ runner }

func (t *enhanced) InvokableRun(ctx context.Context, arg *schema.ToolArgument, _ ...tool.Option) (*schema.ToolResult, error) {
	var args string
	if arg != nil {
		args = arg.Text
	}
	ps, err := t.run(ctx, args)
	if err != nil {
		return nil, err
	}
	return &schema.ToolResult{Parts: ps}, nil
}

var (
	_ tool.InvokableTool         = (*invokable)(nil)
	_ tool.EnhancedInvokableTool = (*enhanced)(nil)
)

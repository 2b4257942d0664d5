package genkit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/firebase/genkit/go/ai"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ErrNoToolRequests is returned by [Adapter.Execute] for a message with no tool
// request: there is nothing to answer.
var ErrNoToolRequests = errors.New("genkit: the message has no tool request")

// Options configures an Adapter. Nil means every default.
type Options struct {
	// Instructions is the host's own prompt, put before the executor's sections in
	// [Adapter.System]. Empty means none.
	Instructions string
	// Agent names the agent whose step emitted the calls (pipeline.RawCall.Agent).
	// Empty means none.
	Agent string
	// ToolImages puts the images of a result [Adapter.Execute] answers in its tool
	// response's Content (as Genkit's multipart tools do) instead of one user message
	// after the tool message. Set it for a model plugin that sends a tool response's
	// content; false (the default) suits every plugin, including compat_oai's OpenAI
	// models, which send only a tool response's output.
	ToolImages bool
}

// Adapter presents one resolved tool set, through one executor, in Genkit's types: the
// tools and system message of a Generate call, the messages that answer a model
// message's tool requests, and the tool responses that answer a paused run's
// interrupt. It describes the set once, in New, so a host makes a new Adapter when the
// set changes. It is immutable and safe for concurrent use.
type Adapter struct {
	exec        pipeline.Executor
	set         *registry.ResolvedToolSet
	opts        Options
	schemas     []registry.ToolSchema
	inputs      []map[string]any
	instruction string
	tools       []ai.ToolRef
	n           atomic.Int64
}

// New describes set with exec and returns the adapter for it. exec is the executor
// that serves the set's mode: a *ptc.Executor for modes ptc and both, a
// *native.Executor for mode native (pipeline.Executors.For picks it). It fails if the
// description fails or holds parameters that are not a JSON object.
func New(exec pipeline.Executor, set *registry.ResolvedToolSet, opts *Options) (*Adapter, error) {
	if exec == nil {
		return nil, errors.New("genkit: New: nil executor")
	}
	if set == nil {
		return nil, errors.New("genkit: New: nil tool set")
	}
	a := &Adapter{exec: exec, set: set}
	if opts != nil {
		a.opts = *opts
	}
	desc, err := exec.Describe(set)
	if err != nil {
		return nil, fmt.Errorf("genkit: describe: %w", err)
	}
	for _, t := range desc.Tools {
		in, err := inputSchema(t)
		if err != nil {
			return nil, err
		}
		a.schemas = append(a.schemas, t)
		a.inputs = append(a.inputs, in)
		a.tools = append(a.tools, a.tool(t, in))
	}
	a.instruction = instruction(a.opts.Instructions, desc.Sections)
	return a, nil
}

// instruction joins the host's prompt and the non-empty sections, in Order, with a
// blank line between them.
func instruction(host string, sections []pipeline.Section) string {
	sorted := slices.Clone(sections)
	slices.SortStableFunc(sorted, func(x, y pipeline.Section) int { return cmp.Compare(x.Order, y.Order) })
	var parts []string
	if host != "" {
		parts = append(parts, host)
	}
	for _, s := range sorted {
		if s.Text != "" {
			parts = append(parts, s.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// inputSchema decodes a tool's parameters as the map Genkit's tools take. Empty
// parameters are {"type":"object"}.
func inputSchema(t registry.ToolSchema) (map[string]any, error) {
	raw := t.Parameters
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("genkit: tool %q: parameters are not a JSON Schema object: %v", t.Name, err)
	}
	return m, nil
}

// System returns Options.Instructions, then the executor's prompt sections in Order
// (run_code's rules, then the SDK), separated by blank lines. Send it verbatim: with
// ai.WithSystemFn, or as [Adapter.SystemMessage]; ai.WithSystem formats its text with
// fmt.Sprintf, which would mangle a "%" in the SDK.
func (a *Adapter) System() string { return a.instruction }

// SystemMessage returns [Adapter.System] as a system message, to open the messages of
// every Generate call (ai.WithMessages). It is a fresh message.
func (a *Adapter) SystemMessage() *ai.Message { return ai.NewSystemTextMessage(a.instruction) }

// Definitions returns the tools' definitions, as a model receives them.
func (a *Adapter) Definitions() []*ai.ToolDefinition {
	out := make([]*ai.ToolDefinition, len(a.schemas))
	for i, s := range a.schemas {
		out[i] = &ai.ToolDefinition{Name: s.Name, Description: s.Description, InputSchema: clone(a.inputs[i])}
	}
	return out
}

// clone deep-copies a JSON map.
func clone(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// Execute answers msg's tool requests, for a loop that runs tools itself
// (ai.WithReturnToolRequests(true)): it runs all of them as one batch through the
// executor (one Execute, so the scheduler overlaps parallel-safe calls and runs the
// others alone, in order) and returns the messages to append after msg: one tool
// message with one tool response per request, in order (Ref and Name as the request
// had them; the output is the result's text, a failed call's its "Error: ..." text),
// then, when a result carries images and Options.ToolImages is false, one user
// message holding them, each after a text naming its call. An image's place in the
// output is the line "[image N is in the user message after the tool results]". With
// ToolImages, a result's images are its tool response's Content.
//
// A request without a Ref gets the id "genkit-<n>" in the pipeline, and its response
// has no Ref, as its request had none.
//
// When a run_code program stops at a call needing a person's approval, the message
// cannot be answered yet: Execute returns no messages and a [*Paused] error, which
// lists the calls awaiting a decision and resumes them. Nothing of the pause goes to
// the model.
//
// It fails (running nothing) on a nil message, a message with no tool request
// ([ErrNoToolRequests]) or repeated refs, and if the executor breaks its contract.
func (a *Adapter) Execute(ctx context.Context, msg *ai.Message) ([]*ai.Message, error) {
	if msg == nil {
		return nil, errors.New("genkit: Execute: nil message")
	}
	var batch []pipeline.RawCall
	var reqs []*ai.ToolRequest
	seen := map[string]bool{}
	for _, p := range msg.Content {
		if !p.IsToolRequest() || p.ToolRequest == nil {
			continue
		}
		tr := p.ToolRequest
		id := tr.Ref
		switch {
		case id == "":
			id = a.nextID()
		case seen[id]:
			return nil, fmt.Errorf("genkit: Execute: tool request ref %q appears more than once", id)
		}
		seen[id] = true
		args, err := arguments(tr.Input)
		if err != nil {
			return nil, fmt.Errorf("genkit: Execute: tool request %q: %w", id, err)
		}
		batch = append(batch, pipeline.RawCall{ID: id, Name: tr.Name, Arguments: args, Agent: a.opts.Agent})
		reqs = append(reqs, tr)
	}
	if len(batch) == 0 {
		return nil, ErrNoToolRequests
	}
	results, err := a.execute(ctx, batch)
	if err != nil {
		return nil, err
	}
	if p := a.paused(batch, reqs, results); p != nil {
		return nil, p
	}
	return a.messages(batch, reqs, results), nil
}

// nextID is an id for a call that came without one.
func (a *Adapter) nextID() string { return "genkit-" + strconv.FormatInt(a.n.Add(1), 10) }

// arguments is a tool request's input as the pipeline's raw arguments: JSON text, or
// "" for none.
func arguments(input any) (string, error) {
	switch in := input.(type) {
	case nil:
		return "", nil
	case string:
		return in, nil
	case json.RawMessage:
		return string(in), nil
	}
	data, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("input is not JSON: %v", err)
	}
	return string(data), nil
}

// execute runs batch as one executor call and checks that the executor kept its
// contract: one result per call, in order.
func (a *Adapter) execute(ctx context.Context, batch []pipeline.RawCall) ([]*pipeline.Result, error) {
	results := a.exec.Execute(ctx, a.set, batch)
	if len(results) != len(batch) {
		return nil, fmt.Errorf("genkit: the executor returned %d results for %d calls", len(results), len(batch))
	}
	for i, res := range results {
		if res == nil {
			return nil, fmt.Errorf("genkit: the executor returned no result for call %q", batch[i].ID)
		}
	}
	return results, nil
}

// messages renders the results of batch as Execute returns them.
func (a *Adapter) messages(batch []pipeline.RawCall, reqs []*ai.ToolRequest, results []*pipeline.Result) []*ai.Message {
	tool := &ai.Message{Role: ai.RoleTool}
	var images []*ai.Part
	n := 0
	for i, res := range results {
		ps := parts(res)
		resp := &ai.ToolResponse{Name: reqs[i].Name, Ref: reqs[i].Ref}
		if a.opts.ToolImages {
			resp.Output = joinText(ps, new(int), func(int) string { return "" })
			resp.Content = media(ps)
		} else {
			first := n
			resp.Output = joinText(ps, &n, func(k int) string {
				return fmt.Sprintf("[image %d is in the user message after the tool results]", k)
			})
			for k, m := range media(ps) {
				images = append(images, ai.NewTextPart(fmt.Sprintf("Image %d (call %s):", first+k+1, batch[i].ID)), m)
			}
		}
		tool.Content = append(tool.Content, ai.NewToolResponsePart(resp))
	}
	out := []*ai.Message{tool}
	if len(images) > 0 {
		out = append(out, ai.NewUserMessage(images...))
	}
	return out
}

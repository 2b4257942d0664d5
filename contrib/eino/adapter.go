package eino

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ErrNoToolCalls is returned by [Adapter.Execute] for a message with no tool call:
// there is nothing to answer.
var ErrNoToolCalls = errors.New("eino: the message has no tool call")

// Options configures an Adapter. Nil means every default.
type Options struct {
	// Instructions is the host's own prompt, put before the executor's sections in
	// [Adapter.Instruction] and [Adapter.SystemMessage]. Empty means none.
	Instructions string
	// Agent names the agent whose step emitted the calls (pipeline.RawCall.Agent).
	// Empty means none.
	Agent string
	// ToolImages puts a result's images in its own tool message
	// (Message.UserInputMultiContent, as Eino's ToolsNode does for an
	// EnhancedInvokableTool) instead of one user message after the tool messages. Set
	// it for a chat model component that takes multimodal tool messages. False (the
	// default) suits every component, including eino-ext's OpenAI model, which refuses
	// a tool message with multimodal content.
	ToolImages bool
}

// Adapter presents one resolved tool set, through one executor, in Eino's types: the
// tool infos and instruction of a model step, the messages that answer an assistant
// message's tool calls, and the tools for Eino's ToolsNode and agents. It describes the
// set once, in New, so a host makes a new Adapter when the set changes. It is immutable
// and safe for concurrent use.
type Adapter struct {
	exec        pipeline.Executor
	set         *registry.ResolvedToolSet
	opts        Options
	schemas     []registry.ToolSchema
	instruction string
}

// New describes set with exec and returns the adapter for it. exec is the executor
// that serves the set's mode: a *ptc.Executor for modes ptc and both, a
// *native.Executor for mode native (pipeline.Executors.For picks it). It fails if the
// description fails or holds a schema that is not a JSON object.
func New(exec pipeline.Executor, set *registry.ResolvedToolSet, opts *Options) (*Adapter, error) {
	if exec == nil {
		return nil, errors.New("eino: New: nil executor")
	}
	if set == nil {
		return nil, errors.New("eino: New: nil tool set")
	}
	a := &Adapter{exec: exec, set: set}
	if opts != nil {
		a.opts = *opts
	}
	desc, err := exec.Describe(set)
	if err != nil {
		return nil, fmt.Errorf("eino: describe: %w", err)
	}
	for _, t := range desc.Tools {
		if _, err := params(t); err != nil {
			return nil, err
		}
	}
	a.schemas = desc.Tools
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

// ToolInfos returns the tools of a model step as Eino tool infos, in the
// description's order, for model.ToolCallingChatModel.WithTools (or model.WithTools
// per call). Each is a fresh copy.
func (a *Adapter) ToolInfos() []*schema.ToolInfo {
	out := make([]*schema.ToolInfo, len(a.schemas))
	for i, t := range a.schemas {
		out[i] = toolInfo(t)
	}
	return out
}

// Instruction returns Options.Instructions, then the executor's prompt sections in
// Order (run_code's rules, then the SDK), separated by blank lines: an ADK
// ChatModelAgent's Instruction, or the text of a system message. Without the SDK
// section the model cannot know what a program's tools object holds.
func (a *Adapter) Instruction() string { return a.instruction }

// SystemMessage returns [Adapter.Instruction] as a system message, to open the
// messages of every model request (so the provider's prefix cache reuses it). It is a
// fresh message.
func (a *Adapter) SystemMessage() *schema.Message { return schema.SystemMessage(a.instruction) }

// Execute answers msg's tool calls: it runs all of them as one batch through the
// executor (one Execute, so the scheduler overlaps parallel-safe calls and runs the
// others alone, in order) and returns the messages to append after msg: one tool
// message per call, in call order (ToolCallID and ToolName set; a failed call's
// content is its "Error: ..." text), then, when a result carries images and
// Options.ToolImages is false, one user message holding them, each after a text
// naming its call. An image's place in its tool message's text is the line
// "[image N is in the user message after the tool results]". With ToolImages, a
// result with images is a tool message whose UserInputMultiContent holds its text and
// images, and no user message follows.
//
// When a run_code program stops at a call needing a person's approval, the message
// cannot be answered yet: Execute returns no messages and a [*Paused] error, which
// lists the calls awaiting a decision and resumes them (Paused.Resume returns these
// messages). Nothing of the pause goes to the model.
//
// It fails (running nothing) on a nil message, a message with no tool call
// ([ErrNoToolCalls]), or tool call ids that are empty or repeated; and if the
// executor breaks its contract. A tool's failure is not an error.
func (a *Adapter) Execute(ctx context.Context, msg *schema.Message) ([]*schema.Message, error) {
	if msg == nil {
		return nil, errors.New("eino: Execute: nil message")
	}
	batch := make([]pipeline.RawCall, 0, len(msg.ToolCalls))
	seen := map[string]bool{}
	for i, tc := range msg.ToolCalls {
		switch {
		case tc.ID == "":
			return nil, fmt.Errorf("eino: Execute: tool call %d (%q) has no id", i, tc.Function.Name)
		case seen[tc.ID]:
			return nil, fmt.Errorf("eino: Execute: tool call id %q appears more than once", tc.ID)
		}
		seen[tc.ID] = true
		batch = append(batch, pipeline.RawCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Agent: a.opts.Agent})
	}
	if len(batch) == 0 {
		return nil, ErrNoToolCalls
	}
	results, err := a.execute(ctx, batch)
	if err != nil {
		return nil, err
	}
	if p := a.paused(batch, results); p != nil {
		return nil, p
	}
	return a.messages(batch, results), nil
}

// execute runs batch as one executor call and checks that the executor kept its
// contract: one result per call, in order.
func (a *Adapter) execute(ctx context.Context, batch []pipeline.RawCall) ([]*pipeline.Result, error) {
	results := a.exec.Execute(ctx, a.set, batch)
	if len(results) != len(batch) {
		return nil, fmt.Errorf("eino: the executor returned %d results for %d calls", len(results), len(batch))
	}
	for i, res := range results {
		if res == nil {
			return nil, fmt.Errorf("eino: the executor returned no result for call %q", batch[i].ID)
		}
	}
	return results, nil
}

// messages renders the results of batch as Execute returns them.
func (a *Adapter) messages(batch []pipeline.RawCall, results []*pipeline.Result) []*schema.Message {
	out := make([]*schema.Message, 0, len(results)+1)
	var images []schema.MessageInputPart
	n := 0
	for i, res := range results {
		ps := parts(res)
		m := schema.ToolMessage("", batch[i].ID, schema.WithToolName(batch[i].Name))
		if a.opts.ToolImages && countImages(ps) > 0 {
			m.UserInputMultiContent = inputParts(ps)
			m.Content = joinText(ps, new(int), func(int) string { return "" })
			out = append(out, m)
			continue
		}
		first := n
		m.Content = joinText(ps, &n, func(k int) string {
			return fmt.Sprintf("[image %d is in the user message after the tool results]", k)
		})
		out = append(out, m)
		k := first
		for _, p := range ps {
			if p.Type != schema.ToolPartTypeImage {
				continue
			}
			k++
			images = append(images,
				schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: fmt.Sprintf("Image %d (call %s):", k, batch[i].ID)},
				schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: p.Image.MessagePartCommon}})
		}
	}
	if len(images) > 0 {
		out = append(out, &schema.Message{Role: schema.User, UserInputMultiContent: images})
	}
	return out
}

// params decodes a tool's parameters as an Eino JSON Schema. Empty parameters are
// {"type":"object"}.
func params(t registry.ToolSchema) (*jsonschema.Schema, error) {
	raw := t.Parameters
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("eino: tool %q: parameters are not a JSON Schema object: %v", t.Name, err)
	}
	return &s, nil
}

// toolInfo is a tool schema as an Eino tool info (parameters checked in New).
func toolInfo(t registry.ToolSchema) *schema.ToolInfo {
	s, _ := params(t)
	return &schema.ToolInfo{Name: t.Name, Desc: t.Description, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(s)}
}

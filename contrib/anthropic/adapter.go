package anthropic

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// SDKSection names the prompt section the cache breakpoint follows by default: the
// run_code executor's SDK section (ptc.SectionSDK), the large stable part of the prompt.
const SDKSection = "tools:sdk"

// ErrNoToolUse is returned by [Adapter.Execute] for a message with no tool_use block:
// there is nothing to answer, and a user turn without content is not a valid request.
var ErrNoToolUse = errors.New("anthropic: the message has no tool_use block")

// toolName is the Messages API's rule for a tool's name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// Options configures an Adapter. Nil means every default.
type Options struct {
	// CacheSection names the system section that carries the cache breakpoint
	// (cache_control ephemeral), so that the tools and the system blocks up to it are
	// cached. Empty means [SDKSection], or the last section when the description has no
	// such section.
	CacheSection string
	// CacheTTL is the breakpoint's time to live, "5m" or "1h". Empty means the API's
	// default (5m).
	CacheTTL string
	// NoCache sends no cache breakpoint at all. False means one breakpoint, as above.
	NoCache bool
	// Agent names the agent whose step emitted the calls (pipeline.RawCall.Agent).
	// Empty means none.
	Agent string
	// MaxImageBytes bounds an image's base64 payload: a larger image becomes a text
	// saying it was left out, since the API refuses the request (and every later one
	// that resends the history). Zero means [DefaultMaxImageBytes]; negative means no
	// bound.
	MaxImageBytes int
}

// DefaultMaxImageBytes is the Messages API's limit on one base64 image, 5 MiB.
const DefaultMaxImageBytes = 5 << 20

// Adapter presents one resolved tool set, through one executor, in the Anthropic SDK's
// types: the tool list and system blocks of a request, and the user turn that answers a
// response's tool_use blocks. It describes the set once, in New, so a host makes a new
// Adapter when the set changes (a new step with other conditional tools, another
// scope). It is immutable and safe for concurrent use.
type Adapter struct {
	exec   pipeline.Executor
	set    *registry.ResolvedToolSet
	agent  string
	tools  []sdk.ToolUnionParam
	system []sdk.TextBlockParam
	names  []string
	runner *runnerState
	// maxImage bounds an image's base64 payload; negative means no bound.
	maxImage int
}

// New describes set with exec and returns the adapter for it. exec is the executor that
// serves the set's mode: a *ptc.Executor for modes ptc and both (it describes run_code
// and, under both, the native tools beside it, and runs both), a *native.Executor for
// mode native; pipeline.Executors.For picks it from a map. It fails if the description
// fails or holds a tool the Messages API would refuse.
func New(exec pipeline.Executor, set *registry.ResolvedToolSet, opts *Options) (*Adapter, error) {
	if exec == nil {
		return nil, errors.New("anthropic: New: nil executor")
	}
	if set == nil {
		return nil, errors.New("anthropic: New: nil tool set")
	}
	if opts == nil {
		opts = &Options{}
	}
	if opts.CacheTTL != "" && opts.CacheTTL != "5m" && opts.CacheTTL != "1h" {
		return nil, fmt.Errorf(`anthropic: New: CacheTTL must be "", "5m" or "1h", got %q`, opts.CacheTTL)
	}
	desc, err := exec.Describe(set)
	if err != nil {
		return nil, fmt.Errorf("anthropic: describe: %w", err)
	}
	a := &Adapter{exec: exec, set: set, agent: opts.Agent, runner: &runnerState{}, maxImage: opts.MaxImageBytes}
	if a.maxImage == 0 {
		a.maxImage = DefaultMaxImageBytes
	}
	for _, t := range desc.Tools {
		tp, err := toolParam(t)
		if err != nil {
			return nil, err
		}
		a.tools = append(a.tools, sdk.ToolUnionParam{OfTool: tp})
		a.names = append(a.names, t.Name)
	}
	a.system, err = systemBlocks(desc.Sections, opts)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Tools returns the request's tool list: one custom tool per described tool, in the
// description's order. A tool the registry marks DeferLoading is sent with
// defer_loading true; the API then requires a tool search tool in the same list
// (sdk.ToolUnionParam's OfToolSearchToolRegex20251119 or OfToolSearchToolBm25_20251119),
// which the host appends, since which one to use is its choice. The tools are copies:
// changing them does not change the adapter.
func (a *Adapter) Tools() []sdk.ToolUnionParam {
	out := make([]sdk.ToolUnionParam, len(a.tools))
	for i, t := range a.tools {
		tp := *t.OfTool
		tp.InputSchema.Required = slices.Clone(tp.InputSchema.Required)
		tp.InputSchema.ExtraFields = maps.Clone(tp.InputSchema.ExtraFields)
		out[i] = sdk.ToolUnionParam{OfTool: &tp}
	}
	return out
}

// System returns the description's prompt sections as system text blocks, in order,
// with the cache breakpoint on the section Options chose. A host puts its own blocks
// after them, so the cached prefix stays the same from request to request. The slice
// is a copy.
func (a *Adapter) System() []sdk.TextBlockParam { return slices.Clone(a.system) }

// Execute answers msg's tool_use blocks: it runs all of them as one batch through the
// executor (one Execute call, so the scheduler overlaps the parallel-safe ones and runs
// the others alone, in order) and returns the user turn holding one tool_result per
// tool_use, in the message's order. A failed call's tool_result has is_error set.
// Images come back as image blocks inside the tool_result, after the result's text; an
// image a run_code sub-call produced follows a text block naming the sub-call. Other
// content blocks are left alone: the turn answers tool_use blocks only, so the host
// appends msg.ToParam() before it, as the API requires.
//
// When a run_code call's program stops at a call needing a person's approval, the
// message cannot be answered yet: Execute returns a [*Paused] error, which lists the
// calls awaiting a decision and resumes them (Paused.Resume returns this turn). Nothing
// of the pause goes to the model.
//
// It fails (running nothing) on a nil message, a message with no tool_use block
// ([ErrNoToolUse]), or tool_use ids that are empty or repeated; and if the executor
// breaks its contract (a missing or extra result). A tool's failure is not an error:
// it is a tool_result with is_error.
func (a *Adapter) Execute(ctx context.Context, msg *sdk.Message) (sdk.MessageParam, error) {
	if msg == nil {
		return sdk.MessageParam{}, errors.New("anthropic: Execute: nil message")
	}
	var batch []pipeline.RawCall
	var toolsets []string
	seen := map[string]bool{}
	for i, b := range msg.Content {
		if b.Type != "tool_use" {
			continue
		}
		use := b.AsToolUse()
		switch {
		case use.ID == "":
			return sdk.MessageParam{}, fmt.Errorf("anthropic: Execute: content block %d (tool_use %q) has no id", i, use.Name)
		case seen[use.ID]:
			return sdk.MessageParam{}, fmt.Errorf("anthropic: Execute: tool_use id %q appears more than once", use.ID)
		}
		seen[use.ID] = true
		batch = append(batch, pipeline.RawCall{ID: use.ID, Name: use.Name, Arguments: arguments(use.Input), Agent: a.agent})
		toolsets = append(toolsets, use.ToolsetName)
	}
	if len(batch) == 0 {
		return sdk.MessageParam{}, ErrNoToolUse
	}
	results, err := a.execute(ctx, batch)
	if err != nil {
		return sdk.MessageParam{}, err
	}
	if p := a.paused(batch, toolsets, results); p != nil {
		return sdk.MessageParam{}, p
	}
	return a.turn(batch, toolsets, results), nil
}

// execute runs batch as one executor call and checks that the executor kept its
// contract: one result per call, in order.
func (a *Adapter) execute(ctx context.Context, batch []pipeline.RawCall) ([]*pipeline.Result, error) {
	results := a.exec.Execute(ctx, a.set, batch)
	if len(results) != len(batch) {
		return nil, fmt.Errorf("anthropic: the executor returned %d results for %d calls", len(results), len(batch))
	}
	for i, res := range results {
		if res == nil {
			return nil, fmt.Errorf("anthropic: the executor returned no result for call %q", batch[i].ID)
		}
	}
	return results, nil
}

// turn is the user turn answering batch: one tool_result per call, in order, each
// naming the toolset its tool_use named.
func (a *Adapter) turn(batch []pipeline.RawCall, toolsets []string, results []*pipeline.Result) sdk.MessageParam {
	out := make([]sdk.ContentBlockParamUnion, len(batch))
	for i, res := range results {
		tr := toolResult(batch[i].ID, res, a.maxImage)
		if toolsets[i] != "" {
			// A toolset member's result names its toolset, as its tool_use did.
			tr.ToolsetName = sdk.String(toolsets[i])
		}
		out[i] = sdk.ContentBlockParamUnion{OfToolResult: &tr}
	}
	return sdk.NewUserMessage(out...)
}

// arguments is a tool_use input as the pipeline's raw arguments. The API always sends
// an object; an absent or null input is the empty object, which RawCall spells "".
func arguments(input json.RawMessage) string {
	if t := bytes.TrimSpace(input); len(t) == 0 || string(t) == "null" {
		return ""
	}
	return string(input)
}

// toolParam converts a tool schema to a custom tool. The JSON Schema's members are kept
// as raw JSON, so numbers and key order reach the API as the registry rendered them.
func toolParam(t registry.ToolSchema) (*sdk.ToolParam, error) {
	if !toolName.MatchString(t.Name) {
		return nil, fmt.Errorf("anthropic: tool name %q is not accepted by the Messages API (it must match %s)", t.Name, toolName)
	}
	schema, err := inputSchema(t.Parameters)
	if err != nil {
		return nil, fmt.Errorf("anthropic: tool %q: %w", t.Name, err)
	}
	tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	if t.DeferLoading {
		tp.DeferLoading = sdk.Bool(true)
	}
	return tp, nil
}

// inputSchema splits an object schema into the SDK's fields: properties, required, and
// every other member as an extra field. Empty parameters mean {"type":"object"}. Type is
// set, not left to its default, because a zero schema would be omitted from the tool,
// and the API requires input_schema.
func inputSchema(params json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	s := sdk.ToolInputSchemaParam{Type: "object"}
	if len(bytes.TrimSpace(params)) == 0 {
		return s, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(params, &members); err != nil {
		return s, fmt.Errorf("input schema is not a JSON object: %v", err)
	}
	if typ, ok := members["type"]; ok && string(bytes.TrimSpace(typ)) != `"object"` {
		return s, fmt.Errorf(`input schema must have "type": "object", got %s`, typ)
	}
	for k, v := range members {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			if err := json.Unmarshal(v, &s.Required); err != nil {
				return s, fmt.Errorf(`input schema's "required" is not a list of strings: %v`, err)
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

// systemBlocks renders the sections as text blocks, dropping empty ones (the API
// refuses an empty text block), and sets the cache breakpoint.
func systemBlocks(sections []pipeline.Section, opts *Options) ([]sdk.TextBlockParam, error) {
	sorted := slices.Clone(sections)
	slices.SortStableFunc(sorted, func(x, y pipeline.Section) int { return cmp.Compare(x.Order, y.Order) })
	var out []sdk.TextBlockParam
	at := -1
	for _, s := range sorted {
		if s.Text == "" {
			continue
		}
		name := opts.CacheSection
		if name == "" {
			name = SDKSection
		}
		if s.Name == name {
			at = len(out)
		}
		out = append(out, sdk.TextBlockParam{Text: s.Text})
	}
	if opts.NoCache || len(out) == 0 {
		return out, nil
	}
	if at < 0 {
		if opts.CacheSection != "" {
			return nil, fmt.Errorf("anthropic: New: CacheSection %q is not among the described sections", opts.CacheSection)
		}
		at = len(out) - 1
	}
	cc := sdk.NewCacheControlEphemeralParam()
	cc.TTL = sdk.CacheControlEphemeralTTL(opts.CacheTTL)
	out[at].CacheControl = cc
	return out, nil
}

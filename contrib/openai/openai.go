package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// Options configures an Adapter. The zero value is valid.
type Options struct {
	// Instructions is the host's own system prompt. It opens the system message
	// (Chat) and the instructions (Responses), before the executor's sections, so
	// that the longest stable prefix comes first. Empty means none.
	Instructions string
	// Developer sends the Chat system prompt as a developer message, the role that
	// reasoning models expect. False means a system message.
	Developer bool
	// Strict sets strict to true on the tools whose parameters schema qualifies for
	// OpenAI's strict mode (see the package documentation); the others stay
	// non-strict. False means no tool is strict.
	Strict bool
	// ImageDetail is the detail level sent with every image: "auto", "low", "high"
	// or "original". Empty means the API's default.
	ImageDetail string
}

// Adapter turns a runcode executor into OpenAI request and response types. It is
// immutable and safe for concurrent use; one Adapter serves every model step.
type Adapter struct {
	pick func(set *registry.ResolvedToolSet) (pipeline.Executor, error)
	o    Options
}

// New returns an Adapter whose steps describe and execute through exec (a
// *ptc.Executor, a *native.Executor, or any pipeline.Executor).
func New(exec pipeline.Executor, opts *Options) (*Adapter, error) {
	if exec == nil {
		return nil, errors.New("openai: the executor is nil")
	}
	return newAdapter(func(*registry.ResolvedToolSet) (pipeline.Executor, error) { return exec, nil }, opts)
}

// NewByMode returns an Adapter that picks each step's executor by the resolved
// set's mode (pipeline.Executors.For), so that the nearest scope's mode decides
// between native, ptc and both.
func NewByMode(execs pipeline.Executors, opts *Options) (*Adapter, error) {
	if len(execs) == 0 {
		return nil, errors.New("openai: no executors")
	}
	for mode, ex := range execs {
		if ex == nil {
			return nil, fmt.Errorf("openai: the executor for mode %q is nil", mode)
		}
	}
	// A copy, so that a caller's later change to the map does not reach the Adapter.
	execs = maps.Clone(execs)
	return newAdapter(execs.For, opts)
}

func newAdapter(pick func(*registry.ResolvedToolSet) (pipeline.Executor, error), opts *Options) (*Adapter, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch o.ImageDetail {
	case "", "auto", "low", "high", "original":
	default:
		return nil, fmt.Errorf("openai: ImageDetail must be \"auto\", \"low\", \"high\", \"original\" or empty, got %q", o.ImageDetail)
	}
	return &Adapter{pick: pick, o: o}, nil
}

// Step describes set once and returns the model step it serves: the tools and
// prompt to send, and the execution of the model's calls. Resolve a set per model
// step (registry.Scope.Resolve) and take a Step from it.
func (a *Adapter) Step(set *registry.ResolvedToolSet) (*Step, error) {
	if set == nil {
		return nil, errors.New("openai: the resolved tool set is nil")
	}
	ex, err := a.pick(set)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	d, err := ex.Describe(set)
	if err != nil {
		return nil, fmt.Errorf("openai: describe: %w", err)
	}
	if d == nil {
		return nil, errors.New("openai: describe returned no description")
	}
	s := &Step{a: a, ex: ex, set: set, desc: d}
	s.params = make([]map[string]any, len(d.Tools))
	s.strict = make([]bool, len(d.Tools))
	for i, t := range d.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("openai: tool %d has no name", i)
		}
		p, err := parameters(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("openai: tool %q: %w", t.Name, err)
		}
		s.params[i] = p
		s.strict[i] = a.o.Strict && Strictable(t.Parameters)
	}
	s.instructions = instructions(a.o.Instructions, d.Sections)
	return s, nil
}

// Step is one model step: the description of one resolved set, ready to send, and
// the execution of the calls the model makes in reply. It is immutable and safe for
// concurrent use.
type Step struct {
	a            *Adapter
	ex           pipeline.Executor
	set          *registry.ResolvedToolSet
	desc         *pipeline.Description
	params       []map[string]any
	strict       []bool
	instructions string
}

// Description returns what the executor described for this step.
func (s *Step) Description() *pipeline.Description { return s.desc }

// Instructions returns the system prompt text: Options.Instructions, then each
// section's text in Order (ties keep the executor's order), separated by blank
// lines. It is the Responses API's instructions and the Chat system message. The
// Responses API does not carry instructions over with previous_response_id: send
// them with every request.
func (s *Step) Instructions() string { return s.instructions }

func instructions(host string, sections []pipeline.Section) string {
	sorted := slices.Clone(sections)
	slices.SortStableFunc(sorted, func(a, b pipeline.Section) int { return cmp.Compare(a.Order, b.Order) })
	var parts []string
	if strings.TrimSpace(host) != "" {
		parts = append(parts, host)
	}
	for _, sec := range sorted {
		if strings.TrimSpace(sec.Text) != "" {
			parts = append(parts, sec.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// parameters turns a tool's JSON Schema into the SDK's parameters map. The values
// stay raw JSON, so everything under the top level keeps the schema's own key
// order (property order is part of what the model reads); the top-level keys are
// sorted by the encoder, which keeps the bytes stable from request to request.
func parameters(schema json.RawMessage) (map[string]any, error) {
	if len(schema) == 0 {
		return map[string]any{"type": json.RawMessage(`"object"`), "properties": json.RawMessage(`{}`)}, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil || top == nil {
		return nil, errors.New("the parameters schema is not a JSON object")
	}
	out := make(map[string]any, len(top))
	for k, v := range top {
		out[k] = v
	}
	return out, nil
}

// execute runs calls as one batch and checks that the executor kept its contract
// of one result per call, in order.
func (s *Step) execute(ctx context.Context, calls []pipeline.RawCall) ([]*pipeline.Result, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	results := s.ex.Execute(ctx, s.set, calls)
	if len(results) != len(calls) {
		return nil, fmt.Errorf("openai: the executor returned %d results for %d calls", len(results), len(calls))
	}
	for i, r := range results {
		if r == nil {
			return nil, fmt.Errorf("openai: the executor returned no result for call %q", calls[i].ID)
		}
	}
	return results, nil
}

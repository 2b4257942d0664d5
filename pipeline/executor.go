package pipeline

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/runcode-go/runcode/registry"
)

// Executor presents a resolved tool set to the model and executes the model's calls.
// It has exactly two duties, so that custom executors plug in: Describe says what the
// model is sent; Execute turns a batch of the model's raw calls into ordered results.
// Implementations must be safe for concurrent use.
type Executor interface {
	// Describe returns what the model receives for set: tool schemas and prompt
	// sections.
	Describe(set *registry.ResolvedToolSet) (*Description, error)
	// Execute runs one model step's batch of calls and returns one result per call,
	// in call order. It returns only after every started call has settled.
	Execute(ctx context.Context, set *registry.ResolvedToolSet, batch []RawCall) []*Result
}

// RawCall is a call as the model emitted it.
type RawCall struct {
	ID   string
	Name string
	// Arguments is the raw JSON text. Empty means {}; text that is not JSON is
	// kept as a string, which fails validation as `"arguments" must be an object`.
	Arguments string
	// Agent names the agent whose step emitted the call, if any.
	Agent string
}

// Description is what a model step is sent for a tool set.
type Description struct {
	// Tools are the tool schemas sent in the request's tool list.
	Tools []registry.ToolSchema
	// Sections are system-prompt sections, in Order.
	Sections []Section
}

// Section is a named system-prompt section.
type Section struct {
	Name  string
	Order int
	Text  string
}

// Executors maps each mode to the executor that serves it. Selecting by a set's mode
// is how the nearest scope's mode picks the executor.
type Executors map[registry.Mode]Executor

// For returns the executor for the set's mode.
func (e Executors) For(set *registry.ResolvedToolSet) (Executor, error) {
	ex, ok := e[set.Mode()]
	if !ok || ex == nil {
		known := slices.Sorted(maps.Keys(e))
		names := make([]string, len(known))
		for i, k := range known {
			names[i] = string(k)
		}
		return nil, fmt.Errorf("mode %q has no executor (executors: %s)", set.Mode(), strings.Join(names, ", "))
	}
	return ex, nil
}

// ParseArguments snapshots a model's raw argument text as a Value: empty text is {},
// and text that is not lossless JSON becomes a JSON string of itself, so that it
// fails validation with the usual message instead of vanishing.
func ParseArguments(text string) registry.Value {
	if strings.TrimSpace(text) == "" {
		return emptyObject
	}
	v, err := registry.ParseValue([]byte(text))
	if err != nil {
		return registry.StringValue(text)
	}
	return v
}

var emptyObject = registry.MustParseValue("{}")

// Resumer is an Executor whose calls can pause for a person's decisions (Result.Pause)
// and go on later: Resume takes the pause's continuation and the decisions on its
// pending calls, by id, and returns the call's result (or another pause). The run_code
// executor is one. An error means nothing ran (an expired, forged or spent
// continuation, a changed tool set, a store that failed).
type Resumer interface {
	Executor
	Resume(ctx context.Context, set *registry.ResolvedToolSet, continuation string, decisions map[string]Verdict) (*Result, error)
}

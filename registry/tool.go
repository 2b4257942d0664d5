package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// RunCodeName is the name of the run_code transport. It is reserved: it cannot be
// registered, shadowed or named in a restriction.
const RunCodeName = "run_code"

// The built-in members of a program's tools object (docs/run_code.md, "Finding
// tools" and "Output"): reserved, so no tool can take their names.
const (
	SearchName   = "$search"
	DescribeName = "$describe"
	// ResultName reads back a result a run kept because it was over its output budget.
	ResultName = "$result"
)

// Tool is a tool definition. Register copies what it needs; the Tool must not be
// changed after registration. Callbacks may be called from many goroutines at once.
type Tool struct {
	// Name is the model-facing name. It must be non-empty, at most 128 bytes, valid
	// UTF-8 without control characters, and not [RunCodeName].
	Name string
	// Description tells the model what the tool does.
	Description string
	// Source names where the tool comes from (an MCP server, a manifest). The SDK index
	// groups tools by it when a set has more than one. Empty means none.
	Source string
	// Parameters is the JSON Schema of the arguments. If zero, any object is accepted
	// ({"type":"object"}).
	Parameters Schema
	// Output declares the canonical value and how it is rendered for the model.
	Output Output
	// Execute is the body. It receives the call (with frozen arguments that already
	// passed validation) and returns the canonical value: a [Value], a
	// [json.RawMessage], or any value encoding/json can encode losslessly; or an
	// [Answer], to supply its own content as well. It must observe ctx: cancellation
	// is cooperative. Execute is required.
	Execute func(ctx context.Context, call *Call) (any, error)
	// TimeoutMs is a declared deadline in milliseconds, enforced by the pipeline's
	// timeout wrapper. Zero means none; it must not be negative.
	TimeoutMs int
	// IsConcurrencySafe classifies a call: only an exact true lets it overlap with
	// other safe calls. If nil, every call is exclusive.
	IsConcurrencySafe func(args Value) bool
	// Idempotent declares that running a call twice has the effect of running it once.
	// A run resumed after its host died runs a call that was in flight at the crash again
	// only when its tool is idempotent; otherwise the run ends interrupted, so that a side
	// effect never happens twice. False (the default) means not idempotent.
	Idempotent bool
	// ProjectContent, if set, replaces the rendered content with execution-prepared
	// content before post-execute policies see it (which may still replace or block it).
	ProjectContent func(call *Call, value Value, rendered []Content) ([]Content, error)
	// FinalizeContent, if set, is the last transform of the content, run exactly once
	// for every outcome (success or error), after post-execute policies.
	FinalizeContent func(call *Call, content []Content, isError bool) []Content
	// PresentCall and PresentResult are pure render-intent functions for host UIs.
	// They must depend only on their arguments. If nil, a generic card is used.
	PresentCall   func(args Value) Presentation
	PresentResult func(args Value, content []Content, isError bool) Presentation
	// DeferLoading asks the model provider to load the definition lazily; the schema
	// is still resolved and dispatchable. The SDK never declares such a tool: it is
	// listed by name, and programs get its declaration through tools.$describe.
	DeferLoading bool
	// When, if set, makes the tool conditional: it is evaluated once per step by
	// [Scope.Resolve]. False hides the tool from the description, the SDK and dispatch;
	// an error (or panic) fails the resolution as TOOL_ACTIVATION_FAILED.
	When func(ctx context.Context, step Step) (bool, error)
}

// Answer is what an Execute body returns when it renders its own content, as a tool
// from elsewhere does (an MCP server's content blocks, an image): Value is the
// canonical value, still validated against the output schema, and Content replaces
// what Output.Render would make of it. A nil Content means "render as usual".
type Answer struct {
	Value   any
	Content []Content
}

// Output declares a tool's canonical value.
type Output struct {
	// Schema is the JSON Schema of the value. If zero, any JSON value is accepted.
	Schema Schema
	// Render turns the value into model-facing content. If nil, a string value renders
	// as itself and any other value as 2-space-indented JSON, in one text block.
	Render func(args, value Value) ([]Content, error)
}

// Call is one tool call as stages and bodies see it. The pipeline creates it; it must
// be treated as read-only (Args is immutable by construction).
type Call struct {
	// ID identifies the call; sub-calls of a run_code call are "<parent>:code:<n>".
	ID string
	// RootID is the model-direct call this call descends from (its own ID if none).
	RootID string
	// ParentID is the run_code call that issued this one, or "" for a model-direct call.
	ParentID string
	// Name is the tool name as called.
	Name string
	// Args is the frozen, lossless snapshot of the arguments.
	Args Value
	// Agent names the agent whose step issued the call, if any.
	Agent string
}

// Content is one block of model-facing content.
type Content struct {
	// Type is "text", "image", "audio" or "resource".
	Type string `json:"type"`
	// Text is the text of a text block.
	Text string `json:"text,omitempty"`
	// Data is the base64 payload of an image or audio block.
	Data string `json:"data,omitempty"`
	// MIMEType is the media type of Data.
	MIMEType string `json:"mimeType,omitempty"`
	// URI names a resource block.
	URI string `json:"uri,omitempty"`
}

// Text returns a text block.
func Text(s string) Content { return Content{Type: "text", Text: s} }

// Intent is a render intent for a host UI card.
type Intent string

// The render intents.
const (
	IntentGeneric  Intent = "generic"
	IntentTerminal Intent = "terminal"
	IntentDiff     Intent = "diff"
	IntentSearch   Intent = "search"
	IntentRead     Intent = "read"
	IntentWeb      Intent = "web"
)

// Presentation is what a host UI needs to draw a card for a call or its result.
type Presentation struct {
	Intent Intent `json:"card"`
	Title  string `json:"title,omitempty"`
	// Kind is a short verb for the card ("read", "execute", "search", …).
	Kind string `json:"kind,omitempty"`
	// Detail is intent-specific JSON (a diff, a command line, a URL, …).
	Detail any `json:"detail,omitempty"`
}

// Step is what a conditional tool's When sees: the step being prepared.
type Step struct {
	// Agent names the agent whose step this is, if any.
	Agent string
	// Model names the model selection of the step (provider/model/effort), if any.
	Model string
}

var (
	// ErrReserved is wrapped by errors about the reserved run_code name.
	ErrReserved = errors.New("reserved name")
	// ErrDuplicate is wrapped when a name is registered twice in one scope.
	ErrDuplicate = errors.New("duplicate registration")
	// ErrInvalidTool is wrapped by every other registration error.
	ErrInvalidTool = errors.New("invalid tool")
)

// isControl reports an ASCII control character (a regexp here would compile at every
// process start).
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// entryFor validates t and compiles its schemas.
func entryFor(t *Tool) (*Entry, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil tool", ErrInvalidTool)
	}
	if t.Name == RunCodeName {
		return nil, fmt.Errorf("%w: tool name %q is reserved for the run_code transport and cannot be registered or shadowed", ErrReserved, RunCodeName)
	}
	if t.Name == SearchName || t.Name == DescribeName || t.Name == ResultName {
		return nil, fmt.Errorf("%w: tool name %q is reserved for a built-in of programs' tools object and cannot be registered", ErrReserved, t.Name)
	}
	switch {
	case t.Name == "":
		return nil, fmt.Errorf("%w: tool name is empty", ErrInvalidTool)
	case len(t.Name) > 128:
		return nil, fmt.Errorf("%w: tool name %.40q… is longer than 128 bytes", ErrInvalidTool, t.Name)
	case !validUTF8(t.Name) || strings.ContainsFunc(t.Name, isControl):
		return nil, fmt.Errorf("%w: tool name %q has invalid UTF-8 or control characters", ErrInvalidTool, t.Name)
	case t.Execute == nil:
		return nil, fmt.Errorf("%w: tool %q has no Execute function", ErrInvalidTool, t.Name)
	case t.TimeoutMs < 0:
		return nil, fmt.Errorf("%w: tool %q: TimeoutMs must not be negative, got %d", ErrInvalidTool, t.Name, t.TimeoutMs)
	}
	params, err := compileSchema(t.Parameters, `{"type":"object"}`)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: parameters: %v", ErrInvalidTool, t.Name, err)
	}
	output, err := compileSchema(t.Output.Schema, `{}`)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: output schema: %v", ErrInvalidTool, t.Name, err)
	}
	return &Entry{Tool: t, params: params, output: output}, nil
}

func validUTF8(s string) bool {
	for _, r := range s {
		if r == 0xFFFD {
			return false
		}
	}
	return true
}

// defaultRender renders a string as itself and anything else as indented JSON.
func defaultRender(_, value Value) ([]Content, error) {
	if value.Kind() == "string" {
		return []Content{Text(value.Any().(string))}, nil
	}
	return []Content{Text(string(Indent(value)))}, nil
}

// Indent renders v as 2-space-indented JSON (JSON.stringify(v, null, 2)).
func Indent(v Value) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(v.s), "", "  "); err != nil {
		return []byte(v.s)
	}
	return out.Bytes()
}

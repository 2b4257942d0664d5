package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// Call is one call on its way through the pipeline: the call as bodies see it, plus
// the definition it resolved to when it was prepared (nil for an unknown name).
//
// The call is frozen when it enters the pipeline (reference: arguments cannot be
// rewritten). Every stage gets it read-only for the duration of the stage and must not
// keep it: the pipeline checks after each pre-execute hook, approval, guard, execute
// wrapper and post-execute hook that the call is unchanged, and fails a call a stage
// changed (as a stage error: TOOL_FAILED, no post-execute). What is validated,
// dispatched, rendered and logged is always the call as it entered. The body gets its
// own copy, and observers and finalizeContent get the frozen call back whatever an
// earlier one did to theirs.
type Call struct {
	registry.Call
	// Tool is the visible definition at prepare time, or nil for an unknown name.
	Tool *registry.Entry

	// frozen and tool are the call as it entered and its definition; the exported
	// fields are the stages' view of them, restored before every stage.
	frozen registry.Call
	tool   *registry.Entry
	body   registry.Call // the body's copy (its own storage: no allocation)

	caller context.Context // the caller's context, fused back in before the body
	set    *registry.ResolvedToolSet
	// validated and violations cache the argument check made for classification.
	validated  bool
	violations []string
}

// view restores the stages' view of the call from the frozen call and returns it.
func (c *Call) view() *Call {
	c.Call, c.Tool = c.frozen, c.tool
	return c
}

// changedBy returns the failure of a call that the stage named by who changed, or nil
// if the call is as it entered.
func (c *Call) changedBy(who string) *ToolError {
	if c.Call == c.frozen && c.Tool == c.tool {
		return nil
	}
	return &ToolError{Code: CodeToolFailed, Message: fmt.Sprintf("%s changed the call to tool %q; calls are read-only to stages", who, c.frozen.Name)}
}

// Result is a call's outcome. A successful result has a Value and content; a failed
// one has Error and content "Error: <message>". Once returned by the pipeline it is
// final and must not be modified.
type Result struct {
	CallID string
	Name   string
	// Value is the canonical value after post-execute; zero on failure.
	Value registry.Value
	// Content is the final model-facing content (after finalizeContent).
	Content []registry.Content
	// Error is set exactly when the call failed.
	Error *ToolError
	// Contexts are additional contexts attached by post-execute policies, in order.
	Contexts []AdditionalContext
	// Pause is set when the call's work stopped to wait for a person's decisions (a
	// run_code run that paused at a tool needing approval): the host asks the person and
	// resumes it with Pause.Continuation. The call is not an error; its content is the
	// text that tells the model to wait.
	Pause *Pause
}

// Pause is how to go on with work that waits for a person: an opaque continuation and
// the calls awaiting a decision. It is a plain value.
type Pause struct {
	// Continuation is an opaque, URL-safe token that resumes the work, once.
	Continuation string `json:"continuation"`
	// Pending are the calls awaiting a decision, in the order they began to wait.
	Pending []PendingCall `json:"pending"`
}

// PendingCall is a call that waits for a person's decision.
type PendingCall struct {
	// ID names the call in a decision (a sub-call id).
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the call's arguments as canonical JSON.
	Arguments json.RawMessage `json:"arguments"`
	// Message is the approval text the pipeline would have shown.
	Message string `json:"message"`
}

// IsError reports whether the call failed.
func (r *Result) IsError() bool { return r.Error != nil }

// Text returns the text blocks of the result's content joined by newlines, for a host
// that shows text only; other blocks (images, resources) are left out. run_code's
// result has exactly one text block, so its Text is that block.
func (r *Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// clone returns a deep-enough copy for observers: slices are copied so that an
// observer cannot change the outcome the caller holds.
func (r *Result) clone() Result {
	c := *r
	c.Content = slices.Clone(r.Content)
	c.Contexts = slices.Clone(r.Contexts)
	return c
}

// AdditionalContext is model content to put in front of the model after the step's
// results (the contract's additional contexts), with where it came from.
type AdditionalContext struct {
	// Source names what attached it (a policy's name, "run_code" for attributed
	// sub-call content).
	Source string
	// CallID and Tool attribute the content to the (sub-)call that produced it, when
	// there is one.
	CallID  string
	Tool    string
	Content []registry.Content
}

// ContextContent returns contexts as one list of content, in order, for a host that
// has no place to put them in front of the model but after a result's own content (an
// MCP tool result, a provider's tool_result): a context run_code attached for an
// image-bearing sub-call contributes its images, each after a text naming the sub-call
// ("Image from <tool> (sub-call <id>):"; the sub-call's text is the program's to print);
// any other context contributes all its blocks after one text naming what attached it
// and, for a sub-call's context, the sub-call.
func ContextContent(contexts []AdditionalContext) []registry.Content {
	var out []registry.Content
	for _, c := range contexts {
		if c.Source == registry.RunCodeName && c.Tool != "" {
			for _, b := range c.Content {
				if b.Type == "image" {
					out = append(out, registry.Text(fmt.Sprintf("Image from %s (sub-call %s):", c.Tool, c.CallID)), b)
				}
			}
			continue
		}
		if len(c.Content) == 0 {
			continue
		}
		label := "Context attached"
		if c.Source != "" {
			label += " by " + c.Source
		}
		if c.Tool != "" {
			label += fmt.Sprintf(" to %s (sub-call %s)", c.Tool, c.CallID)
		}
		out = append(out, registry.Text(label+":"))
		out = append(out, c.Content...)
	}
	return out
}

// Handler runs a prepared call: the core dispatch (lookup, argument validation, body,
// output validation, render) or a wrapper around it. A returned error is a pipeline
// failure (it skips post-execute); tool failures are results with Error set.
type Handler func(ctx context.Context, call *Call) (*Result, error)

// Middleware wraps a Handler, like net/http middleware: timeout, retry, metrics. It
// may replace the context (derived contexts only: the pipeline still honours the
// caller's cancellation) but not the call: a wrapper that changes it fails the call.
type Middleware func(next Handler) Handler

// Chain returns h wrapped by ms so that ms[0] runs outermost: Chain(h, a, b, c) is
// a(b(c(h))).
func Chain(h Handler, ms ...Middleware) Handler {
	for i := len(ms) - 1; i >= 0; i-- {
		h = ms[i](h)
	}
	return h
}

// Action is a pre-execute decision.
type Action int

// The pre-execute actions.
const (
	Allow Action = iota
	Deny
	Ask
)

// Decision is what a pre-execute hook returns. The zero Decision allows.
type Decision struct {
	Action Action
	// Reason is the denial text, or the question for the approval hook.
	Reason string
}

// PreExecuteFunc decides allow, deny or ask for a call before guards run. It cannot
// change the arguments: the call is read-only, and a hook that changes it fails the
// call (see [Call]). A panic or error fails the call (and skips post-execute).
type PreExecuteFunc func(ctx context.Context, call *Call) (Decision, error)

// Approval is the answer of an approval hook.
type Approval int

// The approval answers. Unavailable and Deferred deny the call, unless its context
// allows it to wait for a decision ([WithDeferral]); then it ends with
// CodeApprovalPending and its run pauses.
const (
	AllowedOnce Approval = iota
	Rejected
	Cancelled
	// Unavailable: no way to ask a person now (for example, the client cannot be asked
	// during a call).
	Unavailable
	// Deferred: a person will answer later, not during this call.
	Deferred
)

// ApproveFunc asks a person whether a call may run. It blocks until answered or ctx
// is done.
type ApproveFunc func(ctx context.Context, call *Call, reason string) (Approval, error)

// PostAction is what a post-execute hook returns. The zero PostAction accepts.
type PostAction struct {
	// Block turns the result into a valueless failure whose message is Feedback's
	// text (non-text blocks as "[<type> content]"), or a fixed text when empty.
	Block    bool
	Feedback []registry.Content
	// ReplaceContent replaces the content (the value stays). Not with ReplaceValue.
	ReplaceContent []registry.Content
	// ReplaceValue replaces the value, which is re-validated and re-rendered.
	ReplaceValue *registry.Value
	// Contexts are attached to the result, after earlier hooks' contexts.
	Contexts []AdditionalContext
}

// PostExecuteFunc inspects a result (successful or not) and may accept, replace or
// block it. res is the current outcome; the hook must not modify it.
type PostExecuteFunc func(ctx context.Context, call *Call, res *Result) (PostAction, error)

// ObserverFunc sees every final outcome. res is a copy; a panicking observer is
// contained and logged.
type ObserverFunc func(call *Call, res Result)

// Event is a log-only record of the pipeline's progress; it never becomes a model
// message.
type Event struct {
	// Type is EventCall, EventResult, EventDispatchStart, EventDispatch, EventAbandoned
	// or EventDispatchAbandoned.
	Type     string
	Time     time.Time
	CallID   string
	RootID   string
	ParentID string
	Name     string
	Args     registry.Value
	// IsError and Content are set on EventResult and EventDispatch, and on the
	// abandoned events (the abandonment's error).
	IsError bool
	Content []registry.Content
	// Duration is set on EventResult and EventDispatch: the time from the call's
	// EventCall (EventDispatchStart) to this event, by Options.Now.
	Duration time.Duration
	// Card is how a host UI presents the call, on EventCall, or its outcome, on
	// EventResult: the tool's PresentCall or PresentResult, or a generic card titled
	// with the tool's name. Sub-call events have none: a run_code call is presented
	// as one card, its program's calls inside it.
	Card *registry.Presentation
}

// The event types. A started call gets EventCall then EventResult (a sub-call:
// EventDispatchStart then EventDispatch). A started call its scheduler gave up on (see
// SchedulerOptions.Grace) gets EventAbandoned (EventDispatchAbandoned) when it is given
// up on, and its EventResult (EventDispatch) later, if its body ever returns.
const (
	EventCall              = "tool/call"
	EventResult            = "tool/result"
	EventAbandoned         = "tool/abandoned"
	EventDispatchStart     = "tool/code-dispatch-start"
	EventDispatch          = "tool/code-dispatch"
	EventDispatchAbandoned = "tool/code-dispatch-abandoned"
)

// Sink receives events. It is called synchronously from the pipeline's goroutines,
// possibly concurrently; it must be safe for that and must not block for long.
type Sink interface {
	Event(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Event calls f.
func (f SinkFunc) Event(e Event) { f(e) }

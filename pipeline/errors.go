package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// Code classifies a failed call. Programs see it as ToolCallError.code.
type Code string

// The error codes of the contract (docs/run_code.md, "Tool calls from a program").
const (
	CodeInvalidArgs           Code = "INVALID_ARGS"
	CodeUnknownTool           Code = "UNKNOWN_TOOL"
	CodeToolTimeout           Code = "TOOL_TIMEOUT"
	CodeAborted               Code = "ABORTED"
	CodeAbortedBeforeDispatch Code = "ABORTED_BEFORE_DISPATCH"
	CodeInvalidToolOutput     Code = "INVALID_TOOL_OUTPUT"
	CodeDenied                Code = "DENIED"
	CodeToolFailed            Code = "TOOL_FAILED"
	CodeActivationFailed      Code = "TOOL_ACTIVATION_FAILED"
	// CodeRunFailed is run_code's own failure: the program failed (its message is
	// "code run failed (<kind>): …"). Only the outer run_code call has it.
	CodeRunFailed Code = "CODE_RUN_FAILED"
	// CodeApprovalPending ends a call that waits for a person's decision, where its
	// context allows that ([WithDeferral]): the caller pauses the run, and no program
	// sees the code. Its message is the approval text (the Ask's reason, or `tool
	// "<name>" requires approval`).
	CodeApprovalPending Code = "APPROVAL_PENDING"
)

// ToolError is a failed call's error: a code and the message the model reads after
// "Error: ". It is a tool error (a normal result), not a host error.
type ToolError struct {
	Code    Code
	Message string
	// Err is the underlying cause, if any (a body's error, a recovered panic).
	Err error
}

func (e *ToolError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.Err }

// Is matches a sentinel of the same code, so errors.Is(err, ErrToolTimeout) works.
func (e *ToolError) Is(target error) bool {
	t, ok := target.(*ToolError)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels, one per code, for errors.Is.
var (
	ErrInvalidArgs           = &ToolError{Code: CodeInvalidArgs}
	ErrUnknownTool           = &ToolError{Code: CodeUnknownTool}
	ErrToolTimeout           = &ToolError{Code: CodeToolTimeout}
	ErrAborted               = &ToolError{Code: CodeAborted}
	ErrAbortedBeforeDispatch = &ToolError{Code: CodeAbortedBeforeDispatch}
	ErrInvalidToolOutput     = &ToolError{Code: CodeInvalidToolOutput}
	ErrDenied                = &ToolError{Code: CodeDenied}
	ErrToolFailed            = &ToolError{Code: CodeToolFailed}
	ErrApprovalPending       = &ToolError{Code: CodeApprovalPending}
)

// The exact messages of the contract, decided here and nowhere else.
const (
	msgAborted               = "tool call aborted"
	msgAbortedBeforeDispatch = "tool call aborted before dispatch"
	msgBlocked               = "tool result blocked by post-execute policy"
	msgLossyArgs             = "tool execution arguments must be losslessly JSON-serializable"
)

func abortedBeforeDispatch() *ToolError {
	return &ToolError{Code: CodeAbortedBeforeDispatch, Message: msgAbortedBeforeDispatch}
}

// abandonedRunning is the default result of a started call the scheduler stopped
// waiting for (see SchedulerOptions.Grace).
func abandonedRunning(grace time.Duration) *ToolError {
	return &ToolError{Code: CodeAborted, Message: fmt.Sprintf("tool call abandoned: still running %v after it was cancelled", grace)}
}

func unknownTool(name string) *ToolError {
	return &ToolError{Code: CodeUnknownTool, Message: fmt.Sprintf("unknown tool %q", name)}
}

// collapsed is the route message for a model-direct call to a tool that is only
// reachable from run_code programs.
func collapsed(name string) *ToolError {
	return &ToolError{Code: CodeUnknownTool, Message: fmt.Sprintf(
		"unknown tool %q: only `run_code` is callable directly — call `%s` from inside a `run_code` program instead", name, name)}
}

func invalidArgs(violations []string) *ToolError {
	return &ToolError{Code: CodeInvalidArgs, Message: "invalid arguments: " + strings.Join(violations, "; ")}
}

func invalidOutput(name string, detail string) *ToolError {
	return &ToolError{Code: CodeInvalidToolOutput, Message: fmt.Sprintf("tool %q returned invalid output: %s", name, detail)}
}

func timedOut(ms int) *ToolError {
	return &ToolError{Code: CodeToolTimeout, Message: fmt.Sprintf("tool call timed out after %dms", ms)}
}

// failure converts anything a stage or body returned as an error into a ToolError,
// keeping a ToolError's own code. It survives hostile errors (an Error method that
// panics).
func failure(err error) *ToolError {
	if te, ok := err.(*ToolError); ok && te.Message != "" {
		return te
	}
	return &ToolError{Code: CodeToolFailed, Message: errorText(err), Err: err}
}

// errorText is err.Error(), or a placeholder when that is empty or panics.
func errorText(err error) (msg string) {
	defer func() {
		if recover() != nil {
			msg = "<unprintable error>"
		}
	}()
	if msg = err.Error(); msg == "" {
		msg = "tool failed without a message"
	}
	return msg
}

// panicked converts a recovered panic value into a ToolError.
func panicked(where string, v any) *ToolError {
	return &ToolError{Code: CodeToolFailed, Message: fmt.Sprintf("%s panicked: %v", where, v), Err: fmt.Errorf("panic: %v", v)}
}

// errorContent is the one text block a failed call shows the model.
func errorContent(e *ToolError) []registry.Content {
	return []registry.Content{registry.Text("Error: " + e.Message)}
}

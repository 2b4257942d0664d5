package pipeline

import (
	"context"
	"errors"
	"time"
)

// errDeadline is the cause the timeout wrapper gives its own timer, so that a
// TOOL_TIMEOUT is reported only when this wrapper's deadline fired, never for a
// caller's cancellation or another wrapper's deadline.
var errDeadline = errors.New("tool call deadline")

// timing is the context key under which Timeout records the call whose deadline it
// set, so that a second Timeout around the same call (one listed in
// Options.Wrappers and the pipeline's own) passes it through.
type timing struct{}

// Timeout returns the wrapper that enforces a tool's declared TimeoutMs. A pipeline
// runs it inside its wrappers unless Options.DisableTimeout is set, or where
// Options.Wrappers list it. The deadline reaches the body through its context
// (cancellation is cooperative: the wrapper waits for the body to return). When the
// wrapper's own timer fired, the outcome becomes TOOL_TIMEOUT: `tool call timed out
// after <ms>ms`, whatever the body returned. Tools without TimeoutMs pass through
// untouched, and so does a call whose deadline an outer Timeout already set.
func Timeout() Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, call *Call) (*Result, error) {
			if call.tool == nil || call.tool.Tool.TimeoutMs <= 0 || ctx.Value(timing{}) == call {
				return next(ctx, call)
			}
			ms := call.tool.Tool.TimeoutMs
			tctx, cancel := context.WithTimeoutCause(ctx, time.Duration(ms)*time.Millisecond, errDeadline)
			defer cancel()
			res, err := next(context.WithValue(tctx, timing{}, call), call)
			if ctx.Err() == nil && errors.Is(context.Cause(tctx), errDeadline) {
				return &Result{Error: timedOut(ms)}, nil
			}
			return res, err
		}
	}
}

package pipeline

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/runcode-go/runcode/registry"
)

// core is the innermost Handler: it re-resolves the definition, validates the
// arguments, runs the body and turns its value into a checked, rendered result.
// Tool failures come back as results; it returns an error only for misuse.
func core(ctx context.Context, call *Call) (*Result, error) {
	if err := call.changedBy("execute wrapper"); err != nil {
		return nil, err
	}
	entry, err := call.set.Lookup(call.frozen.Name)
	switch {
	case errors.Is(err, registry.ErrDisposed):
		return &Result{Error: abortedBeforeDispatch()}, nil
	case err != nil:
		return &Result{Error: unknownTool(call.frozen.Name)}, nil
	}
	// Wrappers may only narrow cancellation: if one replaced the context, the
	// caller's cancellation is fused back in.
	if ctx != call.caller && call.caller != nil {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(call.caller, func() { cancel(context.Cause(call.caller)) })
		defer stop()
	}
	// Cancelled before the body was invoked (e.g. while a wrapper ran).
	if call.caller != nil && call.caller.Err() != nil {
		return &Result{Error: abortedBeforeDispatch()}, nil
	}
	violations := call.violations
	if !call.validated || entry != call.tool {
		violations = entry.ValidateArgs(call.frozen.Args)
	}
	if violations != nil {
		return &Result{Error: invalidArgs(violations)}, nil
	}
	call.body = call.frozen // the body's own copy: what it does to it stays there
	out, terr := runBody(ctx, entry, &call.body)
	if terr != nil {
		return &Result{Error: terr}, nil
	}
	value, content, terr := finishValue(call, out)
	if terr != nil {
		return &Result{Error: terr}, nil
	}
	return &Result{Value: value, Content: content}, nil
}

func runBody(ctx context.Context, entry *registry.Entry, call *registry.Call) (out any, terr *ToolError) {
	name := call.Name
	defer func() {
		if r := recover(); r != nil {
			out, terr = nil, panicked("tool "+strconv.Quote(name), r)
		}
	}()
	out, err := entry.Tool.Execute(ctx, call)
	if err != nil {
		// A body that gives up because its context ended was cancelled, not broken,
		// whether it returns the context's error or its cause (a run_code run that is
		// over, a wrapper's deadline).
		if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Cause(ctx))) {
			return nil, &ToolError{Code: CodeAborted, Message: msgAborted, Err: err}
		}
		return nil, failure(err)
	}
	return out, nil
}

// finishValue snapshots a body's (or a policy's) value as lossless JSON, validates it
// against the output schema, renders it and applies ProjectContent.
func finishValue(call *Call, out any) (registry.Value, []registry.Content, *ToolError) {
	entry, name := call.tool, call.frozen.Name
	var own []registry.Content
	switch a := out.(type) {
	case registry.Answer:
		out, own = a.Value, a.Content
	case *registry.Answer:
		if a == nil {
			return registry.Value{}, nil, invalidOutput(name, "the tool returned a nil Answer")
		}
		out, own = a.Value, a.Content
	}
	v, err := registry.ValueOf(out)
	if err != nil {
		return registry.Value{}, nil, invalidOutput(name, err.Error())
	}
	if entry == nil {
		return v, nil, nil
	}
	if violations := entry.ValidateOutput(v); violations != nil {
		return registry.Value{}, nil, invalidOutput(name, strings.Join(violations, "; "))
	}
	content := own
	if content == nil {
		if content, err = entry.Render(call.frozen.Args, v); err != nil {
			return registry.Value{}, nil, &ToolError{Code: CodeInvalidToolOutput, Message: "output.render failed: " + err.Error(), Err: err}
		}
	}
	if project := entry.Tool.ProjectContent; project != nil {
		content, err = func() (c []registry.Content, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = panicked("projectContent", r)
				}
			}()
			pc := call.frozen // its own copy, like the body's
			return project(&pc, v, content)
		}()
		if err != nil {
			return registry.Value{}, nil, &ToolError{Code: CodeInvalidToolOutput, Message: "projectContent failed: " + err.Error(), Err: err}
		}
	}
	return v, content, nil
}

package pipeline_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ExamplePipeline_Run takes calls through every stage: a pre-execute policy, the
// timeout wrapper, argument validation and the body. Every failure is a result whose
// content is "Error: <message>", with a code.
func ExamplePipeline_Run() {
	scope := registry.New()
	scope.Register(&registry.Tool{
		Name:       "read",
		Parameters: registry.Object(registry.Required("path", registry.String())),
		Output:     registry.Output{Schema: registry.String()},
		TimeoutMs:  1000,
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			var in struct{ Path string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return "contents of " + in.Path, nil
		},
	})
	set, _ := scope.Resolve(context.Background(), registry.Step{})

	p := pipeline.New(&pipeline.Options{
		PreExecute: []pipeline.PreExecuteFunc{func(_ context.Context, call *pipeline.Call) (pipeline.Decision, error) {
			var in struct{ Path string }
			if call.Args.Decode(&in) == nil && in.Path == "/etc/shadow" {
				return pipeline.Decision{Action: pipeline.Deny, Reason: "reading /etc/shadow is not allowed"}, nil
			}
			return pipeline.Decision{}, nil
		}},
		Wrappers: []pipeline.Middleware{pipeline.Timeout()},
	})
	for _, args := range []string{`{"path":"notes.txt"}`, `{"path":"/etc/shadow"}`, `{"file":"notes.txt"}`} {
		res := p.Run(context.Background(), set, registry.Call{ID: "c1", Name: "read", Args: pipeline.ParseArguments(args)})
		code := pipeline.Code("ok")
		if res.IsError() {
			code = res.Error.Code
		}
		fmt.Printf("%s: %s\n", code, res.Content[0].Text)
	}
	// Output:
	// ok: contents of notes.txt
	// DENIED: Error: reading /etc/shadow is not allowed
	// INVALID_ARGS: Error: invalid arguments: missing required property "path"
}

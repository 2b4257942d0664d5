package native_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/native"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

func ExampleExecutor_Execute() {
	deployment := registry.New()
	_, err := deployment.Register(&registry.Tool{
		Name:        "add",
		Description: "Add two integers.",
		Parameters: registry.Object(
			registry.Required("a", registry.Integer()),
			registry.Required("b", registry.Integer()),
		).Closed(),
		Output:            registry.Output{Schema: registry.Integer()},
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ A, B int }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return in.A + in.B, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	set, err := deployment.Resolve(context.Background(), registry.Step{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}})
	ex, _ := native.New(p, nil)
	results := ex.Execute(context.Background(), set, []pipeline.RawCall{
		{ID: "call-1", Name: "add", Arguments: `{"a": 2, "b": 40}`},
		{ID: "call-2", Name: "add", Arguments: `{"a": 2}`},
		{ID: "call-3", Name: "subtract", Arguments: `{}`},
	})
	for _, r := range results {
		fmt.Println(r.CallID, r.Content[0].Text)
	}
	// Output:
	// call-1 42
	// call-2 Error: invalid arguments: missing required property "b"
	// call-3 Error: unknown tool "subtract"
}

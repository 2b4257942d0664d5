package bindings_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// ExampleBegin runs one program against a resolved set without the ptc executor: the
// namespace is built once per set, each run gets its own Run, and every tools.x call
// becomes a sub-call through the pipeline, recorded with its id.
func ExampleBegin() {
	scope := registry.New()
	scope.Register(&registry.Tool{
		Name:       "double",
		Parameters: registry.Object(registry.Required("n", registry.Number())),
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			var in struct{ N float64 }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return in.N * 2, nil
		},
	})
	set, _ := scope.Resolve(context.Background(), registry.Step{})
	tools, err := bindings.New(set)
	if err != nil {
		fmt.Println(err)
		return
	}
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	ctx := context.Background()
	run, err := bindings.Begin(ctx, pipeline.New(nil), set, &bindings.Options{Parent: registry.Call{ID: "call-1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pool.Run(ctx, `
		const four = await tools.double({ n: 2 });
		try { await tools.double({ n: "x" }) } catch (e) { console.log(e.name, e.toolName, e.code) }
		return four`, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools.Bind(run)}})
	run.End("") // the program settled: no sub-call outlives it
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	for _, c := range run.Calls() {
		fmt.Println(c.ID, c.Name, c.Args, c.Result.IsError())
	}
	// Output:
	// ToolCallError double INVALID_ARGS
	// 4
	// call-1:code:1 double {"n":2} false
	// call-1:code:2 double {"n":"x"} true
}

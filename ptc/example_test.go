package ptc_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// ExampleExecutor embeds run_code: register tools in a scope in mode ptc, resolve the set for a
// model step, describe it to the model, and execute the model's run_code call.
func ExampleExecutor() {
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(&registry.Tool{
		Name:              "get_order",
		Description:       "Look up an order by id.",
		Parameters:        registry.Object(registry.Required("id", registry.String())),
		Output:            registry.Output{Schema: registry.Object(registry.Required("total", registry.Number()))},
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			var in struct{ ID string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return map[string]float64{"total": float64(len(in.ID)) * 10}, nil
		},
	})

	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	ex, err := ptc.New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), &ptc.Options{Pool: pool})
	if err != nil {
		fmt.Println(err)
		return
	}

	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		fmt.Println(err)
		return
	}
	desc, _ := ex.Describe(set)
	for _, t := range desc.Tools {
		fmt.Println("tool sent to the model:", t.Name)
	}
	for _, s := range desc.Sections {
		fmt.Println("prompt section:", s.Name)
	}

	// The model's call, as its provider delivered it.
	results := ex.Execute(context.Background(), set, []pipeline.RawCall{{
		ID:   "call-1",
		Name: "run_code",
		Arguments: `{"description": "Sum two orders", "code": "` +
			`const [a, b] = await Promise.all([tools.get_order({ id: 'A1' }), tools.get_order({ id: 'B22' })]);` +
			`console.log('orders read'); return { sum: a.total + b.total }"}`,
	}})
	fmt.Println(results[0].Content[0].Text)
	// Output:
	// tool sent to the model: run_code
	// prompt section: tools:ptc-only
	// prompt section: tools:sdk
	// orders read
	// {
	//   "sum": 50
	// }
}

// ExampleExecutor_Resume: a program's call of a tool that needs approval pauses its run
// when nobody can answer during the call; the host asks a person, and Resume goes on
// with the run, which replays what it had done and runs the approved call.
func ExampleExecutor_Resume() {
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(&registry.Tool{
		Name:        "refund",
		Description: "Refund an order.",
		Parameters:  registry.Object(registry.Required("order", registry.String())),
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			return "refunded", nil
		},
	})
	// Every refund asks a person; no Approve hook can answer during the call.
	p := pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{
		func(_ context.Context, call *pipeline.Call) (pipeline.Decision, error) {
			if call.Name == "refund" {
				return pipeline.Decision{Action: pipeline.Ask, Reason: "Refunds need a manager."}, nil
			}
			return pipeline.Decision{}, nil
		},
	}})
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	ex, err := ptc.New(p, &ptc.Options{Pool: pool})
	if err != nil {
		fmt.Println(err)
		return
	}
	set, _ := scope.Resolve(context.Background(), registry.Step{})

	res := ex.Execute(context.Background(), set, []pipeline.RawCall{{ID: "call-1", Name: "run_code",
		Arguments: `{"description": "Refund A1", "code": "console.log('refunding'); return await tools.refund({ order: 'A1' })"}`}})[0]
	fmt.Println(res.Content[0].Text)
	for _, c := range res.Pause.Pending {
		fmt.Printf("ask a person: %s(%s)? %s\n", c.Tool, c.Arguments, c.Message)
	}

	res, err = ex.Resume(context.Background(), set, res.Pause.Continuation, map[string]ptc.Decision{
		res.Pause.Pending[0].ID: {Approve: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// run_code paused: waiting for approval of refund (1 pending). The run resumes when the user decides; do not call it again.
	// ask a person: refund({"order":"A1"})? Refunds need a manager.
	// refunding
	// refunded
}

// ExampleScriptSync saves a program as a script, registers it as the tool
// script__top_customer with a ScriptSync, and runs a program that calls it.
func ExampleScriptSync() {
	ctx := context.Background()
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(&registry.Tool{
		Name:        "customers",
		Description: "List the customers with what they spent.",
		Execute: func(context.Context, *registry.Call) (any, error) {
			return []map[string]any{{"name": "Ada", "spent": 30}, {"name": "Bob", "spent": 90}}, nil
		},
	})
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	st := store.NewMemory()

	set, _ := scope.Resolve(ctx, registry.Step{})
	err = ptc.SaveScript(ctx, st, set, ptc.Script{
		Name:        "top_customer",
		Description: "The customer who spent the most.",
		Code:        `const all = await tools.customers({}); return all.sort((a, b) => b.spent - a.spent)[0].name`,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var ex *ptc.Executor
	sync := ptc.NewScriptSync(st, scope, func() *ptc.Executor { return ex })
	if _, err := sync.Sync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	ex, err = ptc.New(pipeline.New(nil), &ptc.Options{Pool: pool, Store: st})
	if err != nil {
		fmt.Println(err)
		return
	}
	set, _ = scope.Resolve(ctx, registry.Step{})
	res, _ := ex.Run(ctx, set, pipeline.RawCall{ID: "call-1",
		Arguments: `{"description": "Who spent most", "code": "return 'top: ' + await tools.script__top_customer({})"}`})
	fmt.Println(res.Content[0].Text)
	// Output:
	// top: Bob
}

package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runcode-go/runcode/runtime"
)

func ExamplePool_Run() {
	pool, err := runtime.NewPool(nil)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	res, err := pool.Run(context.Background(), `
const xs: number[] = [3, 1, 2];
console.log('sorted', xs.toSorted());
return { max: Math.max(...xs) }`, nil)
	if err != nil {
		panic(err) // only seam misuse: a closed pool, bad options
	}
	fmt.Println(res.Text())
	// Output:
	// sorted [ 1, 2, 3 ]
	// {
	//   "max": 3
	// }
}

func ExamplePool_Run_failure() {
	pool, err := runtime.NewPool(nil)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	res, _ := pool.Run(context.Background(), "console.log('starting')\nthrow new Error('no luck')", nil)
	fmt.Println(res.Failure.Kind)
	fmt.Println(res.Text())
	// Output:
	// exception
	// Error: code run failed (exception): Error: no luck
	//     at program.js:2:7
	// Captured output:
	// starting
}

func ExampleNewNamespace() {
	upper := func(ctx context.Context, member string, args json.RawMessage) (json.RawMessage, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		if in.Text == "" {
			return nil, &runtime.CallError{Message: "text is empty", Fields: map[string]string{"code": "INVALID_ARGS"}}
		}
		return json.Marshal(strings.ToUpper(in.Text))
	}
	tools, err := runtime.NewNamespace("tools", []string{"upper"}, runtime.Async(upper), &runtime.NamespaceOptions{
		ErrorClass: "ToolCallError", MemberProperty: "toolName", Noun: "tool",
	})
	if err != nil {
		panic(err)
	}
	pool, err := runtime.NewPool(nil)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	res, _ := pool.Run(context.Background(), `
const [a, b] = await Promise.all([tools.upper({ text: 'one' }), tools.upper({ text: 'two' })]);
try {
  await tools.upper({ text: '' });
} catch (e) {
  console.log(e.name, e.toolName, e.code, e.message);
}
return a + ' ' + b`, &runtime.RunOptions{Namespaces: []*runtime.Namespace{tools}})
	fmt.Println(res.Text())
	// Output:
	// ToolCallError upper INVALID_ARGS text is empty
	// ONE TWO
}

// ExampleDefaultLimits shows the budgets a run has when its Limits leave them zero.
func ExampleDefaultLimits() {
	l := runtime.DefaultLimits()
	fmt.Println("compute:", l.Compute)
	fmt.Println("wall clock:", l.WallClock)
	fmt.Println("output bytes:", l.OutputBytes)
	fmt.Println("heap bytes:", l.HeapBytes)
	fmt.Println("stack depth:", l.StackDepth)
	// Output:
	// compute: 1m0s
	// wall clock: 10m0s
	// output bytes: 1048576
	// heap bytes: 536870912
	// stack depth: 10000
}

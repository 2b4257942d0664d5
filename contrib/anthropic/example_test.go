package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/contrib/anthropic"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Example is an agent loop on the Messages API with run_code as its one tool. A real
// agent calls client.Messages.New(ctx, params) where this one calls model, which
// replays two hand-written responses: a run_code call, then the final answer. Its set-up
// (newOrderScope, newRunCode, stepTools) is declared after the examples.
func Example() {
	scope := newOrderScope()
	pool, exec, err := newRunCode()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	ctx := context.Background()
	params := sdk.MessageNewParams{
		Model:     sdk.ModelClaudeSonnet4_5,
		MaxTokens: 4096,
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("What do orders A1 and B22 add up to?"))},
	}
	for {
		// Each model step: resolve the tool set, describe it in the request.
		tools, err := stepTools(ctx, scope, exec)
		if err != nil {
			fmt.Println(err)
			return
		}
		params.Tools = tools.Tools()
		params.System = tools.System()

		msg, err := model(ctx, params)
		if err != nil {
			fmt.Println(err)
			return
		}
		params.Messages = append(params.Messages, msg.ToParam())
		if msg.StopReason != sdk.StopReasonToolUse {
			fmt.Println("answer:", msg.Content[0].Text)
			return
		}

		// Run every tool_use of the response as one batch; answer with one user turn.
		turn, err := tools.Execute(ctx, msg)
		if err != nil {
			fmt.Println(err)
			return
		}
		params.Messages = append(params.Messages, turn)
		for _, b := range turn.OfUser.Content {
			fmt.Printf("%s -> %s\n", b.OfToolResult.ToolUseID, b.OfToolResult.Content[0].OfText.Text)
		}
	}
	// Output:
	// toolu_01 -> sum computed
	// {
	//   "sum": 50
	// }
	// answer: Orders A1 and B22 add up to 50.
}

// getOrder is the examples' tool: it looks an order up by id (its total is ten
// per character of the id) and fails for the id "missing".
func getOrder() *registry.Tool {
	return &registry.Tool{
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
			if in.ID == "missing" {
				return nil, fmt.Errorf("order %q not found", in.ID)
			}
			return map[string]float64{"total": float64(len(in.ID)) * 10}, nil
		},
	}
}

// newOrderScope returns a scope in mode ptc (the model sees only run_code) with
// get_order registered.
func newOrderScope() *registry.Scope {
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(getOrder())
	return scope
}

// newRunCode returns a run_code executor on a one-runtime pool, with the timeout
// wrapper in its pipeline. The caller closes the pool.
func newRunCode() (*runtime.Pool, *ptc.Executor, error) {
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		return nil, nil, err
	}
	exec, err := ptc.New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), &ptc.Options{Pool: pool})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return pool, exec, nil
}

// stepTools resolves the scope's tool set for one model step and wraps it in an
// Adapter, which describes the set to the Messages API and runs its tool_use blocks.
func stepTools(ctx context.Context, scope *registry.Scope, exec pipeline.Executor) (*anthropic.Adapter, error) {
	set, err := scope.Resolve(ctx, registry.Step{})
	if err != nil {
		return nil, err
	}
	return anthropic.New(exec, set, nil)
}

// model stands in for client.Messages.New: it answers the first request with a
// run_code call and the next with text, as the API would.
func model(ctx context.Context, params sdk.MessageNewParams) (*sdk.Message, error) {
	reply := `{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5",
		"content":[{"type":"text","text":"Orders A1 and B22 add up to 50."}],
		"stop_reason":"end_turn","usage":{"input_tokens":900,"output_tokens":12}}`
	if len(params.Messages) == 1 {
		reply = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"tool_use","id":"toolu_01","name":"run_code","caller":{"type":"direct"},
				"input":{"description":"Sum two orders","code":"const [a, b] = await Promise.all([tools.get_order({ id: 'A1' }), tools.get_order({ id: 'B22' })]);\nconsole.log('sum computed');\nreturn { sum: a.total + b.total };"}}],
			"stop_reason":"tool_use","usage":{"input_tokens":850,"output_tokens":60}}`
	}
	var msg sdk.Message
	if err := json.Unmarshal([]byte(reply), &msg); err != nil {
		return nil, err
	}
	return &msg, nil
}

// ExampleAdapter_BetaTools hands the adapter's tools to the SDK's tool runner, which
// then runs the loop itself: each tool_use goes through the executor, one at a time
// (see BetaTools for what that gives up against Execute's one batch).
func ExampleAdapter_BetaTools() {
	ctx := context.Background()
	pool, exec, err := newRunCode()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	tools, err := stepTools(ctx, newOrderScope(), exec)
	if err != nil {
		fmt.Println(err)
		return
	}

	client := sdk.NewClient() // reads ANTHROPIC_API_KEY
	runner := client.Beta.Messages.NewToolRunner(tools.BetaTools(), sdk.BetaToolRunnerParams{
		BetaMessageNewParams: sdk.BetaMessageNewParams{
			Model:     sdk.ModelClaudeSonnet4_5,
			MaxTokens: 4096,
			System:    tools.BetaSystem(),
			Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("Which orders are late?"))},
		},
	})
	last, err := runner.RunToCompletion(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(last.Content[0].Text)
}

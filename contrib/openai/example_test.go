package openai_test

import (
	"context"
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/native"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Example runs one Chat Completions step with run_code: the tools and system
// message for the request, then the model's reply (here a hand-written one, where a
// client would call client.Chat.Completions.New) executed into tool messages.
// getOrder and newStep, after the examples, declare its tool and build the adapter
// and its step.
func Example() {
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(getOrder())
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	exec, err := ptc.New(pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}), &ptc.Options{Pool: pool})
	if err != nil {
		fmt.Println(err)
		return
	}

	// One model step: resolve the set, take a step, build the request.
	step, err := newStep(scope, exec, &openai.Options{Instructions: "You answer questions about orders."})
	if err != nil {
		fmt.Println(err)
		return
	}
	params := oai.ChatCompletionNewParams{
		Model:    "gpt-4.1",
		Tools:    step.ChatTools(),
		Messages: append(step.ChatSystem(), oai.UserMessage("What do orders A1 and B22 add up to?")),
	}
	fmt.Println("tool:", params.Tools[0].GetFunction().Name)
	fmt.Println("system message:", len(step.ChatSystem()))

	// The model's reply, as client.Chat.Completions.New would return it.
	var reply oai.ChatCompletionMessage
	json.Unmarshal([]byte(`{"role": "assistant", "content": null, "tool_calls": [{
		"id": "call_1", "type": "function", "function": {"name": "run_code",
		"arguments": "{\"description\": \"Sum two orders\", \"code\": \"const [a, b] = await Promise.all([tools.get_order({ id: 'A1' }), tools.get_order({ id: 'B22' })]); return a.total + b.total\"}"}}]}`), &reply)
	results, err := step.ExecuteChat(context.Background(), reply)
	if err != nil {
		fmt.Println(err)
		return
	}
	params.Messages = append(params.Messages, reply.ToParam())
	params.Messages = append(params.Messages, results...)
	for _, m := range results {
		fmt.Println(m.OfTool.ToolCallID, m.OfTool.Content.OfString.Value)
	}
	// Output:
	// tool: run_code
	// system message: 1
	// call_1 50
}

// ExampleStep_ExecuteResponses runs the function calls of a Responses API reply
// into function_call_output items for the next request's input.
func ExampleStep_ExecuteResponses() {
	scope := registry.New()
	scope.Register(&registry.Tool{
		Name:       "add",
		Parameters: registry.Object(registry.Required("a", registry.Integer()), registry.Required("b", registry.Integer())).Closed(),
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ A, B int }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return in.A + in.B, nil
		},
	})
	exec, err := native.New(pipeline.New(nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	step, err := newStep(scope, exec, &openai.Options{Strict: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	params := responses.ResponseNewParams{Model: "gpt-4.1", Tools: step.ResponsesTools()}
	fmt.Println("strict:", params.Tools[0].OfFunction.Strict.Value)

	// The model's reply, as client.Responses.New would return it.
	var resp responses.Response
	json.Unmarshal([]byte(`{"id": "resp_1", "object": "response", "status": "completed", "output": [
		{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": "{\"a\": 2, \"b\": 40}", "status": "completed"},
		{"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "add", "arguments": "{\"a\": 2}", "status": "completed"}]}`), &resp)
	items, err := step.ExecuteResponses(context.Background(), &resp)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range items {
		fmt.Println(it.OfFunctionCallOutput.CallID.Value, it.OfFunctionCallOutput.Output.OfString.Value)
	}
	// The next request continues from the reply with the outputs as its input.
	next := responses.ResponseNewParams{
		Model:              "gpt-4.1",
		Tools:              step.ResponsesTools(),
		PreviousResponseID: oai.String(resp.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: items},
	}
	fmt.Println("next input items:", len(next.Input.OfInputItemList))
	// Output:
	// strict: true
	// call_1 42
	// call_2 Error: invalid arguments: missing required property "b"
	// next input items: 2
}

// getOrder is the example's tool: it looks an order up by id (its total is ten
// per character of the id). Its parameters are closed and all required, so under
// Options.Strict its schema qualifies for strict mode.
func getOrder() *registry.Tool {
	return &registry.Tool{
		Name:              "get_order",
		Description:       "Look up an order by id.",
		Parameters:        registry.Object(registry.Required("id", registry.String())).Closed(),
		Output:            registry.Output{Schema: registry.Object(registry.Required("id", registry.String()), registry.Required("total", registry.Number()))},
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ ID string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return map[string]any{"id": in.ID, "total": len(in.ID) * 10}, nil
		},
	}
}

// newStep makes an adapter for exec with opts and takes its step on the scope's
// tool set as resolved for the next model request. An application makes the
// adapter once and takes a step per request; these examples make one request.
func newStep(scope *registry.Scope, exec pipeline.Executor, opts *openai.Options) (*openai.Step, error) {
	adapter, err := openai.New(exec, opts)
	if err != nil {
		return nil, err
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		return nil, err
	}
	return adapter.Step(set)
}

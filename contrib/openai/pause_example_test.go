package openai_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// ExampleChatPaused is a Chat Completions loop that asks a person before a refund. The
// model's run_code program looks an order up and refunds it; the pipeline asks for
// approval before every refund and has no approver to answer during the call, so the
// run pauses, and ExecuteChat returns a *ChatPaused instead of tool messages. The loop
// asks the person (a strings.Reader stands in for the terminal, answering "y"),
// resumes, and sends the final tool message to the model. The API is a loopback server
// replaying hand-written replies (see refundAPI) to the SDK's real client.
func ExampleChatPaused() {
	srv := httptest.NewServer(refundAPI())
	defer srv.Close()
	// A real loop calls oai.NewClient(), which reads OPENAI_API_KEY.
	client := oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("hand-written"), option.WithHTTPClient(srv.Client()))

	scope, exec, closePool, err := refundRunCode()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()
	adapter, err := openai.New(exec, nil)
	if err != nil {
		fmt.Println(err)
		return
	}

	person := bufio.NewReader(strings.NewReader("y\n")) // stands in for os.Stdin
	ctx := context.Background()
	history := []oai.ChatCompletionMessageParamUnion{oai.UserMessage("Refund order A1.")}
	for {
		set, err := scope.Resolve(ctx, registry.Step{})
		if err != nil {
			fmt.Println(err)
			return
		}
		step, err := adapter.Step(set)
		if err != nil {
			fmt.Println(err)
			return
		}
		completion, err := client.Chat.Completions.New(ctx, oai.ChatCompletionNewParams{
			Model:    "gpt-4.1",
			Tools:    step.ChatTools(),
			Messages: append(step.ChatSystem(), history...),
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		msg := completion.Choices[0].Message
		history = append(history, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			fmt.Println("answer:", msg.Content)
			return
		}

		results, err := step.ExecuteChat(ctx, msg)
		// A run paused: ask the person about each pending call, then resume. A resumed
		// run can pause again at its next call needing approval, hence the loop.
		var paused *openai.ChatPaused
		for errors.As(err, &paused) {
			results, err = paused.Resume(ctx, ask(person, paused.Pending))
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, results...)
		for _, m := range results {
			fmt.Printf("%s -> %s\n", m.OfTool.ToolCallID, m.OfTool.Content.OfString.Value)
		}
	}
	// Output:
	// refunds need a person's approval. Allow refund({"id":"A1","amount":20})? [y/N] y
	// call_1 -> refunded 20
	// {
	//   "refunded": 20
	// }
	// answer: Order A1 was refunded 20.
}

// ExampleResponsesPaused is ExampleChatPaused's loop on the Responses API: the paused
// run comes back as a *ResponsesPaused, and its Resume returns the function_call_output
// items of the next request, which continues from the reply by previous_response_id.
func ExampleResponsesPaused() {
	srv := httptest.NewServer(refundAPI())
	defer srv.Close()
	client := oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("hand-written"), option.WithHTTPClient(srv.Client()))

	scope, exec, closePool, err := refundRunCode()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()
	adapter, err := openai.New(exec, nil)
	if err != nil {
		fmt.Println(err)
		return
	}

	person := bufio.NewReader(strings.NewReader("y\n")) // stands in for os.Stdin
	ctx := context.Background()
	params := responses.ResponseNewParams{
		Model: "gpt-4.1",
		Input: responses.ResponseNewParamsInputUnion{OfString: oai.String("Refund order A1.")},
	}
	for {
		set, err := scope.Resolve(ctx, registry.Step{})
		if err != nil {
			fmt.Println(err)
			return
		}
		step, err := adapter.Step(set)
		if err != nil {
			fmt.Println(err)
			return
		}
		params.Tools = step.ResponsesTools()
		params.Instructions = oai.String(step.Instructions())
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			fmt.Println(err)
			return
		}

		items, err := step.ExecuteResponses(ctx, resp)
		var paused *openai.ResponsesPaused
		for errors.As(err, &paused) {
			items, err = paused.Resume(ctx, ask(person, paused.Pending))
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if len(items) == 0 {
			fmt.Println("answer:", resp.OutputText())
			return
		}
		for _, it := range items {
			fmt.Printf("%s -> %s\n", it.OfFunctionCallOutput.CallID.Value, it.OfFunctionCallOutput.Output.OfString.Value)
		}
		params.PreviousResponseID = oai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	}
	// Output:
	// refunds need a person's approval. Allow refund({"id":"A1","amount":20})? [y/N] y
	// call_1 -> refunded 20
	// {
	//   "refunded": 20
	// }
	// answer: Order A1 was refunded 20.
}

// ask asks the person about each pending call, reading a y/n answer per call, and
// returns the decisions: "y" approves, anything else rejects with a reason.
func ask(person *bufio.Reader, pending []openai.PendingCall) map[string]pipeline.Verdict {
	decisions := map[string]pipeline.Verdict{}
	for _, c := range pending {
		fmt.Printf("%s. Allow %s(%s)? [y/N] ", c.Message, c.Tool, c.Arguments)
		answer, _ := person.ReadString('\n')
		answer = strings.TrimSpace(answer)
		fmt.Println(answer) // the terminal would have echoed it
		if answer == "y" {
			decisions[c.ID] = pipeline.Verdict{Approve: true}
		} else {
			decisions[c.ID] = pipeline.Verdict{Reason: "the operator said no"}
		}
	}
	return decisions
}

// refundRunCode returns the pausing examples' scope (mode ptc: get_order and refund)
// and a run_code executor whose pipeline asks a person before every refund, with no
// approver: a program that refunds pauses. The caller calls closePool when done.
func refundRunCode() (scope *registry.Scope, exec *ptc.Executor, closePool func() error, err error) {
	scope = registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(getOrder())
	scope.Register(refund())
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		return nil, nil, nil, err
	}
	exec, err = ptc.New(pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{askBeforeRefunds}}), &ptc.Options{Pool: pool})
	if err != nil {
		pool.Close()
		return nil, nil, nil, err
	}
	return scope, exec, pool.Close, nil
}

// askBeforeRefunds is a pre-execute hook that wants a person's approval for every
// refund.
func askBeforeRefunds(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
	if c.Name == "refund" {
		return pipeline.Decision{Action: pipeline.Ask, Reason: "refunds need a person's approval"}, nil
	}
	return pipeline.Decision{}, nil
}

// refund is the pausing examples' tool that needs approval: it refunds an amount on an
// order.
func refund() *registry.Tool {
	return &registry.Tool{
		Name:        "refund",
		Description: "Refund an amount on an order.",
		Parameters:  registry.Object(registry.Required("id", registry.String()), registry.Required("amount", registry.Number())).Closed(),
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ Amount float64 }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return map[string]float64{"refunded": in.Amount}, nil
		},
	}
}

// refundCode is the program of the examples' run_code call, as the arguments' JSON
// string.
const refundCode = `"const order = await tools.get_order({ id: 'A1' });\nconst r = await tools.refund({ id: 'A1', amount: order.total });\nconsole.log('refunded', r.refunded);\nreturn r;"`

// refundAPI stands in for the OpenAI API, both Chat Completions and Responses. It
// answers a request that carries no tool output yet with a run_code call that refunds
// order A1, and the next with the final text. The replies are hand-written in the
// API's documented shapes, not recorded.
func refundAPI() http.Handler {
	args, _ := json.Marshal(`{"description": "Refund order A1", "code": ` + refundCode + `}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		answered := strings.Contains(string(body), `"role":"tool"`) || strings.Contains(string(body), `"function_call_output"`)
		var reply string
		switch {
		case r.URL.Path == "/chat/completions" && !answered:
			reply = `{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1", "choices": [{"index": 0, "finish_reason": "tool_calls",
				"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
					"function": {"name": "run_code", "arguments": ` + string(args) + `}}]}}]}`
		case r.URL.Path == "/chat/completions":
			reply = `{"id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-4.1", "choices": [{"index": 0, "finish_reason": "stop",
				"message": {"role": "assistant", "content": "Order A1 was refunded 20."}}]}`
		case r.URL.Path == "/responses" && !answered:
			reply = `{"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4.1", "output": [
				{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "run_code", "status": "completed", "arguments": ` + string(args) + `}]}`
		case r.URL.Path == "/responses":
			reply = `{"id": "resp_2", "object": "response", "status": "completed", "model": "gpt-4.1", "previous_response_id": "resp_1", "output": [
				{"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
					"content": [{"type": "output_text", "text": "Order A1 was refunded 20.", "annotations": []}]}]}`
		default:
			http.Error(w, `{"error": {"message": "unexpected request", "type": "invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	})
}

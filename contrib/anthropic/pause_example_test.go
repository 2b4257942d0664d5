package anthropic_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/runcode-go/runcode/contrib/anthropic"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// ExamplePaused is an agent loop that asks a person before a refund. The model's
// run_code program looks an order up and refunds it; the pipeline asks for approval
// before every refund and has no approver to answer during the call, so the run
// pauses, and Execute returns a *Paused instead of a turn. The loop asks the person
// (here a strings.Reader stands in for the terminal, answering "y"), resumes, and sends
// the final tool_result to the model. The Messages API is a loopback server replaying
// two hand-written responses (see refundAPI) to the SDK's real client.
func ExamplePaused() {
	srv := httptest.NewServer(refundAPI())
	defer srv.Close()
	// A real loop calls sdk.NewClient(), which reads ANTHROPIC_API_KEY.
	client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("hand-written"), option.WithHTTPClient(srv.Client()))

	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(getOrder())
	scope.Register(refund())
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	askBeforeRefunds := func(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
		if c.Name == "refund" {
			return pipeline.Decision{Action: pipeline.Ask, Reason: "refunds need a person's approval"}, nil
		}
		return pipeline.Decision{}, nil
	}
	exec, err := ptc.New(pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{askBeforeRefunds}}), &ptc.Options{Pool: pool})
	if err != nil {
		fmt.Println(err)
		return
	}

	person := bufio.NewReader(strings.NewReader("y\n")) // stands in for os.Stdin
	ctx := context.Background()
	params := sdk.MessageNewParams{
		Model:     sdk.ModelClaudeSonnet4_5,
		MaxTokens: 4096,
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Refund order A1."))},
	}
	for {
		tools, err := stepTools(ctx, scope, exec)
		if err != nil {
			fmt.Println(err)
			return
		}
		params.Tools = tools.Tools()
		params.System = tools.System()
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			fmt.Println(err)
			return
		}
		params.Messages = append(params.Messages, msg.ToParam())
		if msg.StopReason != sdk.StopReasonToolUse {
			fmt.Println("answer:", msg.Content[0].Text)
			return
		}

		turn, err := tools.Execute(ctx, msg)
		// A run paused: ask the person about each pending call, then resume. A resumed
		// run can pause again at its next call needing approval, hence the loop.
		var paused *anthropic.Paused
		for errors.As(err, &paused) {
			decisions := map[string]pipeline.Verdict{}
			for _, c := range paused.Pending {
				fmt.Printf("%s. Allow %s(%s)? [y/N] ", c.Message, c.Tool, c.Arguments)
				answer, _ := person.ReadString('\n')
				answer = strings.TrimSpace(answer)
				fmt.Println(answer)
				if answer == "y" {
					decisions[c.ID] = pipeline.Verdict{Approve: true}
				} else {
					decisions[c.ID] = pipeline.Verdict{Reason: "the operator said no"}
				}
			}
			turn, err = paused.Resume(ctx, decisions)
		}
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
	// refunds need a person's approval. Allow refund({"id":"A1","amount":20})? [y/N] y
	// toolu_01 -> refunded 20
	// {
	//   "refunded": 20
	// }
	// answer: Order A1 was refunded 20.
}

// refund is ExamplePaused's tool that needs approval: it refunds an amount on an order.
func refund() *registry.Tool {
	return &registry.Tool{
		Name:        "refund",
		Description: "Refund an amount on an order.",
		Parameters:  registry.Object(registry.Required("id", registry.String()), registry.Required("amount", registry.Number())),
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ Amount float64 }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return map[string]float64{"refunded": in.Amount}, nil
		},
	}
}

// refundAPI stands in for the Messages API. It answers the first request (one user
// message) with a run_code call that refunds order A1, and the next with the final
// text. Both responses are hand-written in the API's documented shape, not recorded.
func refundAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []json.RawMessage }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply := `{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"text","text":"Order A1 was refunded 20."}],
			"stop_reason":"end_turn","usage":{"input_tokens":950,"output_tokens":10}}`
		if len(req.Messages) == 1 {
			reply = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
				"content":[{"type":"tool_use","id":"toolu_01","name":"run_code","caller":{"type":"direct"},
					"input":{"description":"Refund order A1","code":"const order = await tools.get_order({ id: 'A1' });\nconst r = await tools.refund({ id: 'A1', amount: order.total });\nconsole.log('refunded', r.refunded);\nreturn r;"}}],
				"stop_reason":"tool_use","usage":{"input_tokens":880,"output_tokens":70}}`
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(reply))
	})
}

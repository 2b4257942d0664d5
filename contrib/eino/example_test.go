package eino_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"
	"github.com/runcode-go/runcode/contrib/eino"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Example is an agent loop on an Eino chat model with run_code as its one tool. The
// model is eino-ext's OpenAI chat model, pointed at a loopback server that replays two
// hand-written Chat Completions responses (testdata/chat_sum.json, then
// chat_sum_done.json): a run_code call, then the final answer. A real loop gives
// NewChatModel an API key and no BaseURL.
func Example() {
	api := replay("chat_sum.json", "chat_sum_done.json")
	defer api.Close()
	scope, exec, closePool, err := shop(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	ctx := context.Background()
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: api.URL, APIKey: "hand-written", Model: "gpt-4.1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	history := []*schema.Message{schema.UserMessage("What do orders A1 and B22 add up to?")}
	for {
		// Each model step: resolve the tool set, describe it to the model.
		set, err := scope.Resolve(ctx, registry.Step{})
		if err != nil {
			fmt.Println(err)
			return
		}
		tools, err := eino.New(exec, set, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		model, err := cm.WithTools(tools.ToolInfos())
		if err != nil {
			fmt.Println(err)
			return
		}
		msg, err := model.Generate(ctx, append([]*schema.Message{tools.SystemMessage()}, history...))
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, msg)
		if len(msg.ToolCalls) == 0 {
			fmt.Println("answer:", msg.Content)
			return
		}

		// Run every tool call of the message as one batch; append the answers.
		answers, err := tools.Execute(ctx, msg)
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, answers...)
		for _, m := range answers {
			fmt.Printf("%s -> %s\n", m.ToolCallID, m.Content)
		}
	}
	// Output:
	// call_k3Jd8sQvUm2Lr9Tb -> sum computed
	// {
	//   "sum": 50
	// }
	// answer: Orders A1 and B22 add up to 50.
}

// getOrder is the examples' tool: it looks an order up by id (its total is ten per
// character of the id) and fails for the id "missing".
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

// refund is the examples' tool that needs approval: it refunds an amount on an order.
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

// askBeforeRefunds is a pre-execute hook that wants a person's approval for every
// refund.
func askBeforeRefunds(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
	if c.Name == "refund" {
		return pipeline.Decision{Action: pipeline.Ask, Reason: "refunds need a person's approval"}, nil
	}
	return pipeline.Decision{}, nil
}

// shop returns a scope in mode ptc with get_order and refund, and a run_code executor
// on a one-runtime pool whose pipeline has popts (nil: it asks before every refund,
// with no approver, so that a run calling refund pauses). The caller closes the pool.
func shop(popts *pipeline.Options) (*registry.Scope, *ptc.Executor, func() error, error) {
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	scope.Register(getOrder())
	scope.Register(refund())
	if popts == nil {
		popts = &pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{askBeforeRefunds}}
	}
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		return nil, nil, nil, err
	}
	exec, err := ptc.New(pipeline.New(popts), &ptc.Options{Pool: pool})
	if err != nil {
		pool.Close()
		return nil, nil, nil, err
	}
	return scope, exec, pool.Close, nil
}

// replay is a loopback server standing in for the Chat Completions API: it answers the
// n-th request with the n-th of the named hand-written responses in testdata.
func replay(files ...string) *httptest.Server {
	var mu sync.Mutex
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if r.URL.Path != "/chat/completions" || i >= len(files) {
			http.Error(w, `{"error": {"message": "unexpected request", "type": "invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", files[i]))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
}

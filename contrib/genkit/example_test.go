package genkit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/openai/openai-go/option"
	rcgenkit "github.com/runcode-go/runcode/contrib/genkit"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Example is a Genkit generation with run_code as its one tool: Genkit's own tool
// loop calls the model, runs run_code through runcode's executor, and calls the model
// again. The model is Genkit's OpenAI plugin (compat_oai), pointed at a loopback server
// that replays two hand-written Chat Completions responses (testdata/chat_sum.json,
// then chat_sum_done.json). A real program gives the plugin an API key and no base
// URL.
func Example() {
	api := replay("chat_sum.json", "chat_sum_done.json")
	defer api.Close()
	scope, exec, closePool, err := shop(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	// genkit.Init watches for signals until its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx, genkit.WithPlugins(&openai.OpenAI{APIKey: "hand-written", Opts: []option.RequestOption{option.WithBaseURL(api.URL)}}))
	set, err := scope.Resolve(ctx, registry.Step{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, err := rcgenkit.New(exec, set, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := genkit.Generate(ctx, g,
		ai.WithModelName("openai/gpt-4.1"),
		ai.WithMessages(tools.SystemMessage(), ai.NewUserTextMessage("What do orders A1 and B22 add up to?")),
		ai.WithTools(tools.Tools()...),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range resp.History() {
		for _, p := range m.Content {
			if p.IsToolResponse() {
				fmt.Printf("%s -> %v\n", p.ToolResponse.Name, p.ToolResponse.Output)
			}
		}
	}
	fmt.Println("answer:", resp.Text())
	// Output:
	// run_code -> sum computed
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

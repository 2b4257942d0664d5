package genkit_test

import (
	"context"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/openai/openai-go/option"
	rcgenkit "github.com/runcode-go/runcode/contrib/genkit"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// pngPixel is a 1x1 PNG, base64.
const pngPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// renderChart answers with a text and an image.
func renderChart() *registry.Tool {
	return &registry.Tool{
		Name:        "render_chart",
		Description: "Render a chart as a PNG.",
		Parameters:  registry.Object(registry.Required("title", registry.String())),
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			var in struct{ Title string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return registry.Answer{
				Value:   map[string]string{"title": in.Title},
				Content: []registry.Content{registry.Text("chart " + in.Title), {Type: "image", Data: pngPixel, MIMEType: "image/png"}},
			}, nil
		},
	}
}

// setup returns the shop's tool set (get_order, refund, render_chart) under mode and
// the real executor of that mode, whose pipeline asks before every refund and has no
// approver, so that a run calling refund pauses.
func setup(t testing.TB, mode registry.Mode) (*registry.ResolvedToolSet, pipeline.Executor) {
	t.Helper()
	set := testreg.ResolveIn(t, testreg.Scope(t, mode), getOrder(), refund(), renderChart())
	p := pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{askBeforeRefunds}})
	return set, testexec.For(t, mode, p, nil)
}

// mustNew is rcgenkit.New, failing the test on an error.
func mustNew(t testing.TB, exec pipeline.Executor, set *registry.ResolvedToolSet, opts *rcgenkit.Options) *rcgenkit.Adapter {
	t.Helper()
	a, err := rcgenkit.New(exec, set, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// loopback returns a Genkit instance whose OpenAI plugin (compat_oai) talks to a
// loopback server replaying the named hand-written responses.
func loopback(t testing.TB, files ...string) *genkit.Genkit {
	t.Helper()
	api := replay(files...)
	t.Cleanup(api.Close)
	ctx, cancel := context.WithCancel(context.Background()) // Init watches for signals until ctx ends
	t.Cleanup(cancel)
	return genkit.Init(ctx, genkit.WithPlugins(&openai.OpenAI{APIKey: "hand-written", Opts: []option.RequestOption{option.WithBaseURL(api.URL)}}))
}

// modelMessage has the OpenAI plugin decode a hand-written response and returns its
// message, as a loop that runs tools itself gets it.
func modelMessage(t testing.TB, a *rcgenkit.Adapter, file string) *ai.Message {
	t.Helper()
	g := loopback(t, file)
	resp, err := genkit.Generate(context.Background(), g,
		ai.WithModelName("openai/gpt-4.1"),
		ai.WithMessages(ai.NewUserTextMessage("go")),
		ai.WithTools(a.Tools()...),
		ai.WithReturnToolRequests(true),
	)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Message
}

// recorder is an executor that passes everything to next and keeps each batch it was
// given, to show how the adapter calls the executor.
type recorder struct {
	next    pipeline.Executor
	mu      sync.Mutex
	batches [][]pipeline.RawCall
}

func (r *recorder) Describe(set *registry.ResolvedToolSet) (*pipeline.Description, error) {
	return r.next.Describe(set)
}

func (r *recorder) Execute(ctx context.Context, set *registry.ResolvedToolSet, batch []pipeline.RawCall) []*pipeline.Result {
	r.mu.Lock()
	r.batches = append(r.batches, batch)
	r.mu.Unlock()
	return r.next.Execute(ctx, set, batch)
}

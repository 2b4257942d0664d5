package anthropic_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/contrib/anthropic"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// pngPixel is a 1x1 PNG, base64.
const pngPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// fixtures are the tests' tools: get_order (the examples' tool, in example_test.go:
// parallel-safe; id "missing" fails), render_chart (answers with text and an image)
// and archive_orders (deferred).
func fixtures() []*registry.Tool {
	return []*registry.Tool{getOrder(), {
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
	}, {
		Name:         "archive_orders",
		Description:  "Archive every order older than a date.",
		Parameters:   registry.Object(registry.Required("before", registry.String())).Closed(),
		DeferLoading: true,
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			return map[string]int{"archived": 0}, nil
		},
	}}
}

// resolve returns the fixtures' tool set under mode.
func resolve(t testing.TB, mode registry.Mode) *registry.ResolvedToolSet {
	t.Helper()
	return testreg.ResolveIn(t, testreg.Scope(t, mode), fixtures()...)
}

// executors returns the real executors for each mode: run_code on a goja pool that the
// test's cleanup closes, and the native executor.
var executors = testexec.Executors

// setup returns the fixtures' tool set under mode and the real executor of that mode.
func setup(t testing.TB, mode registry.Mode) (*registry.ResolvedToolSet, pipeline.Executor) {
	t.Helper()
	set := resolve(t, mode)
	exec, err := executors(t).For(set)
	if err != nil {
		t.Fatal(err)
	}
	return set, exec
}

// answer has the adapter (with opts) execute one tool_use of a tool "emit" that answers
// with content, natively through a pipeline with popts, and returns the user turn.
func answer(t testing.TB, content []registry.Content, popts *pipeline.Options, opts *anthropic.Options) sdk.MessageParam {
	t.Helper()
	set := testreg.Resolve(t, &registry.Tool{
		Name:       "emit",
		Parameters: registry.Object(),
		Execute: func(context.Context, *registry.Call) (any, error) {
			return registry.Answer{Content: content}, nil
		},
	})
	a := mustNew(t, testexec.Native(t, pipeline.New(popts)), set, opts)
	var msg sdk.Message
	if err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"emit","input":{}}]}`), &msg); err != nil {
		t.Fatal(err)
	}
	turn, err := a.Execute(context.Background(), &msg)
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

// mustNew is anthropic.New, failing the test on an error.
func mustNew(t testing.TB, exec pipeline.Executor, set *registry.ResolvedToolSet, opts *anthropic.Options) *anthropic.Adapter {
	t.Helper()
	a, err := anthropic.New(exec, set, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// message decodes a hand-written Messages API response (testdata/README.md) with the
// SDK's own type.
func message(t testing.TB, name string) *sdk.Message {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var msg sdk.Message
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return &msg
}

// recorder is an executor that passes everything to next and keeps each batch it
// was given, to show how the adapter calls the executor.
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

// indent re-indents JSON for golden files and messages.
func indent(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pixel is a 1x1 PNG, the image the chart tool returns.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// tools are the registry tools every test registers: get_order (the example's
// tool, in example_test.go: closed, every property required: strict-able),
// search (an optional property: not strict-able) and chart (renders an image).
func tools() []*registry.Tool {
	safe := func(registry.Value) bool { return true }
	return []*registry.Tool{
		getOrder(),
		{
			Name:        "search",
			Description: "Search orders by customer.",
			Parameters: registry.Object(
				registry.Required("customer", registry.String()),
				registry.Optional("limit", registry.Integer()),
			).Closed(),
			IsConcurrencySafe: safe,
			Execute: func(context.Context, *registry.Call) (any, error) {
				return []string{"A1", "B22"}, nil
			},
		},
		{
			Name:              "chart",
			Description:       "Draw an order's chart.",
			Parameters:        registry.Object(registry.Required("id", registry.String())).Closed(),
			IsConcurrencySafe: safe,
			Execute: func(_ context.Context, call *registry.Call) (any, error) {
				var in struct{ ID string }
				if err := call.Args.Decode(&in); err != nil {
					return nil, err
				}
				return registry.Answer{Value: "chart-" + in.ID + ".png", Content: []registry.Content{
					registry.Text("chart of " + in.ID),
					{Type: "image", Data: pixel, MIMEType: "image/png"},
				}}, nil
			},
		},
	}
}

// env is a real runcode stack: a scope with the tools in a mode, a pool, and the
// executors for every mode.
type env struct {
	set   *registry.ResolvedToolSet
	execs pipeline.Executors
	rec   *recorder
}

func newEnv(t *testing.T, mode registry.Mode) *env {
	t.Helper()
	e := &env{set: testreg.ResolveIn(t, testreg.Scope(t, mode), tools()...), rec: &recorder{}, execs: testexec.Executors(t)}
	for m, ex := range e.execs {
		e.execs[m] = e.rec.wrap(ex)
	}
	return e
}

// step takes a step over the env's set with an adapter of the env's executors and opts.
func (e *env) step(t *testing.T, opts *openai.Options) *openai.Step {
	t.Helper()
	ad, err := openai.NewByMode(e.execs, opts)
	if err != nil {
		t.Fatal(err)
	}
	step, err := ad.Step(e.set)
	if err != nil {
		t.Fatal(err)
	}
	return step
}

// recorder notes the batches the adapter hands to the real executors, to pin that
// one reply's calls are one Execute.
type recorder struct {
	mu      sync.Mutex
	batches [][]string
}

type recording struct {
	pipeline.Executor
	r *recorder
}

func (r *recorder) wrap(ex pipeline.Executor) pipeline.Executor { return recording{ex, r} }

func (r recording) Execute(ctx context.Context, set *registry.ResolvedToolSet, batch []pipeline.RawCall) []*pipeline.Result {
	ids := make([]string, len(batch))
	for i, c := range batch {
		ids[i] = c.ID
	}
	r.r.mu.Lock()
	r.r.batches = append(r.r.batches, ids)
	r.r.mu.Unlock()
	return r.Executor.Execute(ctx, set, batch)
}

func (r *recorder) got() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.batches
}

// fixture decodes testdata/name into v with the SDK's own types.
func fixture(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
}

// golden compares v, marshalled to indented JSON, with testdata/name, or rewrites
// the file under -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshalling %s: %v", name, err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update if intended):\n%s", name, diff)
	}
}

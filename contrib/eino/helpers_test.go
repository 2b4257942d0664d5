package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"
	"github.com/runcode-go/runcode/contrib/eino"
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

// mustNew is eino.New, failing the test on an error.
func mustNew(t testing.TB, exec pipeline.Executor, set *registry.ResolvedToolSet, opts *eino.Options) *eino.Adapter {
	t.Helper()
	a, err := eino.New(exec, set, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// fixture reads a hand-written Chat Completions response (testdata/README.md).
func fixture(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// message decodes a fixture's assistant message through eino-ext's OpenAI chat model,
// as a real loop gets it.
func message(t testing.TB, name string) *schema.Message {
	t.Helper()
	api := newChatAPI(fixture(t, name))
	defer api.Close()
	cm := chatModel(t, api)
	msg, err := cm.Generate(context.Background(), []*schema.Message{schema.UserMessage("go")})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// chatAPI is a loopback server standing in for the Chat Completions API: it answers
// the n-th request with the n-th of its replies (hand-written, see testdata/README.md)
// and keeps each request's body.
type chatAPI struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []string
	requests []map[string]any
}

func newChatAPI(replies ...string) *chatAPI {
	api := &chatAPI{replies: replies}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	return api
}

func (api *chatAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	api.mu.Lock()
	n := len(api.requests)
	api.requests = append(api.requests, req)
	api.mu.Unlock()
	if r.URL.Path != "/chat/completions" || n >= len(api.replies) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error": {"message": "unexpected request %d to %s", "type": "invalid_request_error"}}`, n+1, r.URL.Path)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, api.replies[n])
}

// request returns the body of the i-th request (0-based).
func (api *chatAPI) request(t testing.TB, i int) map[string]any {
	t.Helper()
	api.mu.Lock()
	defer api.mu.Unlock()
	if i >= len(api.requests) {
		t.Fatalf("the API got %d requests, want at least %d", len(api.requests), i+1)
	}
	return api.requests[i]
}

// chatModel is eino-ext's OpenAI chat model pointed at api.
func chatModel(t testing.TB, api *chatAPI) *openai.ChatModel {
	t.Helper()
	cm, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
		BaseURL: api.URL, APIKey: "hand-written", Model: "gpt-4.1", HTTPClient: api.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// indent renders v as indented JSON.
func indent(t testing.TB, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// contains reports whether s holds each of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
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

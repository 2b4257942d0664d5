package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/registry"
)

// replay is an OpenAI API on loopback that answers each request to a path with the
// next fixture queued for it (testdata, hand-written) and keeps the request bodies.
type replay struct {
	mu        sync.Mutex
	responses map[string][]string // path -> fixtures, in order
	requests  []json.RawMessage
	paths     []string
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	queue := r.responses[req.URL.Path]
	if req.Method != http.MethodPost || len(queue) == 0 {
		http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	r.requests = append(r.requests, body)
	r.paths = append(r.paths, req.URL.Path)
	data, err := os.ReadFile(filepath.Join("testdata", queue[0]))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	r.responses[req.URL.Path] = queue[1:]
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// client is the SDK's real client against api, with no retries.
func client(t *testing.T, api *replay) oai.Client {
	t.Helper()
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
}

// sent decodes the request body i as JSON, with field the part to keep.
func sent(t *testing.T, api *replay, i int, field string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(api.requests[i], &m); err != nil {
		t.Fatalf("request %d: %v", i, err)
	}
	return m[field]
}

// asJSON is v as the generic JSON value it encodes to.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestChatOverHTTP takes a Chat Completions step through the SDK's own client against
// a loopback server: the first request carries the step's tools and system message as
// the SDK serializes them, the SDK decodes the reply into the message ExecuteChat
// runs, and the second request carries the tool messages back after the assistant's
// tool calls.
func TestChatOverHTTP(t *testing.T) {
	e := newEnv(t, registry.ModePTC)
	step := e.step(t, &openai.Options{Instructions: "You answer questions about orders."})
	api := &replay{responses: map[string][]string{"/chat/completions": {"chat_completion.json", "chat_done.json"}}}
	c := client(t, api)
	ctx := context.Background()
	params := oai.ChatCompletionNewParams{
		Model:    "gpt-4.1",
		Tools:    step.ChatTools(),
		Messages: append(step.ChatSystem(), oai.UserMessage("What do orders A1 and B22 add up to?")),
	}
	completion, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	msg := completion.Choices[0].Message
	results, err := step.ExecuteChat(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, msg.ToParam())
	params.Messages = append(params.Messages, results...)
	done, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := done.Choices[0].Message.Content; got != "Orders A1 and B22 add up to 50." {
		t.Errorf("final answer %q", got)
	}
	if diff := cmp.Diff([]string{"/chat/completions", "/chat/completions"}, api.paths); diff != "" {
		t.Fatalf("requests (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff(asJSON(t, step.ChatTools()), sent(t, api, 0, "tools")); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	messages := sent(t, api, 1, "messages").([]any)
	if len(messages) != 5 {
		t.Fatalf("second request: %d messages, want system, user, assistant and 2 tool messages:\n%v", len(messages), messages)
	}
	if diff := cmp.Diff(asJSON(t, step.ChatSystem()[0]), messages[0]); diff != "" {
		t.Errorf("system message sent (-want +got):\n%s", diff)
	}
	calls := messages[2].(map[string]any)["tool_calls"].([]any)
	if len(calls) != 2 || calls[0].(map[string]any)["id"] != "call_q1Tz8yN0cV4mLr2XbK7hD5sA" {
		t.Errorf("the assistant's tool calls did not go back as the API gave them: %v", calls)
	}
	if diff := cmp.Diff(asJSON(t, results), messages[3:]); diff != "" {
		t.Errorf("tool messages sent (-want +got):\n%s", diff)
	}
	want := []any{
		map[string]any{"role": "tool", "tool_call_id": "call_q1Tz8yN0cV4mLr2XbK7hD5sA", "content": "orders read\n{\n  \"sum\": 50\n}"},
		map[string]any{"role": "tool", "tool_call_id": "call_W3eR6tY9uI2oP5aS8dF1gH4j", "content": "Error: unknown tool \"get_order\": only `run_code` is callable directly — call `get_order` from inside a `run_code` program instead"},
	}
	if diff := cmp.Diff(want, messages[3:]); diff != "" {
		t.Errorf("tool messages on the wire (-want +got):\n%s", diff)
	}
}

// TestResponsesOverHTTP takes a Responses step through the SDK's own client: the
// first request carries the step's strict-annotated tools and instructions, and the
// second the function_call_output items for the reply's calls, chained to it by
// previous_response_id.
func TestResponsesOverHTTP(t *testing.T) {
	e := newEnv(t, registry.ModeBoth)
	step := e.step(t, &openai.Options{Strict: true, Instructions: "You answer questions about orders."})
	api := &replay{responses: map[string][]string{"/responses": {"response.json", "response_done.json"}}}
	c := client(t, api)
	ctx := context.Background()
	resp, err := c.Responses.New(ctx, responses.ResponseNewParams{
		Model:        "gpt-4.1",
		Tools:        step.ResponsesTools(),
		Instructions: oai.String(step.Instructions()),
		Input:        responses.ResponseNewParamsInputUnion{OfString: oai.String("What do ada's orders come to?")},
	})
	if err != nil {
		t.Fatal(err)
	}
	items, err := step.ExecuteResponses(ctx, resp)
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.Responses.New(ctx, responses.ResponseNewParams{
		Model:              "gpt-4.1",
		PreviousResponseID: oai.String(resp.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		Tools:              step.ResponsesTools(),
		Instructions:       oai.String(step.Instructions()),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := done.OutputText(); got != "Customer ada's orders total 12.5 and 37.5." {
		t.Errorf("final answer %q", got)
	}
	if diff := cmp.Diff([]string{"/responses", "/responses"}, api.paths); diff != "" {
		t.Fatalf("requests (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff(asJSON(t, step.ResponsesTools()), sent(t, api, 0, "tools")); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	for _, tool := range sent(t, api, 0, "tools").([]any) {
		if _, ok := tool.(map[string]any)["strict"]; !ok {
			t.Errorf("tool sent without an explicit strict: %v", tool)
		}
	}
	if got := sent(t, api, 0, "instructions"); !strings.HasPrefix(got.(string), "You answer questions about orders.") {
		t.Errorf("instructions sent: %.80q", got)
	}
	if got := sent(t, api, 1, "previous_response_id"); got != "resp_68a1c2f0b9d48190a3e4c5d6e7f80912" {
		t.Errorf("previous_response_id sent: %v", got)
	}
	input := sent(t, api, 1, "input")
	if diff := cmp.Diff(asJSON(t, items), input); diff != "" {
		t.Errorf("input items sent (-want +got):\n%s", diff)
	}
	var ids []any
	for _, item := range input.([]any) {
		m := item.(map[string]any)
		if m["type"] != "function_call_output" {
			t.Errorf("input item of type %v, want function_call_output", m["type"])
		}
		ids = append(ids, m["call_id"])
	}
	if diff := cmp.Diff([]any{"call_Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2", "call_Pp1Oo2Ii3Uu4Yy5Tt6Rr7Ee8"}, ids); diff != "" {
		t.Errorf("call ids answered (-want +got):\n%s", diff)
	}
}

package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// scripted is a pipeline.Executor (the interface custom executors implement) that
// describes and answers as told, for what real executors never produce: sections
// out of order, results with every kind of content, broken contracts.
type scripted struct {
	desc    *pipeline.Description
	descErr error
	results func(batch []pipeline.RawCall) []*pipeline.Result
	batches [][]pipeline.RawCall
}

func (s *scripted) Describe(*registry.ResolvedToolSet) (*pipeline.Description, error) {
	return s.desc, s.descErr
}

func (s *scripted) Execute(_ context.Context, _ *registry.ResolvedToolSet, batch []pipeline.RawCall) []*pipeline.Result {
	s.batches = append(s.batches, batch)
	return s.results(batch)
}

func nativeSet(t *testing.T) *registry.ResolvedToolSet {
	t.Helper()
	set, err := registry.New().Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func mustStep(t *testing.T, ex pipeline.Executor, opts *openai.Options) *openai.Step {
	t.Helper()
	ad, err := openai.New(ex, opts)
	if err != nil {
		t.Fatal(err)
	}
	step, err := ad.Step(nativeSet(t))
	if err != nil {
		t.Fatal(err)
	}
	return step
}

func TestConstructionErrors(t *testing.T) {
	ex := &scripted{desc: &pipeline.Description{}}
	for _, tc := range []struct {
		name string
		make func() (*openai.Adapter, error)
		want string
	}{
		{"nil executor", func() (*openai.Adapter, error) { return openai.New(nil, nil) }, "openai: the executor is nil"},
		{"no executors", func() (*openai.Adapter, error) { return openai.NewByMode(nil, nil) }, "openai: no executors"},
		{"nil executor for a mode", func() (*openai.Adapter, error) {
			return openai.NewByMode(pipeline.Executors{registry.ModePTC: nil}, nil)
		}, `openai: the executor for mode "ptc" is nil`},
		{"bad image detail", func() (*openai.Adapter, error) { return openai.New(ex, &openai.Options{ImageDetail: "max"}) },
			`openai: ImageDetail must be "auto", "low", "high", "original" or empty, got "max"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ad, err := tc.make()
			if err == nil || err.Error() != tc.want || ad != nil {
				t.Errorf("got (%v, %v), want the error %q", ad, err, tc.want)
			}
		})
	}
}

func TestStepErrors(t *testing.T) {
	set := nativeSet(t)
	for _, tc := range []struct {
		name string
		ex   *scripted
		set  *registry.ResolvedToolSet
		want string
	}{
		{"nil set", &scripted{desc: &pipeline.Description{}}, nil, "openai: the resolved tool set is nil"},
		{"describe fails", &scripted{descErr: errors.New("boom")}, set, "openai: describe: boom"},
		{"no description", &scripted{}, set, "openai: describe returned no description"},
		{"nameless tool", &scripted{desc: &pipeline.Description{Tools: []registry.ToolSchema{{}}}}, set, "openai: tool 0 has no name"},
		{"schema not an object", &scripted{desc: &pipeline.Description{Tools: []registry.ToolSchema{{Name: "x", Parameters: json.RawMessage(`[1]`)}}}}, set,
			`openai: tool "x": the parameters schema is not a JSON object`},
		{"schema null", &scripted{desc: &pipeline.Description{Tools: []registry.ToolSchema{{Name: "x", Parameters: json.RawMessage(`null`)}}}}, set,
			`openai: tool "x": the parameters schema is not a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ad, err := openai.New(tc.ex, nil)
			if err != nil {
				t.Fatal(err)
			}
			step, err := ad.Step(tc.set)
			if err == nil || err.Error() != tc.want || step != nil {
				t.Errorf("got (%v, %v), want the error %q", step, err, tc.want)
			}
		})
	}
	t.Run("mode without executor", func(t *testing.T) {
		ad, err := openai.NewByMode(pipeline.Executors{registry.ModePTC: &scripted{desc: &pipeline.Description{}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ad.Step(set)
		if want := `openai: mode "native" has no executor (executors: ptc)`; err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}

// TestInstructions pins the prompt's order: the host's text, then sections by
// Order with ties in the executor's order; blank sections are dropped.
func TestInstructions(t *testing.T) {
	ex := &scripted{desc: &pipeline.Description{Sections: []pipeline.Section{
		{Name: "sdk", Order: 150, Text: "SDK"},
		{Name: "rules", Order: 99, Text: "RULES"},
		{Name: "blank", Order: 100, Text: "  \n"},
		{Name: "guide-a", Order: 120, Text: "A"},
		{Name: "guide-b", Order: 120, Text: "B"},
	}}}
	step := mustStep(t, ex, &openai.Options{Instructions: "HOST"})
	if got, want := step.Instructions(), "HOST\n\nRULES\n\nA\n\nB\n\nSDK"; got != want {
		t.Errorf("Instructions() = %q, want %q", got, want)
	}
	if got := marshal(t, step.ChatSystem()); got != `[{"content":"HOST\n\nRULES\n\nA\n\nB\n\nSDK","role":"system"}]` {
		t.Errorf("ChatSystem() = %s", got)
	}
	dev := mustStep(t, ex, &openai.Options{Developer: true})
	if got := marshal(t, dev.ChatSystem()); got != `[{"content":"RULES\n\nA\n\nB\n\nSDK","role":"developer"}]` {
		t.Errorf("ChatSystem() under Developer = %s", got)
	}
	if got := mustStep(t, &scripted{desc: &pipeline.Description{}}, nil).ChatSystem(); got != nil {
		t.Errorf("ChatSystem() without text = %v, want no message", got)
	}
}

// TestToolParams pins the conversion of a description's tools: no schema means an
// empty object, key order below the top level is kept, an empty description is
// omitted, and DeferLoading reaches Responses only.
func TestToolParams(t *testing.T) {
	ex := &scripted{desc: &pipeline.Description{Tools: []registry.ToolSchema{
		{Name: "bare"},
		{Name: "ordered", Description: "Keeps order.", DeferLoading: true,
			Parameters: json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}},"required":["z","a"],"additionalProperties":false}`)},
	}}}
	step := mustStep(t, ex, &openai.Options{Strict: true})
	wantChat := `[{"function":{"name":"bare","parameters":{"properties":{},"type":"object"}},"type":"function"},` +
		`{"function":{"name":"ordered","strict":true,"description":"Keeps order.","parameters":{"additionalProperties":false,"properties":{"z":{"type":"string"},"a":{"type":"string"}},"required":["z","a"],"type":"object"}},"type":"function"}]`
	if got := marshal(t, step.ChatTools()); got != wantChat {
		t.Errorf("ChatTools():\n got %s\nwant %s", got, wantChat)
	}
	wantResponses := `[{"strict":false,"parameters":{"properties":{},"type":"object"},"name":"bare","type":"function"},` +
		`{"strict":true,"parameters":{"additionalProperties":false,"properties":{"z":{"type":"string"},"a":{"type":"string"}},"required":["z","a"],"type":"object"},"name":"ordered","description":"Keeps order.","defer_loading":true,"type":"function"}]`
	if got := marshal(t, step.ResponsesTools()); got != wantResponses {
		t.Errorf("ResponsesTools():\n got %s\nwant %s", got, wantResponses)
	}
	// A caller changing the returned params does not reach the next call.
	tools := step.ChatTools()
	tools[1].OfFunction.Function.Parameters["type"] = json.RawMessage(`"string"`)
	if got := marshal(t, step.ChatTools()); got != wantChat {
		t.Errorf("ChatTools() after a caller's change:\n got %s\nwant %s", got, wantChat)
	}
	off := mustStep(t, ex, nil)
	if got := marshal(t, off.ChatTools()); strings.Contains(got, "strict") {
		t.Errorf("ChatTools() without Options.Strict sets strict: %s", got)
	}
	if got := marshal(t, off.ResponsesTools()); strings.Contains(got, `"strict":true`) {
		t.Errorf("ResponsesTools() without Options.Strict sets strict: %s", got)
	}
}

// contentResults answers each call with content that exercises every rendering
// rule: a failed call, bad images, audio, a resource, a policy's context.
func contentResults(batch []pipeline.RawCall) []*pipeline.Result {
	png := registry.Content{Type: "image", Data: pixel, MIMEType: "IMAGE/PNG"}
	out := make([]*pipeline.Result, len(batch))
	for i, c := range batch {
		r := &pipeline.Result{CallID: c.ID, Name: c.Name}
		switch c.Name {
		case "fails":
			r.Error = &pipeline.ToolError{Code: pipeline.CodeInvalidArgs, Message: "no"}
			r.Content = []registry.Content{registry.Text("Error: no")}
		case "mixed":
			r.Content = []registry.Content{
				registry.Text("text"),
				registry.Text(""),
				png,
				{Type: "image", Data: pixel, MIMEType: "image/svg+xml"},
				{Type: "image", Data: pixel, MIMEType: "image/png;base64,AAAA"},
				{Type: "image", Data: "iVBO\nRw==", MIMEType: "image/png"},
				{Type: "image", Data: "", MIMEType: "image/png"},
				{Type: "audio", Data: "AAAA", MIMEType: "audio/wav"},
				{Type: "resource", URI: "file:///a.txt", Text: "contents"},
				{Type: "resource", URI: "file:///b.bin"},
			}
			r.Contexts = []pipeline.AdditionalContext{
				{Source: "audit", Content: []registry.Content{registry.Text("logged")}},
				{Source: "run_code", CallID: c.ID + ":code:1", Tool: "shot", Content: []registry.Content{registry.Text("ignored: the program prints what it wants"), png}},
				{Source: "run_code", CallID: c.ID + ":code:2", Tool: "note", Content: []registry.Content{registry.Text("a sub-call's note")}},
				{Source: "policy"},
			}
		default:
			r.Content = []registry.Content{registry.Text("ok " + c.Arguments)}
		}
		out[i] = r
	}
	return out
}

func TestContent(t *testing.T) {
	ex := &scripted{desc: &pipeline.Description{}, results: contentResults}
	step := mustStep(t, ex, nil)

	var completion oai.ChatCompletion
	if err := json.Unmarshal([]byte(`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
		{"id":"c1","type":"function","function":{"name":"fails","arguments":"{}"}},
		{"id":"c2","type":"custom","custom":{"name":"grammar","input":"x"}},
		{"id":"c3","type":"function","function":{"name":"mixed","arguments":""}},
		{"id":"c4","type":"function","function":{"name":"plain","arguments":"not json"}}]}}]}`), &completion); err != nil {
		t.Fatal(err)
	}
	msgs, err := step.ExecuteChat(context.Background(), completion.Choices[0].Message)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "content_chat.golden.json", msgs)
	want := [][]pipeline.RawCall{{{ID: "c1", Name: "fails", Arguments: "{}"}, {ID: "c3", Name: "mixed"}, {ID: "c4", Name: "plain", Arguments: "not json"}}}
	if diff := cmp.Diff(want, ex.batches); diff != "" {
		t.Errorf("chat batches (-want +got):\n%s", diff)
	}

	ex.batches = nil
	var resp responses.Response
	if err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","output":[
		{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Working on it.","annotations":[]}]},
		{"type":"function_call","id":"fc_1","call_id":"c1","name":"fails","arguments":"{}","status":"completed"},
		{"type":"custom_tool_call","id":"ctc_1","call_id":"c2","name":"grammar","input":"x"},
		{"type":"function_call","id":"fc_3","call_id":"c3","name":"mixed","arguments":"","status":"completed"}]}`), &resp); err != nil {
		t.Fatal(err)
	}
	items, err := step.ExecuteResponses(context.Background(), &resp)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "content_responses.golden.json", items)
	want = [][]pipeline.RawCall{{{ID: "c1", Name: "fails", Arguments: "{}"}, {ID: "c3", Name: "mixed"}}}
	if diff := cmp.Diff(want, ex.batches); diff != "" {
		t.Errorf("responses batches (-want +got):\n%s", diff)
	}
}

// TestNoCalls pins that a reply without function calls executes nothing.
func TestNoCalls(t *testing.T) {
	ex := &scripted{desc: &pipeline.Description{}, results: contentResults}
	step := mustStep(t, ex, nil)
	msgs, err := step.ExecuteChat(context.Background(), oai.ChatCompletionMessage{Content: "Done."})
	if err != nil || msgs != nil {
		t.Errorf("ExecuteChat = (%v, %v), want (nil, nil)", msgs, err)
	}
	items, err := step.ExecuteResponses(context.Background(), &responses.Response{})
	if err != nil || items != nil {
		t.Errorf("ExecuteResponses = (%v, %v), want (nil, nil)", items, err)
	}
	if len(ex.batches) != 0 {
		t.Errorf("executed %d batches, want none", len(ex.batches))
	}
	if _, err := step.ExecuteResponses(context.Background(), nil); err == nil || err.Error() != "openai: the response is nil" {
		t.Errorf("ExecuteResponses(nil) error = %v", err)
	}
}

// TestBrokenExecutor pins that a custom executor breaking the one-result-per-call
// contract is an error, not a panic or a missing tool message.
func TestBrokenExecutor(t *testing.T) {
	msg := oai.ChatCompletionMessage{ToolCalls: []oai.ChatCompletionMessageToolCallUnion{
		{ID: "a", Type: "function"}, {ID: "b", Type: "function"},
	}}
	for _, tc := range []struct {
		name    string
		results func([]pipeline.RawCall) []*pipeline.Result
		want    string
	}{
		{"too few", func([]pipeline.RawCall) []*pipeline.Result { return []*pipeline.Result{{}} }, "openai: the executor returned 1 results for 2 calls"},
		{"nil result", func([]pipeline.RawCall) []*pipeline.Result { return []*pipeline.Result{{}, nil} }, `openai: the executor returned no result for call "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step := mustStep(t, &scripted{desc: &pipeline.Description{}, results: tc.results}, nil)
			msgs, err := step.ExecuteChat(context.Background(), msg)
			if err == nil || err.Error() != tc.want || msgs != nil {
				t.Errorf("got (%v, %v), want the error %q", msgs, err, tc.want)
			}
		})
	}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

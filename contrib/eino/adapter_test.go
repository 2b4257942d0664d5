package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/eino"
	"github.com/runcode-go/runcode/registry"
)

func TestToolInfosAndInstruction(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, &eino.Options{Instructions: "You run a shop."})

	var names []string
	for _, info := range a.ToolInfos() {
		names = append(names, info.Name)
		js, err := info.ToJSONSchema()
		if err != nil || js == nil || js.Type != "object" {
			t.Errorf("%s: ToJSONSchema() = %v, %v; want an object schema", info.Name, js, err)
		}
	}
	if diff := cmp.Diff([]string{"get_order", "refund", "render_chart", "run_code"}, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	ins := a.Instruction()
	if !strings.HasPrefix(ins, "You run a shop.\n\n") || !contains(ins, "get_order: {", "refund: {", "run_code") {
		t.Errorf("Instruction() does not open with the host's prompt and hold the SDK:\n%s", ins)
	}
	if m := a.SystemMessage(); m.Role != schema.System || m.Content != ins {
		t.Errorf("SystemMessage() = %+v, want the instruction as a system message", m)
	}
}

// TestModelRequest checks what eino-ext's OpenAI model sends for the adapter's tool
// infos and system message: run_code as a function with its schema, the SDK first.
func TestModelRequest(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	a := mustNew(t, exec, set, nil)
	api := newChatAPI(fixture(t, "chat_sum_done.json"))
	defer api.Close()
	cm, err := chatModel(t, api).WithTools(a.ToolInfos())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cm.Generate(context.Background(), []*schema.Message{a.SystemMessage(), schema.UserMessage("hi")}); err != nil {
		t.Fatal(err)
	}
	req := api.request(t, 0)
	var got struct {
		Messages []struct{ Role, Content string }
		Tools    []struct {
			Type     string
			Function struct {
				Name       string
				Parameters map[string]any
			}
		}
	}
	data, _ := json.Marshal(req)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != 1 || got.Tools[0].Function.Name != "run_code" || got.Tools[0].Function.Parameters["type"] != "object" {
		t.Fatalf("tools sent = %s", indent(t, got.Tools))
	}
	props, _ := got.Tools[0].Function.Parameters["properties"].(map[string]any)
	if props["code"] == nil {
		t.Errorf("run_code's schema lost its code property: %s", indent(t, got.Tools[0].Function.Parameters))
	}
	if len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[0].Content != a.Instruction() {
		t.Errorf("messages sent = %s", indent(t, got.Messages))
	}
}

// TestExecuteImages runs a message from the model that calls run_code (whose program
// calls render_chart) and render_chart directly, under mode both, with images in a
// user message and then in the tool messages.
func TestExecuteImages(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	msg := message(t, "chat_chart.json")

	a := mustNew(t, exec, set, nil)
	got, err := a.Execute(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	png := pngPixel
	image := func(data string) *schema.MessageInputImage {
		return &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}}
	}
	want := []*schema.Message{
		{Role: schema.Tool, ToolCallID: "call_Vb5Nc8Mx2Lk4Jh6G", ToolName: "run_code",
			Content: "sales\nImage from render_chart (sub-call call_Vb5Nc8Mx2Lk4Jh6G:code:1):\n[image 1 is in the user message after the tool results]"},
		{Role: schema.Tool, ToolCallID: "call_Hg3Fd6Sa9Qw2Er5T", ToolName: "render_chart",
			Content: "chart costs\n[image 2 is in the user message after the tool results]"},
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "Image 1 (call call_Vb5Nc8Mx2Lk4Jh6G):"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: image(png)},
			{Type: schema.ChatMessagePartTypeText, Text: "Image 2 (call call_Hg3Fd6Sa9Qw2Er5T):"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: image(png)},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Execute (-want +got):\n%s", diff)
	}

	a = mustNew(t, exec, set, &eino.Options{ToolImages: true})
	got, err = a.Execute(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("with ToolImages, Execute returned %d messages, want 2 tool messages: %s", len(got), indent(t, got))
	}
	wantParts := []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "chart costs"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: image(png)},
	}
	if diff := cmp.Diff(wantParts, got[1].UserInputMultiContent); diff != "" {
		t.Errorf("render_chart's tool message parts (-want +got):\n%s", diff)
	}
	if got[1].Content != "chart costs" {
		t.Errorf("render_chart's tool message content = %q, want its text", got[1].Content)
	}
}

// TestExecuteOneBatch checks that a message's calls reach the executor as one batch,
// and that a failed call is a tool message with its error text.
func TestExecuteOneBatch(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	rec := &recorder{next: exec}
	a := mustNew(t, rec, set, &eino.Options{Agent: "clerk"})
	msg := schema.AssistantMessage("", []schema.ToolCall{
		{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "get_order", Arguments: `{"id":"A1"}`}},
		{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "get_order", Arguments: `{"id":"missing"}`}},
	})
	got, err := a.Execute(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.batches) != 1 || len(rec.batches[0]) != 2 || rec.batches[0][1].Agent != "clerk" {
		t.Fatalf("batches = %+v, want one batch of two calls by agent clerk", rec.batches)
	}
	var contents []string
	for _, m := range got {
		contents = append(contents, m.ToolCallID+": "+m.Content)
	}
	want := []string{"c1: {\n  \"total\": 20\n}", `c2: Error: order "missing" not found`}
	if diff := cmp.Diff(want, contents); diff != "" {
		t.Errorf("tool messages (-want +got):\n%s", diff)
	}
}

func TestExecuteRefuses(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	a := mustNew(t, exec, set, nil)
	call := func(id string) schema.ToolCall {
		return schema.ToolCall{ID: id, Function: schema.FunctionCall{Name: "run_code", Arguments: `{"code":"1"}`}}
	}
	for _, tc := range []struct {
		name string
		msg  *schema.Message
		want string
	}{
		{"nil", nil, "nil message"},
		{"no calls", schema.AssistantMessage("hi", nil), eino.ErrNoToolCalls.Error()},
		{"empty id", schema.AssistantMessage("", []schema.ToolCall{call("")}), "has no id"},
		{"repeated id", schema.AssistantMessage("", []schema.ToolCall{call("x"), call("x")}), "more than once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.Execute(context.Background(), tc.msg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || got != nil {
				t.Errorf("Execute = %v, %v; want an error containing %q", got, err, tc.want)
			}
		})
	}
	if _, err := a.Execute(context.Background(), schema.AssistantMessage("", nil)); !errors.Is(err, eino.ErrNoToolCalls) {
		t.Errorf("err = %v, want ErrNoToolCalls", err)
	}
}

func TestNewRefuses(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	if _, err := eino.New(nil, set, nil); err == nil {
		t.Error("New(nil executor) succeeded")
	}
	if _, err := eino.New(exec, nil, nil); err == nil {
		t.Error("New(nil set) succeeded")
	}
}

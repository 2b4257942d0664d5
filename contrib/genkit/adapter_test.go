package genkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/option"
	rcgenkit "github.com/runcode-go/runcode/contrib/genkit"
	"github.com/runcode-go/runcode/registry"
)

func TestDefinitionsAndSystem(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, &rcgenkit.Options{Instructions: "You run a shop. 100% polite."})
	var names []string
	for _, d := range a.Definitions() {
		names = append(names, d.Name)
		if d.InputSchema["type"] != "object" {
			t.Errorf("%s: input schema %v", d.Name, d.InputSchema)
		}
	}
	if diff := cmp.Diff([]string{"get_order", "refund", "render_chart", "run_code"}, names); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	if got := a.System(); !strings.HasPrefix(got, "You run a shop. 100% polite.\n\n") || !strings.Contains(got, "get_order: {") {
		t.Errorf("System() = %q", got)
	}
	if m := a.SystemMessage(); m.Role != ai.RoleSystem || m.Text() != a.System() {
		t.Errorf("SystemMessage() = %+v", m)
	}
	var toolNames []string
	for _, tr := range a.Tools() {
		toolNames = append(toolNames, tr.Name())
	}
	if diff := cmp.Diff(names, toolNames); diff != "" {
		t.Errorf("Tools() names (-want +got):\n%s", diff)
	}
}

// TestModelRequest checks what Genkit's OpenAI plugin sends for the adapter's tools
// and system message: run_code as a function with its schema, the system text as is.
func TestModelRequest(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	a := mustNew(t, exec, set, &rcgenkit.Options{Instructions: "Be 100% exact."})
	var mu sync.Mutex
	var bodies []string
	data, err := os.ReadFile(filepath.Join("testdata", "chat_sum_done.json"))
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	defer api.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx, genkit.WithPlugins(&openai.OpenAI{APIKey: "hand-written", Opts: []option.RequestOption{option.WithBaseURL(api.URL)}}))
	if _, err := genkit.Generate(ctx, g, ai.WithModelName("openai/gpt-4.1"),
		ai.WithMessages(a.SystemMessage(), ai.NewUserTextMessage("hi")), ai.WithTools(a.Tools()...)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []struct {
			Role    string
			Content any
		}
		Tools []struct {
			Function struct {
				Name       string
				Parameters map[string]any
			}
		}
	}
	if len(bodies) != 1 {
		t.Fatalf("%d requests", len(bodies))
	}
	if err := json.Unmarshal([]byte(bodies[0]), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != 1 || got.Tools[0].Function.Name != "run_code" {
		t.Fatalf("tools sent: %s", bodies[0])
	}
	if props, _ := got.Tools[0].Function.Parameters["properties"].(map[string]any); props["code"] == nil {
		t.Errorf("run_code's schema lost its code property: %v", got.Tools[0].Function.Parameters)
	}
	if len(got.Messages) != 2 || got.Messages[0].Role != "system" || !strings.Contains(bodies[0], "Be 100% exact.") {
		t.Errorf("messages sent: %s", bodies[0])
	}
	if sys, _ := got.Messages[0].Content.(string); sys != a.System() {
		t.Errorf("system content = %q, want System()", got.Messages[0].Content)
	}
}

// TestExecuteImages runs a model message calling run_code (whose program renders a
// chart) and render_chart directly, under mode both: images in a user message, then
// in the tool responses' content.
func TestExecuteImages(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	msg := modelMessage(t, a, "chat_chart.json")
	got, err := a.Execute(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Role != ai.RoleTool || got[1].Role != ai.RoleUser {
		t.Fatalf("Execute returned %d messages: %+v", len(got), got)
	}
	type resp struct{ Name, Ref, Output string }
	var resps []resp
	for _, p := range got[0].Content {
		resps = append(resps, resp{p.ToolResponse.Name, p.ToolResponse.Ref, p.ToolResponse.Output.(string)})
	}
	want := []resp{
		{"run_code", "call_Vb5Nc8Mx2Lk4Jh6G", "sales\nImage from render_chart (sub-call call_Vb5Nc8Mx2Lk4Jh6G:code:1):\n[image 1 is in the user message after the tool results]"},
		{"render_chart", "call_Hg3Fd6Sa9Qw2Er5T", "chart costs\n[image 2 is in the user message after the tool results]"},
	}
	if diff := cmp.Diff(want, resps); diff != "" {
		t.Errorf("tool responses (-want +got):\n%s", diff)
	}
	var user []string
	for _, p := range got[1].Content {
		user = append(user, fmt.Sprint(p.Kind)+" "+p.ContentType+" "+p.Text)
	}
	url := "data:image/png;base64," + pngPixel
	wantUser := []string{
		"0 plain/text Image 1 (call call_Vb5Nc8Mx2Lk4Jh6G):", "1 image/png " + url,
		"0 plain/text Image 2 (call call_Hg3Fd6Sa9Qw2Er5T):", "1 image/png " + url,
	}
	if diff := cmp.Diff(wantUser, user); diff != "" {
		t.Errorf("user message (-want +got):\n%s", diff)
	}

	a = mustNew(t, exec, set, &rcgenkit.Options{ToolImages: true})
	got, err = a.Execute(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("with ToolImages, Execute returned %d messages", len(got))
	}
	tr := got[0].Content[1].ToolResponse
	if tr.Output != "chart costs" || len(tr.Content) != 1 || tr.Content[0].Text != url {
		t.Errorf("render_chart's response = %+v", tr)
	}
}

// TestExecuteOneBatch checks that a message's requests reach the executor as one
// batch, that a request without a ref gets an id, and that a failure is its text.
func TestExecuteOneBatch(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	rec := &recorder{next: exec}
	a := mustNew(t, rec, set, &rcgenkit.Options{Agent: "clerk"})
	msg := &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{
		ai.NewTextPart("looking"),
		ai.NewToolRequestPart(&ai.ToolRequest{Name: "get_order", Ref: "c1", Input: map[string]any{"id": "A1"}}),
		ai.NewToolRequestPart(&ai.ToolRequest{Name: "get_order", Input: map[string]any{"id": "missing"}}),
	}}
	got, err := a.Execute(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.batches) != 1 || len(rec.batches[0]) != 2 || rec.batches[0][1].ID != "genkit-1" || rec.batches[0][0].Agent != "clerk" {
		t.Fatalf("batches = %+v", rec.batches)
	}
	var outs []string
	for _, p := range got[0].Content {
		outs = append(outs, p.ToolResponse.Ref+": "+p.ToolResponse.Output.(string))
	}
	if diff := cmp.Diff([]string{"c1: {\n  \"total\": 20\n}", `: Error: order "missing" not found`}, outs); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

func TestExecuteRefuses(t *testing.T) {
	set, exec := setup(t, registry.ModePTC)
	a := mustNew(t, exec, set, nil)
	req := func(ref string) *ai.Part {
		return ai.NewToolRequestPart(&ai.ToolRequest{Name: "run_code", Ref: ref, Input: map[string]any{"code": "1"}})
	}
	for _, tc := range []struct {
		name string
		msg  *ai.Message
		want string
	}{
		{"nil", nil, "nil message"},
		{"no requests", ai.NewModelTextMessage("hi"), rcgenkit.ErrNoToolRequests.Error()},
		{"repeated ref", &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{req("x"), req("x")}}, "more than once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.Execute(context.Background(), tc.msg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || got != nil {
				t.Errorf("Execute = %v, %v; want an error containing %q", got, err, tc.want)
			}
		})
	}
	if _, err := a.Execute(context.Background(), ai.NewModelTextMessage("hi")); !errors.Is(err, rcgenkit.ErrNoToolRequests) {
		t.Errorf("err = %v, want ErrNoToolRequests", err)
	}
	if _, err := rcgenkit.New(nil, set, nil); err == nil {
		t.Error("New(nil executor) succeeded")
	}
	if _, err := rcgenkit.New(exec, nil, nil); err == nil {
		t.Error("New(nil set) succeeded")
	}
}

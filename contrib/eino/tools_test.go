package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/eino"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// toolsNode runs msg's tool calls through Eino's own ToolsNode over tools.
func toolsNode(t *testing.T, cfg *compose.ToolsNodeConfig, msg *schema.Message) []*schema.Message {
	t.Helper()
	node, err := compose.NewToolNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := node.Invoke(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// chartCalls is an assistant message calling run_code (whose program renders a chart
// and fails to find an order) and render_chart directly.
func chartCalls() *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{
		{ID: "a", Type: "function", Function: schema.FunctionCall{Name: "run_code",
			Arguments: `{"description":"chart","code":"const c = await tools.render_chart({ title: 'sales' });\nconsole.log(c.title);"}`}},
		{ID: "b", Type: "function", Function: schema.FunctionCall{Name: "get_order", Arguments: `{"id":"missing"}`}},
	})
}

func TestToolsInToolsNode(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	got := toolsNode(t, &compose.ToolsNodeConfig{Tools: a.Tools()}, chartCalls())
	var contents []string
	for _, m := range got {
		contents = append(contents, m.ToolCallID+": "+m.Content)
	}
	want := []string{
		"a: sales\nImage from render_chart (sub-call a:code:1):\n[image omitted: this tool answers Eino with text only]",
		`b: Error: order "missing" not found`,
	}
	if diff := cmp.Diff(want, contents); diff != "" {
		t.Errorf("tool messages (-want +got):\n%s", diff)
	}
}

func TestEnhancedToolsInToolsNode(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	got := toolsNode(t, &compose.ToolsNodeConfig{Tools: a.EnhancedTools()}, chartCalls())
	if len(got) != 2 {
		t.Fatalf("got %d messages: %s", len(got), indent(t, got))
	}
	png := pngPixel
	want := []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "sales"},
		{Type: schema.ChatMessagePartTypeText, Text: "Image from render_chart (sub-call a:code:1):"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &png, MIMEType: "image/png"}}},
	}
	if diff := cmp.Diff(want, got[0].UserInputMultiContent); diff != "" {
		t.Errorf("run_code's parts (-want +got):\n%s", diff)
	}
}

// TestToolsOutsideToolsNode calls a tool directly, with no tool call id in the
// context: each call gets an id of the adapter's own.
func TestToolsOutsideToolsNode(t *testing.T) {
	set, exec := setup(t, registry.ModeNative)
	rec := &recorder{next: exec}
	a := mustNew(t, rec, set, nil)
	var getOrder tool.InvokableTool
	for _, bt := range a.Tools() {
		if info, _ := bt.Info(context.Background()); info.Name == "get_order" {
			getOrder = bt.(tool.InvokableTool)
		}
	}
	for range 2 {
		out, err := getOrder.InvokableRun(context.Background(), `{"id":"A1"}`)
		if err != nil || out != "{\n  \"total\": 20\n}" {
			t.Errorf("InvokableRun = %q, %v", out, err)
		}
	}
	var ids []string
	for _, b := range rec.batches {
		ids = append(ids, b[0].ID)
	}
	if diff := cmp.Diff([]string{"eino-1", "eino-2"}, ids); diff != "" {
		t.Errorf("call ids (-want +got):\n%s", diff)
	}
}

// TestPausedResume has Execute return *Paused for a refund, checks what Resume
// refuses, and resumes with a rejection, which the program sees as DENIED.
func TestPausedResume(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	msg := schema.AssistantMessage("", []schema.ToolCall{
		{ID: "r", Function: schema.FunctionCall{Name: "run_code", Arguments: `{"description":"refund","code":"try { await tools.refund({ id: 'A1', amount: 5 }) } catch (e) { return e.code + ': ' + e.message }"}`}},
		{ID: "o", Function: schema.FunctionCall{Name: "get_order", Arguments: `{"id":"A1"}`}},
	})
	_, err := a.Execute(context.Background(), msg)
	var paused *eino.Paused
	if !errors.As(err, &paused) {
		t.Fatalf("Execute = %v, want *Paused", err)
	}
	if len(paused.Pending) != 1 || paused.Pending[0].ToolCallID != "r" || paused.Pending[0].Tool != "refund" {
		t.Fatalf("Pending = %+v", paused.Pending)
	}
	if want := "eino: run_code paused: waiting for approval of refund (1 pending)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	ctx := context.Background()
	if _, err := paused.Resume(ctx, nil); err == nil || !strings.Contains(err.Error(), "no decisions") {
		t.Errorf("Resume(no decisions) = %v", err)
	}
	if _, err := paused.Resume(ctx, map[string]pipeline.Verdict{"nope": {Approve: true}}); err == nil || !strings.Contains(err.Error(), `no call "nope" is pending`) {
		t.Errorf("Resume(unknown id) = %v", err)
	}
	id := paused.Pending[0].ID
	got, err := paused.Resume(ctx, map[string]pipeline.Verdict{id: {Reason: "not today"}})
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range got {
		contents = append(contents, m.ToolCallID+": "+m.Content)
	}
	want := []string{`r: DENIED: the user rejected tool "refund": not today`, "o: {\n  \"total\": 20\n}"}
	if diff := cmp.Diff(want, contents); diff != "" {
		t.Errorf("messages after Resume (-want +got):\n%s", diff)
	}
	if _, err := paused.Resume(ctx, map[string]pipeline.Verdict{id: {Approve: true}}); err == nil || !strings.Contains(err.Error(), "already resumed") {
		t.Errorf("second Resume = %v", err)
	}
}

// TestPausedSaved: a pause saved with json.Marshal loads on another adapter, whose
// executor shares only the store, and resumes there; a second copy cannot resume its
// run again, and data that is not this adapter's pause is refused.
func TestPausedSaved(t *testing.T) {
	set := testreg.ResolveIn(t, testreg.Scope(t, registry.ModeBoth), getOrder(), refund(), renderChart())
	p := pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{askBeforeRefunds}})
	st := store.NewMemory()
	msg := schema.AssistantMessage("", []schema.ToolCall{
		{ID: "r", Function: schema.FunctionCall{Name: "run_code", Arguments: `{"description":"refund","code":"const r = await tools.refund({ id: 'A1', amount: 5 }); return r.refunded"}`}},
		{ID: "o", Function: schema.FunctionCall{Name: "get_order", Arguments: `{"id":"A1"}`}},
	})
	ctx := context.Background()
	_, err := mustNew(t, testexec.PTC(t, p, &ptc.Options{Store: st}), set, nil).Execute(ctx, msg)
	var paused *eino.Paused
	if !errors.As(err, &paused) {
		t.Fatalf("Execute = %v, want *Paused", err)
	}
	saved, err := json.Marshal(paused)
	if err != nil {
		t.Fatal(err)
	}

	other := mustNew(t, testexec.PTC(t, p, &ptc.Options{Store: st}), set, nil)
	loaded, err := other.LoadPaused(saved)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(paused.Pending, loaded.Pending); diff != "" {
		t.Errorf("pending (-saved +loaded):\n%s", diff)
	}
	contents := func(p *eino.Paused) []string {
		t.Helper()
		got, err := p.Resume(ctx, map[string]pipeline.Verdict{p.Pending[0].ID: {Approve: true}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range got {
			out = append(out, m.ToolCallID+": "+m.Content)
		}
		return out
	}
	if diff := cmp.Diff([]string{"r: 5", "o: {\n  \"total\": 20\n}"}, contents(loaded)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	again, err := other.LoadPaused(saved)
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(again)[0]; got != "r: Error: run_code could not resume: this run was already resumed" {
		t.Errorf("second copy: %q", got)
	}

	for _, tc := range []struct{ name, data, want string }{
		{"another host", strings.Replace(string(saved), `"host":"eino"`, `"host":"genkit"`, 1), `eino: LoadPaused: pipeline: PausedBatch: saved by "genkit", not by "eino"`},
		{"not a pause", `[]`, `eino: LoadPaused: pipeline: PausedBatch: json: cannot unmarshal array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p, err := other.LoadPaused([]byte(tc.data)); err == nil || !strings.HasPrefix(err.Error(), tc.want) || p != nil {
				t.Errorf("got %v, %v; want %q", p, err, tc.want)
			}
		})
	}
}

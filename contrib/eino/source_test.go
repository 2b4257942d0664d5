package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/eino"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// weatherIn and weatherOut are an Eino tool's input and output structs, as
// utils.InferTool reflects them.
type weatherIn struct {
	City string `json:"city" jsonschema:"required,description=The city"`
}

type weatherOut struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

// einoTools are Eino tools of each kind: inferred from a Go function (its answer is
// its output struct as JSON), enhanced (text and an image), one that fails, and one
// answering plain text.
func einoTools(t testing.TB) []tool.BaseTool {
	t.Helper()
	weather, err := utils.InferTool("weather", "Current weather in a city.", func(_ context.Context, in weatherIn) (weatherOut, error) {
		if in.City == "Atlantis" {
			return weatherOut{}, errors.New("no station in Atlantis")
		}
		return weatherOut{City: in.City, TempC: 21.5}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	photo, err := utils.InferEnhancedTool("photo", "A photo of a city.", func(_ context.Context, in weatherIn) (*schema.ToolResult, error) {
		png := pngPixel
		return &schema.ToolResult{Parts: []schema.ToolOutputPart{
			{Type: schema.ToolPartTypeText, Text: "photo of " + in.City},
			{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &png, MIMEType: "image/png"}}},
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	greet, err := utils.InferTool("greet", "Say hello.", func(_ context.Context, in weatherIn) (string, error) {
		return "hello " + in.City, nil
	}, utils.WithMarshalOutput(func(_ context.Context, out any) (string, error) { return out.(string), nil }))
	if err != nil {
		t.Fatal(err)
	}
	return []tool.BaseTool{weather, photo, greet}
}

func TestToolSchema(t *testing.T) {
	rt, err := eino.Tool(context.Background(), einoTools(t)[0], &eino.ToolOptions{TimeoutMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	set := testreg.Resolve(t, rt)
	e, ok := set.Get("weather")
	if !ok {
		t.Fatal("weather is not in the set")
	}
	var got map[string]any
	if err := json.Unmarshal(e.Parameters(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string", "description": "The city"}},
		"required":             []any{"city"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
	if rt.Source != "eino" || rt.TimeoutMs != 500 || rt.Description != "Current weather in a city." {
		t.Errorf("tool = %+v", rt)
	}
}

// TestProgramCallsEinoTools registers Eino tools in a scope and runs a run_code
// program that calls each of them.
func TestProgramCallsEinoTools(t *testing.T) {
	scope := testreg.Scope(t, registry.ModePTC)
	dispose, err := eino.Register(context.Background(), scope, einoTools(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dispose()
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	exec := testexec.PTC(t, pipeline.New(nil), nil)
	code := `const w = await tools.weather({ city: "Oslo" });
const p = await tools.photo({ city: "Oslo" });
const g = await tools.greet({ city: "Oslo" });
let err;
try { await tools.weather({ city: "Atlantis" }) } catch (e) { err = e.code + ": " + e.message }
return { temp: w.temp_c, photo: p, greet: g, err };`
	args, _ := json.Marshal(map[string]string{"code": code, "description": "call the Eino tools"})
	res := exec.Execute(context.Background(), set, []pipeline.RawCall{{ID: "c1", Name: "run_code", Arguments: string(args)}})[0]
	if res.IsError() {
		t.Fatalf("run_code failed: %s", res.Text())
	}
	// utils.InferTool wraps the function's error in its own words.
	want := `{
  "temp": 21.5,
  "photo": "photo of Oslo",
  "greet": "hello Oslo",
  "err": "TOOL_FAILED: [LocalFunc] failed to invoke tool, toolName=weather, err=no station in Atlantis"
}`
	if got := res.Text(); got != want {
		t.Errorf("program output:\n%s\nwant:\n%s", got, want)
	}
	if len(res.Contexts) != 1 || res.Contexts[0].Tool != "photo" || len(res.Contexts[0].Content) != 2 || res.Contexts[0].Content[1].Type != "image" {
		t.Errorf("contexts = %s, want photo's image", indent(t, res.Contexts))
	}
}

func TestToolRefuses(t *testing.T) {
	if _, err := eino.Tool(context.Background(), nil, nil); err == nil {
		t.Error("Tool(nil) succeeded")
	}
	_, err := eino.Tool(context.Background(), streaming{}, nil)
	if err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("Tool(streaming tool) = %v, want a refusal", err)
	}
	scope := registry.New()
	tools := append(einoTools(t), streaming{})
	if _, err := eino.Register(context.Background(), scope, tools, nil); err == nil {
		t.Fatal("Register with a streaming tool succeeded")
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Tools()); n != 0 {
		t.Errorf("a failed Register left %d tools registered", n)
	}
}

// streaming is a tool that only streams, which runcode does not take.
type streaming struct{}

func (streaming) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "ticker"}, nil
}

func (streaming) StreamableRun(context.Context, string, ...tool.Option) (*schema.StreamReader[string], error) {
	return nil, errors.New("not called")
}

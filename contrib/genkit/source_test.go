package genkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"
	rcgenkit "github.com/runcode-go/runcode/contrib/genkit"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

type cityIn struct {
	City string `json:"city" jsonschema:"description=The city"`
}

type weatherOut struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

// genkitTools defines Genkit tools of each kind with genkit.DefineTool and
// genkit.DefineMultipartTool: one answering a struct, one that fails, one answering
// text and an image, and one that interrupts to ask a person.
func genkitTools(t testing.TB) []ai.Tool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	g := genkit.Init(ctx)
	weather := genkit.DefineTool(g, "weather", "Current weather in a city.", func(_ *ai.ToolContext, in cityIn) (weatherOut, error) {
		if in.City == "Atlantis" {
			return weatherOut{}, errors.New("no station in Atlantis")
		}
		return weatherOut{City: in.City, TempC: 21.5}, nil
	})
	photo := genkit.DefineMultipartTool(g, "photo", "A photo of a city.", func(_ *ai.ToolContext, in cityIn) (*ai.MultipartToolResponse, error) {
		return &ai.MultipartToolResponse{Output: "photo of " + in.City, Content: []*ai.Part{ai.NewMediaPart("image/png", "data:image/png;base64,"+pngPixel)}}, nil
	})
	confirm := genkit.DefineTool(g, "confirm", "Ask the user to confirm.", func(tc *ai.ToolContext, in cityIn) (string, error) {
		return "", tc.Interrupt(&ai.InterruptOptions{Metadata: map[string]any{"question": "go to " + in.City + "?"}})
	})
	return []ai.Tool{weather, photo, confirm}
}

func TestToolSchemas(t *testing.T) {
	rt, err := rcgenkit.Tool(genkitTools(t)[0], &rcgenkit.ToolOptions{TimeoutMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	set := testreg.Resolve(t, rt)
	e, _ := set.Get("weather")
	var params, output map[string]any
	if err := json.Unmarshal(e.Parameters(), &params); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(e.OutputSchema(), &output); err != nil {
		t.Fatal(err)
	}
	if props, _ := params["properties"].(map[string]any); props["city"] == nil {
		t.Errorf("parameters = %v", params)
	}
	if props, _ := output["properties"].(map[string]any); props["temp_c"] == nil {
		t.Errorf("output schema = %v", output)
	}
	if rt.Source != "genkit" || rt.TimeoutMs != 500 {
		t.Errorf("tool = %+v", rt)
	}
}

// TestProgramCallsGenkitTools registers Genkit tools in a scope and runs a run_code
// program that calls each of them.
func TestProgramCallsGenkitTools(t *testing.T) {
	scope := testreg.Scope(t, registry.ModePTC)
	dispose, err := rcgenkit.Register(scope, genkitTools(t), nil)
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
const errs = [];
for (const [name, city] of [["weather", "Atlantis"], ["confirm", "Rome"]]) {
  try { await tools[name]({ city }) } catch (e) { errs.push(e.code + ": " + e.message) }
}
return { temp: w.temp_c, photo: p, errs };`
	args, _ := json.Marshal(map[string]string{"code": code, "description": "call the Genkit tools"})
	res := exec.Execute(context.Background(), set, []pipeline.RawCall{{ID: "c1", Name: "run_code", Arguments: string(args)}})[0]
	if res.IsError() {
		t.Fatalf("run_code failed: %s", res.Text())
	}
	var got struct {
		Temp  float64
		Photo string
		Errs  []string
	}
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		t.Fatalf("output %q: %v", res.Text(), err)
	}
	want := []string{
		"TOOL_FAILED: error calling tool weather: no station in Atlantis",
		`TOOL_FAILED: tool "confirm" interrupted to ask for input ({"question":"go to Rome?"}), which runcode does not carry out of a tool call; make it ask before the call (a pipeline pre-execute hook answering Ask)`,
	}
	if got.Temp != 21.5 || got.Photo != "photo of Oslo" {
		t.Errorf("output = %s", res.Text())
	}
	if diff := cmp.Diff(want, got.Errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if len(res.Contexts) != 1 || res.Contexts[0].Tool != "photo" || len(res.Contexts[0].Content) != 2 ||
		res.Contexts[0].Content[1] != (registry.Content{Type: "image", Data: pngPixel, MIMEType: "image/png"}) {
		t.Errorf("contexts = %+v, want photo's text and image", res.Contexts)
	}
}

func TestRegisterAllOrNone(t *testing.T) {
	if _, err := rcgenkit.Tool(nil, nil); err == nil {
		t.Error("Tool(nil) succeeded")
	}
	scope := registry.New()
	tools := genkitTools(t)
	tools = append(tools, tools[0]) // a second "weather"
	if _, err := rcgenkit.Register(scope, tools, nil); err == nil {
		t.Fatal("Register with a repeated name succeeded")
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Tools()); n != 0 {
		t.Errorf("a failed Register left %d tools registered: %v", n, fmt.Sprint(set.Schemas()))
	}
}

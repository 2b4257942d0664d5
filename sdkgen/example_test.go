package sdkgen_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/sdkgen"
)

func ExampleGenerate() {
	scope := registry.New()
	_, err := scope.Register(&registry.Tool{
		Name:        "echo",
		Description: "Echo tool echo.",
		Parameters:  registry.Object(registry.Required("value", registry.String())),
		Output:      registry.Output{Schema: registry.String()},
		Execute:     func(ctx context.Context, call *registry.Call) (any, error) { return call.Args, nil },
	})
	if err != nil {
		panic(err)
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		panic(err)
	}
	section := sdkgen.Generate(set)
	// The instruction block comes first; print the declarations' tool maps.
	start := strings.Index(section, "interface ToolArgsMap")
	end := strings.Index(section, "type ToolName")
	fmt.Print(section[start:end])
	// Output:
	// interface ToolArgsMap {
	//   /** Echo tool echo. */
	//   echo: {
	//     value: string;
	//   };
	// }
	//
	// interface ToolOutputMap {
	//   echo: string;
	// }
}

func ExampleRender() {
	sdk := sdkgen.Render([]sdkgen.Tool{{
		Name:       "mcp__db__query",
		Parameters: []byte(`{"type":"object","properties":{"sql":{"type":"string"},"at":{"$ref":"https://example.com/t.json"}},"required":["sql"],"additionalProperties":false}`),
	}})
	for _, f := range sdk.Fallbacks {
		fmt.Printf("%s %s %s: %s\n", f.Tool, f.Schema, f.Path, f.Reason)
	}
	// Output:
	// mcp__db__query parameters /properties/at/$ref: $ref "https://example.com/t.json" does not resolve within the schema
}

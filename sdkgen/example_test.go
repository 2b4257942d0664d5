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

func ExampleIndex_Search() {
	ix := sdkgen.NewIndex([]sdkgen.Tool{
		{Name: "read_file", Description: "Read the contents of a file."},
		{Name: "createIssue", Description: "Open an issue in a repository."},
		{Name: "send_message", Description: "Post a message to a chat channel.", Parameters: []byte(`{"type":"object","properties":{"channel":{"type":"string"}}}`)},
	}, nil)
	fmt.Println(ix.Search("open a bug issue on the repo", 1, nil)[0].Name)
	fmt.Println(ix.Search("post to the team channel", 1, nil)[0].Name)
	// Output:
	// createIssue
	// send_message
}

func ExampleSection() {
	tools := []sdkgen.Tool{
		{Name: "read_file", Source: "fs", Description: "Read a file. Returns its text."},
		{Name: "create_issue", Source: "github", Description: "Open an issue."},
	}
	sdk := sdkgen.Section(tools, &sdkgen.Options{Budget: 1}) // any declaration is over budget
	start := strings.Index(sdk.Section, "fs (")
	end := strings.Index(sdk.Section, "```ts")
	fmt.Print(sdk.Index, "\n", sdk.Section[start:end])
	// Output:
	// true
	// fs (1 tool):
	// - read_file: Read a file.
	//
	// github (1 tool):
	// - create_issue: Open an issue.
}

// vowelEmbedder is a toy model for the example: a text's vector counts its vowels.
// A real Embedder calls an embedding model (and caches its vectors by text).
type vowelEmbedder struct{}

func (vowelEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 5)
		for _, r := range strings.ToLower(t) {
			if j := strings.IndexRune("aeiou", r); j >= 0 {
				v[j]++
			}
		}
		out[i] = v
	}
	return out, nil
}

// ExampleIndexOptions: with an Embedder, search fuses the lexical ranking with the
// tools' similarity to the query by reciprocal rank fusion: read_file is first
// lexically and second by similarity (1/61 + 1/62), send_message only first by
// similarity (1/61).
func ExampleIndexOptions() {
	ix := sdkgen.NewIndex([]sdkgen.Tool{
		{Name: "read_file", Description: "Read the contents of a file."},
		{Name: "send_message", Description: "Post a message to a chat channel."},
	}, &sdkgen.IndexOptions{Embedder: vowelEmbedder{}})
	for _, h := range ix.SearchContext(context.Background(), "read a file", 5, nil) {
		fmt.Printf("%s %.4f\n", h.Name, h.Score)
	}
	// Output:
	// read_file 0.0325
	// send_message 0.0164
}

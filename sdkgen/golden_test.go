package sdkgen

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testfs"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/*.txtar")

// archive is a txtar archive: a comment, then named files.
type archive struct {
	comment string
	names   []string
	files   map[string]string
}

func parseArchive(text string) *archive {
	a := &archive{files: map[string]string{}}
	name := ""
	var b strings.Builder
	flush := func() {
		if name == "" {
			a.comment = b.String()
		} else {
			a.names = append(a.names, name)
			a.files[name] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			continue
		}
		b.WriteString(line)
	}
	flush()
	return a
}

func (a *archive) set(name, content string) {
	if _, ok := a.files[name]; !ok {
		a.names = append(a.names, name)
	}
	a.files[name] = content
}

func (a *archive) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		b.WriteString(a.files[n])
	}
	return b.String()
}

// manifestTool is a tool in the shape MCP servers publish (tools/list) and manifests
// use, as the golden archives and the discovery corpora's tools.json hold it.
type manifestTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Source       string          `json:"source"`
	DeferLoading bool            `json:"deferLoading"`
}

// decodeTools decodes tools given as a JSON array of manifestTool or as an object whose
// "tools" member is one (a corpus file, a tools/list answer).
func decodeTools(t testing.TB, data string) []Tool {
	t.Helper()
	var mt []manifestTool
	if err := json.Unmarshal([]byte(data), &mt); err != nil {
		var wrapped struct{ Tools []manifestTool }
		if err2 := json.Unmarshal([]byte(data), &wrapped); err2 != nil {
			t.Fatalf("decoding tools: %v", err)
		}
		mt = wrapped.Tools
	}
	out := make([]Tool, len(mt))
	for i, m := range mt {
		out[i] = Tool{Name: m.Name, Description: m.Description, Parameters: m.InputSchema, Output: m.OutputSchema, Source: m.Source, DeferLoading: m.DeferLoading}
	}
	return out
}

func formatFallbacks(fs []Fallback) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %q: %s\n", f.Tool, f.Schema, f.Path, f.Reason)
	}
	return b.String()
}

// TestGolden renders each testdata/*.txtar's tools.json and compares the declarations
// (sdk.d.ts), the fallbacks and, where the archive has one, the whole section
// (section.md) and the section rendered as an index (index.md, with a budget of 1).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data := testfs.Read(t, file)
			a := parseArchive(data)
			in, ok := a.files["tools.json"]
			if !ok {
				t.Fatal("archive has no tools.json")
			}
			sdk := Render(decodeTools(t, in))
			got := map[string]string{"sdk.d.ts": sdk.Declarations, "fallbacks": formatFallbacks(sdk.Fallbacks)}
			if _, ok := a.files["section.md"]; ok {
				got["section.md"] = sdk.Section
			}
			if _, ok := a.files["index.md"]; ok {
				got["index.md"] = Section(decodeTools(t, in), &Options{Budget: 1}).Section
			}
			if *update {
				for _, n := range []string{"sdk.d.ts", "fallbacks", "section.md", "index.md"} {
					if g, ok := got[n]; ok {
						a.set(n, g)
					}
				}
				if err := os.WriteFile(file, []byte(a.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, n := range []string{"sdk.d.ts", "fallbacks", "section.md", "index.md"} {
				g, ok := got[n]
				if !ok {
					continue
				}
				if diff := cmp.Diff(a.files[n], g); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", n, diff)
				}
			}
		})
	}
}

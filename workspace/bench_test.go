package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/registry"
)

// BenchmarkTools times read_file and grep, with their allocations, on a 10 MiB file of
// newlines, a 10 MiB line, and a tree of 200 source-like files of 500 lines.
func BenchmarkTools(b *testing.B) {
	dir := b.TempDir()
	write := func(name, data string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("newlines", strings.Repeat("\n", MaxFileBytes))
	write("oneline", strings.Repeat("a", MaxFileBytes))
	var src strings.Builder
	for i := range 500 {
		if i%100 == 7 {
			src.WriteString("\t// TODO: handle the error of this call properly\n")
		} else {
			fmt.Fprintf(&src, "\tx%d := compute(ctx, %d, \"some string literal\") // a comment\n", i, i)
		}
	}
	for i := range 200 {
		write(fmt.Sprintf("tree/d%d/f%d.go", i%10, i), src.String())
	}
	ws, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	tools := map[string]*registry.Tool{}
	for _, tool := range ws.Tools() {
		tools[tool.Name] = tool
	}
	for _, bb := range []struct{ name, tool, args string }{
		{"read_file/newlines", "read_file", `{"path":"newlines","offset":5000000,"limit":10}`},
		{"read_file/oneline", "read_file", `{"path":"oneline"}`},
		{"read_file/source", "read_file", `{"path":"tree/d0/f0.go"}`},
		{"grep/newlines", "grep", `{"pattern":"x","path":"newlines"}`},
		{"grep/oneline", "grep", `{"pattern":"b","path":"oneline"}`},
		{"grep/tree", "grep", `{"pattern":"TODO","path":"tree"}`},
		{"grep/tree-regexp", "grep", `{"pattern":"x[0-9]+ := compute\\(ctx, 4[0-9]{2}","path":"tree"}`},
	} {
		call := &registry.Call{Args: registry.MustParseValue(bb.args)}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tools[bb.tool].Execute(context.Background(), call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

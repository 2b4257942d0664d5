package workspace

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// pngBytes is a 1x1 PNG.
var pngBytes, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

func setup(t *testing.T) (*registry.ResolvedToolSet, *pipeline.Pipeline) {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "ws")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "src", "deep"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "README.md"), []byte("# title\nTODO: write\nend\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package a\n// TODO one\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "src", "deep", "b.go"), []byte("package b\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "pixel.png"), pngBytes, 0o644))
	must(os.WriteFile(filepath.Join(dir, "bin.dat"), []byte{0, 1, 2}, 0o644))
	must(os.WriteFile(filepath.Join(top, "secret.txt"), []byte("TODO secret\n"), 0o644))
	must(os.Symlink(filepath.Join(top, "secret.txt"), filepath.Join(dir, "escape.txt")))
	must(os.Symlink(top, filepath.Join(dir, "escape-dir")))
	must(os.Symlink("README.md", filepath.Join(dir, "inside.md")))
	ws, err := Open(dir)
	must(err)
	t.Cleanup(func() { ws.Close() })
	return testreg.Resolve(t, ws.Tools()...), pipeline.New(nil)
}

func run(t *testing.T, set *registry.ResolvedToolSet, p *pipeline.Pipeline, name, args string) *pipeline.Result {
	t.Helper()
	return p.Run(context.Background(), set, registry.Call{ID: "c", Name: name, Args: registry.MustParseValue(args)})
}

func TestTools(t *testing.T) {
	set, p := setup(t)
	tests := []struct {
		name, tool, args string
		wantValue        string
	}{
		{"read all", "read_file", `{"path":"README.md"}`, `{"path":"README.md","startLine":1,"endLine":3,"text":"# title\nTODO: write\nend","totalLines":3}`},
		{"read range", "read_file", `{"path":"./README.md","offset":2,"limit":1}`, `{"path":"README.md","startLine":2,"endLine":2,"text":"TODO: write","totalLines":3}`},
		{"read past end", "read_file", `{"path":"README.md","offset":9}`, `{"path":"README.md","text":"","totalLines":3}`},
		{"read through an inside symlink", "read_file", `{"path":"inside.md","limit":1}`, `{"path":"inside.md","startLine":1,"endLine":1,"text":"# title","totalLines":3}`},
		{"read image", "read_file", `{"path":"pixel.png"}`, `{"bytes":70,"mimeType":"image/png","path":"pixel.png","totalLines":0}`},
		{"list root", "list_dir", `{"path":"."}`, `[{"name":"README.md","size":24,"type":"file"},{"name":"bin.dat","size":3,"type":"file"},{"name":"escape-dir","size":0,"type":"symlink"},{"name":"escape.txt","size":0,"type":"symlink"},{"name":"inside.md","size":0,"type":"symlink"},{"name":"pixel.png","size":70,"type":"file"},{"name":"src","size":0,"type":"dir"}]`},
		{"glob deep", "glob", `{"pattern":"**/*.go"}`, `["src/a.go","src/deep/b.go"]`},
		{"glob one level", "glob", `{"pattern":"src/*.go"}`, `["src/a.go"]`},
		{"glob class", "glob", `{"pattern":"[RX]*.md"}`, `["README.md"]`},
		{"glob braces", "glob", `{"pattern":"**/*.{md,go}"}`, `["README.md","inside.md","src/a.go","src/deep/b.go"]`},
		{"glob braces of paths", "glob", `{"pattern":"{src/deep,src}/*.go"}`, `["src/a.go","src/deep/b.go"]`},
		{"glob negated class and escape", "glob", `{"pattern":"[!R]*.\\png"}`, `["pixel.png"]`},
		{"grep with a brace glob", "grep", `{"pattern":"^package b","glob":"**/*.{go,ts}"}`, `{"matches":[{"line":1,"path":"src/deep/b.go","text":"package b"}],"truncated":false}`},
		{"grep", "grep", `{"pattern":"TODO"}`, `{"matches":[{"line":2,"path":"README.md","text":"TODO: write"},{"line":2,"path":"src/a.go","text":"// TODO one"}],"truncated":false}`},
		{"grep with glob", "grep", `{"pattern":"^package","glob":"src/**"}`, `{"matches":[{"line":1,"path":"src/a.go","text":"package a"},{"line":1,"path":"src/deep/b.go","text":"package b"}],"truncated":false}`},
		{"grep under a path", "grep", `{"pattern":"package","path":"src/deep"}`, `{"matches":[{"line":1,"path":"src/deep/b.go","text":"package b"}],"truncated":false}`},
		{"stat", "stat", `{"path":"src"}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, set, p, tt.tool, tt.args)
			if res.IsError() {
				t.Fatalf("error: %s", res.Content[0].Text)
			}
			if tt.wantValue != "" {
				want := registry.MustParseValue(tt.wantValue)
				if diff := cmp.Diff(want.Any(), res.Value.Any()); diff != "" {
					t.Errorf("value (-want +got):\n%s", diff)
				}
			}
		})
	}
	if v := run(t, set, p, "stat", `{"path":"src"}`).Value.Any().(map[string]any); v["type"] != "dir" || v["mode"] != "-rwxr-xr-x" {
		t.Errorf("stat src: %v", v)
	}
}

func TestReadRendering(t *testing.T) {
	set, p := setup(t)
	res := run(t, set, p, "read_file", `{"path":"README.md","offset":2}`)
	if got := res.Content[0].Text; got != "README.md (lines 2-3 of 3)\nTODO: write\nend" {
		t.Errorf("text rendering: %q", got)
	}
	res = run(t, set, p, "read_file", `{"path":"pixel.png"}`)
	want := []registry.Content{registry.Text("<path>pixel.png</path>\n<type>image</type>"), {Type: "image", MIMEType: "image/png", Data: base64.StdEncoding.EncodeToString(pngBytes)}}
	if diff := cmp.Diff(want, res.Content); diff != "" {
		t.Errorf("image rendering (-want +got):\n%s", diff)
	}
}

func TestJail(t *testing.T) {
	set, p := setup(t)
	tests := []struct {
		name, tool, args, want string
	}{
		{"dot-dot", "read_file", `{"path":"../secret.txt"}`, `leaves the workspace root`},
		{"hidden dot-dot", "read_file", `{"path":"src/../../secret.txt"}`, `leaves the workspace root`},
		{"absolute", "read_file", `{"path":"/etc/passwd"}`, `is absolute; paths are relative to the workspace root`},
		{"symlink to a file outside", "read_file", `{"path":"escape.txt"}`, `escape.txt: path escapes the workspace root`},
		{"symlink to a dir outside", "list_dir", `{"path":"escape-dir"}`, `escape-dir: path escapes the workspace root`},
		{"through a symlinked dir", "read_file", `{"path":"escape-dir/secret.txt"}`, `path escapes the workspace root`},
		{"grep through a symlinked dir", "grep", `{"pattern":"secret","path":"escape-dir"}`, `path escapes the workspace root`},
		{"absolute glob", "glob", `{"pattern":"/etc/*"}`, `is absolute`},
		{"glob into a symlinked dir", "glob", `{"pattern":"escape-dir/**"}`, `escape-dir: path escapes the workspace root`},
		{"dot-dot glob", "glob", `{"pattern":"../*"}`, `leaves the workspace root`},
		{"extended glob", "glob", `{"pattern":"src/!(deep)"}`, `uses an extended glob !(…), which is not supported; use {a,b} alternatives instead`},
		{"negated glob", "glob", `{"pattern":"!*.md"}`, `negation is not supported`},
		{"unclosed brace", "glob", `{"pattern":"*.{md,go"}`, `is malformed`},
		{"unclosed class in grep's glob", "grep", `{"pattern":"x","glob":"[ab"}`, `is malformed`},
		{"missing", "stat", `{"path":"nope"}`, `nope: no such file or directory`},
		{"directory read", "read_file", `{"path":"src"}`, `src: is a directory; use list_dir`},
		{"binary", "read_file", `{"path":"bin.dat"}`, `bin.dat: not a text file (binary content)`},
		{"bad regexp", "grep", `{"pattern":"("}`, `invalid regular expression "("`},
		{"empty path", "list_dir", `{"path":""}`, `path is empty`},
		{"path over PATH_MAX", "stat", `{"path":"` + strings.Repeat("a/", 2500) + `"}`, `path is 5000 bytes long, over the limit of 4096`},
		{"brace explosion", "glob", `{"pattern":"` + strings.Repeat("{a,b}", 9) + `"}`, `expands to more than 256 alternatives; use fewer {a,b} groups, or * and ?`},
		{"regexp over PATH_MAX", "grep", `{"pattern":"` + strings.Repeat("[a-z]", 1000) + `"}`, `regular expression is 5000 bytes long, over the limit of 4096`},
		{"brace explosion in grep's glob", "grep", `{"pattern":"x","glob":"` + strings.Repeat("{a,b,c}", 6) + `"}`, `expands to more than 256 alternatives`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, set, p, tt.tool, tt.args)
			if !res.IsError() || !strings.Contains(res.Content[0].Text, tt.want) {
				t.Errorf("got %q, want an error containing %q", res.Content[0].Text, tt.want)
			}
			if strings.Contains(res.Content[0].Text, os.TempDir()) {
				t.Errorf("error leaks a host path: %q", res.Content[0].Text)
			}
		})
	}
	// grep over the root never reads through the escaping symlinks.
	res := run(t, set, p, "grep", `{"pattern":"secret"}`)
	if res.IsError() || strings.Contains(res.Value.String(), "secret.txt") {
		t.Errorf("grep followed a symlink out of the root: %s %v", res.Value, res.Content)
	}
}

// TestAlternatives counts what a pattern's {a,b} groups expand to: groups in a row
// multiply, nested ones add up within their group, and escaped braces and braces in a
// class are characters.
func TestAlternatives(t *testing.T) {
	tests := []struct {
		pattern string
		want    int
	}{
		{"*.md", 1},
		{"*.{md,go}", 2},
		{"{a,b}/{c,d,e}", 6},
		{"{a,{b,c},d}", 4},
		{"{a,{b,c}{d,e}}", 5},
		{`\{a,b}`, 1},
		{"[{]x{a,b}", 2},
		{"[!}]{a,b}", 2},
		{strings.Repeat("{a,b}", 8), 256},
		{strings.Repeat("{a,b}", 40), MaxGlobAlternatives + 1},
	}
	for _, tt := range tests {
		if got, _ := alternatives(tt.pattern, 0, false); got != tt.want {
			t.Errorf("alternatives(%q) = %d, want %d", tt.pattern, got, tt.want)
		}
	}
}

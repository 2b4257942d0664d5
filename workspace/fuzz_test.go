package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// TestIntArg: a numeric argument is a whole number within its range, however JSON
// writes it; anything else is refused with its name and range.
func TestIntArg(t *testing.T) {
	tests := []struct {
		n       string
		want    int
		wantErr string
	}{
		{"", 7, ""},
		{"1", 1, ""},
		{"10", 10, ""},
		{"1e1", 10, ""},
		{"2.0", 2, ""},
		{"1.5", 0, "limit must be a whole number between 1 and 10"},
		{"0", 0, "limit must be between 1 and 10"},
		{"11", 0, "limit must be between 1 and 10"},
		{"-9223372036854775808", 0, "limit must be between 1 and 10"},
		{"9223372036854775807", 0, "limit must be between 1 and 10"},
		{"1e400", 0, "limit must be between 1 and 10"},
		{"-1e400", 0, "limit must be between 1 and 10"},
		{"1e-400", 0, "limit must be between 1 and 10"},
		{"NaN", 0, "limit must be a whole number between 1 and 10"},
		{"x", 0, "limit must be a whole number between 1 and 10"},
	}
	for _, tt := range tests {
		got, err := intArg("limit", json.Number(tt.n), 7, 1, 10, "")
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("intArg(%q) = %d, %v; want the error %q", tt.n, got, err, tt.wantErr)
			}
		} else if err != nil || got != tt.want {
			t.Errorf("intArg(%q) = %d, %v; want %d", tt.n, got, err, tt.want)
		}
	}
}

// FuzzToolArgs calls the workspace tools directly (not through the pipeline, which
// recovers panics) with any arguments: none may panic, and an error never shows a host
// path.
func FuzzToolArgs(f *testing.F) {
	seeds := []struct{ tool, args string }{
		{"read_file", `{"path":"a.txt"}`},
		{"read_file", `{"path":"a.txt","offset":1500,"limit":9223372036854774784}`},
		{"read_file", `{"path":"a.txt","offset":9223372036854775807,"limit":-9223372036854775808}`},
		{"read_file", `{"path":"long.txt","offset":2,"limit":1e300}`},
		{"read_file", `{"path":"a.txt","offset":"3"}`},
		{"list_dir", `{"path":"."}`},
		{"glob", `{"pattern":"**/*.{txt,md}"}`},
		{"grep", `{"pattern":"x+","path":".","glob":"*.txt"}`},
		{"grep", `{"pattern":"[a-z]{0,1000}[a-z]{0,1000}q"}`},
		{"stat", `{"path":"sub"}`},
	}
	names := []string{"read_file", "list_dir", "glob", "grep", "stat"}
	for _, s := range seeds {
		f.Add(uint8(slices.Index(names, s.tool)), s.args)
	}
	dir := f.TempDir()
	for name, data := range map[string]string{
		"a.txt":       strings.Repeat("line x\n", 2000),
		"long.txt":    "a\n" + strings.Repeat("é", bufSize) + "\nb",
		"sub/bin.dat": "x\x00",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer ws.Close()
	tools := map[string]*registry.Tool{}
	for _, tool := range ws.Tools() {
		tools[tool.Name] = tool
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		name := names[int(which)%len(names)]
		v, err := registry.ParseValue([]byte(args))
		if err != nil {
			return
		}
		// A grep may take long (it is cancellable, not short): the deadline keeps the
		// fuzzer going, and nothing here depends on when it comes.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err = tools[name].Execute(ctx, &registry.Call{Name: name, Args: v})
		if err != nil && strings.Contains(err.Error(), dir) {
			t.Errorf("%s %s: the error shows a host path: %v", name, args, err)
		}
	})
}

//go:build unix && !freebsd

// Not on FreeBSD: syscall.Mknod takes its device as a uint64 there.

package workspace

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// TestSpecialFiles: a named pipe, a unix socket and a device in the workspace (directly,
// or through a symbolic link) are refused by every tool that would open them, with a
// message naming the path and what it is, without blocking; list_dir and stat still show
// them, and grep over their directory skips them.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("match\n"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Symlink("fifo", filepath.Join(dir, "to-fifo")))
	// A unix socket's path is limited to about 100 bytes: listen from inside dir.
	t.Chdir(dir)
	ln, err := net.Listen("unix", "sock")
	must(err)
	defer ln.Close()
	device := false
	var st syscall.Stat_t
	if syscall.Stat("/dev/null", &st) == nil && syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, int(st.Rdev)) == nil {
		device = true
	}

	ws, err := Open(dir)
	must(err)
	defer ws.Close()
	set := testreg.Resolve(t, ws.Tools()...)
	p := pipeline.New(nil)
	// call runs one call on a goroutine, so that a tool that blocks fails the test
	// instead of hanging it.
	call := func(t *testing.T, name, args string) *pipeline.Result {
		t.Helper()
		done := make(chan *pipeline.Result, 1)
		go func() {
			done <- p.Run(context.Background(), set, registry.Call{ID: "c", Name: name, Args: registry.MustParseValue(args)})
		}()
		return testwait.MustReceive(t, done, name+" "+args+" (it blocked)")
	}

	refused := []struct{ name, tool, args, want string }{
		{"read a fifo", "read_file", `{"path":"fifo"}`, "Error: fifo: not a regular file (named pipe)"},
		{"read a fifo through a link", "read_file", `{"path":"to-fifo"}`, "Error: to-fifo: not a regular file (named pipe)"},
		{"read a socket", "read_file", `{"path":"sock"}`, "Error: sock: not a regular file (socket)"},
		{"grep a fifo", "grep", `{"pattern":"x","path":"fifo"}`, "Error: fifo: not a regular file (named pipe)"},
		{"grep a socket", "grep", `{"pattern":"x","path":"sock"}`, "Error: sock: not a regular file (socket)"},
		{"list a fifo", "list_dir", `{"path":"fifo"}`, "Error: fifo: not a regular file (named pipe)"},
		{"read a device", "read_file", `{"path":"null"}`, "Error: null: not a regular file (character device)"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tool == "read_file" && tt.args == `{"path":"null"}` && !device {
				t.Skip("cannot create a device node here")
			}
			res := call(t, tt.tool, tt.args)
			if !res.IsError() || res.Content[0].Text != tt.want {
				t.Errorf("got %v %q, want %q", res.IsError(), res.Content[0].Text, tt.want)
			}
		})
	}

	t.Run("grep skips them", func(t *testing.T) {
		res := call(t, "grep", `{"pattern":"match"}`)
		if res.IsError() || res.Value.String() != `{"matches":[{"line":1,"path":"a.txt","text":"match"}],"truncated":false}` {
			t.Errorf("got %s %v", res.Value, res.Content)
		}
	})
	t.Run("list and stat show them", func(t *testing.T) {
		res := call(t, "list_dir", `{"path":"."}`)
		want := `[{"name":"a.txt","size":6,"type":"file"},{"name":"fifo","size":0,"type":"other"},`
		if device {
			want += `{"name":"null","size":0,"type":"other"},`
		}
		want += `{"name":"sock","size":0,"type":"other"},{"name":"to-fifo","size":0,"type":"symlink"}]`
		if res.IsError() || res.Value.String() != want {
			t.Errorf("list_dir: %s %v, want %s", res.Value, res.Content, want)
		}
		for _, name := range []string{"fifo", "sock"} {
			if res := call(t, "stat", `{"path":"`+name+`"}`); res.IsError() || res.Value.Any().(map[string]any)["type"] != "other" {
				t.Errorf("stat %s: %s %v", name, res.Value, res.Content)
			}
		}
	})
}

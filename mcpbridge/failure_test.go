package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

func fake(t *testing.T, mode string) *Upstream {
	return &Upstream{Command: node(t), Args: []string{fixture(t, "fake-server.js"), mode}}
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name   string
		server func(t *testing.T) *Upstream
		want   string
	}{
		{"not installed", func(t *testing.T) *Upstream { return &Upstream{Command: "runcode-no-such-mcp-server"} },
			`mcp server "up": cannot start: exec: "runcode-no-such-mcp-server": executable file not found in $PATH`},
		{"exits at once", func(t *testing.T) *Upstream { return fake(t, "exit") },
			`mcp server "up": cannot start: ` + "%s" + ` (its stderr ends: "fake-server: cannot open the database")`},
		{"hangs on initialize", func(t *testing.T) *Upstream { return fake(t, "hang") },
			`mcp server "up": cannot start: no answer within 3s`},
		{"hangs past its own start timeout", func(t *testing.T) *Upstream {
			u := fake(t, "hang")
			u.StartTimeout = 200 * time.Millisecond // the server's, not the client's 3s
			return u
		}, `mcp server "up": cannot start: no answer within 200ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBridge(t, registry.ModeNative, &ClientOptions{StartTimeout: 3 * time.Second, StopTimeout: 100 * time.Millisecond})
			// A healthy server next to the failing one keeps its tools.
			err := b.client.ConnectAll(context.Background(), map[string]*Upstream{"up": tt.server(t), "good": fake(t, "serve")})
			var se *ServerError
			if !errors.As(err, &se) || se.Server != "up" {
				t.Fatalf("ConnectAll: %v, want a *ServerError for \"up\"", err)
			}
			want := tt.want
			if strings.Contains(want, "%s") { // the SDK's wording of a closed pipe varies
				want = strings.Replace(want, "%s", se.Err.Error()[len("cannot start: "):], 1)
			}
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			set := b.set(t)
			if _, ok := set.Get("mcp__good__ok"); !ok {
				t.Error("the healthy server's tools are missing")
			}
			for _, e := range set.Tools() {
				if strings.HasPrefix(e.Name(), "mcp__up__") {
					t.Errorf("failed server left tool %s registered", e.Name())
				}
			}
		})
	}
}

func TestFakeServer(t *testing.T) {
	b := newBridge(t, registry.ModeNative, &ClientOptions{StopTimeout: 100 * time.Millisecond})
	changed := make(chan string, 1)
	b.client.opts.OnChange = func(server string) { changed <- server }
	if err := b.client.ConnectAll(context.Background(), map[string]*Upstream{"f": fake(t, "serve"), "g": fake(t, "serve")}); err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(nil)
	call := func(set *registry.ResolvedToolSet, name string) *pipeline.Result {
		return p.Run(context.Background(), set, registry.Call{ID: "c", RootID: "c", Name: name, Args: registry.MustParseValue(`{"x":1}`)})
	}

	t.Run("pagination and names", func(t *testing.T) {
		var got []string
		for _, e := range b.set(t).Tools() {
			if strings.HasPrefix(e.Name(), "mcp__f__") {
				got = append(got, e.Name())
			}
		}
		want := []string{"mcp__f__change", "mcp__f__crash", "mcp__f__garbage", "mcp__f__ok", ToolName("f", "weird name!")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tools mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("value from JSON text", func(t *testing.T) {
		res := call(b.set(t), "mcp__f__ok")
		if res.IsError() || res.Value.String() != `{"ok":true,"args":{"x":1}}` {
			t.Errorf("got %v %s", res.Error, res.Value)
		}
	})

	t.Run("tool list change", func(t *testing.T) {
		before := b.set(t)
		if res := call(before, "mcp__f__change"); res.IsError() {
			t.Fatal(res.Error)
		}
		if got := <-changed; got != "f" {
			t.Errorf("OnChange(%q), want f", got)
		}
		if _, ok := b.set(t).Get("mcp__f__added"); !ok {
			t.Error("mcp__f__added not registered after tools/list_changed")
		}
		// Unchanged tools keep their registrations: a set resolved before still calls them.
		if res := call(before, "mcp__f__ok"); res.IsError() {
			t.Errorf("unchanged tool through the earlier set: %v", res.Error)
		}
	})

	t.Run("garbage answer", func(t *testing.T) {
		set := b.set(t)
		res := call(set, "mcp__f__garbage")
		if !res.IsError() || !strings.HasPrefix(res.Error.Message, `mcp server "f": `) {
			t.Errorf("garbage: %v, want a failure naming the server", res.Error)
		}
		t.Logf("garbage: %s", res.Error.Message)
		// The other server still works.
		if res := call(set, "mcp__g__ok"); res.IsError() {
			t.Errorf("other server: %v", res.Error)
		}
	})

	t.Run("crash mid-call", func(t *testing.T) {
		set := b.set(t)
		res := call(set, "mcp__g__crash")
		want := `mcp server "g": the server exited (exit status 7) (its stderr ends: "boom")`
		if !res.IsError() {
			t.Fatalf("crash: succeeded with %s", res.Value)
		}
		if diff := cmp.Diff(want, res.Error.Message); diff != "" {
			t.Errorf("crash mismatch (-want +got):\n%s", diff)
		}
		// A later call starts the server again.
		if res := call(set, "mcp__g__ok"); res.IsError() {
			t.Errorf("after the crash: %v", res.Error)
		}
		// Up to three times; then calls fail with why, at once.
		// (the stderr tail spans the processes: "boom\nboom…").
		for range 3 {
			if res := call(set, "mcp__g__crash"); res.Error == nil || !strings.HasPrefix(res.Error.Message, `mcp server "g": the server exited (exit status 7) (its stderr ends: "boom\nboom`) {
				t.Fatalf("crash again: %v", res.Error)
			}
		}
		want = `mcp server "g": the server exited (exit status 7); not started again after stopping 4 times (its stderr ends: "boom\nboom\nboom\nboom")`
		if res := call(set, "mcp__g__ok"); res.Error == nil || res.Error.Message != want {
			t.Errorf("after four crashes: %v, want %s", res.Error, want)
		}
	})
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct{ server, tool, want string }{
		{"fs", "read_file", "mcp__fs__read_file"},
		{"every", "get-tiny-image", "mcp__every__get-tiny-image"},
		{"my server", "read.file", "mcp__my_server__read_file_" + ToolName("my server", "read.file")[len("mcp__my_server__read_file_"):]},
		{"s", long, ""},
	}
	for _, tt := range tests {
		got := ToolName(tt.server, tt.tool)
		if tt.want != "" && got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
		if len(got) > MaxNameLen {
			t.Errorf("ToolName(%q, %q) is %d bytes", tt.server, tt.tool, len(got))
		}
	}
	if a, b := ToolName("s", "a.b"), ToolName("s", "a/b"); a == b || !strings.HasPrefix(a, "mcp__s__a_b_") {
		t.Errorf("changed names collide or lack the hash: %q %q", a, b)
	}
	if got := ToolName("s", long); len(got) != MaxNameLen || !strings.HasPrefix(got, "mcp__s__xxx") {
		t.Errorf("long name: %q", got)
	}
}

// TestCloseWhileStarting: Close during a start ends the start and stops the
// server, leaving nothing registered.
func TestCloseWhileStarting(t *testing.T) {
	var trace syncBuffer
	b := newBridge(t, registry.ModeNative, &ClientOptions{StopTimeout: 100 * time.Millisecond, Trace: &trace})
	asked := make(chan struct{})
	trace.onWrite(func(s string) bool { // the server was started and asked to initialize
		if strings.HasPrefix(s, "write:") {
			close(asked)
			return true
		}
		return false
	})
	done := testwait.Go(func() error { return b.client.Connect(context.Background(), "h", fake(t, "hang")) })
	testwait.Receive(t, asked, "the hung server's start")
	b.client.Close() // ends the start underway (which would wait 30s for the hung server)
	var se *ServerError
	if err := testwait.MustReceive(t, done, "Connect to end once the client closed"); !errors.As(err, &se) || !errors.Is(err, context.Canceled) {
		t.Errorf("Connect: %v, want a *ServerError wrapping context.Canceled", err)
	}
	if got := len(b.set(t).Tools()); got != 0 {
		t.Errorf("%d tools left registered", got)
	}
}

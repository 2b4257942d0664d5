//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testwait"
)

// TestCoalescer: a burst of triggers makes one call, a delay after the first; a
// trigger after it makes another; stop cancels the call to come and waits for the one
// running.
func TestCoalescer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		release := make(chan struct{})
		block := atomic.Bool{}
		c := &coalescer{delay: time.Second, f: func() {
			n.Add(1)
			if block.Load() {
				<-release
			}
		}}
		check := func(what string, want int32) {
			t.Helper()
			synctest.Wait()
			if got := n.Load(); got != want {
				t.Errorf("%s: %d calls, want %d", what, got, want)
			}
		}
		for range 100 {
			c.trigger()
		}
		check("at once", 0)
		time.Sleep(time.Second - time.Nanosecond)
		check("just before the delay", 0)
		time.Sleep(time.Nanosecond)
		check("at the delay", 1)
		time.Sleep(time.Minute)
		check("with no trigger since", 1)
		c.trigger()
		time.Sleep(time.Second / 2)
		c.trigger()
		time.Sleep(time.Second / 2)
		check("triggered twice within the delay", 2)

		block.Store(true)
		c.trigger()
		time.Sleep(time.Second)
		check("running", 3)
		stopped := make(chan struct{})
		go func() { c.stop(); close(stopped) }()
		synctest.Wait()
		select {
		case <-stopped:
			t.Error("stop returned while f was running")
		default:
		}
		close(release)
		<-stopped
		c.trigger()
		time.Sleep(time.Minute)
		check("triggered after stop", 3)
	})
}

// TestServeToolsChangeWithTypes: a served run_code's description declares the output
// types learned from results; when a run changes one, the client is sent
// tools/list_changed (once for a burst of runs), and lists the new description.
func TestServeToolsChangeWithTypes(t *testing.T) {
	manifest := testfs.Temp(t, "m.json", `{"tools": [{"name": "user", "description": "Look a user up.",
  "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}},
  "mock": {"cases": [{"args": {"id": 1}, "result": {"id": 1, "name": "Ada"}},
                     {"args": {"id": 2}, "result": {"id": 2, "name": "Bob", "email": "bob@example.com"}}]}}]}`)
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cmd := exec.Command(os.Args[0], "__cli", "serve", "--tools", manifest, "--isolation", "in-process")
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	description := func() string {
		t.Helper()
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "run_code" {
			t.Fatalf("tools/list: %v, %v", res, err)
		}
		return res.Tools[0].Description
	}
	run := func(code string) {
		t.Helper()
		if res, err := callRunCode(t.Context(), cs, code); err != nil || res.IsError {
			t.Fatalf("run_code %s: %v, %v", code, textOf(res), err)
		}
	}
	if d := description(); !strings.Contains(d, "  user: JsonValue;") {
		t.Fatalf("before any run:\n%s", d)
	}

	run(`return (await tools.user({id: 1})).name`)
	testwait.Receive(t, changed, "tools/list_changed after the first result")
	one := "  /** Inferred from 1 result; not declared by the tool. */\n  user: {\n    id: number;\n    name: string;\n  };\n"
	if d := description(); !strings.Contains(d, one) {
		t.Errorf("after one result, want\n%s\nin\n%s", one, d)
	}

	for _, id := range []string{"1", "2", "1", "2", "2"} { // a burst: one change, one notice
		run(`return (await tools.user({id: ` + id + `})).name`)
	}
	testwait.Receive(t, changed, "tools/list_changed after the burst")
	two := "  /** Inferred from 3 results; not declared by the tool. */\n  user: {\n    email?: string;\n    id: number;\n    name: string;\n  };\n"
	if d := description(); !strings.Contains(d, two) {
		t.Errorf("after the burst, want\n%s\nin\n%s", two, d)
	}
	if len(changed) != 0 {
		t.Errorf("%d more tools/list_changed than changes", len(changed))
	}
}

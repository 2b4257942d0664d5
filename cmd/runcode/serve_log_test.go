package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestServeLogHelp(t *testing.T) {
	_, stdout, _ := runCLI(t, "serve", "--help")
	for _, want := range []string{"[--log-level L] [--log-format F]", "-log-level LEVEL", "debug (every call's start too)",
		"with tool, call_id, root_id, parent_id, is_error and duration", `(default "warn")`, "-log-format FORMAT", "text (key=value) or json (one object per line)", `(default "text")`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, stdout)
		}
	}
}

// serveOneProgram runs serve with flags over stdio, calls run_code once with a
// program that makes one sub-call, ends stdin, and returns what serve wrote on stderr.
func serveOneProgram(t *testing.T, flags ...string) string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan int)
	go func() {
		code := run(context.Background(), append([]string{"serve", "--root", t.TempDir(), "--isolation", "in-process"}, flags...), inR, outW, stderr)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":{"description":"List","code":"await tools.list_dir({ path: \".\" }); return 2;"}}}`,
	} {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			continue // a notification: no answer
		}
		if !lines.Scan() {
			t.Fatalf("no answer: %v (stderr %q)", lines.Err(), stderr.String())
		}
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after stdin EOF; stderr %q", code, stderr.String())
	}
	io.Copy(io.Discard, outR)
	return stderr.String()
}

// TestServeLogKeys: serve logs the pipeline's events on stderr with stable keys, at
// the level and in the format its flags say.
func TestServeLogKeys(t *testing.T) {
	t.Run("json at debug", func(t *testing.T) {
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(serveOneProgram(t, "--log-level", "debug", "--log-format", "json")), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("a line that is not JSON: %q", line)
			}
			msg, _ := rec["msg"].(string)
			if !strings.HasPrefix(msg, "tool/") {
				continue // the MCP server's own debug records
			}
			var keys []string
			for k := range rec {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			got = append(got, fmt.Sprintf("%s %s %v %v %v %v %v %v", rec["level"], msg, rec["tool"], rec["call_id"], rec["root_id"], rec["parent_id"], rec["is_error"], keys))
		}
		want := []string{
			"DEBUG tool/call run_code mcp-1 mcp-1 <nil> <nil> [call_id level msg root_id time tool]",
			"DEBUG tool/code-dispatch-start list_dir mcp-1:code:1 mcp-1 mcp-1 <nil> [call_id level msg parent_id root_id time tool]",
			"INFO tool/code-dispatch list_dir mcp-1:code:1 mcp-1 mcp-1 false [call_id duration is_error level msg parent_id root_id time tool]",
			"INFO tool/result run_code mcp-1 mcp-1 <nil> false [call_id duration is_error level msg root_id time tool]",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
	t.Run("text at info", func(t *testing.T) {
		out := serveOneProgram(t, "--log-level", "info")
		re := regexp.MustCompile(`(?m)^time=\S+ level=INFO msg=(tool/\S+ .*) duration=\S+$`)
		var got []string
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			got = append(got, m[1])
		}
		want := []string{
			"tool/code-dispatch tool=list_dir call_id=mcp-1:code:1 root_id=mcp-1 parent_id=mcp-1 is_error=false",
			"tool/result tool=run_code call_id=mcp-1 root_id=mcp-1 is_error=false",
		}
		if diff := cmp.Diff(want, got); diff != "" || strings.Contains(out, "level=DEBUG") {
			t.Errorf("records (-want +got):\n%s\nall of stderr:\n%s", diff, out)
		}
	})
	t.Run("nothing by default", func(t *testing.T) {
		if out := serveOneProgram(t); out != "" {
			t.Errorf("serve wrote %q on stderr at the default level", out)
		}
	})
}

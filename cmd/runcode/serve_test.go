package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestServeStdinEOF: runcode serve answers MCP over its stdin and stdout and
// returns 0, with nothing left running, when stdin ends.
func TestServeStdinEOF(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int)
	go func() {
		code := run(context.Background(), []string{"serve", "--root", t.TempDir()}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("no answer: %v (stderr %q)", lines.Err(), stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":{"description":"Add","code":"const e = await tools.list_dir({ path: \".\" }); return 1 + 1;"}}}`)
	m := recv()
	got, _ := json.Marshal(m["result"])
	if want := `{"content":[{"text":"2","type":"text"}]}`; string(got) != want {
		t.Errorf("tools/call result %s, want %s", got, want)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after stdin EOF; stderr %q", code, stderr.String())
	}
	io.Copy(io.Discard, outR)
}

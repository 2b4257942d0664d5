package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
)

// TestSDKInferredFromStore: a mock tool without an output schema, called by two runs
// with --store that return different results, is declared by runcode sdk --store with
// the fields seen, optional where only one result had them.
func TestSDKInferredFromStore(t *testing.T) {
	manifest := testfs.Temp(t, "m.json", `{"tools": [{"name": "user", "description": "Look a user up.",
  "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}},
  "mock": {"cases": [{"args": {"id": 1}, "result": {"id": 1, "name": "Ada"}},
                     {"args": {"id": 2}, "result": {"id": 2, "name": "Bob", "email": "bob@example.com"}}]}}]}`)
	db := filepath.Join(t.TempDir(), "s.db")
	before := "  user: JsonValue;"
	if code, out, errOut := runCLI(t, "sdk", "--tools", manifest, "--store", db, "--ts"); code != exitOK || !strings.Contains(out, before) {
		t.Fatalf("before any run: exit %d, %q, %q", code, out, errOut)
	}
	for _, id := range []string{"1", "2"} {
		if code, out, errOut := runCLI(t, "run", "--tools", manifest, "--store", db, "--isolation", "in-process", testfs.Temp(t, "p.js", "return (await tools.user({id: "+id+"})).name")); code != exitOK {
			t.Fatalf("run %s: exit %d, %q, %q", id, code, out, errOut)
		}
	}
	want := "  /** Inferred from 2 results; not declared by the tool. */\n  user: {\n    email?: string;\n    id: number;\n    name: string;\n  };\n"
	code, out, errOut := runCLI(t, "sdk", "--tools", manifest, "--store", db, "--ts")
	if code != exitOK || !strings.Contains(out, want) {
		t.Errorf("sdk --store: exit %d, stderr %q; want\n%s\nin\n%s", code, errOut, want, out)
	}
	if _, out, _ := runCLI(t, "sdk", "--tools", manifest, "--ts"); !strings.Contains(out, before) {
		t.Errorf("sdk without --store declares what it cannot know:\n%s", out)
	}
}

// TestKeptResultCLI: runcode run --store keeps a result over --max-output, and a later
// run reads it whole with tools.$result.
func TestKeptResultCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	big := testfs.Temp(t, "big.js", `return "x".repeat(200000)`)
	code, out, errOut := runCLI(t, "run", "--store", db, "--max-output", "2000", "--isolation", "in-process", big)
	i := strings.Index(out, `The full result is kept as "`)
	if code != exitOK || i < 0 || !strings.Contains(out, "more bytes") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	id := strings.SplitN(out[i+len(`The full result is kept as "`):], `"`, 2)[0]
	read := testfs.Temp(t, "read.js", `return (await tools.$result("`+id+`")).length`)
	if code, out, errOut := runCLI(t, "run", "--store", db, "--isolation", "in-process", read); code != exitOK || out != "200000\n" {
		t.Errorf("reading it back: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

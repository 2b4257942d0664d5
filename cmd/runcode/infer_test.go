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

// TestSessionStateCLI: runcode run --session keeps a session's state in --store.
func TestSessionStateCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	set := testfs.Temp(t, "p1.js", `state.set("seen", [1, 2])`)
	get := testfs.Temp(t, "p2.js", `return state.get("seen") ?? "nothing"`)
	for _, step := range []struct{ session, prog, want string }{
		{"a", set, "(run_code completed with no output)\n"},
		{"a", get, "[\n  1,\n  2\n]\n"},
		{"b", get, "nothing\n"},
	} {
		if code, out, errOut := runCLI(t, "run", "--store", db, "--session", step.session, "--isolation", "in-process", step.prog); code != exitOK || out != step.want {
			t.Errorf("session %s: exit %d, stdout %q, stderr %q; want %q", step.session, code, out, errOut, step.want)
		}
	}
	if code, _, errOut := runCLI(t, "run", "--session", "a", get); code != exitUsage || !strings.Contains(errOut, "--session needs --store") {
		t.Errorf("--session without --store: exit %d, %q", code, errOut)
	}
}

// TestScriptsCLI: runcode scripts save keeps a program as the tool script__NAME, which a
// run with the store calls with its input and search finds; one that calls an unknown
// tool is refused with check's message; list, show and delete.
func TestScriptsCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	manifest := testfs.Temp(t, "m.json", `{"tools": [{"name": "customers", "description": "List customers with what they spent.",
  "mock": {"result": [{"name": "Ada", "spent": 30}, {"name": "Bob", "spent": 90}, {"name": "Cy", "spent": 60}]}}]}`)
	schema := testfs.Temp(t, "in.json", `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	top := testfs.Temp(t, "top.ts", `const all = await tools.customers({}); return all.sort((a, b) => b.spent - a.spent).slice(0, input.n).map(c => c.name)`)
	if code, out, errOut := runCLI(t, "scripts", "save", "top_customers", "--store", db, "--description", "The customers who spent the most, best first.", "--input-schema", schema, "--tools", manifest, top); code != exitOK || out != "saved script__top_customers\n" {
		t.Fatalf("save: exit %d, %q, %q", code, out, errOut)
	}
	call := testfs.Temp(t, "call.js", `return await tools.script__top_customers({n: 2})`)
	if code, out, errOut := runCLI(t, "run", "--tools", manifest, "--store", db, call); code != exitOK || out != "[\n  \"Bob\",\n  \"Cy\"\n]\n" {
		t.Errorf("calling it (in a worker process): exit %d, %q, %q", code, out, errOut)
	}
	search := testfs.Temp(t, "search.js", `return (await tools.$search("best customers"))[0].name`)
	if code, out, _ := runCLI(t, "run", "--tools", manifest, "--store", db, "--isolation", "in-process", search); code != exitOK || out != "script__top_customers\n" {
		t.Errorf("search: exit %d, %q", code, out)
	}
	bad := testfs.Temp(t, "bad.js", `await tools.customerz({})`)
	if code, _, errOut := runCLI(t, "scripts", "save", "bad", "--store", db, "--description", "x", "--tools", manifest, bad); code != exitFail || errOut != "runcode scripts save: bad:1:13: unknown tool \"customerz\"; did you mean \"customers\"?\n" {
		t.Errorf("an unknown tool: exit %d, %q", code, errOut)
	}
	if _, out, _ := runCLI(t, "scripts", "list", "--store", db); out != "script__top_customers  The customers who spent the most, best first.\n" {
		t.Errorf("list: %q", out)
	}
	if code, out, _ := runCLI(t, "scripts", "show", "top_customers", "--store", db); code != exitOK || !strings.Contains(out, `"code": "const all`) {
		t.Errorf("show: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "scripts", "delete", "top_customers", "--store", db); code != exitOK {
		t.Errorf("delete: %d", code)
	}
	if _, out, _ := runCLI(t, "scripts", "list", "--store", db); out != "" {
		t.Errorf("list after delete: %q", out)
	}
}

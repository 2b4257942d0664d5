package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testpg"
)

func TestSessionStateSQLite(t *testing.T) {
	testSessionState(t, filepath.Join(t.TempDir(), "s.db"))
}

func TestSessionStatePostgres(t *testing.T) { testSessionState(t, testpg.FreshDatabase(t)) }

// testSessionState: runcode run --session keeps a session's state in the store: another
// session does not see it, a run that throws after state.set keeps nothing, and of two
// runs of one session at once, in two processes, the later to commit fails with the
// spec's text.
func testSessionState(t *testing.T, db string) {
	set := testfs.Temp(t, "p1.js", `state.set("seen", [1, 2])`)
	get := testfs.Temp(t, "p2.js", `return state.get("seen") ?? "nothing"`)
	throws := testfs.Temp(t, "p3.js", `state.set("seen", [3]); throw new Error("no")`)
	for _, step := range []struct{ session, prog, want string }{
		{"a", set, "(run_code completed with no output)\n"},
		{"a", get, "[\n  1,\n  2\n]\n"},
		{"b", get, "nothing\n"},
		{"a", throws, ""},
		{"a", get, "[\n  1,\n  2\n]\n"},
	} {
		code, out, errOut := runCLI(t, "run", "--store", db, "--session", step.session, "--isolation", "in-process", step.prog)
		if step.want == "" {
			if code != exitFail || !strings.Contains(out, "Error: no") {
				t.Errorf("the throwing run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			continue
		}
		if code != exitOK || out != step.want {
			t.Errorf("session %s: exit %d, stdout %q, stderr %q; want %q", step.session, code, out, errOut, step.want)
		}
	}
	if code, _, errOut := runCLI(t, "run", "--session", "a", get); code != exitUsage || !strings.Contains(errOut, "--session needs --store") {
		t.Errorf("--session without --store: exit %d, %q", code, errOut)
	}

	// Two processes run in session c at once: the first sets n and waits, in a command
	// tool, until the second has committed; its own commit then fails.
	dir := t.TempDir()
	manifest := testfs.Temp(t, "gate.json", `{"tools": [{"name": "gate", "description": "Wait until the test says go.",
  "command": ["sh", "-c", "touch \"$DIR/started\"; while [ ! -f \"$DIR/go\" ]; do sleep 0.05; done; echo '{}'"],
  "env": {"DIR": "`+dir+`"}}]}`)
	first := exec.Command(os.Args[0], "__cli", "run", "--store", db, "--session", "c", "--tools", manifest, "--isolation", "in-process",
		testfs.Temp(t, "first.js", `state.set("n", 1); await tools.gate({})`))
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = first.Process.Kill()
			t.Fatalf("the first run never reached its tool: %s", firstOut.String())
		}
	}
	second := testfs.Temp(t, "second.js", `state.set("n", 2)`)
	if code, out, errOut := runCLI(t, "run", "--store", db, "--session", "c", "--isolation", "in-process", second); code != exitOK {
		t.Errorf("the second run: exit %d, %q, %q", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := first.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFail || !strings.Contains(firstOut.String(), "state changed by another run; run again") {
		t.Errorf("the first run: %v, output %q; want exit 1 and the spec's text", err, firstOut.String())
	}
	read := testfs.Temp(t, "read.js", `return state.get("n")`)
	if code, out, _ := runCLI(t, "run", "--store", db, "--session", "c", "--isolation", "in-process", read); code != exitOK || out != "2\n" {
		t.Errorf("session c afterwards: exit %d, %q; want the second run's 2", code, out)
	}
}

func TestScriptsCLISQLite(t *testing.T) { testScriptsCLI(t, filepath.Join(t.TempDir(), "s.db")) }

func TestScriptsCLIPostgres(t *testing.T) { testScriptsCLI(t, testpg.FreshDatabase(t)) }

// testScriptsCLI: runcode scripts save keeps a program as the tool script__NAME, which a
// run with the store calls with its input and search finds; one that calls an unknown
// tool is refused with check's message; list, show and delete; and with --save-scripts a
// program saves one that the next run calls.
func testScriptsCLI(t *testing.T, db string) {
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

	// A program saves a script; the next run calls it.
	save := testfs.Temp(t, "save.js", `const all = await tools.customers({});
return await scripts.$save({ name: "spent_over", description: "The customers who spent more than min.",
  inputSchema: { type: "object", properties: { min: { type: "number" } }, required: ["min"] },
  code: "return (await tools.customers({})).filter(c => c.spent > input.min).map(c => c.name)" })`)
	if code, out, _ := runCLI(t, "run", "--tools", manifest, "--store", db, "--isolation", "in-process", save); code != exitFail || !strings.Contains(out, "ReferenceError: scripts is not defined") {
		t.Errorf("without --save-scripts: exit %d, %q; want no scripts global", code, out)
	}
	if code, out, errOut := runCLI(t, "run", "--tools", manifest, "--store", db, "--save-scripts", "--isolation", "in-process", save); code != exitOK || out != "{\n  \"tool\": \"script__spent_over\"\n}\n" {
		t.Fatalf("saving from a program: exit %d, %q, %q", code, out, errOut)
	}
	over := testfs.Temp(t, "over.js", `return await tools.script__spent_over({min: 50})`)
	if code, out, errOut := runCLI(t, "run", "--tools", manifest, "--store", db, over); code != exitOK || out != "[\n  \"Bob\",\n  \"Cy\"\n]\n" {
		t.Errorf("calling the program's script: exit %d, %q, %q", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "scripts", "show", "spent_over", "--store", db); code != exitOK || !strings.Contains(out, `"example": [`) || !strings.Contains(out, `"tool": "customers"`) {
		t.Errorf("show of the program's script has no example: %d %q", code, out)
	}
	if code, _, errOut := runCLI(t, "run", "--save-scripts", over); code != exitUsage || errOut != "runcode run: --save-scripts needs --store: saved scripts are kept there\n" {
		t.Errorf("--save-scripts without --store: exit %d, %q", code, errOut)
	}
}

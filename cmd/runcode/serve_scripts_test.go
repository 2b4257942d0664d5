//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/internal/testfs"
)

// TestServeSavedScripts: runcode serve --store --save-scripts declares state and
// scripts.$save; a program's saved script becomes a tool at once (the client hears
// tools/list_changed and the SDK declares it) and a later program calls it; a script
// saved by another process (runcode scripts save) appears within the poll.
func TestServeSavedScripts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	manifest := testfs.Temp(t, "m.json", `{"tools": [{"name": "customers", "description": "List customers with what they spent.",
  "mock": {"result": [{"name": "Ada", "spent": 30}, {"name": "Bob", "spent": 90}, {"name": "Cy", "spent": 60}]}}]}`)
	changed := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cmd := exec.Command(os.Args[0], "__cli", "serve", "--tools", manifest, "--store", db, "--save-scripts", "--isolation", "in-process")
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	description := func() string {
		t.Helper()
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(res.Tools) != 1 {
			t.Fatalf("tools/list: %v, %v", res, err)
		}
		return res.Tools[0].Description
	}
	// awaitTool waits for tools/list_changed notifications until run_code's description
	// declares name (learned output types send them too).
	awaitTool := func(name, after string) {
		t.Helper()
		deadline := time.After(time.Minute)
		for !strings.Contains(description(), name) {
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("%s is not declared a minute after %s", name, after)
			}
		}
	}
	if d := description(); !strings.Contains(d, "declare const state") || !strings.Contains(d, "declare const scripts") || strings.Contains(d, "script__spent_over") {
		t.Errorf("before any script, run_code's description:\n%s", d)
	}

	res, err := callRunCode(t.Context(), cs, `return await scripts.$save({ name: "spent_over", description: "The customers who spent more than min.",
  inputSchema: { type: "object", properties: { min: { type: "number" } }, required: ["min"] },
  code: "return (await tools.customers({})).filter(c => c.spent > input.min).map(c => c.name)" })`)
	if err != nil || res.IsError || textOf(res) != "{\n  \"tool\": \"script__spent_over\"\n}" {
		t.Fatalf("saving: %q, %v", textOf(res), err)
	}
	awaitTool("script__spent_over", "a program saved it")
	res, err = callRunCode(t.Context(), cs, `return await tools.script__spent_over({min: 50})`)
	if err != nil || res.IsError || textOf(res) != "[\n  \"Bob\",\n  \"Cy\"\n]" {
		t.Errorf("calling the script: %q, %v", textOf(res), err)
	}

	prog := testfs.Temp(t, "first.js", `return (await tools.customers({}))[0].name`)
	if code, out, errOut := runCLI(t, "scripts", "save", "first_customer", "--store", db, "--description", "The first customer's name.", "--tools", manifest, prog); code != exitOK {
		t.Fatalf("scripts save: %d %q %q", code, out, errOut)
	}
	awaitTool("script__first_customer", "another process saved it")
	res, err = callRunCode(t.Context(), cs, `return await tools.script__first_customer({})`)
	if err != nil || res.IsError || textOf(res) != "Ada" {
		t.Errorf("calling the script another process saved: %q, %v", textOf(res), err)
	}
}

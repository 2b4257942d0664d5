package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigCatalog writes a manifest of 80 mock tools whose declarations take more than the
// default SDK budget, and returns its path.
func bigCatalog(t *testing.T) string {
	t.Helper()
	var tools []map[string]any
	for i := range 80 {
		tools = append(tools, map[string]any{
			"name":        fmt.Sprintf("tool_%02d", i),
			"description": strings.Repeat("Does one thing of many, described at length. ", 5),
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string", "description": "Which one."}}},
			"mock":        map[string]any{"result": "ok"},
		})
	}
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSDKBudgetZeroIsTheDefault: --sdk-budget means what ptc.Options.SDKBudget means:
// 0 is the default budget (16384 bytes), the same as leaving the flag out, and a
// negative budget always renders the full SDK, on sdk, describe, run and serve alike.
func TestSDKBudgetZeroIsTheDefault(t *testing.T) {
	big := bigCatalog(t)
	const full = "interface ToolArgsMap {\n  /**"
	const index = "There are 80 tools"
	for _, cmd := range [][]string{{"sdk"}, {"describe", "--mode", "ptc"}} {
		_, dflt, _ := runCLI(t, append(cmd, "--tools", big)...)
		if !strings.Contains(dflt, index) || strings.Contains(dflt, full) {
			t.Fatalf("%s: the catalog does not go past the default budget:\n%.300s", cmd[0], dflt)
		}
		code, zero, stderr := runCLI(t, append(cmd, "--tools", big, "--sdk-budget", "0")...)
		if code != exitOK || zero != dflt {
			t.Errorf("%s --sdk-budget 0: exit %d, stderr %q; want the same output as the default budget", cmd[0], code, stderr)
		}
		code, neg, stderr := runCLI(t, append(cmd, "--tools", big, "--sdk-budget", "-1")...)
		if code != exitOK || !strings.Contains(neg, full) && !strings.Contains(neg, strings.ReplaceAll(full, "\n", `\n`)) || strings.Contains(neg, index) {
			t.Errorf("%s --sdk-budget -1: exit %d, stderr %q; want the full SDK:\n%.300s", cmd[0], code, stderr, neg)
		}
	}
	prog := filepath.Join(t.TempDir(), "prog.js")
	if err := os.WriteFile(prog, []byte(`return (await tools.$search("tool 07", {limit: 1})).length`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []string{"0", "-1"} {
		if code, stdout, stderr := runCLI(t, "run", "--tools", big, "--sdk-budget", budget, prog); code != exitOK || stdout != "1\n" {
			t.Errorf("run --sdk-budget %s: exit %d, stdout %q, stderr %q", budget, code, stdout, stderr)
		}
	}
	if _, stdout, _ := runCLI(t, "run", "--help"); !strings.Contains(stdout, "0: the default, 16384; negative: always the full SDK") {
		t.Errorf("run --help does not say what 0 and a negative --sdk-budget mean:\n%s", stdout)
	}
}

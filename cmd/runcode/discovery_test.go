package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSDKBudgetFlags: runcode sdk prints the index past --sdk-budget, and the full SDK
// with --full or a negative budget (TestSDKBudgetZeroIsTheDefault checks 0).
func TestSDKBudgetFlags(t *testing.T) {
	shop := filepath.Join(programsDir, "shop.json")
	sdk := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"sdk", "--tools", shop}, args...), nil, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	const full = "interface ToolArgsMap {\n  /**"
	if code, out, _ := sdk("--sdk-budget", "100"); code != 0 || !strings.Contains(out, "There are 9 tools") || !strings.Contains(out, `- tools["fetch-report"]: Fetch the monthly report as a JSON string (a name that needs quoted access).`) || strings.Contains(out, full) {
		t.Errorf("--sdk-budget 100: exit %d\n%s", code, out)
	}
	if code, out, _ := sdk("--sdk-budget", "100", "--full"); code != 0 || !strings.Contains(out, full) {
		t.Errorf("--full: exit %d\n%s", code, out)
	}
	if code, out, _ := sdk("--sdk-budget", "-1"); code != 0 || !strings.Contains(out, full) {
		t.Errorf("--sdk-budget -1: exit %d\n%s", code, out)
	}
}

// TestDescribeSDKBudget: describe shows run_code as serve offers it, its description
// ending with the SDK section that sdk prints for the same budget; native has none.
func TestDescribeSDKBudget(t *testing.T) {
	shop := filepath.Join(programsDir, "shop.json")
	cli := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, nil, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, tc := range []struct {
		mode, budget string
		tools        int
		index        bool
	}{
		{"ptc", "16384", 1, false},
		{"ptc", "100", 1, true},
		{"both", "100", 10, true},
		{"both", "-1", 10, false},
	} {
		code, out, errOut := cli("describe", "--tools", shop, "--mode", tc.mode, "--sdk-budget", tc.budget)
		var schemas []struct{ Name, Description string }
		if err := json.Unmarshal([]byte(out), &schemas); code != 0 || err != nil {
			t.Fatalf("describe --mode %s --sdk-budget %s: exit %d, %v, stderr %q", tc.mode, tc.budget, code, err, errOut)
		}
		_, sdk, _ := cli("sdk", "--tools", shop, "--sdk-budget", tc.budget)
		last := schemas[len(schemas)-1]
		if len(schemas) != tc.tools || last.Name != "run_code" || !strings.HasSuffix(last.Description, strings.TrimRight(sdk, "\n")) {
			t.Errorf("--mode %s --sdk-budget %s: %d tools, last %q; want %d ending with run_code carrying the SDK section:\n%s", tc.mode, tc.budget, len(schemas), last.Name, tc.tools, last.Description)
		}
		if got := strings.Contains(last.Description, "There are 9 tools"); got != tc.index {
			t.Errorf("--mode %s --sdk-budget %s: index %v, want %v", tc.mode, tc.budget, got, tc.index)
		}
	}
	if code, out, _ := cli("describe", "--tools", shop, "--mode", "native", "--sdk-budget", "100"); code != 0 || strings.Contains(out, "run_code") {
		t.Errorf("native: exit %d\n%s", code, out)
	}
}

func TestSearchCommand(t *testing.T) {
	shop := filepath.Join(programsDir, "shop.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"search", "--tools", shop, "refund an order", "--limit", "2"}, nil, &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "1. refund  ") || !strings.HasSuffix(lines[0], "  Refund an order.") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"search", "--tools", shop}, nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "takes a QUERY") {
		t.Errorf("no query: exit %d, stderr %q", code, stderr.String())
	}
}

// TestDiscoveryIsolated: tools.$search and tools.$describe give the same output in
// process and in a worker process, and are no sub-calls (the --max-calls budget of 1
// is left for the one real call).
func TestDiscoveryIsolated(t *testing.T) {
	shop := filepath.Join(programsDir, "shop.json")
	prog := `const hits = await tools.$search("fetch an order by id", { limit: 2 });
const d = await tools.$describe("get_order");
let unknown;
try { await tools.$describe("get_ordr") } catch (e) { unknown = [e.code, e.message] }
const o = await tools.get_order({ id: "A1" });
return { names: hits.map(h => h.name), declared: d.includes("get_order: {"), unknown, total: o.total }`
	var outs []string
	for _, iso := range []string{"in-process", "process"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"run", "--isolation", iso, "--max-calls", "1", "--tools", shop, "-"}, strings.NewReader(prog), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", iso, code, stdout.String(), stderr.String())
		}
		outs = append(outs, stdout.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("in-process and process output differ:\n%s\n---\n%s", outs[0], outs[1])
	}
	for _, want := range []string{`"get_order"`, `"declared": true`, `"UNKNOWN_TOOL"`, `unknown tool \"get_ordr\"; did you mean \"get_order\"?`} {
		if !strings.Contains(outs[0], want) {
			t.Errorf("output lacks %s:\n%s", want, outs[0])
		}
	}
}

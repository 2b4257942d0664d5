package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testpg"
)

// TestSuggestScriptCLI: runcode run --store --session --json, run twice in a session
// with other literals, reports "suggestScript" with the literals that differed as the
// input; a run that throws and a run of another session do not count; the suggested
// script saves and runs.
func TestSuggestScriptCLI(t *testing.T) { testSuggestScriptCLI(t, filepath.Join(t.TempDir(), "s.db")) }

// The same with --store postgres://….
func TestSuggestScriptCLIPostgres(t *testing.T) { testSuggestScriptCLI(t, testpg.FreshDatabase(t)) }

func testSuggestScriptCLI(t *testing.T, db string) {
	manifest := testfs.Temp(t, "m.json", `{"tools": [{"name": "weather", "description": "The weather in a city.",
  "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "number"}}},
  "mock": {"cases": [{"args": {"city": "Nowhere"}, "result": {}}], "default": {"result": {"temp": 21.5}}}}]}`)
	program := func(city, days string) string {
		return testfs.Temp(t, "p.ts", "// the forecast\nconst city: string = \""+city+"\";\nconst w = await tools.weather({city, days: "+days+"});\nreturn w.temp.toFixed(1);")
	}
	type out struct {
		IsError       bool            `json:"isError"`
		Text          string          `json:"text"`
		SuggestScript json.RawMessage `json:"suggestScript"`
	}
	run := func(session, prog, description string) out {
		t.Helper()
		code, stdout, stderr := runCLI(t, "run", "--tools", manifest, "--store", db, "--session", session, "--isolation", "in-process",
			"--description", description, "--json", prog)
		var o out
		if err := json.Unmarshal([]byte(stdout), &o); err != nil || code == exitUsage {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		return o
	}
	for _, step := range []struct {
		name, session, prog, description string
		isError                          bool
	}{
		{"a first run", "a", program("Paris", "3"), "Weather for Paris", false},
		{"another session", "b", program("Rome", "3"), "Weather for Rome", false},
		{"a run that throws", "a", program("Nowhere", "3"), "Weather for Nowhere", true},
		{"the same values again", "a", program("Paris", "3"), "Weather for Paris", false},
	} {
		if o := run(step.session, step.prog, step.description); o.IsError != step.isError || o.SuggestScript != nil {
			t.Errorf("%s: isError %v, suggestScript %s, text %q", step.name, o.IsError, o.SuggestScript, o.Text)
		}
	}

	o := run("a", program("Rome", "5"), "Weather for Rome, 5 days ahead")
	want := map[string]any{
		"name":        "weather_days_ahead",
		"description": "Weather for Rome, 5 days ahead",
		"inputSchema": map[string]any{"type": "object", "required": []any{"city", "days"}, "properties": map[string]any{
			"city": map[string]any{"type": "string"}, "days": map[string]any{"type": "number"}}},
		"input": map[string]any{"city": "Rome", "days": 5.0},
		"code":  "  const city = input.city;\n  const w = await tools.weather({ city, days: input.days });\n  return w.temp.toFixed(1);",
	}
	var got map[string]any
	if err := json.Unmarshal(o.SuggestScript, &got); err != nil {
		t.Fatalf("suggestScript %s: %v (text %q)", o.SuggestScript, err, o.Text)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suggestScript (-want +got):\n%s", diff)
	}

	// Without --json the suggestion is a line on stderr, not in the model's text.
	code, stdout, stderr := runCLI(t, "run", "--tools", manifest, "--store", db, "--session", "a", "--isolation", "in-process",
		"--description", "Weather for Lima", program("Lima", "2"))
	wantErr := "runcode run: suggested script weather(city, days): this program ran ok before in this session with other values for them; " +
		"--json gives the script as suggestScript (inputSchema, input, code) for runcode scripts save\n"
	if code != exitOK || stdout != "21.5\n" || stderr != wantErr {
		t.Errorf("text mode: exit %d, stdout %q, stderr %q; want stderr %q", code, stdout, stderr, wantErr)
	}

	// The suggestion is what runcode scripts save takes.
	schema := testfs.Temp(t, "in.json", string(mustJSON(t, want["inputSchema"])))
	script := testfs.Temp(t, "script.js", want["code"].(string))
	if code, stdout, stderr := runCLI(t, "scripts", "save", "weather_days_ahead", "--store", db, "--description", "The weather in a city, some days ahead.",
		"--input-schema", schema, "--tools", manifest, script); code != exitOK {
		t.Fatalf("save: exit %d, %q, %q", code, stdout, stderr)
	}
	call := testfs.Temp(t, "call.js", `return await tools.script__weather_days_ahead({city: "Oslo", days: 1})`)
	if code, stdout, stderr := runCLI(t, "run", "--tools", manifest, "--store", db, "--isolation", "in-process", call); code != exitOK || stdout != "21.5\n" {
		t.Errorf("calling the saved script: exit %d, %q, %q", code, stdout, stderr)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

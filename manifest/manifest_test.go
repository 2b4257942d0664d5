package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

const example = `{
  "tools": [
    {
      "name": "get_order",
      "description": "Fetch one order by id.",
      "inputSchema": { "type": "object", "properties": { "id": { "type": "string" } }, "required": ["id"] },
      "outputSchema": { "type": "object", "properties": { "id": { "type": "string" }, "total": { "type": "number" } } },
      "concurrencySafe": true,
      "idempotent": true,
      "timeoutMs": 2000,
      "mock": { "cases": [ { "args": { "id": "A1" }, "result": { "id": "A1", "total": 12.5 } } ],
                "default": { "error": "no such order" } }
    },
    { "name": "lint", "description": "Run the linter.", "inputSchema": { "type": "object" },
      "command": ["./scripts/lint-tool.sh"] }
  ],
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"], "env": {} }
  }
}`

// TestParseSpecExample loads an example manifest of the documented shape (docs/manifest.md).
func TestParseSpecExample(t *testing.T) {
	m, err := Load(fstest.MapFS{"tools.json": {Data: []byte(example)}}, "tools.json", &Options{Dir: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tools) != 2 || m.Tools[0].Name != "get_order" || m.Tools[1].Name != "lint" {
		t.Fatalf("tools = %+v", m.Tools)
	}
	want := &Upstream{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"}, Env: map[string]string{}}
	if diff := cmp.Diff(want, m.Servers["fs"]); diff != "" {
		t.Errorf("server mismatch (-want +got):\n%s", diff)
	}
	set := registered(t, m)
	e, _ := set.Get("get_order")
	if e.Tool.TimeoutMs != 2000 || !e.ConcurrencySafe(registry.MustParseValue(`{"id":"x"}`)) || !e.Tool.Idempotent || e.Tool.Description != "Fetch one order by id." {
		t.Errorf("get_order = %+v", e.Tool)
	}
	lint, _ := set.Get("lint")
	if lint.ConcurrencySafe(registry.MustParseValue(`{}`)) || lint.Tool.Idempotent {
		t.Error("lint should be neither concurrency-safe nor idempotent by default")
	}
	if got := m.resolveArgv(m.Tools[1].Command); got[0] != "/proj/scripts/lint-tool.sh" {
		t.Errorf("command resolved to %q", got)
	}
}

// TestRejections pins the message of every rejection: the file, the tool (or server)
// and the problem.
func TestRejections(t *testing.T) {
	tool := func(body string) string { return `{"tools":[` + body + `]}` }
	tests := []struct {
		name, text, want string
	}{
		{"invalid JSON", `{"tools": [`, `manifest m.json: invalid JSON: unexpected EOF`},
		{"empty file", ``, `manifest m.json: invalid JSON: the file is empty`},
		{"trailing data", `{"tools":[]} x`, `manifest m.json: invalid JSON: unexpected data after the JSON value`},
		{"not an object", `[]`, `manifest m.json: invalid JSON: expected an object, not array`},
		{"nothing declared", `{}`, `manifest m.json: declares no "tools" and no "mcpServers"`},
		{"unknown top-level field", `{"tool": []}`, `manifest m.json: invalid JSON: unknown field "tool"`},
		{"unknown tool field", tool(`{"name":"a","mock":{"echo":true},"timeout":5}`), `manifest m.json: tool "a": unknown field "timeout"`},
		{"wrong field type", tool(`{"name":"a","mock":{"echo":true},"timeoutMs":"5"}`), `manifest m.json: tool "a": field "timeoutMs" must be a number, not string`},
		{"no name", tool(`{"mock":{"echo":true}}`), `manifest m.json: tool "tools[0]": has no "name"`},
		{"duplicate", tool(`{"name":"a","mock":{"echo":true}},{"name":"a","mock":{"echo":true}}`), `manifest m.json: tool "a": duplicate name: tools[0] already declares it`},
		{"reserved", tool(`{"name":"run_code","mock":{"echo":true}}`), `manifest m.json: tool "run_code": name "run_code" is reserved for the run_code transport`},
		{"bad name", tool(`{"name":"a\u0001","mock":{"echo":true}}`), `manifest m.json: tool "a\x01": tool name "a\x01" has invalid UTF-8 or control characters`},
		{"neither", tool(`{"name":"a"}`), `manifest m.json: tool "a": has neither "mock" nor "command": declare how calls are answered`},
		{"both", tool(`{"name":"a","mock":{"echo":true},"command":["x"]}`), `manifest m.json: tool "a": has both "mock" and "command": declare one`},
		{"empty command", tool(`{"name":"a","command":[]}`), `manifest m.json: tool "a": "command" must name a program: ["path", "arg", …]`},
		{"negative timeout", tool(`{"name":"a","mock":{"echo":true},"timeoutMs":-1}`), `manifest m.json: tool "a": timeoutMs must not be negative, got -1`},
		{"input schema not an object", tool(`{"name":"a","mock":{"echo":true},"inputSchema":true}`), `manifest m.json: tool "a": inputSchema must be a JSON Schema object`},
		{"input schema does not compile", tool(`{"name":"a","mock":{"echo":true},"inputSchema":{"type":"strnig"}}`), `manifest m.json: tool "a": inputSchema does not compile: `},
		{"output schema does not compile", tool(`{"name":"a","mock":{"echo":true},"outputSchema":{"minimum":"x"}}`), `manifest m.json: tool "a": outputSchema does not compile: `},
		{"mock without answer", tool(`{"name":"a","mock":{}}`), `manifest m.json: tool "a": mock: needs one of "result", "echo": true or "error"`},
		{"mock two answers", tool(`{"name":"a","mock":{"result":1,"error":"x"}}`), `manifest m.json: tool "a": mock: "result", "echo" and "error" are exclusive; give one`},
		{"mock unknown field", tool(`{"name":"a","mock":{"reslt":1}}`), `manifest m.json: tool "a": mock: unknown field "reslt"`},
		{"mock error with content", tool(`{"name":"a","mock":{"error":"x","content":[{"type":"text","text":"y"}]}}`), `manifest m.json: tool "a": mock: "content" goes with "result" or "echo", not "error"`},
		{"mock negative delay", tool(`{"name":"a","mock":{"echo":true,"delayMs":-5}}`), `manifest m.json: tool "a": mock: delayMs must not be negative, got -5`},
		{"mock bad block", tool(`{"name":"a","mock":{"result":1,"content":[{"type":"video"}]}}`), `manifest m.json: tool "a": mock.content[0]: unknown block type "video" (want text, image, audio or resource)`},
		{"mock image without data", tool(`{"name":"a","mock":{"result":1,"content":[{"type":"image","mimeType":"image/png","data":"%%"}]}}`), `manifest m.json: tool "a": mock.content[0]: an image block needs base64 data`},
		{"mock result against output schema", tool(`{"name":"a","outputSchema":{"type":"string"},"mock":{"result":1}}`), `manifest m.json: tool "a": mock: result does not match outputSchema: `},
		{"mock case result against output schema", tool(`{"name":"a","outputSchema":{"type":"string"},"mock":{"cases":[{"args":{},"result":"ok"},{"args":{},"result":2}]}}`), `manifest m.json: tool "a": mock.cases[1]: result does not match outputSchema: `},
		{"mock case without args", tool(`{"name":"a","mock":{"cases":[{"result":1}]}}`), `manifest m.json: tool "a": mock.cases[0]: "args" must be an object (the arguments a call must include)`},
		{"mock cases and answer", tool(`{"name":"a","mock":{"result":1,"cases":[]}}`), `manifest m.json: tool "a": mock: "cases"/"default" cannot be combined with a top-level answer; put it in "default"`},
		{"mock default without cases", tool(`{"name":"a","mock":{"default":{"result":1}}}`), `manifest m.json: tool "a": mock: "default" needs "cases"; without cases, write the answer directly`},
		{"mock bad default", tool(`{"name":"a","mock":{"cases":[],"default":{}}}`), `manifest m.json: tool "a": mock.default: needs one of "result", "echo": true or "error"`},
		{"mock bad result", tool(`{"name":"a","mock":{"result":-0}}`), `manifest m.json: tool "a": mock: result: `},
		{"server without command", `{"mcpServers":{"fs":{}}}`, `manifest m.json: mcpServers "fs": needs "command" (a process) or "url" (a remote server)`},
		{"server both", `{"mcpServers":{"fs":{"command":"x","url":"https://h"}}}`, `manifest m.json: mcpServers "fs": has both "command" and "url": declare one`},
		{"server bad args", `{"mcpServers":{"fs":{"command":"x","args":[1]}}}`, `manifest m.json: mcpServers "fs": field "args" must be a string, not number`},
		{"server unknown field", `{"mcpServers":{"fs":{"command":"x","argv":[]}}}`, `manifest m.json: mcpServers "fs": unknown field "argv"`},
		{"server bad type", `{"mcpServers":{"fs":{"type":"grpc","command":"x"}}}`, `manifest m.json: mcpServers "fs": unknown type "grpc" (want stdio, http, sse or streamable-http)`},
		{"server bad url", `{"mcpServers":{"web":{"url":"ftp://h"}}}`, `manifest m.json: mcpServers "web": url "ftp://h" must start with http:// or https://`},
		{"server headers on command", `{"mcpServers":{"fs":{"command":"x","headers":{"a":"b"}}}}`, `manifest m.json: mcpServers "fs": "headers" apply only to a "url" server`},
		{"server env on url", `{"mcpServers":{"web":{"url":"https://h","env":{"a":"b"}}}}`, `manifest m.json: mcpServers "web": "args", "env" and "cwd" apply only to a "command" server`},
		{"server empty name", `{"mcpServers":{"":{"command":"x"}}}`, `manifest m.json: mcpServers "": server name is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("m.json", []byte(tt.text), nil)
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
			var me *Error
			if !errors.As(err, &me) || me.File != "m.json" {
				t.Errorf("error %#v is not an *Error naming the file", err)
			}
			if got := err.Error(); got != tt.want && !(strings.HasSuffix(tt.want, ": ") && strings.HasPrefix(got, tt.want)) {
				t.Errorf("message mismatch\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	_, err := Load(fstest.MapFS{}, "missing.json", nil)
	if got, want := err.Error(), "manifest missing.json: cannot read the file: file does not exist"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Error("want ErrInvalid")
	}
}

// TestRegisterConflict: registering into a scope that already has the name fails
// with a manifest error and leaves nothing registered.
func TestRegisterConflict(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"tools":[{"name":"a","mock":{"echo":true}},{"name":"b","mock":{"echo":true}}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	scope := registry.New()
	if _, err := scope.Register(&registry.Tool{Name: "b", Execute: func(context.Context, *registry.Call) (any, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	_, err = m.Register(scope)
	if err == nil || !strings.HasPrefix(err.Error(), `manifest m.json: tool "b": `) {
		t.Fatalf("err = %v", err)
	}
	set, _ := scope.Resolve(context.Background(), registry.Step{})
	if set.Visible("a") {
		t.Error("a stayed registered after the failure")
	}
}

// A server may declare how long it takes to start (npx fetching a package on first use
// can take longer than the default); a negative one is refused.
func TestServerStartupTimeout(t *testing.T) {
	m, err := Parse("tools.json", []byte(`{"mcpServers": {"fs": {"command": "npx", "startupTimeoutMs": 120000}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Servers["fs"].StartupTimeoutMs; got != 120000 {
		t.Errorf("startupTimeoutMs = %d, want 120000", got)
	}
	_, err = Parse("tools.json", []byte(`{"mcpServers": {"fs": {"command": "npx", "startupTimeoutMs": -1}}}`), nil)
	if want := `manifest tools.json: mcpServers "fs": startupTimeoutMs must not be negative, got -1`; err == nil || err.Error() != want {
		t.Errorf("negative: %v, want %q", err, want)
	}
}

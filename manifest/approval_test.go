package manifest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApproval pins the approval settings a manifest accepts, and the message for
// one it does not, which names the tool (or server and tool) and the value.
func TestApproval(t *testing.T) {
	ok := `{"tools": [
	  {"name": "a", "mock": {"result": 1}, "approval": "ask"},
	  {"name": "b", "mock": {"result": 1}, "approval": "deny"},
	  {"name": "c", "mock": {"result": 1}, "approval": "allow"},
	  {"name": "d", "mock": {"result": 1}}
	], "mcpServers": {"fs": {"command": "srv", "approval": {"delete": "ask", "read": "allow"}}}}`
	m, err := Parse("m.json", []byte(ok), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range m.Tools {
		got = append(got, tool.Approval)
	}
	if diff := cmp.Diff([]string{ApprovalAsk, ApprovalDeny, ApprovalAllow, ""}, got); diff != "" {
		t.Errorf("approvals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"delete": "ask", "read": "allow"}, m.Servers["fs"].Approval); diff != "" {
		t.Errorf("server approvals (-want +got):\n%s", diff)
	}

	for _, tc := range []struct{ name, doc, want string }{
		{"tool", `{"tools": [{"name": "rm", "mock": {"result": 1}, "approval": "maybe"}]}`,
			`manifest m.json: tool "rm": approval must be "ask", "deny" or "allow", got "maybe"`},
		{"tool case", `{"tools": [{"name": "rm", "mock": {"result": 1}, "approval": "Ask"}]}`,
			`manifest m.json: tool "rm": approval must be "ask", "deny" or "allow", got "Ask"`},
		{"tool type", `{"tools": [{"name": "rm", "mock": {"result": 1}, "approval": true}]}`,
			`manifest m.json: tool "rm": field "approval" must be a string, not bool`},
		{"server", `{"mcpServers": {"fs": {"command": "srv", "approval": {"read": "allow", "write": "sometimes"}}}}`,
			`manifest m.json: mcpServers "fs": approval of tool "write" must be "ask", "deny" or "allow", got "sometimes"`},
		{"server empty value", `{"mcpServers": {"fs": {"command": "srv", "approval": {"write": ""}}}}`,
			`manifest m.json: mcpServers "fs": approval of tool "write" must be "ask", "deny" or "allow", got ""`},
		{"server empty name", `{"mcpServers": {"fs": {"command": "srv", "approval": {"": "ask"}}}}`,
			`manifest m.json: mcpServers "fs": approval names a tool with an empty name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.json", []byte(tc.doc), nil)
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want an ErrInvalid", err)
			}
			if err.Error() != tc.want {
				t.Errorf("err =\n%s\nwant\n%s", err, tc.want)
			}
		})
	}
}

package manifest

import (
	"errors"
	"testing"
)

// TestCommandEnvInvalid: a tool's env is refused, naming the tool, on a mock tool,
// with a name a process environment cannot hold, a NUL in a value, or RUNCODE_TOOL.
func TestCommandEnvInvalid(t *testing.T) {
	for _, tc := range []struct{ name, tool, want string }{
		{"mock", `{"name": "t", "mock": {"result": 1}, "env": {"A": "1"}}`,
			`manifest m.json: tool "t": "env" applies to command tools only`},
		{"empty name", `{"name": "t", "command": ["x"], "env": {"": "1"}}`,
			`manifest m.json: tool "t": env names a variable "": a name must be non-empty, without "=" or NUL`},
		{"equals in the name", `{"name": "t", "command": ["x"], "env": {"A=B": "1"}}`,
			`manifest m.json: tool "t": env names a variable "A=B": a name must be non-empty, without "=" or NUL`},
		{"NUL in a value", `{"name": "t", "command": ["x"], "env": {"A": "1\u0000"}}`,
			`manifest m.json: tool "t": env variable "A" contains a NUL byte`},
		{"RUNCODE_TOOL", `{"name": "t", "command": ["x"], "env": {"RUNCODE_TOOL": "u"}}`,
			`manifest m.json: tool "t": env must not set RUNCODE_TOOL: runcode sets it to the tool's name`},
		{"not strings", `{"name": "t", "command": ["x"], "env": {"A": 1}}`,
			`manifest m.json: tool "t": field "env" must map names to strings, not to a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.json", []byte(`{"tools": [`+tc.tool+`]}`), nil)
			if err == nil || !errors.Is(err, ErrInvalid) || err.Error() != tc.want {
				t.Errorf("err =\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	names := []string{"read_file", "list_dir", "glob", "grep", "stat", "my-tool"}
	for _, tt := range []struct{ in, want string }{
		{"readFile", "read_file"}, {"read_files", "read_file"}, {"gerp", "grep"}, {"listdir", "list_dir"},
		{"my_tool", "my-tool"}, {"delete", ""}, {"x", ""}, {"", ""},
	} {
		if got := Suggest(tt.in, names); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Suggest("a", nil); got != "" {
		t.Errorf("no names: %q", got)
	}
}

// TestMemberHint calls a misspelled tool: the exception gains a did-you-mean naming the
// namespace, and a name with no near member (or a call on another object) gains none.
func TestMemberHint(t *testing.T) {
	pool := newTestPool(t, nil)
	ns, err := NewNamespace("tools", []string{"read_file", "my-tool"}, Async(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`1`), nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ code, want string }{
		{"await tools.raed_file({})", "\ntools has no member \"raed_file\"; did you mean tools.read_file?"},
		{"await tools.my_tool({})", "\ntools has no member \"my_tool\"; did you mean tools[\"my-tool\"]?"},
		{"await tools.delete_everything({})", ""},
		{"const o = {}; o.read_file()", ""},
	} {
		res, err := pool.Run(context.Background(), tt.code, &RunOptions{Namespaces: []*Namespace{ns}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || !strings.HasPrefix(res.Failure.Message, "TypeError: Object has no member") {
			t.Fatalf("%s: %+v", tt.code, res.Failure)
		}
		hasHint := strings.Contains(res.Failure.Message, "did you mean")
		if tt.want == "" && hasHint || tt.want != "" && !strings.HasSuffix(res.Failure.Message, tt.want) {
			t.Errorf("%s: message %q, want suffix %q", tt.code, res.Failure.Message, tt.want)
		}
	}
}

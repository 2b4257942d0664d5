package manifest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/registry"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// entries parses a manifest and returns its tools as registered entries.
func entries(t *testing.T, text string, opts *Options) *registry.ResolvedToolSet {
	t.Helper()
	m, err := Parse("m.json", []byte(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	return registered(t, m)
}

// registered registers m's tools in a fresh deployment scope and resolves it.
func registered(t *testing.T, m *Manifest) *registry.ResolvedToolSet {
	t.Helper()
	scope := registry.New()
	if _, err := m.Register(scope); err != nil {
		t.Fatal(err)
	}
	return testreg.ResolveIn(t, scope)
}

// call runs one call of a tool's body and renders the value, as the pipeline would.
func call(t *testing.T, ctx context.Context, set *registry.ResolvedToolSet, name, args string) (registry.Value, []registry.Content, error) {
	t.Helper()
	e, ok := set.Get(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	a := registry.MustParseValue(args)
	out, err := e.Tool.Execute(ctx, &registry.Call{ID: "c1", Name: name, Args: a})
	if err != nil {
		return registry.Value{}, nil, err
	}
	v, err := registry.ValueOf(out)
	if err != nil {
		t.Fatalf("the value is not lossless JSON: %v", err)
	}
	content, err := e.Render(a, v)
	if err != nil {
		t.Fatal(err)
	}
	return v, content, nil
}

func TestMockForms(t *testing.T) {
	set := entries(t, `{"tools":[
	  {"name":"result","mock":{"result":{"b":[1,2],"a":null}}},
	  {"name":"string","mock":{"result":"plain text"}},
	  {"name":"null","mock":{"result":null}},
	  {"name":"echo","mock":{"echo":true}},
	  {"name":"error","mock":{"error":"no such order"}},
	  {"name":"content","mock":{"result":{"ok":true},"content":[{"type":"text","text":"rendered"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}},
	  {"name":"cases","mock":{"cases":[
	     {"args":{"id":"A1"},"result":"first"},
	     {"args":{"id":"A1","deep":{"k":1}},"result":"never reached"},
	     {"args":{"deep":{"k":1}},"result":"nested subset"}],
	   "default":{"error":"no such order"}}},
	  {"name":"nodefault","mock":{"cases":[{"args":{"id":"A1"},"echo":true}]}}
	]}`, nil)
	text := func(s string) []registry.Content { return []registry.Content{registry.Text(s)} }
	tests := []struct {
		name, tool, args string
		value            string
		content          []registry.Content
		err              string
	}{
		{"result", "result", `{}`, `{"b":[1,2],"a":null}`, text("{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": null\n}"), ""},
		{"string result renders raw", "string", `{}`, `"plain text"`, text("plain text"), ""},
		{"null result", "null", `{}`, `null`, text("null"), ""},
		{"echo", "echo", `{"x":[1,"y"]}`, `{"x":[1,"y"]}`, text("{\n  \"x\": [\n    1,\n    \"y\"\n  ]\n}"), ""},
		{"error", "error", `{}`, "", nil, "no such order"},
		{"content", "content", `{}`, `{"ok":true}`, []registry.Content{registry.Text("rendered"), {Type: "image", MIMEType: "image/png", Data: "iVBORw0KGgo="}}, ""},
		{"first matching case", "cases", `{"id":"A1","deep":{"k":1}}`, `"first"`, text("first"), ""},
		{"nested subset", "cases", `{"id":"B","deep":{"k":1,"j":2}}`, `"nested subset"`, text("nested subset"), ""},
		{"default", "cases", `{"id":"B"}`, "", nil, "no such order"},
		{"no case matches", "nodefault", `{"id":"B"}`, "", nil, "no mock case matches"},
		{"case echo", "nodefault", `{"id":"A1","n":2}`, `{"id":"A1","n":2}`, text("{\n  \"id\": \"A1\",\n  \"n\": 2\n}"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, content, err := call(t, context.Background(), set, tt.tool, tt.args)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != registry.MustParseValue(tt.value).String() {
				t.Errorf("value = %s, want %s", v, tt.value)
			}
			if diff := cmp.Diff(tt.content, content); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := call(t, context.Background(), set, "nodefault", `{}`); !errors.Is(err, ErrNoCase) {
		t.Errorf("err = %v, want ErrNoCase", err)
	}
}

// TestMockDelayHonoursCancellation: a delayed answer returns the context's cause as
// soon as the call is cancelled.
func TestMockDelayHonoursCancellation(t *testing.T) {
	set := entries(t, `{"tools":[{"name":"slow","mock":{"result":1,"delayMs":3600000}},{"name":"quick","mock":{"result":2,"delayMs":1}}]}`, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("caller gave up")
	cancel(stop)
	if _, _, err := call(t, ctx, set, "slow", `{}`); !errors.Is(err, stop) {
		t.Errorf("err = %v, want the cancellation cause", err)
	}
	if v, _, err := call(t, context.Background(), set, "quick", `{}`); err != nil || v.String() != "2" {
		t.Errorf("quick = %v, %v", v, err)
	}
}

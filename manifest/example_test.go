package manifest_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/manifest"
	"github.com/runcode-go/runcode/registry"
)

func ExampleParse() {
	m, err := manifest.Parse("tools.json", []byte(`{"tools": [
		{"name": "get_order", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
		 "mock": {"cases": [{"args": {"id": "A1"}, "result": {"id": "A1", "total": 12.5}}],
		          "default": {"error": "no such order"}}}]}`), nil)
	if err != nil {
		panic(err)
	}
	scope := registry.New()
	if _, err := m.Register(scope); err != nil {
		panic(err)
	}
	set, _ := scope.Resolve(context.Background(), registry.Step{})
	e, _ := set.Get("get_order")
	for _, args := range []string{`{"id":"A1"}`, `{"id":"B2"}`} {
		v, err := e.Tool.Execute(context.Background(), &registry.Call{Name: "get_order", Args: registry.MustParseValue(args)})
		fmt.Println(v, err)
	}

	_, err = manifest.Parse("bad.json", []byte(`{"tools": [{"name": "lint"}]}`), nil)
	fmt.Println(err)
	// Output:
	// {"id":"A1","total":12.5} <nil>
	// <nil> no such order
	// manifest bad.json: tool "lint": has neither "mock" nor "command": declare how calls are answered
}

package registry_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/registry"
)

func ExampleScope_Register() {
	deployment := registry.New()
	_, err := deployment.Register(&registry.Tool{
		Name:        "greet",
		Description: "Greet someone by name.",
		Parameters: registry.Object(
			registry.Required("name", registry.String().Describe("Who to greet")),
			registry.Optional("shout", registry.Boolean()),
		).Closed(),
		Output: registry.Output{Schema: registry.String()},
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			var in struct{ Name string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return "hello, " + in.Name, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	set, _ := deployment.Resolve(context.Background(), registry.Step{})
	for _, s := range set.Schemas() {
		fmt.Printf("%s: %s\n%s\n", s.Name, s.Description, s.Parameters)
	}
	entry, _ := set.Lookup("greet")
	fmt.Println(entry.ValidateArgs(registry.MustParseValue(`{"shout":"yes"}`)))
	// Output:
	// greet: Greet someone by name.
	// {"type":"object","properties":{"name":{"type":"string","description":"Who to greet"},"shout":{"type":"boolean"}},"required":["name"],"additionalProperties":false}
	// ["shout" must be a boolean missing required property "name"]
}

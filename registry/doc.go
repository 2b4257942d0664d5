// Package registry owns tool definitions and everything that decides which tools a
// model step can see: the schema DSL and JSON Schema compilation and validation, the
// lossless JSON [Value], scopes (deployment > preset > agent) with shadowing, restrict
// masks, monotonic guards, conditional tools, modes, and [Scope.Resolve], which
// produces the [ResolvedToolSet] that the prompt, the SDK and dispatch all read.
//
// It does not run calls (package pipeline does), render SDKs (package sdkgen) or know
// about JavaScript.
//
// Schemas are compiled and values validated by internal/jsonschema (its documentation
// says what it supports: drafts 4 to 2020-12, references inside the schema only, format
// as an annotation); this package words its violations for the model.
//
// It may import: the standard library, internal/jsontext and internal/jsonschema.
//
// # Registering a tool
//
//	deployment := registry.New()
//	dispose, err := deployment.Register(&registry.Tool{
//		Name:        "read",
//		Description: "Read a file.",
//		Parameters: registry.Object(
//			registry.Required("path", registry.String().Describe("Absolute path")),
//			registry.Optional("limit", registry.Integer()),
//		).Closed(),
//		Output:  registry.Output{Schema: registry.String()},
//		Execute: func(ctx context.Context, call *registry.Call) (any, error) { … },
//	})
//
// # Values
//
// Arguments and results travel as [Value]: canonical, immutable, lossless JSON text.
// A Value never aliases mutable memory, so a snapshot taken before policy runs is the
// exact value the body sees and the log records.
package registry

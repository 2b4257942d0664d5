package otel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/runcode-go/runcode/contrib/otel"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// A Telemetry's wrapper goes first in the pipeline's wrappers; its Report is
// ptc.Options.OnReport, and otel.Propagator(nil) is the Propagator of an
// mcpbridge.Client or Server.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	tel, err := otel.New(&otel.Options{TracerProvider: tp})
	if err != nil {
		panic(err)
	}
	p := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{tel.Middleware(), pipeline.Timeout()}})

	scope := registry.New()
	if _, err := scope.SetMode(registry.ModeNative); err != nil {
		panic(err)
	}
	if _, err := scope.Register(&registry.Tool{Name: "hello", Description: "Greets.",
		Execute: func(context.Context, *registry.Call) (any, error) { return "hi", nil }}); err != nil {
		panic(err)
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		panic(err)
	}
	p.Run(context.Background(), set, registry.Call{ID: "call-1", Name: "hello", Args: registry.MustParseValue(`{}`)})

	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name)
		for _, kv := range s.Attributes {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.Emit())
		}
	}
	// Output:
	// execute_tool hello
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=hello
	//   gen_ai.tool.call.id=call-1
	//   runcode.call.root_id=call-1
}

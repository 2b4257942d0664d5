package testreg

import (
	"context"
	"testing"

	"github.com/runcode-go/runcode/registry"
)

// Scope returns a fresh deployment scope in mode.
func Scope(t testing.TB, mode registry.Mode) *registry.Scope {
	t.Helper()
	scope := registry.New()
	if _, err := scope.SetMode(mode); err != nil {
		t.Fatal(err)
	}
	return scope
}

// Register registers tools in scope, failing the test on the first refusal.
func Register(t testing.TB, scope *registry.Scope, tools ...*registry.Tool) {
	t.Helper()
	for _, tool := range tools {
		if _, err := scope.Register(tool); err != nil {
			t.Fatalf("Register(%q): %v", tool.Name, err)
		}
	}
}

// ResolveIn registers tools in scope and resolves scope for an empty step.
func ResolveIn(t testing.TB, scope *registry.Scope, tools ...*registry.Tool) *registry.ResolvedToolSet {
	t.Helper()
	Register(t, scope, tools...)
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Resolve registers tools in a fresh deployment scope (of the registry's default mode)
// and resolves it for an empty step.
func Resolve(t testing.TB, tools ...*registry.Tool) *registry.ResolvedToolSet {
	t.Helper()
	return ResolveIn(t, registry.New(), tools...)
}

package jsprep

import (
	"testing"

	"github.com/dop251/goja/ast"
)

// A member chain nests without bound (MaxNesting does not count it); walking its tree
// must not overflow the stack, as a recursive walk over a million levels did.
func TestWalkDeepTree(t *testing.T) {
	var e ast.Expression = &ast.Identifier{Name: "o"}
	for range 1_000_000 {
		e = &ast.DotExpression{Left: e, Identifier: ast.Identifier{Name: "a"}}
	}
	n := 0
	Walk(e, func(any) { n++ })
	if n != 1_000_001 {
		t.Errorf("visited %d nodes, want 1000001", n)
	}
}

package jsprep

import (
	"bytes"
	"testing"

	"github.com/dop251/goja/ast"
)

// skeleton keeps its own stack, like walk: a million-deep member chain does not
// overflow the goroutine's.
func TestSkeletonDeepTree(t *testing.T) {
	var e ast.Expression = &ast.Identifier{Name: "o"}
	for range 1_000_000 {
		e = &ast.DotExpression{Left: e, Identifier: ast.Identifier{Name: "a"}}
	}
	b := skeleton(e, nil)
	if n := bytes.Count(b, []byte("(DotExpression")); n != 1_000_000 {
		t.Errorf("skeleton has %d member expressions, want 1000000", n)
	}
}

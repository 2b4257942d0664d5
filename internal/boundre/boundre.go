package boundre

import (
	"errors"
	"regexp"
	"regexp/syntax"
)

// ErrTooLarge is Compile's error for a pattern whose program would be over the bound.
var ErrTooLarge = errors.New("the pattern compiles to too many instructions")

// Compile parses expr as regexp.Compile does and compiles it if its program has at most
// max instructions, checked on the parse tree (before the repeats are expanded) and then
// on the program. It returns the program's size. A pattern over the bound fails with
// ErrTooLarge; one that does not parse, with regexp/syntax's error.
func Compile(expr string, max int) (*regexp.Regexp, int, error) {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, 0, err
	}
	// The estimate runs a little under the program's size; the exact check follows.
	if treeSize(tree, 2*max+1) > 2*max {
		return nil, 0, ErrTooLarge
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, 0, err
	}
	if len(prog.Inst) > max {
		return nil, 0, ErrTooLarge
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, 0, err
	}
	return re, len(prog.Inst), nil
}

// treeSize estimates the instructions re compiles to, as regexp/syntax's own size check
// does, saturating at limit so that nothing overflows.
func treeSize(re *syntax.Regexp, limit int) int {
	sub := func(i int) int { return treeSize(re.Sub[i], limit) }
	size := 0
	switch re.Op {
	case syntax.OpLiteral:
		size = len(re.Rune)
	case syntax.OpCapture, syntax.OpStar:
		size = 2 + sub(0)
	case syntax.OpPlus, syntax.OpQuest:
		size = 1 + sub(0)
	case syntax.OpConcat, syntax.OpAlternate:
		for i := range re.Sub {
			size = min(size+sub(i)+1, limit)
		}
	case syntax.OpRepeat:
		n, opt := re.Max, re.Max-re.Min // x{2,5} is xx(x(x(x)?)?)?
		if re.Max == -1 {
			n, opt = re.Min, 2 // x{2,} is xxx*
		}
		size = min(n, limit)*sub(0) + min(opt, limit) // each at most limit²: no overflow
	}
	return min(max(size, 1), limit)
}

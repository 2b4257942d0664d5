package runtime

import (
	"sort"
	"strings"

	"github.com/dop251/goja/ast"
)

// Reading the text around the operators that bigint_ops.go rewrites: where an operand's
// text begins and ends, which the goja AST gives only roughly.

// opText reads the code around operators: lits are the sorted ranges of string, template
// and regular expression text, where parentheses and slashes are not code.
type opText struct {
	src  string
	lits [][2]int
}

// literalEnd returns the end of the literal range starting at i, or -1.
func (t *opText) literalEnd(i int) int {
	k := sort.Search(len(t.lits), func(k int) bool { return t.lits[k][0] >= i })
	if k < len(t.lits) && t.lits[k][0] == i {
		return t.lits[k][1]
	}
	return -1
}

// trivia returns the end of the white space or comment at i, or i.
func (t *opText) trivia(i int) int {
	src := t.src
	switch {
	case i >= len(src):
		return i
	case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
		return i + 1
	case strings.HasPrefix(src[i:], "//"):
		if j := strings.IndexAny(src[i:], "\n\r"); j >= 0 {
			return i + j
		}
		return len(src)
	case strings.HasPrefix(src[i:], "/*"):
		if j := strings.Index(src[i+2:], "*/"); j >= 0 {
			return i + j + 4
		}
		return len(src)
	}
	return i
}

// operator returns where op begins at or after i, past white space, comments and the
// closing parentheses of a left operand, or -1.
func (t *opText) operator(i int, op string) int {
	for i < len(t.src) {
		if j := t.trivia(i); j > i {
			i = j
			continue
		}
		switch {
		case t.src[i] == ')':
			i++
		case strings.HasPrefix(t.src[i:], op):
			return i
		default:
			return -1
		}
	}
	return -1
}

// balance returns the opening less the closing parentheses of the code in [s, e).
func (t *opText) balance(s, e int) int {
	n := 0
	for i := s; i < e; {
		if j := t.literalEnd(i); j > i {
			i = j
			continue
		}
		if j := t.trivia(i); j > i {
			i = j
			continue
		}
		switch t.src[i] {
		case '(':
			n++
		case ')':
			n--
		}
		i++
	}
	return n
}

// right delimits a right operand: from the first code after its operator (which ends
// at i) to its last node's end e, taking in the closing parentheses that its text
// leaves open.
func (t *opText) right(i, e int) (int, int, bool) {
	i = t.skipTrivia(i)
	for open := t.balance(i, e); open > 0; open-- {
		e = t.skipTrivia(e)
		if e >= len(t.src) || t.src[e] != ')' {
			return 0, 0, false
		}
		e++
	}
	return i, e, i < e
}

// skipTrivia returns the end of the white space and comments from i.
func (t *opText) skipTrivia(i int) int {
	for j := t.trivia(i); j > i; j = t.trivia(i) {
		i = j
	}
	return i
}

// left delimits a left operand that ends at its operator at: from its first node's start
// s, taken back over the opening parentheses of the closing ones between its last node's
// end e and the operator, to the last of those. Only white space and block comments may
// stand before the opening ones.
func (t *opText) left(s, e, at int) (int, int, bool) {
	for i := e; i < at; {
		if j := t.trivia(i); j > i {
			i = j
			continue
		}
		if t.src[i] != ')' {
			return 0, 0, false
		}
		i++
		e = i
	}
	for open := t.balance(s, e); open < 0; open++ {
		for {
			if s > 0 && strings.ContainsRune(" \t\n\r", rune(t.src[s-1])) {
				s--
			} else if s > 1 && t.src[s-2:s] == "*/" {
				j := strings.LastIndex(t.src[:s-2], "/*")
				if j < 0 {
					return 0, 0, false
				}
				s = j
			} else {
				break
			}
		}
		if s == 0 || t.src[s-1] != '(' {
			return 0, 0, false
		}
		s--
	}
	return s, e, true
}

// exprStart and exprEnd are where e's text begins and ends. goja's Idx0 and Idx1 are off
// for a few nodes, and a node that takes them from a child inherits the error: a tagged
// template starts at its tag, not its quote, and a private name (#p) ends a byte after
// goja says.
func exprStart(e ast.Expression) int {
	for {
		child, ok := leftChild(e)
		if !ok {
			return int(e.Idx0())
		}
		e = child
	}
}

func exprEnd(e ast.Expression) int {
	for {
		switch x := e.(type) {
		case *ast.PrivateDotExpression:
			return int(x.Identifier.Idx1()) + 1
		case *ast.BinaryExpression:
			e = x.Right
		case *ast.AssignExpression:
			e = x.Right
		case *ast.ConditionalExpression:
			e = x.Alternate
		case *ast.SequenceExpression:
			e = x.Sequence[len(x.Sequence)-1]
		case *ast.AwaitExpression:
			e = x.Argument
		case *ast.YieldExpression:
			if x.Argument == nil {
				return int(x.Idx1())
			}
			e = x.Argument
		case *ast.OptionalChain:
			e = x.Expression
		case *ast.Optional:
			e = x.Expression
		case *ast.NewExpression:
			if x.ArgumentList != nil {
				return int(x.Idx1())
			}
			e = x.Callee
		case *ast.ArrowFunctionLiteral:
			b, ok := x.Body.(*ast.ExpressionBody)
			if !ok {
				return int(x.Idx1())
			}
			e = b.Expression
		case *ast.UnaryExpression:
			if x.Postfix {
				return exprEnd(x.Operand) + 2
			}
			e = x.Operand
		default:
			return int(e.Idx1())
		}
	}
}

package runtime

import (
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
)

// Reading the text around the operators that bigint_ops.go rewrites: where an operand's
// text begins and ends. goja's node positions are rough (a name's end is counted in its
// decoded characters, a tagged template starts at its quote, new.target has no start), so
// ends of names are read from the text, and parentheses are matched over the code once:
// an operand takes in every parenthesis pair it opens or closes.

// opText is a source with its code's parentheses matched.
type opText struct {
	src   string
	base  int
	lits  [][2]int    // sorted ranges of string, template and regular expression text
	opens []int       // the code's opening parentheses, in order
	match map[int]int // each code parenthesis to its partner
	ok    bool        // every parenthesis has a partner
}

// newOpText reads src, whose parse is tree.
func newOpText(src string, tree *ast.Program) *opText {
	t := &opText{src: src, base: tree.File.Base(), match: map[int]int{}}
	walk(reflect.ValueOf(tree), func(n any) {
		switch x := n.(type) {
		case *ast.StringLiteral:
			t.lits = append(t.lits, [2]int{t.at(int(x.Idx)), t.at(int(x.Idx)) + len(x.Literal)})
		case *ast.RegExpLiteral:
			t.lits = append(t.lits, [2]int{t.at(int(x.Idx)), t.end(x)})
		case *ast.TemplateLiteral:
			// The text between the quotes and the substitutions (with their ${ and }).
			from := t.at(int(x.OpenQuote))
			for _, e := range x.Expressions {
				t.lits = append(t.lits, [2]int{from, t.start(e)})
				from = t.end(e)
			}
			t.lits = append(t.lits, [2]int{from, t.at(int(x.CloseQuote)) + 1})
		}
	})
	sort.Slice(t.lits, func(i, j int) bool { return t.lits[i][0] < t.lits[j][0] })
	var stack []int
	t.ok = true
	for i := 0; i < len(src); {
		if j := t.literalEnd(i); j > i {
			i = j
			continue
		}
		if j := t.trivia(i); j > i {
			i = j
			continue
		}
		switch src[i] {
		case '(':
			stack = append(stack, i)
			t.opens = append(t.opens, i)
		case ')':
			if len(stack) == 0 {
				t.ok = false
				break
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			t.match[o], t.match[i] = i, o
		}
		i++
	}
	t.ok = t.ok && len(stack) == 0
	return t
}

// at converts a node position to an offset into src.
func (t *opText) at(idx int) int { return idx - t.base }

// literalEnd returns the end of the literal range starting at i, or -1.
func (t *opText) literalEnd(i int) int {
	k := sort.Search(len(t.lits), func(k int) bool { return t.lits[k][0] >= i })
	if k < len(t.lits) && t.lits[k][0] == i && t.lits[k][1] > i {
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
	case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\v' || src[i] == '\f':
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
	case src[i] >= utf8.RuneSelf:
		if r, n := utf8.DecodeRuneInString(src[i:]); unicode.IsSpace(r) || r == '\ufeff' {
			return i + n
		}
	}
	return i
}

// skipTrivia returns the end of the white space and comments from i.
func (t *opText) skipTrivia(i int) int {
	for j := t.trivia(i); j > i; j = t.trivia(i) {
		i = j
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

// right delimits a right operand: from the first code after its operator (which ends at
// i) to the end of its text, its last node's end e taken past the parentheses it opens.
func (t *opText) right(i, e int) (int, int, bool) {
	i = t.skipTrivia(i)
	if i >= e {
		return 0, 0, false
	}
	k := sort.SearchInts(t.opens, i)
	for ; k < len(t.opens) && t.opens[k] < e; k++ {
		e = max(e, t.match[t.opens[k]]+1)
	}
	return i, e, t.closedWithin(i, e)
}

// left delimits a left operand that ends at its operator at: from its first node's start
// s, taken back to the parentheses it closes, to its last code before the operator.
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
	if s < 0 || s >= e {
		return 0, 0, false
	}
	for i := s; i < e; i++ {
		if t.src[i] == ')' {
			if o, ok := t.match[i]; ok && o < s {
				s = o
				i = s
			}
		}
	}
	return s, e, t.closedWithin(s, e)
}

// closedWithin reports whether every code parenthesis in [s, e) has its partner there.
func (t *opText) closedWithin(s, e int) bool {
	if !t.ok || s < 0 || e > len(t.src) || s >= e {
		return false
	}
	for i := s; i < e; i++ {
		if c := t.src[i]; c == '(' || c == ')' {
			if p, ok := t.match[i]; ok && (p < s || p >= e) {
				return false
			}
		}
	}
	return true
}

// start is where e's text begins, before any parenthesis that only it is in.
func (t *opText) start(e ast.Expression) int {
	for {
		if m, ok := e.(*ast.MetaProperty); ok {
			return t.at(int(m.Meta.Idx)) // goja leaves new.target's own start unset
		}
		child, ok := leftChild(e)
		if !ok {
			return t.at(int(e.Idx0()))
		}
		e = child
	}
}

// end is where e's text ends, before any parenthesis that only it is in.
func (t *opText) end(e ast.Expression) int {
	for {
		switch x := e.(type) {
		case *ast.Identifier:
			return t.name(t.at(int(x.Idx)))
		case *ast.DotExpression:
			return t.name(t.at(int(x.Identifier.Idx)))
		case *ast.PrivateDotExpression:
			return t.name(t.at(int(x.Identifier.Idx)) + 1) // past the #
		case *ast.MetaProperty:
			return t.name(t.at(int(x.Property.Idx)))
		case *ast.RegExpLiteral:
			return t.name(t.at(int(x.Idx)) + len(x.Literal)) // its flags, whatever goja counted
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
				return t.at(int(x.Idx1()))
			}
			e = x.Argument
		case *ast.OptionalChain:
			e = x.Expression
		case *ast.Optional:
			e = x.Expression
		case *ast.NewExpression:
			if x.RightParenthesis > 0 {
				return t.at(int(x.RightParenthesis)) + 1
			}
			e = x.Callee
		case *ast.ArrowFunctionLiteral:
			b, ok := x.Body.(*ast.ExpressionBody)
			if !ok {
				return t.at(int(x.Idx1()))
			}
			e = b.Expression
		case *ast.UnaryExpression:
			if !x.Postfix {
				e = x.Operand
				continue
			}
			// ++ or --, with white space or comments before it.
			i := t.skipTrivia(t.end(x.Operand))
			if i+2 > len(t.src) {
				return -1
			}
			return i + 2
		default:
			return t.at(int(e.Idx1()))
		}
	}
}

// name returns the end of the identifier at i: its characters and \u escapes.
func (t *opText) name(i int) int {
	src := t.src
	for i >= 0 && i < len(src) {
		c := src[i]
		switch {
		case c == '$' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			i++
		case c == '\\' && strings.HasPrefix(src[i:], `\u`):
			_, n := unicodeEscape(src[i+2:])
			if n == 0 {
				return i
			}
			i += 2 + n
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[i:])
			if !unicode.In(r, unicode.L, unicode.Nl, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) && r != '\u200c' && r != '\u200d' {
				return i
			}
			i += n
		default:
			return i
		}
	}
	return i
}

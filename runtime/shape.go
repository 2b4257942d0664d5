package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/runcode-go/runcode/internal/jsprep"
)

// Shape is a program with its literal values taken out: what stays the same when a
// model runs the same program again for another city or another count. A Shape is a
// plain value.
type Shape struct {
	// Hash names the program's skeleton: its syntax tree with every literal of
	// Literals replaced by a placeholder of its type. Two programs have the same Hash
	// when they differ only in those literals' values, in comments and whitespace, in
	// TypeScript types, and in how they spell the rest (quotes, number notation, a
	// key quoted or not). It is 32 hexadecimal digits.
	Hash string
	// Literals are the program's literal values, in source order.
	Literals []Literal
	// Code is the text the literals' offsets index: the program after intake (a
	// markdown fence blanked, say) for JavaScript, or the JavaScript esbuild stripped a
	// TypeScript program to (types gone, reformatted). It is empty when esbuild had to
	// put helpers before the program, which then does not run alone.
	Code string
}

// Literal is one literal value of a program. A Literal is a plain value.
type Literal struct {
	// JSON is the value as JSON: a string, a number or a boolean.
	JSON string
	// Name is the name its context gives the value: the object key it is the value of
	// ({n: 2}), the variable it initializes or is assigned to (const city = "Paris"),
	// or the member assigned (opts.limit = 10), through array elements, the branches of
	// a conditional and the right of ||, && and ??. Empty when there is none (a call's
	// argument, an operand).
	Name string
	// Start and End are the byte offsets of its text in Shape.Code.
	Start, End int
}

// ShapeOf parses code as Prepare does and returns its Shape. The literals it takes
// out are strings (a template literal without substitutions or tag counts as one;
// the text of a template with substitutions stays in the skeleton), finite numbers,
// with a minus sign before one folded in, and booleans; null, regular expressions and
// BigInts stay in the skeleton. A literal that names something is not a value and
// stays too: an object key, in a literal or a destructuring pattern; a member in
// brackets (tools["x"], rows[0]); a class member's key; a statement that is only a
// string (a directive). A program that does not parse fails with the same *Failure as
// Prepare. It is meant for programs that ran, off the run path: it parses the program
// again, and does not make the other checks of Prepare.
func ShapeOf(code string, opts *PrepareOptions) (*Shape, error) {
	s, err := jsprep.ShapeOf(code, opts.maxBytes())
	if err != nil {
		return nil, prepFailure(err)
	}
	out := &Shape{Hash: s.Hash, Code: s.Code}
	for _, l := range s.Literals {
		out.Literals = append(out.Literals, Literal(l))
	}
	return out, nil
}

// Replace returns Code with the text of each literal whose index is in with replaced
// by the expression given for it (input.city, say), with a space added where the
// expression would otherwise run into a neighbouring word (return"x" becomes
// return input.x). It returns "" when Code is.
func (s *Shape) Replace(with map[int]string) string {
	if s.Code == "" {
		return ""
	}
	var b strings.Builder
	at := 0
	for i, l := range s.Literals {
		expr, ok := with[i]
		if !ok || l.Start < at || l.End > len(s.Code) {
			continue
		}
		b.WriteString(s.Code[at:l.Start])
		if r, _ := utf8.DecodeLastRuneInString(s.Code[:l.Start]); wordRune(r) {
			b.WriteByte(' ')
		}
		b.WriteString(expr)
		if r, _ := utf8.DecodeRuneInString(s.Code[l.End:]); wordRune(r) {
			b.WriteByte(' ')
		}
		at = l.End
	}
	b.WriteString(s.Code[at:])
	return b.String()
}

// wordRune reports whether r can be part of an identifier or a keyword.
func wordRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

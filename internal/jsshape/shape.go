package jsshape

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
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

// Of parses code as jsprep.Prepare does (jsprep.Parse) and returns its Shape. The literals it
// takes out are strings (a template literal without substitutions or tag counts as
// one; the text of a template with substitutions stays in the skeleton), finite
// numbers, with a minus sign before one folded in, and booleans; null, regular
// expressions and BigInts stay in the skeleton. A literal that names something is not
// a value and stays too: an object key, in a literal or a destructuring pattern; a
// member in brackets (tools["x"], rows[0]); a class member's key; a statement that is
// only a string (a directive). A program over maxBytes (1 MiB when not positive) or
// that does not parse fails with the *jsprep.Failure jsprep.Prepare gives it, whose
// message runtime.Prepare reports. It is meant for programs that ran, off the run
// path: it parses the program again, and does not make Prepare's other checks.
func Of(code string, maxBytes int) (*Shape, error) {
	p, err := jsprep.Parse(code, maxBytes)
	if err != nil {
		return nil, err
	}
	if p.Body == nil {
		return nil, errors.New("the program closes its async wrapper")
	}
	base, text := p.Tree.File.Base(), p.Text
	start, end := int(p.Body.LeftBrace)-base+1, int(p.Body.RightBrace)-base
	if !p.TypeScript {
		end-- // the newline the wrapper's close begins with
	} else {
		if start < end && text[start] == '\n' {
			start++ // esbuild puts the body on lines of its own
		}
		for end > start && (text[end-1] == '\n' || text[end-1] == ' ') {
			end--
		}
	}
	s := &Shape{Code: text[start:end]}
	if len(p.Tree.Body) > 1 { // esbuild's helpers sit outside the body: the body alone does not run
		s.Code = ""
	}
	kinds := map[ast.Node]byte{}
	for _, l := range literals(p.Body) {
		kinds[l.node] = l.kind
		s.Literals = append(s.Literals, Literal{JSON: l.json, Name: l.name,
			Start: int(l.node.Idx0()) - base - start, End: int(l.node.Idx1()) - base - start})
	}
	sum := sha256.Sum256(skeleton(p.Body, kinds))
	s.Hash = hex.EncodeToString(sum[:16])
	return s, nil
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

// literal is one literal of a program: its node (a folded negative number is the
// unary minus), its kind ('s' string, 'n' number, 'b' boolean), its value as JSON and
// the name its context gives it.
type literal struct {
	node ast.Node
	kind byte
	json string
	name string
}

// literals lists the literal values under root, in source order: strings (and
// template literals without substitutions or tag), finite numbers (a minus sign before
// one folded in) and booleans. A literal that names something is left out: an object
// key (in a literal or a pattern), a member in brackets (tools["x"], a[0]), a class
// member's key, and a statement that is only a string (a directive). Each gets the
// name of its nearest context: the key it is the value of, the variable it
// initializes or is assigned to (or the member, for o.x = 1), through array elements,
// both branches of a conditional and the right of ||, && and ??.
func literals(root ast.Node) []literal {
	keys := map[ast.Node]bool{}
	names := map[ast.Node]string{}
	name := func(e ast.Node, n string) {
		if e != nil && n != "" {
			names[e] = n
		}
	}
	jsprep.Walk(root, func(n any) {
		switch e := n.(type) {
		case *ast.ObjectLiteral:
			for _, p := range e.Value {
				if p, ok := p.(*ast.PropertyKeyed); ok {
					keys[p.Key] = true
					if k, ok := keyName(p.Key); ok && !p.Computed {
						name(p.Value, k)
					}
				}
			}
		case *ast.ObjectPattern:
			for _, p := range e.Properties {
				switch p := p.(type) {
				case *ast.PropertyKeyed:
					keys[p.Key] = true
				case *ast.PropertyShort:
					name(p.Initializer, p.Name.Name.String())
				}
			}
		case *ast.BracketExpression:
			keys[e.Member] = true
		case *ast.MethodDefinition:
			keys[e.Key] = true
		case *ast.FieldDefinition:
			keys[e.Key] = true
			if k, ok := keyName(e.Key); ok && !e.Computed {
				name(e.Initializer, k)
			}
		case *ast.ExpressionStatement:
			if _, ok := e.Expression.(*ast.StringLiteral); ok {
				keys[e.Expression] = true
			}
		case *ast.Binding:
			if id, ok := e.Target.(*ast.Identifier); ok {
				name(e.Initializer, id.Name.String())
			}
		case *ast.AssignExpression:
			switch l := e.Left.(type) {
			case *ast.Identifier:
				name(e.Right, l.Name.String())
			case *ast.DotExpression:
				name(e.Right, l.Identifier.Name.String())
			}
		case *ast.ArrayLiteral:
			if n, ok := names[e]; ok {
				for _, v := range e.Value {
					name(v, n)
				}
			}
		case *ast.ConditionalExpression:
			if n, ok := names[e]; ok {
				name(e.Consequent, n)
				name(e.Alternate, n)
			}
		case *ast.BinaryExpression:
			if n, ok := names[e]; ok && (e.Operator == token.LOGICAL_OR || e.Operator == token.LOGICAL_AND || e.Operator == token.COALESCE) {
				name(e.Right, n)
			}
		}
	})
	var out []literal
	done := map[ast.Node]bool{} // visited already (a declaration is reachable twice), or folded into a minus
	jsprep.Walk(root, func(n any) {
		node, ok := n.(ast.Node)
		if !ok || done[node] {
			return
		}
		done[node] = true
		if u, ok := node.(*ast.UnaryExpression); ok && u.Operator == token.MINUS && !u.Postfix {
			if num, ok := u.Operand.(*ast.NumberLiteral); ok {
				done[num] = true
				if f, ok := number(num); ok && !keys[u] {
					out = append(out, literal{node: u, kind: 'n', json: numberJSON(-f), name: names[u]})
				}
				return
			}
		}
		if keys[node] {
			return
		}
		var l literal
		switch e := node.(type) {
		case *ast.StringLiteral:
			l = literal{kind: 's', json: stringJSON(e.Value.String())}
		case *ast.TemplateLiteral:
			if e.Tag != nil || len(e.Expressions) > 0 || len(e.Elements) != 1 || !e.Elements[0].Valid {
				return
			}
			l = literal{kind: 's', json: stringJSON(e.Elements[0].Parsed.String())}
		case *ast.NumberLiteral:
			f, ok := number(e)
			if !ok {
				return
			}
			l = literal{kind: 'n', json: numberJSON(f)}
		case *ast.BooleanLiteral:
			l = literal{kind: 'b', json: strconv.FormatBool(e.Value)}
		default:
			return
		}
		l.node, l.name = node, names[node]
		out = append(out, l)
	})
	slices.SortFunc(out, func(a, b literal) int { return int(a.node.Idx0()) - int(b.node.Idx0()) })
	return out
}

// keyName is the name a key that is not computed gives: goja gives an identifier key
// and a quoted one alike as a string literal (a number key names nothing here).
func keyName(key ast.Expression) (string, bool) {
	if k, ok := key.(*ast.StringLiteral); ok {
		return k.Value.String(), true
	}
	return "", false
}

// number is a number literal's value, if it is a finite number (not a BigInt, and not
// so large that it is Infinity, which JSON cannot hold).
func number(n *ast.NumberLiteral) (float64, bool) {
	var f float64
	switch v := n.Value.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	default:
		return 0, false
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

func numberJSON(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func stringJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var (
	idxType = reflect.TypeFor[file.Idx]()
	astPath = reflect.TypeFor[ast.Program]().PkgPath()
)

// skeleton writes the tree under root as text that two programs share exactly when they
// differ only in the literals of kinds (each written as its kind alone), comments,
// whitespace and how they wrote the rest (quotes, number notation): every node's type
// and fields in order, without positions, raw source text or the declaration lists
// that repeat what the body holds. It is a prefix notation (a type's fields are a
// fixed list, a slice begins with its length), so it needs no closing marks and its
// stack holds only what is still to write. Like jsprep.Walk, it keeps its own stack.
func skeleton(root ast.Node, kinds map[ast.Node]byte) []byte {
	var b []byte
	fields := map[reflect.Type]structFields{}
	stack := []reflect.Value{reflect.ValueOf(root)}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface:
			if v.IsNil() {
				b = append(b, '~')
				continue
			}
			stack = append(stack, v.Elem())
		case reflect.Pointer:
			if v.IsNil() {
				b = append(b, '~')
				continue
			}
			if n, ok := v.Interface().(ast.Node); ok {
				if k, ok := kinds[n]; ok {
					b = append(b, 0, k)
					continue
				}
			}
			if v.Elem().Kind() == reflect.Struct && v.Elem().Type().PkgPath() == astPath {
				stack = append(stack, v.Elem())
			} else if s, ok := v.Interface().(fmt.Stringer); ok { // a BigInt's *big.Int
				b = append(append(b, s.String()...), ' ')
			}
		case reflect.Struct:
			t := v.Type()
			fs, ok := fields[t]
			if !ok {
				fs = skeletonFields(t)
				fields[t] = fs
			}
			b = append(b, fs.name...)
			for _, i := range slices.Backward(fs.index) {
				stack = append(stack, v.Field(i))
			}
		case reflect.Slice:
			b = append(strconv.AppendInt(append(b, '['), int64(v.Len()), 10), ' ')
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, v.Index(i))
			}
		case reflect.String:
			b = strconv.AppendQuote(b, v.String())
		case reflect.Bool:
			b = strconv.AppendBool(b, v.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			b = append(strconv.AppendInt(b, v.Int(), 10), ' ')
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			b = append(strconv.AppendUint(b, v.Uint(), 10), ' ')
		case reflect.Float32, reflect.Float64:
			b = append(strconv.AppendFloat(b, v.Float(), 'g', -1, 64), ' ')
		}
	}
	return b
}

// structFields is what skeleton writes of a struct type: "(", its name and a space,
// then the fields at index, in order; nothing for a type outside goja's ast package.
type structFields struct {
	name  string
	index []int
}

func skeletonFields(t reflect.Type) structFields {
	if t.PkgPath() != astPath {
		return structFields{}
	}
	fs := structFields{name: "(" + t.Name() + " "}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && f.Type != idxType && f.Name != "Literal" && f.Name != "Source" && f.Name != "DeclarationList" {
			fs.index = append(fs.index, i)
		}
	}
	return fs
}

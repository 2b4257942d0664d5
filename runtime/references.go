package runtime

import (
	"errors"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// Reference is a static access to a member of a global in a program: global.name or
// global["name"]. Line and Column (1-based, in characters) point at the member's name
// in the model's own text. A Reference is a plain value.
type Reference struct {
	Member       string
	Line, Column int
}

// References checks code as Prepare does and lists, in source order, the members of
// global that it names statically (dynamic accesses such as global[name] are not
// listed). A program that does not parse fails with the same *Failure as Prepare. It is
// meant for tools that check programs without running them (runcode check), not for
// the run path.
func References(code, global string, opts *PrepareOptions) ([]Reference, error) {
	if _, err := Prepare(code, opts); err != nil {
		return nil, err
	}
	wrapped := wrapOpen + code + wrapClose
	prg, err := parser.ParseFile(nil, "program.js", wrapped, 0, parser.WithDisableSourceMaps)
	if err != nil { // TypeScript: walk esbuild's output, mapped back through its source map
		res := api.Transform(wrapped, tsOptions)
		if len(res.Errors) > 0 {
			return nil, errors.New(res.Errors[0].Text)
		}
		srcMap := gojaSourceMap(string(res.Code), res.Map)
		prg, err = parser.ParseFile(nil, "program.ts", string(res.Code)+"\n//# sourceMappingURL="+sourceMapURL+"\n", 0,
			parser.WithSourceMapLoader(func(string) ([]byte, error) { return srcMap, nil }))
		if err != nil {
			return nil, err
		}
	}
	var out []Reference
	add := func(member string, idx int) {
		pos := prg.File.Position(idx - prg.File.Base())
		col := pos.Column
		if pos.Line == 1 {
			col -= utf8.RuneCountInString(wrapOpen)
		}
		col = max(col, 1)
		out = append(out, Reference{Member: member, Line: pos.Line, Column: col})
	}
	walk(reflect.ValueOf(prg), func(n any) {
		switch e := n.(type) {
		case *ast.DotExpression:
			if id, ok := e.Left.(*ast.Identifier); ok && id.Name.String() == global {
				add(e.Identifier.Name.String(), int(e.Identifier.Idx))
			}
		case *ast.BracketExpression:
			if id, ok := e.Left.(*ast.Identifier); ok && id.Name.String() == global {
				if s, ok := e.Member.(*ast.StringLiteral); ok {
					add(s.Value.String(), int(s.Idx)+1) // the name, inside the quotes
				}
			}
		}
	})
	slices.SortStableFunc(out, func(a, b Reference) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return out, nil
}

var nodeType = reflect.TypeFor[ast.Node]()

// walk calls visit for every AST node reachable from v, in source order. goja's ast
// package has no walker, so this one follows struct fields, pointers, interfaces and slices
// by reflection; it is only used off the hot path. It keeps its own stack: a member chain
// such as o.a.a.… nests without bound (MaxNesting does not count it), and a recursive walk
// over a long enough one overflows the goroutine's stack, which is fatal.
func walk(v reflect.Value, visit func(any)) {
	stack := []reflect.Value{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				stack = append(stack, v.Elem())
			}
		case reflect.Pointer:
			if v.IsNil() {
				continue
			}
			if v.Type().Implements(nodeType) {
				visit(v.Interface())
			}
			if v.Elem().Kind() == reflect.Struct && v.Elem().Type().PkgPath() == "github.com/dop251/goja/ast" {
				stack = append(stack, v.Elem())
			}
		case reflect.Struct:
			for i := v.NumField() - 1; i >= 0; i-- { // reversed: the stack pops the first field first
				if v.Type().Field(i).IsExported() {
					stack = append(stack, v.Field(i))
				}
			}
		case reflect.Slice:
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, v.Index(i))
			}
		}
	}
}

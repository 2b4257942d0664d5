package jsprep

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
	"github.com/evanw/esbuild/pkg/api"
)

// Reference is an access to a member of a global, as runtime.Reference. A plain value.
type Reference struct {
	Member       string
	Line, Column int
	Dynamic      bool
}

// References lists the program's accesses to members of global, as runtime.References
// says; a program Prepare refuses fails with the same *Failure.
func References(code, global string, maxBytes int) ([]Reference, error) {
	prg, err := parseForCheck(code, maxBytes)
	if err != nil {
		return nil, err
	}
	var out []Reference
	add := func(member string, idx int, dynamic bool) {
		line, col := checkPosition(prg, idx)
		out = append(out, Reference{Member: member, Line: line, Column: col, Dynamic: dynamic})
	}
	names := aliases(prg, global)
	// A parameter or local of the same name hides the global where it is in scope.
	hidden := shadowed(prg, map[string]bool{global: true})
	// consumed: identifiers of global and aliases an access accounts for; the rest are dynamic.
	consumed := map[*ast.Identifier]bool{}
	// holder returns the global (or alias) identifier e is, through optional chaining.
	holder := func(e ast.Expression) *ast.Identifier {
		if o, ok := e.(*ast.Optional); ok {
			e = o.Expression
		}
		if id, ok := e.(*ast.Identifier); ok && names[id.Name.String()] && !hidden[id] {
			return id
		}
		return nil
	}
	destructure := func(pattern ast.Expression, source ast.Expression) {
		id := holder(source)
		if id == nil {
			return
		}
		switch p := pattern.(type) {
		case *ast.Identifier: // an alias, followed through its own uses
			consumed[id] = true
		case *ast.ObjectPattern:
			consumed[id] = true
			for _, prop := range p.Properties {
				switch prop := prop.(type) {
				case *ast.PropertyShort:
					add(prop.Name.Name.String(), int(prop.Name.Idx), false)
				case *ast.PropertyKeyed:
					if name, idx, ok := staticKey(prop.Key); ok {
						add(name, idx, false)
					} else {
						add("", int(id.Idx), true)
					}
				}
			}
			if p.Rest != nil {
				add("", int(id.Idx), true)
			}
		}
	}
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.DotExpression:
			if id := holder(e.Left); id != nil {
				consumed[id] = true
				add(e.Identifier.Name.String(), int(e.Identifier.Idx), false)
			}
		case *ast.BracketExpression:
			if id := holder(e.Left); id != nil {
				if name, idx, ok := staticKey(e.Member); ok {
					consumed[id] = true
					add(name, idx, false)
				}
			}
		case *ast.Binding:
			destructure(bindingExpr(e.Target), e.Initializer)
		case *ast.AssignExpression:
			if e.Operator == token.ASSIGN {
				destructure(e.Left, e.Right)
			}
		}
	})
	// Declarations and assignments name bindings; they are not uses.
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.Binding:
			if id, ok := e.Target.(*ast.Identifier); ok {
				consumed[id] = true
			}
		case *ast.AssignExpression:
			if id, ok := e.Left.(*ast.Identifier); ok {
				consumed[id] = true
			}
		case *ast.FunctionLiteral:
			consumed[e.Name] = true
		case *ast.ClassLiteral:
			consumed[e.Name] = true
		case *ast.CatchStatement:
			if id, ok := e.Parameter.(*ast.Identifier); ok {
				consumed[id] = true
			}
		}
	})
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.Identifier:
			if names[e.Name.String()] && !consumed[e] && !hidden[e] {
				add("", int(e.Idx), true)
			}
		case *ast.ObjectLiteral: // { tools } passes the global on as a value
			for _, prop := range e.Value {
				if p, ok := prop.(*ast.PropertyShort); ok && names[p.Name.Name.String()] && !hidden[&p.Name] {
					add("", int(p.Name.Idx), true)
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

// parseForCheck checks code as Prepare does and parses it for the static checks below.
func parseForCheck(code string, maxBytes int) (*ast.Program, error) {
	if _, err := Prepare(code, maxBytes); err != nil {
		return nil, err
	}
	p, err := Parse(code, maxBytes)
	if err != nil {
		return nil, err
	}
	return p.Tree, nil
}

// Parsed is a program parsed as Prepare parses it, for an analysis that reads its tree
// rather than runs it. A Parsed is a plain value; its tree is not to be changed.
type Parsed struct {
	// Tree is the wrapped program's syntax tree. Its nodes' indices, less
	// Tree.File.Base(), are offsets in Text; for TypeScript, Tree.File maps positions
	// back to the model's text through esbuild's source map.
	Tree *ast.Program
	// Text is what Tree was parsed from: the wrapped program after intake, or for
	// TypeScript the JavaScript esbuild stripped it to (followed by its source-map
	// comment), in which esbuild may have put helpers before the wrapper.
	Text string
	// Body is the async wrapper's body in Tree; nil when the program closes the wrapper.
	Body *ast.BlockStatement
	// TypeScript reports whether the program needed TypeScript stripping.
	TypeScript bool
}

// Parse parses code as Prepare does: the size bound, intake, the async wrapper, and
// plain JavaScript first, TypeScript through esbuild's output when that fails. It makes
// none of Prepare's other checks and compiles nothing. A program that does not parse
// fails with the *Failure Prepare gives it.
func Parse(code string, maxBytes int) (*Parsed, error) {
	if f := CheckSize(code, maxBytes); f != nil {
		return nil, f
	}
	text := WrapOpen + normalize(code) + wrapClose
	prg, err := parser.ParseFile(nil, "program.js", text, 0, parser.WithDisableSourceMaps)
	typescript := err != nil
	if typescript { // walk esbuild's output, mapped back through its source map
		res := api.Transform(text, tsOptions)
		if len(res.Errors) == 0 {
			srcMap := gojaSourceMap(string(res.Code), res.Map)
			text = string(res.Code) + "\n//# sourceMappingURL=" + sourceMapURL + "\n"
			prg, err = parser.ParseFile(nil, "program.ts", text, 0,
				parser.WithSourceMapLoader(func(string) ([]byte, error) { return srcMap, nil }))
		}
		if len(res.Errors) > 0 || err != nil {
			if _, perr := Prepare(code, maxBytes); perr != nil {
				return nil, perr // the failure a run of it reports
			}
			return nil, errors.New("the program does not parse")
		}
	}
	return &Parsed{Tree: prg, Text: text, Body: wrapperBody(prg), TypeScript: typescript}, nil
}

// checkPosition is the 1-based line and column of idx in the model's own text.
func checkPosition(prg *ast.Program, idx int) (line, col int) {
	pos := prg.File.Position(idx - prg.File.Base())
	col = pos.Column
	if pos.Line == 1 {
		col -= utf8.RuneCountInString(WrapOpen)
	}
	return pos.Line, max(col, 1)
}

// Warning is a pattern that works but is likely slow or a mistake. A plain value.
type Warning struct {
	Line, Column int
	Message      string
}

// Warnings lists the patterns runtime.Warnings describes (globals are the namespaces);
// a program Prepare refuses fails with the same *Failure.
func Warnings(code string, globals []string, maxBytes int) ([]Warning, error) {
	prg, err := parseForCheck(code, maxBytes)
	if err != nil {
		return nil, err
	}
	var out []Warning
	for _, g := range globals {
		out = append(out, unawaited(prg, g)...)
	}
	strs := map[string]bool{}
	var loops []ast.Statement
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.Binding:
			if id, ok := e.Target.(*ast.Identifier); ok {
				switch e.Initializer.(type) {
				case *ast.StringLiteral, *ast.TemplateLiteral:
					strs[id.Name.String()] = true
				}
			}
		case *ast.ForStatement:
			loops = append(loops, e.Body)
		case *ast.ForInStatement:
			loops = append(loops, e.Body)
		case *ast.ForOfStatement:
			loops = append(loops, e.Body)
		case *ast.WhileStatement:
			loops = append(loops, e.Body)
		case *ast.DoWhileStatement:
			loops = append(loops, e.Body)
		}
	})
	seen := map[int]bool{}
	for _, body := range loops {
		Walk(body, func(n any) {
			e, ok := n.(*ast.AssignExpression)
			if !ok || e.Operator != token.PLUS {
				return
			}
			id, ok := e.Left.(*ast.Identifier)
			if !ok || !strs[id.Name.String()] || seen[int(id.Idx)] {
				return
			}
			seen[int(id.Idx)] = true
			line, col := checkPosition(prg, int(id.Idx))
			out = append(out, Warning{Line: line, Column: col, Message: "`" + id.Name.String() +
				" += …` in a loop copies the whole string on every append; push the parts to an array and join them once"})
		})
	}
	slices.SortFunc(out, func(a, b Warning) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return out, nil
}

// aliases returns global and the names bound or assigned to it, directly or through
// other aliases (const t = tools; let u; u = t).
func aliases(prg *ast.Program, global string) map[string]bool {
	edges := map[string][]string{} // source name -> names bound to it
	link := func(target ast.Expression, source ast.Expression) {
		if o, ok := source.(*ast.Optional); ok {
			source = o.Expression
		}
		t, ok1 := target.(*ast.Identifier)
		s, ok2 := source.(*ast.Identifier)
		if ok1 && ok2 && t.Name != s.Name {
			edges[s.Name.String()] = append(edges[s.Name.String()], t.Name.String())
		}
	}
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.Binding:
			link(bindingExpr(e.Target), e.Initializer)
		case *ast.AssignExpression:
			if e.Operator == token.ASSIGN {
				link(e.Left, e.Right)
			}
		}
	})
	names := map[string]bool{global: true}
	queue := []string{global}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range edges[n] {
			if !names[m] {
				names[m] = true
				queue = append(queue, m)
			}
		}
	}
	return names
}

// bindingExpr returns a binding target as an expression, or nil.
func bindingExpr(t ast.BindingTarget) ast.Expression {
	e, _ := t.(ast.Expression)
	return e
}

// staticKey returns the name a member expression or property key names statically, and
// its first character's index: a string literal (inside its quotes; an identifier key is
// one without quotes), or a template literal without substitutions.
func staticKey(e ast.Expression) (string, int, bool) {
	switch k := e.(type) {
	case *ast.StringLiteral:
		idx := int(k.Idx)
		if strings.HasPrefix(k.Literal, `"`) || strings.HasPrefix(k.Literal, "'") {
			idx++
		}
		return k.Value.String(), idx, true
	case *ast.TemplateLiteral:
		if k.Tag == nil && len(k.Expressions) == 0 && len(k.Elements) == 1 && k.Elements[0].Valid {
			return k.Elements[0].Parsed.String(), int(k.OpenQuote) + 1, true
		}
	}
	return "", 0, false
}

var nodeType = reflect.TypeFor[ast.Node]()

// Walk calls visit for every AST node reachable from root (a node, or a value that holds
// nodes), in source order, by reflection (goja's ast has no walker; off the hot path). It
// keeps its own stack: a recursive walk over a long enough member chain (o.a.a.…)
// overflows the goroutine's stack, fatally.
func Walk(root any, visit func(any)) {
	stack := []reflect.Value{reflect.ValueOf(root)}
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

package jsprep

import "github.com/dop251/goja/ast"

// shadowed returns the identifiers named in names that sit where a local binding of
// that name hides the global: in a function whose parameter has the name, or in a
// block that declares it (let, const or var; a var is taken as scoped to its block,
// which only errs towards counting a use as the global's).
func shadowed(prg *ast.Program, names map[string]bool) map[*ast.Identifier]bool {
	out := map[*ast.Identifier]bool{}
	hide := func(scope any, name string) {
		Walk(scope, func(n any) {
			if id, ok := n.(*ast.Identifier); ok && id.Name.String() == name {
				out[id] = true
			}
		})
	}
	params := func(pl *ast.ParameterList, body any) {
		if pl == nil {
			return
		}
		for _, b := range pl.List {
			for _, name := range boundNames(b.Target) {
				if names[name] {
					hide(pl, name)
					hide(body, name)
				}
			}
		}
		if pl.Rest != nil {
			for _, name := range boundNames(pl.Rest) {
				if names[name] {
					hide(pl, name)
					hide(body, name)
				}
			}
		}
	}
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.FunctionLiteral:
			params(e.ParameterList, e.Body)
		case *ast.ArrowFunctionLiteral:
			params(e.ParameterList, e.Body)
		case *ast.BlockStatement:
			for _, st := range e.List {
				var list []*ast.Binding
				switch d := st.(type) {
				case *ast.LexicalDeclaration:
					list = d.List
				case *ast.VariableStatement:
					list = d.List
				}
				for _, b := range list {
					for _, name := range boundNames(b.Target) {
						if names[name] {
							hide(e, name)
						}
					}
				}
			}
		}
	})
	return out
}

// boundNames lists the names a binding target binds: an identifier, or the
// identifiers of a destructuring pattern, one level deep (a default value's expression
// binds nothing).
func boundNames(t any) []string {
	switch e := t.(type) {
	case *ast.Identifier:
		return []string{e.Name.String()}
	case *ast.ObjectPattern:
		var out []string
		for _, p := range e.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				out = append(out, p.Name.Name.String())
			case *ast.PropertyKeyed:
				out = append(out, boundNames(p.Value)...)
			}
		}
		return append(out, boundNames(e.Rest)...)
	case *ast.ArrayPattern:
		var out []string
		for _, el := range e.Elements {
			out = append(out, boundNames(el)...)
		}
		return append(out, boundNames(e.Rest)...)
	case *ast.AssignExpression: // a target with a default value
		return boundNames(e.Left)
	}
	return nil
}

// unawaited warns about calls of global's members (through aliases) whose value is used
// as the result without await: global.x(…).field, or const r = global.x(…); r.field with
// r never awaited nor handed on. then, catch and finally use it as the promise it is.
func unawaited(prg *ast.Program, global string) []Warning {
	names := aliases(prg, global)
	hidden := shadowed(prg, map[string]bool{global: true})
	// call returns the member of global that e calls, or "".
	call := func(e ast.Expression) (string, bool) {
		c, ok := e.(*ast.CallExpression)
		if !ok {
			return "", false
		}
		d, ok := c.Callee.(*ast.DotExpression)
		if !ok {
			return "", false
		}
		id, ok := d.Left.(*ast.Identifier)
		if !ok || !names[id.Name.String()] || hidden[id] {
			return "", false
		}
		return d.Identifier.Name.String(), true
	}
	promiseMember := func(name string) bool { return name == "then" || name == "catch" || name == "finally" }
	var out []Warning
	warn := func(idx int, member, how string) {
		line, col := checkPosition(prg, idx)
		out = append(out, Warning{Line: line, Column: col, Message: "`" + global + "." + member + "(…)` is not awaited, so " + how +
			" reads a property of a Promise, not of the result: write `(await " + global + "." + member + "(…))`"})
	}
	// Variables initialized with a call, and what is done with them.
	initialized := map[string]string{} // variable -> member it holds the call of
	initIdx := map[string]int{}
	settled := map[string]bool{} // awaited, or handed on (an argument, an array element, returned)
	Walk(prg, func(n any) {
		switch e := n.(type) {
		case *ast.DotExpression:
			if m, ok := call(e.Left); ok && !promiseMember(e.Identifier.Name.String()) {
				warn(int(e.Identifier.Idx), m, "`."+e.Identifier.Name.String()+"`")
			}
		case *ast.Binding:
			if id, ok := e.Target.(*ast.Identifier); ok {
				if m, ok := call(e.Initializer); ok {
					initialized[id.Name.String()] = m
					initIdx[id.Name.String()] = int(id.Idx)
				}
			}
		case *ast.AwaitExpression:
			if id, ok := e.Argument.(*ast.Identifier); ok {
				settled[id.Name.String()] = true
			}
		case *ast.CallExpression:
			for _, a := range e.ArgumentList {
				if id, ok := a.(*ast.Identifier); ok {
					settled[id.Name.String()] = true
				}
			}
		case *ast.ArrayLiteral:
			for _, v := range e.Value {
				if id, ok := v.(*ast.Identifier); ok {
					settled[id.Name.String()] = true
				}
			}
		case *ast.ReturnStatement:
			if id, ok := e.Argument.(*ast.Identifier); ok {
				settled[id.Name.String()] = true
			}
		}
	})
	Walk(prg, func(n any) {
		d, ok := n.(*ast.DotExpression)
		if !ok {
			return
		}
		id, ok := d.Left.(*ast.Identifier)
		if !ok {
			return
		}
		name := id.Name.String()
		if m, ok := initialized[name]; ok && !settled[name] && !promiseMember(d.Identifier.Name.String()) {
			warn(int(d.Identifier.Idx), m, "`"+name+"."+d.Identifier.Name.String()+"`")
			settled[name] = true // once per variable
		}
	})
	return out
}

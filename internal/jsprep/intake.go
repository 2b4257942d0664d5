package jsprep

import (
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// Program intake forgives what models write around a program. Each rewrite keeps every
// line and column where it was, so that error positions still point into the model's text.

// normalize returns code with a surrounding markdown code fence and a leading `export
// default` blanked, in one linear pass.
func normalize(code string) string {
	code = stripFence(code)
	return blankExportDefault(code)
}

// stripFence blanks a markdown code fence: when the text, after blank lines, opens with a
// line "```" (with an optional language tag), that line, the closing "```" line and any
// prose after it are emptied. A program cannot itself begin with "```".
func stripFence(code string) string {
	start := 0
	for start < len(code) {
		end := strings.IndexByte(code[start:], '\n')
		if end < 0 {
			end = len(code) - start
		}
		if strings.TrimSpace(code[start:start+end]) != "" {
			break
		}
		start += end + 1
	}
	if start >= len(code) {
		return code
	}
	lineEnd := strings.IndexByte(code[start:], '\n')
	if lineEnd < 0 {
		return code // a fence and nothing else, or not a fence
	}
	open := strings.TrimSpace(code[start : start+lineEnd])
	if !strings.HasPrefix(open, "```") || !fenceTag(open[3:]) {
		return code
	}
	var b strings.Builder
	b.Grow(len(code))
	b.WriteString(code[:start])  // blank lines only
	body := code[start+lineEnd:] // from the newline that ends the opening fence
	// The closing fence is the first line that is "```" alone.
	pos := 0
	for pos < len(body) {
		nl := strings.IndexByte(body[pos+1:], '\n')
		var line string
		if nl < 0 {
			line = body[pos+1:]
		} else {
			line = body[pos+1 : pos+1+nl]
		}
		if strings.TrimSpace(line) == "```" {
			b.WriteString(body[:pos+1])
			// Blank the fence and whatever follows, keeping the line breaks.
			b.WriteString(strings.Repeat("\n", strings.Count(body[pos+1:], "\n")))
			return b.String()
		}
		if nl < 0 {
			break
		}
		pos += 1 + nl
	}
	b.WriteString(body) // no closing fence: only the opening one goes
	return b.String()
}

// fenceTag reports whether what follows an opening "```" is empty or a JS/TS language tag.
func fenceTag(tag string) bool {
	switch strings.ToLower(strings.TrimSpace(tag)) {
	case "", "js", "javascript", "ts", "typescript", "jsx", "tsx", "mjs", "cjs":
		return true
	}
	return false
}

// blankExportDefault turns a program that opens with `export default` and a function into
// one that evaluates the function ("void" padded to the same length), which
// callFunctionProgram then calls. Any other `export default` stays, and fails to parse.
func blankExportDefault(code string) string {
	i := 0
	for i < len(code) && isSpace(code[i]) {
		i++
	}
	const kw = "export default"
	rest, ok := strings.CutPrefix(code[i:], kw)
	if !ok || rest == "" || !isSpace(rest[0]) {
		return code
	}
	fn := strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(fn, "function") && !strings.HasPrefix(fn, "async") && !strings.HasPrefix(fn, "(") {
		return code
	}
	return code[:i] + voidPad + rest
}

// voidPad replaces "export default": the same length, so columns do not move.
const voidPad = "void          "

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// msgFunctionProgram: a function with parameters, which runcode cannot know how to call.
const msgFunctionProgram = "the program only defines a function, and nothing calls it: the program is already the body of an async function, so write the body itself (top-level await and return work) instead of wrapping it in a function"

// callFunctionProgram handles a program whose only statement is a function (expression,
// possibly after void, or declaration), which would otherwise run nothing: one without
// parameters is called and its result returned; one with parameters gets the hint
// msgFunctionProgram. A program that returns a function is not one. It scans body (the
// wrapper's statements) once, rewrites it in place and returns the new list, or the hint.
func callFunctionProgram(body []ast.Statement) ([]ast.Statement, string) {
	only := -1
	for i, st := range body {
		if _, ok := st.(*ast.EmptyStatement); ok {
			continue
		}
		if only >= 0 {
			return body, "" // more than one statement
		}
		only = i
	}
	if only < 0 {
		return body, ""
	}
	var fn ast.Expression
	var params *ast.ParameterList
	var at file.Idx
	switch st := body[only].(type) {
	case *ast.ExpressionStatement:
		e := st.Expression
		if u, ok := e.(*ast.UnaryExpression); ok && u.Operator == token.VOID && !u.Postfix {
			e = u.Operand // export default, blanked as void
		}
		fn, params = functionExpression(e)
		at = st.Idx0()
	case *ast.FunctionDeclaration:
		if st.Function == nil || st.Function.Name == nil {
			return body, ""
		}
		name := st.Function.Name
		fn, params = &ast.Identifier{Name: name.Name, Idx: name.Idx}, st.Function.ParameterList
		at = st.Idx0()
		if hasParams(params) {
			return body, msgFunctionProgram
		}
		out := append(body[:only+1:only+1], &ast.ReturnStatement{Return: at, Argument: call(fn, at)})
		return out, ""
	}
	if fn == nil {
		return body, ""
	}
	if hasParams(params) {
		return body, msgFunctionProgram
	}
	out := append(body[:only:only], &ast.ReturnStatement{Return: at, Argument: call(fn, at)})
	return out, ""
}

// functionExpression returns e if it is a function or arrow expression, with its parameters.
func functionExpression(e ast.Expression) (ast.Expression, *ast.ParameterList) {
	switch f := e.(type) {
	case *ast.FunctionLiteral:
		return f, f.ParameterList
	case *ast.ArrowFunctionLiteral:
		return f, f.ParameterList
	}
	return nil, nil
}

func hasParams(p *ast.ParameterList) bool {
	return p != nil && (len(p.List) > 0 || p.Rest != nil)
}

func call(callee ast.Expression, at file.Idx) *ast.CallExpression {
	return &ast.CallExpression{Callee: callee, LeftParenthesis: at, RightParenthesis: at}
}

// wrapperBody returns the statement list of the async wrapper's body in a tree that
// checkWrapper accepted (after esbuild's helpers, for TypeScript), or nil.
func wrapperBody(tree *ast.Program) *ast.BlockStatement {
	stmts := tree.Body
	for len(stmts) > 1 && isHelper(stmts[0]) {
		stmts = stmts[1:]
	}
	if len(stmts) != 1 {
		return nil
	}
	st, ok := stmts[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	c, ok := st.Expression.(*ast.CallExpression)
	if !ok {
		return nil
	}
	arrow, ok := c.Callee.(*ast.ArrowFunctionLiteral)
	if !ok {
		return nil
	}
	body, _ := arrow.Body.(*ast.BlockStatement)
	return body
}

// callFunction applies callFunctionProgram to a parsed program; the hint is a Failure.
func callFunction(tree *ast.Program) *Failure {
	body := wrapperBody(tree)
	if body == nil {
		return nil
	}
	list, hint := callFunctionProgram(body.List)
	if hint != "" {
		return &Failure{Message: hint}
	}
	body.List = list
	return nil
}

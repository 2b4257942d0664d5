package jsprep

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// The async wrapper. The model's code starts on line 1 right after WrapOpen, so line N of
// the model's text is line N of the wrapped program; only columns on line 1 shift.
const (
	WrapOpen  = "(async () => {"
	wrapClose = "\n})()"
	// sourceMapURL names the in-memory source map of a stripped TypeScript program. The
	// parser's loader answers only this URL, so no program can make goja read a host file.
	sourceMapURL = "runcode://internal/program.map"
)

// Program is a prepared model program: parsed, wrapped and compiled. It is immutable and
// safe for concurrent use, and can be run any number of times on any VM.
type Program struct {
	// Compiled is the wrapped program, shared by every run of it.
	Compiled *goja.Program
	// TypeScript reports whether the program needed TypeScript stripping.
	TypeScript bool
	// Lines counts the model's lines; stack frames below them are the wrapper's.
	Lines int
	// Code is the model's text after intake: a run settles the host globals it names.
	Code string
}

// Failure is why a program cannot run (too large, or it does not parse): the message the
// model reads, with kind exception. A Failure is an immutable value.
type Failure struct{ Message string }

func (f *Failure) Error() string { return "exception: " + f.Message }

// Prepare turns model code into a Program, as runtime.Prepare says; a program over
// maxBytes (1 MiB when not positive) or that does not parse is a *Failure.
func Prepare(code string, maxBytes int) (*Program, error) {
	if f := CheckSize(code, maxBytes); f != nil {
		return nil, f
	}
	code = normalize(code)
	wrapped := WrapOpen + code + wrapClose
	tree, jsErr := parser.ParseFile(nil, "program.js", wrapped, 0, parser.WithDisableSourceMaps)
	if jsErr == nil {
		if e := checkWrapper(tree, code, false); e != nil {
			return nil, e.failure
		}
		if f := checkPropertyEscapes(tree, code); f != nil {
			return nil, f
		}
		if f := callFunction(tree); f != nil {
			return nil, f
		}
		prg, err := goja.CompileAST(tree, true)
		if err != nil {
			return nil, compileFailure(err, code)
		}
		return &Program{Compiled: prg, Lines: strings.Count(code, "\n") + 1, Code: code}, nil
	}
	prg, tsTree, tsErr := stripTypeScript(wrapped, code)
	if tsErr == nil {
		if f := checkPropertyEscapes(tsTree, code); f != nil {
			return nil, f
		}
		prg.Lines, prg.Code = strings.Count(code, "\n")+1, code
		return prg, nil
	}
	jsFail := parseFailure(jsErr, code)
	// When both fail, report the parser that got further (goja's on a tie), or a
	// TypeScript program that closed the wrapper.
	var tsFail *syntaxError
	if errors.As(tsErr, &tsFail) && (tsFail.wrapper || tsFail.after(jsFail)) {
		return nil, tsFail.failure
	}
	return nil, jsFail.failure
}

// CheckSize fails a program over max bytes (1 MiB when max is not positive).
func CheckSize(code string, max int) *Failure {
	limit := 1 << 20
	if max > 0 {
		limit = max
	}
	if len(code) > limit {
		return &Failure{Message: fmt.Sprintf("program of %d bytes exceeds the limit of %d bytes", len(code), limit)}
	}
	return nil
}

// tsOptions strips types and lowers only what goja lacks: goja supports everything from
// ES2017 to ES2022 natively, so a lower target would only add cost and helper code.
var tsOptions = api.TransformOptions{
	Loader:         api.LoaderTS,
	Target:         api.ESNext,
	Format:         api.FormatDefault,
	Platform:       api.PlatformNeutral,
	Sourcemap:      api.SourceMapExternal,
	SourcesContent: api.SourcesContentExclude,
	Sourcefile:     "program.ts",
	LogLevel:       api.LogLevelSilent,
	Charset:        api.CharsetUTF8,
	Supported: map[string]bool{
		"async-generator": false,
		"for-await":       false,
		"decorators":      false,
	},
}

// stripTypeScript returns a compiled Program, a *syntaxError for esbuild's syntax errors, or
// another error when goja rejects esbuild's output.
func stripTypeScript(wrapped, code string) (*Program, *ast.Program, error) {
	res := api.Transform(wrapped, tsOptions)
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		line, col := 0, 0
		if m.Location != nil {
			line = m.Location.Line
			// esbuild columns are 0-based bytes; report 1-based characters.
			lt := m.Location.LineText
			c := m.Location.Column
			if c > len(lt) {
				c = len(lt)
			}
			col = utf8.RuneCountInString(lt[:c]) + 1
		}
		return nil, nil, syntaxFailure(m.Text, line, col, code)
	}
	src := string(res.Code) + "\n//# sourceMappingURL=" + sourceMapURL + "\n"
	srcMap := gojaSourceMap(string(res.Code), res.Map)
	tree, err := parser.ParseFile(nil, "program.ts", src, 0, parser.WithSourceMapLoader(func(p string) ([]byte, error) {
		if p == sourceMapURL {
			return srcMap, nil
		}
		return nil, errors.New("source maps are not loaded")
	}))
	if err != nil {
		return nil, nil, err
	}
	if e := checkWrapper(tree, code, true); e != nil {
		return nil, nil, e
	}
	if f := callFunction(tree); f != nil {
		// Not a syntax error: reported as is, whatever goja's parser said.
		return nil, nil, &syntaxError{failure: f, wrapper: true}
	}
	prg, err := goja.CompileAST(tree, true)
	if err != nil {
		return nil, nil, err
	}
	return &Program{Compiled: prg, TypeScript: true}, tree, nil
}

// syntaxError is a parse error positioned in the model's own text.
type syntaxError struct {
	line, col int
	failure   *Failure
	wrapper   bool // the program closed the async wrapper (or is a function to call): report this one
}

func (e *syntaxError) Error() string { return e.failure.Error() }

func (e *syntaxError) after(o *syntaxError) bool {
	return e.line > o.line || e.line == o.line && e.col > o.col
}

// parseFailure converts a goja parser error into an exception failure.
func parseFailure(err error, code string) *syntaxError {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e := list[0]
		return syntaxFailure(e.Message, e.Position.Line, e.Position.Column, code)
	}
	return &syntaxError{failure: &Failure{Message: "SyntaxError: " + err.Error()}}
}

// compileFailure converts an early error the parser let through into an exception failure.
func compileFailure(err error, code string) *Failure {
	var se *goja.CompilerSyntaxError
	if errors.As(err, &se) {
		line, col := 0, 0
		if se.File != nil {
			p := se.File.Position(se.Offset)
			line, col = p.Line, p.Column
		}
		return syntaxFailure(se.Message, line, col, code).failure
	}
	var re *goja.CompilerReferenceError
	if errors.As(err, &re) {
		return &Failure{Message: "ReferenceError: " + re.Message}
	}
	return &Failure{Message: "SyntaxError: " + err.Error()}
}

// syntaxFailure formats a syntax error at a 1-based line and column of the wrapped program
// as the model sees it: message, position in its own text, the offending line and a caret.
func syntaxFailure(msg string, line, col int, code string) *syntaxError {
	if line == 1 {
		col -= utf8.RuneCountInString(WrapOpen)
	}
	lines := strings.Split(code, "\n")
	if line < 1 || line > len(lines) {
		// In the wrapper's closing line: the code ended early. Point at the end of the
		// model's last line, without naming the wrapper's tokens.
		msg = "Unexpected end of input"
		line = len(lines)
		col = utf8.RuneCountInString(lines[line-1]) + 1
	}
	if col < 1 {
		col = 1
	}
	text, at := excerpt(strings.TrimRight(lines[line-1], "\r"), col-1)
	caret := strings.Repeat(" ", at) + "^"
	m := fmt.Sprintf("SyntaxError: %s (line %d, column %d)\n    %s\n    %s", msg, line, col, text, caret)
	if usesModules(text) {
		m += "\n" + importHint
	}
	return &syntaxError{line: line, col: col, failure: &Failure{Message: m}}
}

// excerptRunes bounds the offending line shown: a program can be one line of a megabyte.
const excerptRunes = 160

// excerpt returns line, or a window of it around the 0-based rune index col marked with
// ellipses when the line is longer than excerptRunes, and col's index in what it returns.
func excerpt(line string, col int) (string, int) {
	n := utf8.RuneCountInString(line)
	col = min(col, n)
	if n <= excerptRunes {
		return line, col
	}
	runes := []rune(line)
	from := max(0, min(col-excerptRunes/2, n-excerptRunes))
	to := min(n, from+excerptRunes)
	text := string(runes[from:to])
	at := col - from
	if from > 0 {
		text, at = "…"+text, at+1
	}
	if to < n {
		text += "…"
	}
	return text, at
}

// checkPropertyEscapes rejects a regular expression literal with a Unicode property escape
// (\p{L}) under the u or v flag: goja accepts it and it never matches, so the program would
// silently compute a wrong answer. Programs without "\p{" or "\P{" are not walked.
func checkPropertyEscapes(tree *ast.Program, code string) *Failure {
	if !strings.Contains(code, `\p{`) && !strings.Contains(code, `\P{`) {
		return nil
	}
	var found *ast.RegExpLiteral
	Walk(tree, func(n any) {
		if re, ok := n.(*ast.RegExpLiteral); ok && found == nil && strings.ContainsAny(re.Flags, "uv") &&
			(strings.Contains(re.Pattern, `\p{`) || strings.Contains(re.Pattern, `\P{`)) {
			found = re
		}
	})
	if found == nil {
		return nil
	}
	pos := tree.File.Position(int(found.Idx) - tree.File.Base())
	return syntaxFailure("Unicode property escapes such as \\p{L} are not supported here (they would never match); use explicit ranges such as [A-Za-z\\u00C0-\\u024F]",
		pos.Line, pos.Column, code).failure
}

// checkWrapper rejects a program that closes the async wrapper itself, as in
// "return 1 })(); globalThis.z = 5; (async function () {", which would run code outside
// the body. The tree must be one argumentless call of the async arrow (after esbuild's
// helpers), whose body in plain JavaScript ends at the wrapper's own brace. The error
// points at the model's closing brace.
func checkWrapper(tree *ast.Program, code string, typescript bool) *syntaxError {
	stmts := tree.Body
	for typescript && len(stmts) > 1 && isHelper(stmts[0]) {
		stmts = stmts[1:]
	}
	var arrow *ast.ArrowFunctionLiteral
	if len(stmts) > 0 {
		if st, ok := stmts[0].(*ast.ExpressionStatement); ok {
			arrow = leftmostArrow(st.Expression)
		}
	}
	var body *ast.BlockStatement
	if arrow != nil {
		body, _ = arrow.Body.(*ast.BlockStatement)
	}
	if body != nil && len(stmts) == 1 && arrow.Async {
		call, ok := stmts[0].(*ast.ExpressionStatement).Expression.(*ast.CallExpression)
		closing := int(body.RightBrace) - tree.File.Base()
		if ok && call.Callee == ast.Expression(arrow) && len(call.ArgumentList) == 0 &&
			(typescript || closing == len(WrapOpen)+len(code)+len(wrapClose)-len("})()")) {
			return nil
		}
	}
	line, col := 0, 0 // the end of the code, unless the brace is found
	if body != nil {
		pos := tree.File.Position(int(body.RightBrace) - tree.File.Base())
		line, col = pos.Line, pos.Column
	}
	e := syntaxFailure("Unexpected token }", line, col, code)
	e.wrapper = true
	return e
}

// isHelper reports whether a statement is one of the helpers esbuild puts before the
// program it lowers (var __asyncGenerator = …).
func isHelper(st ast.Statement) bool {
	v, ok := st.(*ast.VariableStatement)
	if !ok || len(v.List) == 0 {
		return false
	}
	for _, b := range v.List {
		if id, ok := b.Target.(*ast.Identifier); !ok || !strings.HasPrefix(id.Name.String(), "__") {
			return false
		}
	}
	return true
}

// leftmostArrow returns the arrow function that begins an expression, if one does: where
// the wrapper's arrow ends up when the model's code closed it early.
func leftmostArrow(e ast.Expression) *ast.ArrowFunctionLiteral {
	for {
		if x, ok := e.(*ast.ArrowFunctionLiteral); ok {
			return x
		}
		child, ok := leftChild(e)
		if !ok {
			return nil
		}
		e = child
	}
}

// leftChild returns the expression an expression's text begins with, if it begins with
// another: the left operand, the callee, the object of a member, a tagged template's tag.
func leftChild(e ast.Expression) (ast.Expression, bool) {
	switch x := e.(type) {
	case *ast.CallExpression:
		return x.Callee, true
	case *ast.SequenceExpression:
		if len(x.Sequence) == 0 {
			return nil, false
		}
		return x.Sequence[0], true
	case *ast.BinaryExpression:
		return x.Left, true
	case *ast.ConditionalExpression:
		return x.Test, true
	case *ast.DotExpression:
		return x.Left, true
	case *ast.PrivateDotExpression:
		return x.Left, true
	case *ast.BracketExpression:
		return x.Left, true
	case *ast.AssignExpression:
		return x.Left, true
	case *ast.TemplateLiteral:
		return x.Tag, x.Tag != nil
	case *ast.OptionalChain:
		return x.Expression, true
	case *ast.Optional:
		return x.Expression, true
	case *ast.UnaryExpression:
		return x.Operand, x.Postfix
	}
	return nil, false
}

// importHint follows a syntax error on a line with import or export, which models try first.
const importHint = "Programs cannot import or export modules: tools, console and the other globals are already in scope."

func usesModules(line string) bool {
	t := strings.TrimSpace(line)
	for _, p := range []string{"import ", "import{", "import*", "export ", "export{"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return strings.Contains(t, "import(")
}

package runtime

import (
	"encoding/json"
	"math/big"
	"reflect"
	"sort"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// The BigInt operators. `**`, `<<` and `>>` are VM instructions, which no wrapper reaches,
// and with BigInt operands one step can ask for any amount of memory: 1n << 2n ** 38n
// asks the Go runtime for 32 GiB at once, and the process dies. Code with these operators
// (the program, and what eval and the Function constructors compile) is therefore
// rewritten before it is compiled, so that the operands pass through the checks of
// bigIntOpsSrc first:
//
//	L ** R    →  __runcode$.b(L) ** __runcode$.e(R)
//	L << R    →  __runcode$.b(L) << __runcode$.l(R)        (>> with r)
//	T op= R   →  T = __runcode$.b(T) op __runcode$.e(R)    (l, r for shifts)
//	T <<= R   →  T <<= __runcode$.a(R)   for a target that cannot be read twice
//
// b, e, l and r return objects that the operator itself converts, in its own order and
// right after each other: b's conversion records the left operand, e's (or l's, r's)
// checks the right one against it, and nothing the program runs can come between the two.
// Evaluation and conversion order are kept. A right operand that is a Number literal
// needs no check (with a BigInt on the left the operator throws a TypeError), nor does a
// BigInt literal shift within 2^20. The rewritten code is parsed again and every operator
// in it must have its operands in their checks (opsChecked), or the code is refused. The
// rewrite inserts text within lines only; stack frames' columns are mapped back to the
// model's text (Program.column, and the TypeScript source map). A program may not name
// __runcode$, so that it cannot shadow the checks.

// opsGlobal is the global that holds the checks. A program may not name it.
const opsGlobal = "__runcode$"

// bigIntOpsSrc makes the checks: powOver(x, y) and shiftOver(x, y) report a result over the
// BigInt bound (installOps), and the check throws V8's RangeError for it. It reads no
// global: checks installed when eval first needs them must not use what the program
// replaced before (a freeze that does not freeze would let it change B's valueOf).
const bigIntOpsSrc = `(function (powOver, shiftOver, RangeError, TypeError, freeze) {
	'use strict';
	const over = () => { throw new RangeError('Maximum BigInt size exceeded'); };
	// What the operator would throw for a BigInt and a Number; also the answer when the
	// base is unknown, which only a Number base leaves.
	const mix = () => { throw new TypeError('Cannot mix BigInt and other types, use explicit conversions'); };
	let base;
	const B = freeze({ __proto__: null, valueOf() { base = -(-this.v); return base; } });
	// The right operand: an exponent (d = 0), or a shift's amount, whose result grows by
	// d * y bits (d = 1 for <<, -1 for >>).
	const R = freeze({ __proto__: null, valueOf() {
		const x = base;
		base = undefined;
		const y = -(-this.v);
		if (typeof y === 'bigint') {
			if (typeof x !== 'bigint') mix();
			if (this.d === 0 ? powOver(x, y) : shiftOver(x, this.d > 0 ? y : -y)) over();
		}
		return y;
	} });
	// A shift's amount alone, for a target that cannot be read twice.
	const A = freeze({ __proto__: null, valueOf() {
		const y = -(-this.v);
		if (typeof y === 'bigint' && (shiftOver(0n, y) || shiftOver(0n, -y))) over();
		return y;
	} });
	// A Number operand needs no check, nor a conversion of its own.
	return freeze({
		__proto__: null,
		b: (v) => typeof v === 'number' ? v : { __proto__: B, v },
		e: (v) => typeof v === 'number' ? v : { __proto__: R, v, d: 0 },
		l: (v) => typeof v === 'number' ? v : { __proto__: R, v, d: 1 },
		r: (v) => typeof v === 'number' ? v : { __proto__: R, v, d: -1 },
		a: (v) => typeof v === 'number' ? v : { __proto__: A, v },
	});
})`

var bigIntOpsPrg = compileOnce("bigint-ops.js", bigIntOpsSrc)

// maxPowBits bounds a power's result. Shifts only copy, but math/big computes a power by
// repeated squaring, in time that grows as the result's bits to the power 1.6 inside one
// native call: about a second at this bound, and minutes at V8's 2^30 bits.
const maxPowBits = 1 << 24

// installOps defines the checks' global for this run's VM, with its BigInt bound, once,
// before rewritten code runs. It is not writable or configurable, so a program cannot
// replace it; if a program defined the name first, installing fails with goja's
// TypeError and the rewritten code does not run.
func (r *run) installOps() {
	if r.opsInstalled {
		return
	}
	f, err := r.vm.RunProgram(bigIntOpsPrg())
	if err != nil {
		panic(err)
	}
	build, _ := goja.AssertFunction(f)
	limit := r.maxBigIntBits()
	powLimit := min(limit, maxPowBits)
	powOver := r.native(func(call goja.FunctionCall) goja.Value {
		x, _ := call.Argument(0).Export().(*big.Int)
		y, _ := call.Argument(1).Export().(*big.Int)
		if x == nil || y == nil || y.Sign() <= 0 || x.CmpAbs(big.NewInt(1)) <= 0 {
			return r.vm.ToValue(false) // 0, 1 and -1 to any power, or a power goja refuses
		}
		return r.vm.ToValue(!y.IsInt64() || y.Int64() > powLimit || int64(x.BitLen()) > powLimit/y.Int64())
	})
	shiftOver := r.native(func(call goja.FunctionCall) goja.Value {
		x, _ := call.Argument(0).Export().(*big.Int)
		y, _ := call.Argument(1).Export().(*big.Int)
		if x == nil || y == nil || y.Sign() <= 0 {
			return r.vm.ToValue(false) // a right shift only shrinks
		}
		return r.vm.ToValue(!y.IsInt64() || y.Int64() > limit-int64(x.BitLen()))
	})
	ops, err := build(goja.Undefined(), powOver, shiftOver, r.in.rangeCtor, r.in.typeCtor, r.in.freeze)
	if err != nil {
		panic(err)
	}
	if err := r.vm.GlobalObject().DefineDataProperty(opsGlobal, ops, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
		panic(r.vm.NewTypeError(err.Error()))
	}
	r.opsInstalled = true
}

// hasOps reports whether src may hold an operator to rewrite.
func hasOps(src string) bool {
	return strings.Contains(src, "**") || strings.Contains(src, "<<") || strings.Contains(src, ">>")
}

// namesOpsGlobal reports whether code names the checks' global, which would let it
// shadow the checks.
func namesOpsGlobal(code string) bool { return strings.Contains(code, opsGlobal) }

// msgOpsGlobal is the SyntaxError message of code that names it.
const msgOpsGlobal = "the name " + opsGlobal + " is reserved"

// rewriteProgram rewrites the operators of a parsed program (wrapped is its text);
// shifts (non-nil if anything was rewritten) says where.
func rewriteProgram(wrapped string, tree *ast.Program, name string) (*ast.Program, []colShift, *Failure) {
	if !hasOps(wrapped) {
		return tree, nil, nil
	}
	_, t, shifts, msg := rewriteChecked(wrapped, tree, name)
	if msg != "" {
		return nil, nil, &Failure{Kind: KindException, Message: "SyntaxError: " + msg}
	}
	return t, shifts, nil
}

// rewriteChecked rewrites src (parsed as tree) and, if anything changed, parses the result
// as name and checks it (opsChecked): the rewritten text and tree, or a message for the
// SyntaxError that refuses the code.
func rewriteChecked(src string, tree *ast.Program, name string) (string, *ast.Program, []colShift, string) {
	out, shifts, msg := rewriteBigIntOps(src, tree)
	if msg != "" {
		return "", nil, nil, msg
	}
	if out == src {
		return src, tree, nil, ""
	}
	t, err := parser.ParseFile(nil, name, out, 0, parser.WithDisableSourceMaps)
	if err != nil || !opsChecked(t) {
		return "", nil, nil, unreadable
	}
	return out, t, shifts, ""
}

// opsChecked reports whether every operator of a rewritten tree has its operands in
// their checks, as rewriteBigIntOps meant: a rewrite that delimited an operand wrongly
// can still parse, and then runs refused rather than unchecked.
func opsChecked(tree *ast.Program) bool {
	ok := true
	walk(reflect.ValueOf(tree), func(n any) {
		switch x := n.(type) {
		case *ast.BinaryExpression:
			switch x.Operator {
			case token.EXPONENT:
				if !numberLiteral(x.Left) && !numberLiteral(x.Right) && !(opsCall(x.Left, "b") && opsCall(x.Right, "e")) {
					ok = false
				}
			case token.SHIFT_LEFT, token.SHIFT_RIGHT:
				if !smallLiteral(x.Right) && !(opsCall(x.Left, "b") && opsCall(x.Right, shiftChecks[x.Operator])) {
					ok = false
				}
			}
		case *ast.AssignExpression:
			switch x.Operator {
			case token.EXPONENT:
				ok = ok && numberLiteral(x.Right)
			case token.SHIFT_LEFT, token.SHIFT_RIGHT:
				ok = ok && (smallLiteral(x.Right) || opsCall(x.Right, "a"))
			}
		}
	})
	return ok
}

// opsCall reports whether e is a call of the check fn with one argument.
func opsCall(e ast.Expression, fn string) bool {
	c, ok := e.(*ast.CallExpression)
	if !ok || len(c.ArgumentList) != 1 {
		return false
	}
	d, ok := c.Callee.(*ast.DotExpression)
	if !ok || d.Identifier.Name.String() != fn {
		return false
	}
	g, ok := d.Left.(*ast.Identifier)
	return ok && g.Name.String() == opsGlobal
}

// shiftChecks names the check of each shift's right operand.
var shiftChecks = map[token.Token]string{token.SHIFT_LEFT: "l", token.SHIFT_RIGHT: "r"}

// unreadable is the SyntaxError of an operator whose operands the rewrite cannot find.
const unreadable = "an operand of **, << or >> could not be delimited for its check"

// edit inserts text at pos, after removing del bytes there; span orders the edits at one
// position (see rewriteBigIntOps).
type edit struct {
	pos, del int
	text     string
	span     int  // the length of the expression an insertion wraps
	close    bool // a closing insertion
}

// colShift is text a rewrite added on a line: n bytes from the 1-based byte column col
// of the rewritten line.
type colShift struct{ line, col, n int }

// originalColumn maps a column of a rewritten line back to the column of the source.
func originalColumn(shifts []colShift, line, col int) int {
	i := sort.Search(len(shifts), func(i int) bool { return shifts[i].line >= line })
	added := 0
	for ; i < len(shifts) && shifts[i].line == line && shifts[i].col < col; i++ {
		if col < shifts[i].col+shifts[i].n {
			return shifts[i].col - added // inside the added text: where it was added
		}
		added += shifts[i].n
	}
	return col - added
}

// rewriteBigIntOps rewrites src's BigInt operators as the comment above says; tree is src
// parsed. It fails, with a message for a SyntaxError, on a **= whose target it cannot
// evaluate twice, or on an operand whose text it cannot delimit. The rewrite adds no
// line; shifts says where it added text.
func rewriteBigIntOps(src string, tree *ast.Program) (out string, shifts []colShift, fail string) {
	defer func() {
		if x := recover(); x != nil { // a position out of the text: refuse, never crash
			out, shifts, fail = "", nil, unreadable
		}
	}()
	t := newOpText(src, tree)
	var edits []edit
	wrap := func(s, e int, fn string) {
		edits = append(edits,
			edit{pos: s, text: opsGlobal + "." + fn + "(", span: e - s},
			edit{pos: e, text: ")", span: e - s, close: true})
	}
	failed := func(msg string) {
		if fail == "" {
			fail = msg
		}
	}
	// binary wraps the operands of l op r, the left one with leftCheck unless it is
	// empty; it returns the operator's position.
	binary := func(l, r ast.Expression, op, leftCheck, check string) int {
		at := t.operator(t.end(l), op)
		if at < 0 {
			failed(unreadable)
			return -1
		}
		rs, re, ok := t.right(at+len(op), t.end(r))
		if !ok {
			failed(unreadable)
			return -1
		}
		if leftCheck != "" {
			ls, le, ok := t.left(t.start(l), t.end(l), at)
			if !ok {
				failed(unreadable)
				return -1
			}
			wrap(ls, le, leftCheck)
		}
		wrap(rs, re, check)
		return at
	}
	// compound rewrites T op= R as T = b(T) op check(R) for a target it can read twice,
	// and reports false for another.
	compound := func(x *ast.AssignExpression, op, check string) bool {
		if !reevaluable(x.Left) {
			return false
		}
		if at := binary(x.Left, x.Right, op+"=", "", check); at >= 0 {
			edits = append(edits, edit{pos: at, del: len(op) + 1, text: "= " + opsGlobal + ".b(" + targetText(x.Left) + ") " + op})
		}
		return true
	}
	walk(reflect.ValueOf(tree), func(n any) {
		switch x := n.(type) {
		case *ast.BinaryExpression:
			switch x.Operator {
			case token.EXPONENT:
				if !numberLiteral(x.Left) && !numberLiteral(x.Right) {
					binary(x.Left, x.Right, "**", "b", "e")
				}
			case token.SHIFT_LEFT, token.SHIFT_RIGHT:
				if !smallLiteral(x.Right) {
					binary(x.Left, x.Right, x.Operator.String(), "b", shiftChecks[x.Operator])
				}
			}
		case *ast.AssignExpression:
			switch x.Operator {
			case token.EXPONENT:
				if !numberLiteral(x.Right) && !compound(x, "**", "e") {
					failed("**= on a target whose key is an expression is not supported in code that uses **; write it as an assignment with **")
				}
			case token.SHIFT_LEFT, token.SHIFT_RIGHT:
				if !smallLiteral(x.Right) && !compound(x, x.Operator.String(), shiftChecks[x.Operator]) {
					binary(x.Left, x.Right, x.Operator.String()+"=", "", "a")
				}
			}
		}
	})
	if fail != "" {
		return "", nil, fail
	}
	if len(edits) == 0 {
		return src, nil, ""
	}
	// At one position: closings before openings; closings of inner expressions first,
	// openings of outer ones first.
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		if a.close != b.close {
			return a.close
		}
		if a.close {
			return a.span < b.span
		}
		return a.span > b.span
	})
	var b strings.Builder
	b.Grow(len(src) + 24*len(edits))
	shifts = make([]colShift, 0, len(edits))
	last, line, lineStart := 0, 1, 0 // lineStart: the output offset of the line's start
	for _, e := range edits {
		chunk := src[last:e.pos]
		if n := strings.Count(chunk, "\n"); n > 0 {
			line += n
			lineStart = b.Len() + strings.LastIndexByte(chunk, '\n') + 1
		}
		b.WriteString(chunk)
		shifts = append(shifts, colShift{line: line, col: b.Len() - lineStart + 1, n: len(e.text) - e.del})
		b.WriteString(e.text)
		last = e.pos + e.del
	}
	b.WriteString(src[last:])
	return b.String(), shifts, ""
}

// targetText writes a reevaluable assignment target again, on one line.
func targetText(e ast.Expression) string {
	switch x := e.(type) {
	case *ast.Identifier:
		return x.Name.String()
	case *ast.ThisExpression:
		return "this"
	case *ast.SuperExpression:
		return "super"
	case *ast.DotExpression:
		return targetText(x.Left) + "." + x.Identifier.Name.String()
	case *ast.PrivateDotExpression:
		return targetText(x.Left) + ".#" + x.Identifier.Name.String()
	case *ast.BracketExpression:
		switch m := x.Member.(type) {
		case *ast.StringLiteral:
			q, _ := json.Marshal(m.Value.String())
			return targetText(x.Left) + "[" + string(q) + "]"
		case *ast.NumberLiteral:
			return targetText(x.Left) + "[" + m.Literal + "]"
		case *ast.Identifier:
			return targetText(x.Left) + "[" + m.Name.String() + "]"
		}
	}
	return ""
}

// numberLiteral reports whether e is a Number (not BigInt) literal.
func numberLiteral(e ast.Expression) bool {
	n, ok := e.(*ast.NumberLiteral)
	if !ok {
		return false
	}
	_, isBig := n.Value.(*big.Int)
	return !isBig
}

// smallLiteral reports whether e is a literal shift amount needing no check: a Number, or
// a BigInt of at most 2^20 either way.
func smallLiteral(e ast.Expression) bool {
	n, ok := e.(*ast.NumberLiteral)
	if !ok {
		return false
	}
	b, isBig := n.Value.(*big.Int)
	return !isBig || b.IsInt64() && b.Int64() <= 1<<20 && b.Int64() >= -(1<<20)
}

// reevaluable reports whether an assignment target can be evaluated a second time
// without a side effect of its own: a name, or members of this, super or a name by
// names, literal keys or keys held in a name.
func reevaluable(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.Identifier, *ast.ThisExpression, *ast.SuperExpression:
		return true
	case *ast.DotExpression:
		return reevaluable(x.Left)
	case *ast.PrivateDotExpression:
		return reevaluable(x.Left)
	case *ast.BracketExpression:
		switch x.Member.(type) {
		case *ast.StringLiteral, *ast.NumberLiteral, *ast.Identifier:
			return reevaluable(x.Left)
		}
	}
	return false
}

// rewriteSource parses src as a script and rewrites its operators (see above). A source
// that does not parse is returned as it is: the intrinsic eval reports its error.
func rewriteSource(src string) (string, []colShift, string) {
	if !hasOps(src) {
		return src, nil, ""
	}
	tree, err := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return src, nil, ""
	}
	out, _, shifts, msg := rewriteChecked(src, tree, "")
	return out, shifts, msg
}

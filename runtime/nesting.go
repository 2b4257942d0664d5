package runtime

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxNesting is the deepest a program's syntax may nest. goja's parser and compiler and
// esbuild recurse once per level, and a deep enough program ends the whole process with
// Go's unrecoverable stack overflow; goja's compiler is also quadratic in the length of a
// left-deep chain such as 1+1+1+… or o?.a?.a?.…. So Prepare, eval and the Function
// constructors scan every source first and reject one that nests deeper than this with a
// SyntaxError. A level is:
//   - an open bracket ( [ { or a template substitution ${;
//   - within one bracket, each chain operator since its last , or ;: binary, logical and
//     assignment operators, ? (ternary), : (object property), =>, ?., prefix operators
//     (! ~ + - ++ -- typeof void delete await new yield) and TypeScript's as and
//     satisfies; a parenthesised group also counts the operators inside it, as goja keeps
//     them on the chain;
//   - each statement nested without braces: if, else, for, while, do, with and labels,
//     until the statement ends (so an else-if chain counts its length).
//
// Member access, calls, commas and statement lists never count. Real programs stay far
// below the limit.
const MaxNesting = 256

// shadowLimit bounds brackets left open across all strings, comments, regular expressions
// and template text of one source. Each such region also counts its brackets on top of the
// depth where it starts; this cumulative count is the defence against a source that a
// parser reads with the roles of code and string swapped, where many short regions would
// add up to a deep nesting that no single region shows.
const shadowLimit = 16 * MaxNesting

// nestingMessage is the SyntaxError's message for a source nested too deeply.
var nestingMessage = fmt.Sprintf("nesting deeper than %d levels", MaxNesting)

// nestingFailure reports, as Prepare reports syntax errors, that the model's code nests
// deeper than MaxNesting at byte off of the wrapped program.
func nestingFailure(wrapped, code string, off int) *Failure {
	lineStart := strings.LastIndexByte(wrapped[:off], '\n') + 1
	line := 1 + strings.Count(wrapped[:off], "\n")
	col := utf8.RuneCountInString(wrapped[lineStart:off]) + 1
	return syntaxFailure(nestingMessage, line, col, code).failure
}

// checkNesting scans src and returns the byte offset where it first nests deeper than
// MaxNesting levels below the depth reached at src[prefix] (the part before prefix is a
// wrapper of ours), or -1, whether src has generator syntax, and whether it has a regular
// expression literal. hashbang says whether a
// leading #! is a comment, as it is for a source that goja parses from its first byte.
func checkNesting(src string, prefix int, hashbang bool) (bad int, generators, regexps bool) {
	s := nestScanner{src: src, bad: -1, prefix: prefix}
	s.run(hashbang)
	return s.bad, s.generators, s.regexps
}

// litKind classifies a span of source that is not code, for the differential fuzz test.
type litKind uint8

const (
	litString litKind = iota + 1
	litTemplate
	litRegExp
	litComment
)

// litSpan is one region of source that is not code: a string literal with its quotes, one
// run of template text (between ` or } and ${ or `), a regular expression literal with its
// flags, or a comment.
type litSpan struct {
	kind       litKind
	start, end int
}

// scanLiterals returns the regions of src that the nesting scanner reads as not code, in
// order, for a source goja parses from its first byte. It exists so tests can compare them
// with what goja's parser saw.
func scanLiterals(src string) []litSpan {
	var spans []litSpan
	s := nestScanner{src: src, bad: -1, spans: &spans, noLimit: true}
	s.run(true)
	return spans
}

type frameKind uint8

const (
	fBase frameKind = iota
	fParen
	fBracket
	fBrace
	fSubst // ${ … } in a template literal
)

// frameRole is what a bracket is for, as far as the next tokens care: whether a / after
// its closer divides or starts a regular expression, whether it holds statements, and
// which function it belongs to.
type frameRole uint8

const (
	rNone         frameRole = iota
	rCall                   // f(…)
	rGroup                  // (…) as an operand
	rCondHeader             // if (…), while (…), with (…): a statement follows
	rForHeader              // for (…)
	rDoTail                 // the while (…) that ends a do statement
	rHeader                 // switch (…), catch (…)
	rParams                 // a function's parameters
	rMethodParams           // a method's parameters
	rBlock                  // a block, or a body of switch, try, catch, finally, TypeScript declarations
	rFnDecl                 // a function declaration's body
	rFnExpr                 // a function expression's body
	rArrowBody              // an arrow function's block body
	rMethodBody             // a method's body
	rStaticBlock            // a class static block
	rClassDecl              // a class declaration's body
	rClassExpr              // a class expression's body
	rObject                 // an object literal, pattern or type literal
)

// Where a var, let or const declaration stands, for the tokens after a binding (the only
// place an identifier is followed by neither an operator nor a call).
const (
	declNone    = iota
	declBinding // a binding is expected
	declBound   // after a binding: =, , or ; (or a type) follow, or the statement ended
	declInit    // in an initializer
	declType    // in a TypeScript type annotation
)

// head is a statement that nests the next statement without braces.
type head uint8

const (
	hIf head = iota + 1
	hElse
	hLoop // for, while, with
	hDo
	hDoTail // a do statement whose body ended: its while (…) follows
	hLabel
)

// fnCtx says whether await and yield are keywords where a token stands, as goja decides it.
type fnCtx uint8

const (
	ctxAwait fnCtx = 1 << iota
	ctxYield
	ctxInAsync
)

// arrowCtx is the concise body of an arrow function, which changes fnCtx until it ends.
type arrowCtx struct {
	ternary int32 // the frame's open ? count where the body began
	ctx     fnCtx
}

// nestFrame is one open bracket (or the source's top level) and what the scan knows about
// the tokens directly inside it.
type nestFrame struct {
	kind frameKind
	role frameRole
	ctx  fnCtx
	// expr counts chain operators since the last , or ; (maxExpr: their peak).
	expr, maxExpr int32
	ternary       int32 // open ? waiting for their :
	headBase      int32 // heads and arrows above these indexes belong to this frame
	arrowBase     int32
	own           int8 // the level the bracket itself adds

	asyncBefore    bool  // paren: async stood right before it
	lastParenAsync bool  // the last paren closed in this frame had async before it
	arrowRetType   bool  // a : followed a closed paren: an arrow's return type may follow
	fnState        uint8 // 1 after function, 3 after its parameters
	fnDecl         bool
	fnAsync, fnGen bool
	clsState       uint8
	clsDecl        bool
	methodBody     bool  // a method's parameters closed: its body follows
	methodCtx      fnCtx // and its context
	memberPos      bool  // object literal or class body: at a member's name or modifiers
	memberAsync    bool
	memberGen      bool
	caseColon      bool
	declState      uint8 // a declaration: see the decl constants
	typeAlias      bool  // a TypeScript type alias
	tsDecl         bool  // an interface's name: its body follows
	decorated      bool  // a decorator began the statement
}

// stmtFrame reports whether the frame holds statements.
func (f *nestFrame) stmtFrame() bool {
	switch f.role {
	case rNone, rBlock, rFnDecl, rFnExpr, rArrowBody, rMethodBody, rStaticBlock:
		return f.kind == fBase || f.kind == fBrace
	}
	return false
}

// tokenFlags describe the previous token for the decisions the next one needs.
type tokenFlags struct {
	afterDot     bool // the token was . or ?.: the next word is a property name
	async        bool // the token was the identifier async
	identAsync   bool // the token was an identifier right after async on its line
	labelCand    bool // the token was an identifier that began a statement
	labelNext    bool // the token was break or continue: an identifier now is a label
	memberAsync  bool // the token was async at a member's position
	modifierStmt bool // the token was async, abstract, declare or export beginning a statement
	typeAlias    bool // the token was type beginning a statement
	static       bool // the token was static at a class member's position
}

// nestScanner is one scan of one source, on one goroutine.
type nestScanner struct {
	src      string
	pos      int
	prefix   int
	bad      int
	noLimit  bool
	limitSet bool
	spans    *[]litSpan

	limit  int // the deepest allowed, set when the scan reaches prefix
	depth  int
	frames []nestFrame
	heads  []head
	arrows []arrowCtx
	shadow int
	local  []int32 // brackets opened inside the current non-code region

	// The previous token.
	prevDiv     bool   // a / now divides
	prevOperand bool   // it ended an operand: a postfix operator or a call may follow
	prevEnd     bool   // it can end a statement before a line break
	prevWord    string // its text, if it was a word
	prevOp      byte   // its first byte, if it was a punctuator
	nl          bool   // a line terminator since the previous token
	cur, next   tokenFlags

	atStmt       bool // the next token starts a statement
	boundary     bool // a statement ended; processed at the next token
	skipSemi     bool // the next ; belongs to the do statement that just ended
	arrowPending bool // the previous token was =>
	arrowAsync   bool
	generators   bool      // a * marked a generator function or method
	regexps      bool      // a regular expression literal was scanned
	arrowBody    bool      // the { being opened is the body of an arrow function
	header       frameRole // the keyword before wants its ( to be this
	hdrNow       frameRole // header, for the token being handled
}

func (s *nestScanner) top() *nestFrame { return &s.frames[len(s.frames)-1] }

// ctx is the await/yield context where the next token stands.
func (s *nestScanner) ctx() fnCtx {
	f := s.top()
	if int(f.arrowBase) < len(s.arrows) {
		return s.arrows[len(s.arrows)-1].ctx
	}
	return f.ctx
}

// reach sets the limit once the scan reaches the end of the wrapper's prefix.
func (s *nestScanner) reach(off int) {
	if !s.limitSet && off >= s.prefix {
		s.limitSet, s.limit = true, s.depth+MaxNesting
	}
}

// over records a violation at off when the depth plus extra exceeds the limit.
func (s *nestScanner) over(extra, off int) bool {
	if s.noLimit || !s.limitSet || s.depth+extra <= s.limit {
		return false
	}
	if s.bad < 0 {
		s.bad = off
	}
	return true
}

func (s *nestScanner) count(f *nestFrame, off int) {
	f.expr++
	f.maxExpr = max(f.maxExpr, f.expr)
	s.depth++
	s.over(0, off)
}

func (s *nestScanner) resetExpr(f *nestFrame) {
	s.depth -= int(f.expr)
	f.expr = 0
	s.arrows = s.arrows[:f.arrowBase]
}

func (s *nestScanner) pushHead(h head, off int) {
	s.heads = append(s.heads, h)
	s.depth++
	s.over(0, off)
}

func (s *nestScanner) topHead(f *nestFrame) head {
	if len(s.heads) > int(f.headBase) {
		return s.heads[len(s.heads)-1]
	}
	return 0
}

func (s *nestScanner) push(kind frameKind, role frameRole, ctx fnCtx, off int) *nestFrame {
	// The parentheses of if, for, while and with add no level: their statement's head did.
	own := int8(1)
	if role == rCondHeader || role == rForHeader || role == rDoTail {
		own = 0
	}
	s.frames = append(s.frames, nestFrame{kind: kind, role: role, ctx: ctx, own: own,
		headBase: int32(len(s.heads)), arrowBase: int32(len(s.arrows))})
	s.depth += int(own)
	s.over(0, off)
	return s.top()
}

// pop closes the top frame; the caller checked that it is not the base.
func (s *nestScanner) pop() nestFrame {
	f := s.frames[len(s.frames)-1]
	s.depth -= int(f.own) + int(f.expr) + len(s.heads) - int(f.headBase)
	s.heads = s.heads[:f.headBase]
	s.arrows = s.arrows[:f.arrowBase]
	s.frames = s.frames[:len(s.frames)-1]
	return f
}

// endStatement handles a statement boundary before the token tok (an identifier's text, or
// a punctuator): the braceless statements that the ended statement completes end too,
// except an if whose else follows and a do whose while follows.
func (s *nestScanner) endStatement(word string) {
	s.boundary = false
	f := s.top()
	s.resetExpr(f)
	f.declState, f.typeAlias, f.caseColon, f.ternary, f.tsDecl, f.decorated = declNone, false, false, 0, false, false
	f.fnState, f.clsState, f.methodBody, f.lastParenAsync, f.arrowRetType = 0, 0, false, false, false
	if f.role == rClassDecl || f.role == rClassExpr {
		f.memberPos, f.memberAsync, f.memberGen = true, false, false
		return
	}
	if !f.stmtFrame() {
		return
	}
	s.atStmt = true
	if word == "catch" || word == "finally" {
		return // the try statement goes on
	}
	for len(s.heads) > int(f.headBase) {
		h := &s.heads[len(s.heads)-1]
		if *h == hIf && word == "else" {
			break
		}
		if *h == hDo && word == "while" {
			*h = hDoTail
			break
		}
		s.heads = s.heads[:len(s.heads)-1]
		s.depth--
	}
}

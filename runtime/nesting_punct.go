package runtime

import "strings"

// The nesting scanner's rules for punctuators: operators that chain, brackets and what
// each bracket is for.

// punctuators are JavaScript's punctuators of more than one character, by their first
// byte, longest first.
var punctuators = func() (by [256][]string) {
	for _, p := range []string{
		">>>=",
		"...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
		"=>", "==", "!=", "++", "+=", "--", "-=", "**", "*=", "%=", "^=", "/=",
		"&&", "&=", "||", "|=", "<<", "<=", ">>", ">=", "??", "?.",
	} {
		by[p[0]] = append(by[p[0]], p)
	}
	return by
}()

// punctLen is the length of the punctuator at src[start]: the longest one the source
// continues with, one byte if none is longer. ?. before a digit is ? (a?.5:1).
func punctLen(src string, start int) int {
	rest := src[start:]
	for _, p := range punctuators[rest[0]] {
		if strings.HasPrefix(rest, p) && !(p == "?." && len(rest) > 2 && '0' <= rest[2] && rest[2] <= '9') {
			return len(p)
		}
	}
	return 1
}

// punct scans and handles a punctuator.
func (s *nestScanner) punct() {
	src := s.src
	start := s.pos
	c := src[start]
	n := punctLen(src, start)
	s.pos += n
	p := src[start:s.pos]
	at0, skip := s.begin(tkPunct, p, start)
	if skip {
		s.finish(false, false, false, "", ';')
		return
	}
	hdr := s.hdrNow
	f := s.top()
	switch p {
	case "(":
		s.openParen(f, hdr, start)
		return
	case "[":
		s.push(fBracket, rNone, s.ctx(), start)
	case "{":
		s.openBrace(f, at0, start)
		return
	case ")", "]", "}":
		s.close(c, start)
		return
	case ";":
		s.resetExpr(f)
		f.ternary, f.lastParenAsync, f.arrowRetType, f.fnState, f.clsState, f.methodBody = 0, false, false, 0, 0, false
		switch {
		case f.kind == fParen:
			f.declState = declNone
		case f.stmtFrame():
			s.boundary = true
		case f.role == rClassDecl || f.role == rClassExpr || f.role == rObject:
			f.memberPos, f.memberAsync, f.memberGen = true, false, false
		}
	case ",":
		s.resetExpr(f)
		f.ternary, f.lastParenAsync, f.arrowRetType, f.fnState, f.clsState = 0, false, false, 0, 0
		if f.declState >= declBound {
			f.declState = declBinding
		}
		if f.role == rObject {
			f.memberPos, f.memberAsync, f.memberGen = true, false, false
		}
	case "?":
		s.count(f, start)
		f.ternary++
	case ":":
		s.colon(f, start)
	case "=>":
		s.count(f, start)
		async := false
		switch {
		case s.prevOp == ')' || f.arrowRetType:
			async = f.lastParenAsync
		case s.prevWord != "":
			async = s.cur.identAsync
		}
		s.arrowPending, s.arrowAsync = true, async
		f.lastParenAsync, f.arrowRetType = false, false
	case ".":
		s.next.afterDot = true
	case "?.":
		s.count(f, start)
		s.next.afterDot = true
	case "...":
		f.memberPos = false
	case "++", "--", "!":
		if s.prevOperand && !s.nl {
			// A postfix ++ or --, or TypeScript's non-null assertion x!.
			s.finish(true, true, true, "", c)
			return
		}
		s.count(f, start)
	case "*":
		switch {
		case f.fnState == 1:
			f.fnGen, s.generators = true, true
		case f.memberPos:
			f.memberGen, s.generators = true, true
		case s.prevWord == "yield" && s.prevEnd:
		default:
			// Where no operand precedes it, a * can only be a generator's.
			s.generators = s.generators || !s.prevOperand
			s.count(f, start)
		}
	case "@":
		f.decorated = f.decorated || at0
	case "#":
	default:
		if strings.HasSuffix(p, "=") && p != "==" && p != "===" && p != "!=" && p != "!==" && p != "<=" && p != ">=" {
			// An assignment.
			if f.declState == declBound || f.declState == declType {
				f.declState = declInit
			}
			f.memberPos = false
		}
		s.count(f, start)
	}
	s.finish(false, false, false, "", c)
}

// colon handles the : of a ternary, a case or default, a label, an object property or a
// TypeScript annotation.
func (s *nestScanner) colon(f *nestFrame, off int) {
	if s.prevOp == ')' {
		f.arrowRetType = true
	}
	switch {
	case f.declState == declBound:
		f.declState = declType
	case f.ternary > 0:
		f.ternary--
		for len(s.arrows) > int(f.arrowBase) && s.arrows[len(s.arrows)-1].ternary > f.ternary {
			s.arrows = s.arrows[:len(s.arrows)-1]
		}
	case f.caseColon:
		f.caseColon = false
		s.atStmt = true
	case s.cur.labelCand:
		s.pushHead(hLabel, off)
		s.atStmt = true
	case f.role == rObject && f.memberPos:
		s.count(f, off)
		f.memberPos = false
	default:
		f.memberPos = false // a type annotation
	}
}

func (s *nestScanner) openParen(f *nestFrame, hdr frameRole, off int) {
	role, ctx := rGroup, s.ctx()
	switch {
	case hdr != 0:
		role = hdr
	case f.fnState == 1:
		role, ctx = rParams, funcCtx(f.fnAsync, f.fnGen)
		f.fnState = 2
	case f.memberPos && (f.role == rObject || f.role == rClassDecl || f.role == rClassExpr):
		role, ctx = rMethodParams, funcCtx(f.memberAsync, f.memberGen)
		f.memberPos = false
	case s.prevOperand:
		role = rCall
	}
	async := s.cur.async && !s.nl
	f.lastParenAsync, f.arrowRetType = false, false
	nf := s.push(fParen, role, ctx, off)
	nf.asyncBefore = async
	s.finish(false, false, false, "", '(')
}

func funcCtx(async, gen bool) fnCtx {
	var c fnCtx
	if async {
		c |= ctxAwait | ctxInAsync
	}
	if gen {
		c |= ctxYield
	}
	return c
}

// openBrace decides what a { opens: a block or body (after which a / starts a regular
// expression) or an object literal or expression body (after which it divides).
func (s *nestScanner) openBrace(f *nestFrame, at bool, off int) {
	role, ctx := rObject, s.ctx()
	typeNext := s.prevOp == ':' || s.prevOp == '|' || s.prevOp == '&' || s.prevOp == ',' || s.prevOp == '<' || s.prevOp == '?' || s.prevOp == '='
	isClass := f.role == rClassDecl || f.role == rClassExpr
	switch {
	case s.arrowBody:
		role, ctx = rArrowBody, funcCtx(s.arrowAsync, false)
		s.arrowBody = false
	case f.fnState == 3 && !typeNext:
		role, ctx = rFnExpr, funcCtx(f.fnAsync, f.fnGen)
		if f.fnDecl {
			role = rFnDecl
		}
		f.fnState = 0
	case f.methodBody && !typeNext:
		role, ctx = rMethodBody, f.methodCtx
		f.methodBody = false
	case f.clsState == 1 && (s.prevOp == ')' || s.prevOp == ']' || s.prevOp == '>' || s.prevWord != "" && s.prevWord != "extends" && s.prevWord != "implements"):
		role = rClassExpr
		if f.clsDecl {
			role = rClassDecl
		}
		f.clsState = 0
	case isClass && f.memberPos && s.cur.static:
		role, ctx = rStaticBlock, ctxAwait
	case at || f.tsDecl:
		role = rBlock
		f.tsDecl = false
	case s.prevOperand && s.prevOp != ')' && !typeNext:
		role = rBlock // a TypeScript declaration's body: enum E {, interface I {
	}
	nf := s.push(fBrace, role, ctx, off)
	switch role {
	case rObject, rClassDecl, rClassExpr:
		nf.memberPos = true
	default:
		s.atStmt = true
	}
	s.finish(false, false, false, "", '{')
}

// close handles ), ] or }: a closer that matches no open bracket is a stray token.
func (s *nestScanner) close(c byte, off int) {
	f := s.top()
	want := fBrace
	switch c {
	case ')':
		want = fParen
	case ']':
		want = fBracket
	}
	if f.kind == fBase || f.kind != want && !(c == '}' && f.kind == fSubst) {
		s.finish(true, true, true, "", c)
		return
	}
	fr := s.pop()
	p := s.top()
	if fr.kind == fSubst {
		s.templateText()
		return
	}
	if p.declState == declBinding && c != ')' {
		p.declState = declBound // a destructuring pattern was the binding
	}
	div, operand, end := true, true, true
	switch fr.role {
	case rCondHeader, rForHeader, rHeader:
		div, operand, end = false, false, false
		s.atStmt = true
	case rDoTail:
		if s.topHead(p) == hDoTail {
			s.heads = s.heads[:len(s.heads)-1]
			s.depth--
		}
		s.boundary, s.skipSemi = true, true
		div, operand, end = false, false, false
	case rParams:
		p.fnState = 3
		div, operand, end = false, false, false
	case rMethodParams:
		p.methodBody, p.methodCtx = true, fr.ctx
		div, operand, end = false, false, false
	case rGroup:
		// The chain inside a parenthesised operand stays on goja's chain outside it.
		p.expr += fr.maxExpr
		p.maxExpr = max(p.maxExpr, p.expr)
		s.depth += int(fr.maxExpr)
		s.over(0, off)
	case rBlock, rFnDecl, rClassDecl:
		div, operand, end = false, false, false
		if p.stmtFrame() {
			s.boundary = true
		}
	case rArrowBody:
		div, operand = false, false
	case rMethodBody, rStaticBlock:
		div, operand = false, false
		if p.role == rClassDecl || p.role == rClassExpr {
			p.memberPos, p.memberAsync, p.memberGen = true, false, false
		}
	}
	if fr.kind == fParen {
		p.lastParenAsync = fr.asyncBefore
	}
	s.finish(div, operand, end, "", c)
}

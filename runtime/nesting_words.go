package runtime

// The nesting scanner's rules for words and for what a token does to the statement around
// it: automatic semicolon insertion, keywords, names and the contexts (functions, members,
// declarations) that decide what the next token means.

// begin starts a token at start: it ends a statement where a line break does (automatic
// semicolon insertion), and processes a pending statement boundary. It reports whether the
// token starts a statement, and skip when the token is the do statement's own semicolon.
func (s *nestScanner) begin(kind tokKind, text string, start int) (at, skip bool) {
	s.reach(start)
	s.hdrNow, s.header = s.header, 0
	if s.arrowPending {
		s.arrowPending = false
		if kind == tkPunct && text == "{" {
			s.arrowBody = true
		} else {
			s.pushArrow()
		}
	}
	if s.nl && s.prevEnd && !continues(kind, text, s.top()) {
		s.boundary = true
	}
	if s.boundary {
		if s.skipSemi && kind == tkPunct && text == ";" {
			s.skipSemi = false
			return true, true
		}
		s.skipSemi = false
		word := ""
		if kind == tkWord {
			word = text
		}
		s.endStatement(word)
	}
	// A declaration's shape: what follows a binding, or stands where one should, says
	// whether it really was one (TypeScript's a<b, c> puts a comma inside an initializer).
	switch f := s.top(); f.declState {
	case declBinding:
		if !(kind == tkWord || text == "[" || text == "{") {
			f.declState = declInit
		}
	case declBound:
		switch text {
		case "=", ",", ";", ":", "!", "in", "of", "as", "satisfies":
		default:
			f.declState = declInit
		}
	}
	if s.cur.memberAsync && !(kind == tkPunct && (text == "(" || text == "=" || text == ";" || text == "}")) {
		s.top().memberAsync = true
	}
	at, s.atStmt = s.atStmt, false
	return at, false
}

// continues reports whether a token can continue the expression before a line break, so
// that no semicolon is inserted there.
func continues(kind tokKind, text string, f *nestFrame) bool {
	if f.declState == declBound || f.declState == declType {
		// After a binding without initializer only these go on (and TypeScript's type
		// operators); anything else starts a new statement.
		switch text {
		case "=", ",", ";", ":", "|", "&", ".", "?", "<", ">", ">>", "=>", ")", "]", "}", "in", "of":
			return kind == tkPunct || kind == tkWord
		}
		return false
	}
	switch kind {
	case tkWord:
		return text == "in" || text == "instanceof" || text == "of" && f.role == rForHeader
	case tkTemplate:
		return true
	case tkPunct:
		switch text {
		case "{", "!", "~", "++", "--", "@", "#":
			return false
		}
		return true
	}
	return false
}

// finish records the token just handled as the previous one.
func (s *nestScanner) finish(div, operand, end bool, word string, op byte) {
	s.prevDiv, s.prevOperand, s.prevEnd = div, operand, end
	s.prevWord, s.prevOp = word, op
	if f := s.top(); f.typeAlias || f.declState == declBound || f.declState == declType {
		s.prevDiv = false // after a type or a bare binding, / can only start a new statement
	}
	s.nl = false
	s.cur, s.next = s.next, tokenFlags{}
}

func (s *nestScanner) pushArrow() {
	c := s.ctx()
	async := s.arrowAsync
	if async != (c&ctxInAsync != 0) || async != (c&ctxAwait != 0) {
		c = 0
		if async {
			c = ctxAwait | ctxInAsync
		}
	}
	s.arrows = append(s.arrows, arrowCtx{ternary: s.top().ternary, ctx: c})
}

// name handles a word that is a name: a binding, a reference or a label.
func (s *nestScanner) name(w string, at bool) {
	f := s.top()
	div := true
	if s.cur.labelNext && !s.nl {
		div = false // break label\n/re/: the statement ended
	}
	switch f.declState {
	case declBinding:
		f.declState = declBound
	case declNone:
		if at && f.stmtFrame() {
			s.next.labelCand = true
		}
	}
	if s.cur.async && !s.nl && !s.cur.afterDot {
		s.next.identAsync = true
	}
	if at && w == "type" && f.stmtFrame() {
		s.next.typeAlias = true
	}
	if s.cur.typeAlias && !s.nl {
		f.typeAlias = true
	}
	if w == "async" && !s.cur.afterDot {
		s.next.async = true
		if at {
			s.atStmt, s.next.modifierStmt = true, true
		}
	}
	if at && (w == "abstract" || w == "declare" || w == "export") {
		s.atStmt, s.next.modifierStmt = true, true
	}
	if (at || s.cur.modifierStmt) && w == "interface" && f.stmtFrame() {
		f.tsDecl = true
	}
	s.finish(div, true, true, w, 0)
}

// member handles a word at a member's position in an object literal or class body: a
// name or a modifier, never a keyword.
func (s *nestScanner) member(w string) {
	switch w {
	case "async":
		s.next.memberAsync = true
	case "static":
		s.next.static = true
	}
	s.finish(true, true, true, w, 0)
}

func (s *nestScanner) keyword(w string, start int) {
	at, _ := s.begin(tkWord, w, start)
	f := s.top()
	if s.cur.afterDot {
		s.finish(true, true, true, w, 0)
		return
	}
	if f.memberPos && (f.role == rObject || f.role == rClassDecl || f.role == rClassExpr) {
		s.member(w)
		return
	}
	div, operand, end := false, false, false
	switch w {
	case "if":
		s.pushHead(hIf, start)
		s.header = rCondHeader
	case "with":
		s.pushHead(hLoop, start)
		s.header = rCondHeader
	case "while":
		if s.topHead(f) == hDoTail {
			s.header = rDoTail
		} else {
			s.pushHead(hLoop, start)
			s.header = rCondHeader
		}
	case "for":
		s.pushHead(hLoop, start)
		s.header = rForHeader
	case "do":
		s.pushHead(hDo, start)
		s.atStmt = true
	case "else":
		if s.topHead(f) == hIf {
			s.heads[len(s.heads)-1] = hElse
		} else {
			s.pushHead(hElse, start)
		}
		s.atStmt = true
	case "switch", "catch":
		s.header = rHeader
		s.atStmt = true // catch { without a parameter
	case "try", "finally":
		s.atStmt = true // a block follows
	case "function":
		f.fnState, f.fnDecl, f.fnAsync, f.fnGen = 1, at || s.cur.modifierStmt, s.cur.async && !s.nl, false
	case "class":
		f.clsState, f.clsDecl = 1, at || s.cur.modifierStmt || f.decorated
	case "let":
		// let is a declaration only before a binding, as goja peeks it.
		if c, next := s.peek(); !(c == '[' || c == '{' || next != "" && next != "in" && next != "instanceof") {
			s.name(w, at)
			return
		}
		f.declState = declBinding
	case "var", "const":
		f.declState = declBinding
	case "typeof", "void", "delete", "new":
		s.count(f, start)
	case "in", "instanceof":
		s.count(f, start)
		if f.declState == declBound {
			f.declState = declInit
		}
	case "return", "debugger":
		end = true
	case "break", "continue":
		end = true
		s.next.labelNext = true
	case "case":
		f.caseColon = true
	case "default":
		if at {
			f.caseColon = true
		}
	case "throw", "extends", "import", "export", "enum":
	case "this", "super", "null", "true", "false":
		div, operand, end = true, true, true
	case "await":
		if s.ctx()&ctxAwait == 0 {
			s.name(w, at)
			return
		}
		if s.hdrNow == rForHeader {
			s.header = rForHeader // for await (
		}
		s.count(f, start)
	case "yield":
		if s.ctx()&ctxYield == 0 {
			s.name(w, at)
			return
		}
		s.count(f, start)
		end = true
	case "of":
		if f.role != rForHeader || !s.prevOperand {
			s.name(w, at)
			return
		}
		s.count(f, start)
		f.declState = declInit
	case "as", "satisfies":
		if !s.prevOperand || s.nl {
			s.name(w, at)
			return
		}
		s.count(f, start)
	default:
		s.name(w, at)
		return
	}
	s.finish(div, operand, end, w, 0)
}

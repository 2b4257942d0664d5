package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The lexer of the nesting scanner. It reads JavaScript (and the TypeScript esbuild
// accepts) only as far as it must to tell code from strings, template text, regular
// expressions and comments, and follows goja's parser where that depends on the grammar:
// a / starts a regular expression where an operand is expected.

type tokKind uint8

const (
	tkWord tokKind = iota + 1
	tkNum
	tkStr
	tkTemplate
	tkRegExp
	tkPunct
)

func (s *nestScanner) run(hashbang bool) {
	s.frames = append(s.frames[:0], nestFrame{kind: fBase})
	s.atStmt = true
	s.local = make([]int32, 0, 8)
	if s.prefix == 0 {
		s.limitSet, s.limit = true, MaxNesting
	}
	if hashbang && strings.HasPrefix(s.src, "#!") {
		s.lineComment()
	}
	src := s.src
	for s.pos < len(src) && (s.bad < 0 || s.noLimit) {
		c := src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			s.pos++
		case c == '\n' || c == '\r':
			s.nl = true
			s.pos++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[s.pos:])
			switch {
			case r == '\u2028' || r == '\u2029':
				s.nl = true
				s.pos += n
			case r == '\ufeff' || unicode.IsSpace(r):
				s.pos += n
			default:
				s.word(false)
			}
		case c == '$' || c == '_' || c == '\\' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			s.word(false)
		case '0' <= c && c <= '9' || c == '.' && s.pos+1 < len(src) && '0' <= src[s.pos+1] && src[s.pos+1] <= '9':
			s.number()
		case c == '"' || c == '\'':
			s.str()
		case c == '`':
			s.begin(tkTemplate, "`", s.pos)
			s.pos++
			s.templateText()
		case c == '/' && s.pos+1 < len(src) && src[s.pos+1] == '/':
			s.lineComment()
		case c == '/' && s.pos+1 < len(src) && src[s.pos+1] == '*':
			s.blockComment()
		case c == '/' && !s.prevDiv:
			s.regExp()
		case c == '#' && s.pos+1 < len(src) && isWordStart(src[s.pos+1:]):
			s.word(true)
		default:
			s.punct()
		}
	}
}

func isWordStart(rest string) bool {
	c := rest[0]
	if c < utf8.RuneSelf {
		return c == '$' || c == '_' || c == '\\' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return r != '\u2028' && r != '\u2029' && r != '\ufeff' && !unicode.IsSpace(r)
}

// word scans an identifier, keyword or private name (#x) and handles it.
func (s *nestScanner) word(private bool) {
	start := s.pos
	if private {
		s.pos++
	}
	escaped := false
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		if c < utf8.RuneSelf {
			switch {
			case c == '$' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
				s.pos++
			case c == '\\':
				escaped = true
				s.pos++
				if s.pos < len(src) && src[s.pos] == 'u' {
					s.pos++
					if s.pos < len(src) && src[s.pos] == '{' {
						for s.pos < len(src) && src[s.pos] != '}' && isHex(src[s.pos]) || s.pos < len(src) && src[s.pos] == '{' {
							s.pos++
						}
						if s.pos < len(src) && src[s.pos] == '}' {
							s.pos++
						}
					} else {
						for i := 0; i < 4 && s.pos < len(src) && isHex(src[s.pos]); i++ {
							s.pos++
						}
					}
				}
			default:
				goto done
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(src[s.pos:])
		if r == '\u2028' || r == '\u2029' || r == '\ufeff' || unicode.IsSpace(r) {
			break
		}
		s.pos += n
	}
done:
	w := src[start:s.pos]
	if private || escaped {
		// Never a keyword. goja rejects an escaped keyword used as one.
		at, _ := s.begin(tkWord, w, start)
		s.name(w, at)
		return
	}
	s.keyword(w, start)
}

// peek returns the first byte of the next token after the current position, and the word
// there if it is one.
func (s *nestScanner) peek() (byte, string) {
	src := s.src
	i := s.pos
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return 0, ""
			}
			i += end + 4
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[i:])
			if r != '\u2028' && r != '\u2029' && r != '\ufeff' && !unicode.IsSpace(r) {
				return c, s.wordAt(i)
			}
			i += n
		default:
			if isWordStart(src[i:]) {
				return c, s.wordAt(i)
			}
			return c, ""
		}
	}
	return 0, ""
}

// wordAt returns the word that starts at i.
func (s *nestScanner) wordAt(i int) string {
	j := i
	for j < len(s.src) {
		c := s.src[j]
		if c < utf8.RuneSelf {
			if !(c == '$' || c == '_' || c == '\\' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				break
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s.src[j:])
		if r == '\u2028' || r == '\u2029' || r == '\ufeff' || unicode.IsSpace(r) {
			break
		}
		j += n
	}
	return s.src[i:j]
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (s *nestScanner) number() {
	start := s.pos
	src := s.src
	i := s.pos
	digits := func(hex bool) {
		for i < len(src) && ('0' <= src[i] && src[i] <= '9' || src[i] == '_' || hex && isHex(src[i])) {
			i++
		}
	}
	switch {
	case src[i] == '.':
		i++
		digits(false)
	case src[i] == '0' && i+1 < len(src) && strings.IndexByte("xXoObB", src[i+1]) >= 0:
		i += 2
		digits(true)
		goto suffix
	default:
		digits(false)
		if i < len(src) && src[i] == '.' {
			i++
			digits(false)
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		digits(false)
	}
suffix:
	if i < len(src) && (src[i] == 'n' || src[i] == 'N') {
		i++
	}
	s.pos = i
	s.literal(tkNum, start)
}

// literal handles a number, string, template or regular expression that has been scanned.
func (s *nestScanner) literal(kind tokKind, start int) {
	s.begin(kind, "", start)
	s.finish(true, true, true, "", 0)
}

func (s *nestScanner) str() {
	start := s.pos
	src := s.src
	q := src[s.pos]
	i := s.pos + 1
	for i < len(src) {
		c := src[i]
		if c == q {
			i++
			break
		}
		if c == '\n' || c == '\r' {
			break // unterminated: goja goes on after the line break
		}
		if c == '\\' {
			i++
			if i+1 < len(src) && src[i] == '\r' && src[i+1] == '\n' {
				i++
			}
		}
		i++
	}
	s.pos = min(i, len(src))
	s.noncode(litString, start, s.pos)
	s.literal(tkStr, start)
}

// templateText scans template text after ` or after the } that closes a substitution.
func (s *nestScanner) templateText() {
	src := s.src
	a := s.pos
	for i := s.pos; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '`':
			s.noncode(litTemplate, a, i)
			s.pos = i + 1
			s.finish(true, true, true, "", 0)
			return
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				s.noncode(litTemplate, a, i)
				s.pos = i + 2
				s.push(fSubst, rNone, s.ctx(), i)
				s.finish(false, false, false, "", '{')
				return
			}
		}
	}
	s.noncode(litTemplate, a, len(src))
	s.pos = len(src)
	s.finish(true, true, true, "", 0)
}

// regExp scans a regular expression literal the way goja's lexer does, flags included.
func (s *nestScanner) regExp() {
	start := s.pos
	src := s.src
	i := s.pos + 1
	class := false
scan:
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' || c == '\r':
			break scan
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[i:])
			if !class && (r == '\u2028' || r == '\u2029') {
				break scan
			}
			i += n
			continue
		case c == '\\':
			i++
			if i >= len(src) {
				break scan
			}
			if n := lineBreakLen(src[i:]); n > 0 {
				if !class {
					break scan // goja ends the literal here
				}
				i += n
				continue
			}
			if src[i] >= utf8.RuneSelf {
				_, n := utf8.DecodeRuneInString(src[i:])
				i += n
				continue
			}
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			i++
			// Flags: a word right after the literal, unless goja reads it as a keyword.
			if i < len(src) && isWordStart(src[i:]) {
				// goja reads async before a line break as an identifier.
				if w := s.wordAt(i); !gojaKeywords[w] || w == "async" && breakFollows(src[i+len(w):]) {
					i += len(w)
				}
			}
			break scan
		}
		i++
	}
	s.pos = min(i, len(src))
	s.regexps = true
	s.noncode(litRegExp, start, s.pos)
	s.literal(tkRegExp, start)
}

// breakFollows reports whether a line terminator follows rest's leading blanks.
func breakFollows(rest string) bool {
	for len(rest) > 0 {
		r, n := utf8.DecodeRuneInString(rest)
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			return true
		case r == ' ' || r == '\t' || r == '\v' || r == '\f' || r == '\u00a0' || r == '\ufeff' || r >= utf8.RuneSelf && unicode.IsSpace(r):
			rest = rest[n:]
		default:
			return false
		}
	}
	return false
}

// lineBreakLen is the length of the line terminator at the start of rest (\r\n counts as
// one), or 0.
func lineBreakLen(rest string) int {
	switch {
	case strings.HasPrefix(rest, "\r\n"):
		return 2
	case rest[0] == '\n' || rest[0] == '\r':
		return 1
	case strings.HasPrefix(rest, "\u2028") || strings.HasPrefix(rest, "\u2029"):
		return 3
	}
	return 0
}

// gojaKeywords are the words goja's lexer returns as keyword tokens: after a regular
// expression literal they are the next token, not its flags.
var gojaKeywords = map[string]bool{
	"if": true, "in": true, "do": true, "var": true, "for": true, "new": true, "try": true,
	"this": true, "else": true, "case": true, "void": true, "with": true, "async": true,
	"while": true, "break": true, "catch": true, "throw": true, "return": true, "typeof": true,
	"delete": true, "switch": true, "default": true, "finally": true, "function": true,
	"continue": true, "debugger": true, "instanceof": true, "const": true, "class": true,
	"enum": true, "export": true, "extends": true, "import": true, "super": true, "let": true,
	"static": true, "await": true, "yield": true, "false": true, "true": true, "null": true,
}

func (s *nestScanner) lineComment() {
	start := s.pos
	i := s.pos
	for i < len(s.src) {
		if c := s.src[i]; c == '\n' || c == '\r' || c == 0xE2 && lineBreakLen(s.src[i:]) > 0 {
			break
		}
		i++
	}
	s.pos = i
	s.noncode(litComment, start, i)
}

func (s *nestScanner) blockComment() {
	start := s.pos
	end := strings.Index(s.src[s.pos+2:], "*/")
	if end < 0 {
		s.pos = len(s.src)
	} else {
		s.pos += 2 + end + 2
	}
	body := s.src[start:s.pos]
	if strings.ContainsAny(body, "\n\r\u2028\u2029") {
		s.nl = true
	}
	s.noncode(litComment, start, s.pos)
}

// noncode records a region that is not code and measures the brackets and arrow chains in
// it as if it were, on top of the depth where it starts, in case a parser reads it as code
// after all (see shadowLimit).
func (s *nestScanner) noncode(kind litKind, a, b int) {
	s.reach(a)
	if s.spans != nil {
		*s.spans = append(*s.spans, litSpan{kind: kind, start: a, end: b})
	}
	if s.noLimit {
		return
	}
	src := s.src
	local := append(s.local[:0], 0)
	sum := int32(0)
	for i := a; i < b; i++ {
		switch src[i] {
		case '(', '[', '{':
			local = append(local, 0)
			s.shadow++
			if s.over(len(local)-1+int(sum), i) {
				return
			}
			if s.limitSet && s.shadow > shadowLimit {
				s.bad = i
				return
			}
		case ')', ']', '}':
			if len(local) > 1 {
				sum -= local[len(local)-1]
				local = local[:len(local)-1]
			}
			s.shadow = max(s.shadow-1, 0)
		case ',', ';':
			sum -= local[len(local)-1]
			local[len(local)-1] = 0
		case '=':
			if i+1 < b && src[i+1] == '>' {
				local[len(local)-1]++
				sum++
				if s.over(len(local)-1+int(sum), i) {
					return
				}
			}
		}
	}
	s.local = local
}

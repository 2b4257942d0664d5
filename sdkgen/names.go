package sdkgen

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// libNames lists every name the TypeScript standard library files declare at the top
// level (lib.*.d.ts of the pinned compiler, DOM included), one per line. A named type
// alias must not reuse one of them: `type Node = …` in a script collides with the DOM's
// Node. TestLibNamesCurrent checks the list against the installed compiler.
//
//go:embed libnames.txt
var libNames string

// reservedWords are TypeScript keywords and predefined type names, which cannot name a
// type alias, and the names the SDK itself declares.
const reservedWords = `abstract accessor any as asserts async await bigint boolean break case catch class
const constructor continue debugger declare default delete do else enum export extends false finally
for from function get global if implements import in infer instanceof interface is keyof let module
namespace never new null number object of out package private protected public readonly require return
satisfies set static string super switch symbol this throw true try type typeof undefined unique
unknown var void while with yield
JsonValue ToolArgsMap ToolOutputMap ToolName ToolCallError ToolErrorCode tools`

// reserved is the immutable set of names an alias must avoid, built once.
var reserved = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(reservedWords + "\n" + libNames) {
		m[w] = true
	}
	return m
})

// isIdent reports whether s matches ^[A-Za-z_$][A-Za-z0-9_$]*$, the names the SDK
// writes bare.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c == '$' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// key renders a tool or property name: bare when it is an identifier, else a
// JSON-quoted string.
func key(s string) string {
	if isIdent(s) {
		return s
	}
	return quote(s)
}

// appendKey appends key(s) to dst.
func appendKey(dst []byte, s string) []byte {
	if isIdent(s) {
		return append(dst, s...)
	}
	return appendQuote(dst, s)
}

// quote renders s as a JSON string literal, which is also a valid TypeScript string
// literal: no HTML escaping, U+2028/U+2029 and control characters escaped, invalid
// UTF-8 replaced by U+FFFD.
func quote(s string) string {
	return string(appendQuote(make([]byte, 0, len(s)+2), s))
}

// appendQuote appends quote(s) to dst.
func appendQuote(dst []byte, s string) []byte {
	dst = append(dst, '"')
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' { // the common case, as it is
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// aliasName turns a $defs key into an identifier: characters outside [A-Za-z0-9_$]
// become "_", a leading digit gets a "_" prefix.
func aliasName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c == '$' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else if c < 0x80 || utf8.RuneStart(c) {
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}

// writeDoc writes text to b as one JSDoc line at indent, or nothing when text is
// blank (see appendDoc). Text that is not plain is normalised in scratch.
func writeDoc(b *strings.Builder, scratch *[]byte, indent, text string) {
	if plain(text) {
		b.WriteString(indent)
		b.WriteString("/** ")
		b.WriteString(text)
		b.WriteString(" */\n")
		return
	}
	*scratch = appendDoc((*scratch)[:0], indent, text)
	b.Write(*scratch)
}

// appendDoc appends text to dst as one JSDoc line at indent, or nothing when text is
// blank: whitespace (as JavaScript's \s sees it) collapsed to single spaces, other
// control characters dropped, invalid UTF-8 replaced by U+FFFD (once for a run of
// bad bytes), and "*/" escaped as "*\/". It appends as it reads, rather than through
// intermediate strings, as it runs for every description that is not plain.
func appendDoc[T string | []byte](dst []byte, indent string, text T) []byte {
	mark := len(dst)
	dst = append(dst, indent...)
	dst = append(dst, "/** "...)
	if plain(text) {
		dst = append(dst, text...)
		return append(dst, " */\n"...)
	}
	start := len(dst)
	space, bad := false, false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			// At most UTFMax bytes, which convert without allocating.
			r, size = utf8.DecodeRuneInString(string(text[i:min(i+utf8.UTFMax, len(text))]))
		}
		i += size
		if r == utf8.RuneError && size == 1 {
			if bad {
				continue // one U+FFFD for a run of bad bytes
			}
			bad = true
		} else {
			bad = false
		}
		if unicode.IsSpace(r) || r == '\uFEFF' {
			space = len(dst) > start
			continue
		}
		if unicode.IsControl(r) {
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		if r == '/' && len(dst) > start && dst[len(dst)-1] == '*' {
			dst = append(dst, '\\', '/')
		} else {
			dst = utf8.AppendRune(dst, r)
		}
	}
	if len(dst) == start {
		return dst[:mark]
	}
	return append(dst, " */\n"...)
}

// plain reports text that appendDoc can write as it is: printable ASCII, no leading,
// trailing or repeated spaces, no "*/".
func plain[T string | []byte](text T) bool {
	if len(text) == 0 || text[0] == ' ' || text[len(text)-1] == ' ' {
		return false
	}
	// Every byte of every description is checked, so eight at a time: for a byte
	// below 0x20 or from 0x7f up (as in special8), and for "  " and "*/" as pairs
	// of marked bytes within a word or across two.
	i, spaces, stars := 0, uint64(0), uint64(0) // the last word's ' ' and '*'
	for ; i+8 <= len(text); i += 8 {
		x := load8(text, i)
		if ((x-lsb*0x20)&^x|x|(x+lsb))&msb != 0 {
			return false
		}
		sp, st, sl := zeros(x^(lsb*' ')), zeros(x^(lsb*'*')), zeros(x^(lsb*'/'))
		if sp&(sp>>8|spaces>>56) != 0 || sl&(st<<8|stars>>56) != 0 {
			return false
		}
		spaces, stars = sp, st
	}
	for ; i < len(text); i++ {
		c := text[i]
		if c < 0x20 || c >= 0x7f || i > 0 && (c == ' ' && text[i-1] == ' ' || c == '/' && text[i-1] == '*') {
			return false
		}
	}
	return true
}

// zeros returns v with the high bit of each zero byte set, and no other bit.
func zeros(v uint64) uint64 {
	const low7 = ^uint64(msb)
	return ^((v&low7 + low7) | v | low7)
}

// Bytes eight at a time, for the scans over every byte of every description.
const (
	lsb = 0x0101010101010101 // the low bit of each byte of a word
	msb = 0x8080808080808080 // the high bit of each byte
)

// load8 returns s[i:i+8] as a little-endian word (one load; i+8 <= len(s)).
func load8[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

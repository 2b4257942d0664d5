package sdkgen

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is one value of a parsed JSON document. Object members keep their source order
// (a repeated key keeps its first position and its last value, as encoding/json does),
// so that properties render in the order the schema's author wrote them.
type node struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null
	b    bool   // a boolean's value
	str  string // a string's value, a number's text
	src  string // the value's source text
	c    *members
}

// members are a non-empty object's or array's. Scalars, the most common values, carry
// none, which keeps their nodes small.
type members struct {
	keys []string // an object's, in source order
	vals []*node
	// index holds member positions by key for objects of 32 or more members.
	index map[string]int
}

// keys returns an object's member names.
func (n *node) keys() []string {
	if n.c == nil {
		return nil
	}
	return n.c.keys
}

// vals returns an object's member values or an array's elements.
func (n *node) vals() []*node {
	if n.c == nil {
		return nil
	}
	return n.c.vals
}

// get returns the member named k of an object node, or nil.
func (n *node) get(k string) *node {
	if n == nil || n.kind != 'o' || n.c == nil {
		return nil
	}
	if n.c.index != nil {
		if i, ok := n.c.index[k]; ok {
			return n.c.vals[i]
		}
		return nil
	}
	for i, key := range n.c.keys {
		if key == k {
			return n.c.vals[i]
		}
	}
	return nil
}

// parseJSON parses data without recursion, so that any depth is safe. It returns nil
// for text that is not exactly one JSON value.
func parseJSON(data string, a *arena) *node {
	p := parser{s: data, a: a, keys: a.keyStack[:0], vals: a.valStack[:0], stack: a.frames[:0]}
	root := p.parse()
	a.keyStack, a.valStack, a.frames = p.keys[:0], p.vals[:0], p.stack[:0] // reuse their capacity
	if root == nil {
		return nil
	}
	p.space()
	if p.pos != len(p.s) {
		return nil
	}
	return root
}

type parser struct {
	s   string
	pos int
	a   *arena
	// The members of the open containers (an array's with "" keys); a container's
	// are copied out, exactly sized, when it closes.
	keys  []string
	vals  []*node
	stack []frame // the open containers
}

// arena hands out nodes and member slices in chunks, shared by the documents of one
// SDK, so that parsing allocates a few large blocks rather than one per value.
type arena struct {
	nodes   []node
	members []members
	keys    []string
	vals    []*node
	// The parser's stacks, kept between documents.
	keyStack []string
	valStack []*node
	frames   []frame
}

func (p *parser) node(kind byte) *node {
	if len(p.a.nodes) == 0 {
		p.a.nodes = make([]node, 256)
	}
	n := &p.a.nodes[0]
	p.a.nodes = p.a.nodes[1:]
	n.kind = kind
	return n
}

// members copies a closing container's members out of the parser's stacks.
func (p *parser) members(f *frame) {
	if len(p.a.members) == 0 {
		p.a.members = make([]members, 64)
	}
	c := &p.a.members[0]
	p.a.members = p.a.members[1:]
	f.n.c = c
	vals := p.vals[f.base:]
	if len(p.a.vals) < len(vals) {
		p.a.vals = make([]*node, max(512, len(vals)))
	}
	c.vals = p.a.vals[:len(vals):len(vals)]
	p.a.vals = p.a.vals[len(vals):]
	copy(c.vals, vals)
	p.vals = p.vals[:f.base]
	if f.n.kind == 'o' {
		keys := p.keys[f.base:]
		if len(p.a.keys) < len(keys) {
			p.a.keys = make([]string, max(512, len(keys)))
		}
		c.keys = p.a.keys[:len(keys):len(keys)]
		p.a.keys = p.a.keys[len(keys):]
		copy(c.keys, keys)
		c.index = f.index
	}
	p.keys = p.keys[:f.base]
}

type frame struct {
	n     *node
	start int
	base  int // where the container's members start on the parser's stacks
	key   string
	index map[string]int // member positions by key, for large objects
}

func (p *parser) space() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
			continue
		}
		return
	}
}

func (p *parser) parse() *node {
	for {
		p.space()
		if p.pos >= len(p.s) {
			return nil
		}
		var v *node
		start := p.pos
		switch c := p.s[p.pos]; {
		case c == '{' || c == '[':
			p.pos++
			n := p.node('o')
			if c == '[' {
				n.kind = 'a'
			}
			p.space()
			if p.pos < len(p.s) && (p.s[p.pos] == '}' && c == '{' || p.s[p.pos] == ']' && c == '[') {
				p.pos++
				n.src = p.s[start:p.pos]
				v = n
				break
			}
			f := frame{n: n, start: start, base: len(p.vals)}
			if c == '{' {
				k, ok := p.key()
				if !ok {
					return nil
				}
				f.key = k
			}
			p.stack = append(p.stack, f)
			continue
		case c == '"':
			s, ok := p.str()
			if !ok {
				return nil
			}
			v = p.node('s')
			v.str = s
		case c == 't' && strings.HasPrefix(p.s[p.pos:], "true"):
			p.pos += 4
			v = p.node('b')
			v.b = true
		case c == 'f' && strings.HasPrefix(p.s[p.pos:], "false"):
			p.pos += 5
			v = p.node('b')
		case c == 'n' && strings.HasPrefix(p.s[p.pos:], "null"):
			p.pos += 4
			v = p.node('z')
		case c == '-' || c >= '0' && c <= '9':
			if !p.number() {
				return nil
			}
			v = p.node('n')
			v.str = p.s[start:p.pos]
		default:
			return nil
		}
		if v.src == "" {
			v.src = p.s[start:p.pos]
		}
		// Attach v to the open containers, closing those that end here.
		for {
			if len(p.stack) == 0 {
				return v
			}
			top := &p.stack[len(p.stack)-1]
			if top.n.kind == 'o' {
				p.add(top, v)
			} else {
				p.keys = append(p.keys, "") // keeps the two stacks aligned
				p.vals = append(p.vals, v)
			}
			p.space()
			if p.pos >= len(p.s) {
				return nil
			}
			c := p.s[p.pos]
			p.pos++
			if c == ',' {
				if top.n.kind == 'o' {
					k, ok := p.key()
					if !ok {
						return nil
					}
					top.key = k
				}
				break
			}
			if c == '}' && top.n.kind == 'o' || c == ']' && top.n.kind == 'a' {
				p.members(top)
				v = top.n
				v.src = p.s[top.start:p.pos]
				p.stack = p.stack[:len(p.stack)-1]
				continue
			}
			return nil
		}
	}
}

// add adds a member to the open object f; a repeated key keeps its first position
// and takes the new value.
func (p *parser) add(f *frame, v *node) {
	members := p.keys[f.base:]
	switch {
	case f.index != nil:
		if i, ok := f.index[f.key]; ok {
			p.vals[f.base+i] = v
			return
		}
		f.index[f.key] = len(members)
	case len(members) < 32:
		for i, key := range members {
			if key == f.key {
				p.vals[f.base+i] = v
				return
			}
		}
	default: // a large object: index it, so that n members cost O(n), not O(n²)
		f.index = make(map[string]int, 2*len(members))
		for i, key := range members {
			f.index[key] = i
		}
		p.add(f, v)
		return
	}
	p.keys = append(p.keys, f.key)
	p.vals = append(p.vals, v)
}

// key reads `"name" :` at an object member's start.
func (p *parser) key() (string, bool) {
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return "", false
	}
	k, ok := p.str()
	if !ok {
		return "", false
	}
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != ':' {
		return "", false
	}
	p.pos++
	return k, true
}

// str reads a JSON string; invalid UTF-8 and lone surrogates become U+FFFD.
func (p *parser) str() (string, bool) {
	start := p.pos
	p.pos++
	simple := true
	for {
		if p.pos >= len(p.s) {
			return "", false
		}
		c := p.s[p.pos]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		if c == '\\' {
			simple = false
			p.pos++
			if p.pos >= len(p.s) {
				return "", false
			}
			if p.s[p.pos] == 'u' {
				if p.pos+4 >= len(p.s) {
					return "", false
				}
				if _, err := strconv.ParseUint(p.s[p.pos+1:p.pos+5], 16, 16); err != nil {
					return "", false
				}
				p.pos += 4
			} else if strings.IndexByte(`"\/bfnrt`, p.s[p.pos]) < 0 {
				return "", false
			}
		} else if c >= 0x80 {
			simple = false
		}
		p.pos++
	}
	p.pos++
	raw := p.s[start:p.pos]
	if simple {
		return raw[1 : len(raw)-1], true
	}
	s, err := strconv.Unquote(raw)
	if err != nil || !utf8.ValidString(s) {
		return strings.ToValidUTF8(unquoteLoose(raw), "\uFFFD"), true
	}
	return s, true
}

// unquoteLoose decodes a JSON string that strconv.Unquote rejects (a "\/" escape, a
// lone surrogate, raw invalid UTF-8), replacing what has no UTF-8 form.
func unquoteLoose(raw string) string {
	var b strings.Builder
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, _ := strconv.ParseUint(s[i+1:i+5], 16, 32)
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := strconv.ParseUint(s[i+3:i+7], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
					b.WriteRune(rune((r-0xD800)<<10 + (lo - 0xDC00) + 0x10000))
					i += 6
					continue
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteRune(rune(r))
			}
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

func (p *parser) number() bool {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 || p.s[intStart] == '0' && p.pos-intStart > 1 {
		return false
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return false
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return false
		}
	}
	return p.pos > start
}

// pointer resolves a JSON Pointer in URI-fragment form ("#/a/b~1c/0") from root,
// or returns nil.
func pointer(root *node, ref string) *node {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag := ref[1:]
	if strings.Contains(frag, "%") {
		var ok bool
		if frag, ok = percentDecode(frag); !ok {
			return nil
		}
	}
	if frag == "" {
		return root
	}
	if frag[0] != '/' {
		return nil // a plain-name anchor, not supported
	}
	n := root
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch n.kind {
		case 'o':
			n = n.get(seg)
		case 'a':
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.vals()) || seg != strconv.Itoa(i) {
				return nil
			}
			n = n.vals()[i]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

func percentDecode(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

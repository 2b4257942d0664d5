package sdkgen

import (
	"strings"
)

// A parsed JSON document lives in a store shared by the documents of one Render, as
// flat slices of pointer-free records: nodes, and the members of containers as int32
// indices and source offsets. A thousand tools' schemas make some 30,000 values; as
// separately allocated nodes with string and slice fields they were half of Render's
// allocated bytes, and the garbage collector scanned every one of them. Pointer-free
// slices are a few large allocations that the collector does not scan.

// node is one value of a parsed JSON document. Object members keep their source order
// (a repeated key keeps its first position and its last value, as encoding/json does),
// so that properties render in the order the schema's author wrote them.
type node struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null
	b    bool // a boolean's value
	// esc marks a string whose value is not its source text between the quotes (it
	// had escapes or invalid UTF-8): the value is store.strs[first].
	esc        bool
	start, end int32 // the value's source text, doc.src[start:end]
	// A container's members are store.kids[first:]: an array's n elements, or an
	// object's n members as (key start, key end, value) triples; a key that is not
	// its source text is store.strs[^key start] (start < 0).
	first, n int32
	bits     uint64 // an object's keyBits
}

// store holds the parsed documents of one Render.
type store struct {
	nodes []node
	kids  []int32
	strs  []string // the values of strings and keys with escapes
	// index holds member positions by key for objects of 32 or more members, by node.
	index map[int32]map[string]int32
	// The parser's stacks, kept between documents.
	mem    []int32
	frames []frame
}

// doc is one parsed document's text.
type doc struct {
	src string
	s   *store
}

// val is a value of a parsed document; the zero val is no value.
type val struct {
	d *doc
	i int32
}

func (v val) ok() bool { return v.d != nil }

func (v val) nd() *node { return &v.d.s.nodes[v.i] }

// kind is the value's kind byte, or 0 for no value.
func (v val) kind() byte {
	if v.d == nil {
		return 0
	}
	return v.nd().kind
}

// boolean is a boolean's value.
func (v val) boolean() bool { return v.nd().b }

// src returns the value's source text.
func (v val) src() string {
	n := v.nd()
	return v.d.src[n.start:n.end]
}

// str returns a string's value or a number's text ("" for other kinds).
func (v val) str() string {
	n := v.nd()
	switch {
	case n.esc:
		return v.d.s.strs[n.first]
	case n.kind == 's':
		return v.d.src[n.start+1 : n.end-1]
	case n.kind == 'n':
		return v.d.src[n.start:n.end]
	}
	return ""
}

// len returns the number of an object's members or an array's elements.
func (v val) len() int {
	if v.d == nil {
		return 0
	}
	return int(v.nd().n)
}

// at returns an object's i-th member value or an array's i-th element.
func (v val) at(i int) val {
	n := v.nd()
	if n.kind == 'o' {
		return val{v.d, v.d.s.kids[int(n.first)+3*i+2]}
	}
	return val{v.d, v.d.s.kids[int(n.first)+i]}
}

// key returns an object's i-th member name.
func (v val) key(i int) string {
	k := v.d.s.kids[int(v.nd().first)+3*i:]
	return v.d.keyText(k[0], k[1])
}

func (d *doc) keyText(start, end int32) string {
	if start < 0 {
		return d.s.strs[^start]
	}
	return d.src[start:end]
}

// member returns an object's i-th member as the store holds it.
func (v val) member(i int) []int32 {
	first := int(v.nd().first) + 3*i
	return v.d.s.kids[first : first+3 : first+3]
}

// get returns the member named k of an object value, or no value.
//
// The renderer asks each schema for dozens of keywords it mostly lacks: get answers
// most of those from the object's key bits, a word of its node, without reading its
// members.
func (v val) get(k string) val {
	if v.d == nil || v.d.s.nodes[v.i].bits&keyBit(k) == 0 {
		return val{}
	}
	return v.find(k)
}

// mayHave reports whether an object value might have one of the keys whose keyBits
// are in mask; when not, it has none of them.
func (v val) mayHave(mask uint64) bool {
	return v.d != nil && v.d.s.nodes[v.i].bits&mask != 0
}

// keyBits returns the union of keys' keyBits.
func keyBits(keys ...string) uint64 {
	var bits uint64
	for _, k := range keys {
		bits |= keyBit(k)
	}
	return bits
}

// find returns the member named k of an object value whose key bits have k's, or no
// value.
func (v val) find(k string) val {
	n := v.nd()
	if n.n >= largeObject {
		if idx := v.d.s.index[v.i]; idx != nil {
			if i, ok := idx[k]; ok {
				return v.at(int(i))
			}
			return val{}
		}
	}
	kids := v.d.s.kids[n.first : n.first+3*n.n]
	for i := 0; i < len(kids); i += 3 {
		if start := kids[i]; start >= 0 && len(k) == int(kids[i+1]-start) && v.d.src[start:kids[i+1]] == k ||
			start < 0 && v.d.s.strs[^start] == k {
			return val{v.d, kids[i+2]}
		}
	}
	return val{}
}

// keyBit returns the bit that stands for the key k in an object's key bits, a
// 64-bit Bloom filter of its keys (0 for other nodes): when k's bit is clear, the
// object has no member k.
func keyBit(k string) uint64 {
	h := uint(len(k))
	if len(k) > 0 {
		h += 7*uint(k[0]) + 13*uint(k[len(k)-1])
	}
	return 1 << (h & 63)
}

// largeObject is the member count from which an object's members are indexed by key,
// so that n members cost O(n), not O(n²).
const largeObject = 32

// newObject adds an object of the given (key start, key end, value) triples of d to
// the store; newArray an array of d's values. mergeAllOf builds its merged schema
// with them.
func (d *doc) newObject(triples []int32) val {
	v := d.newNode('o', triples, int32(len(triples)/3))
	var bits uint64
	for i := 0; i < len(triples); i += 3 {
		bits |= keyBit(d.keyText(triples[i], triples[i+1]))
	}
	v.nd().bits = bits
	return v
}

func (d *doc) newArray(vals []int32) val {
	return d.newNode('a', vals, int32(len(vals)))
}

func (d *doc) newNode(kind byte, kids []int32, n int32) val {
	s := d.s
	s.nodes = append(s.nodes, node{kind: kind, first: int32(len(s.kids)), n: n})
	s.kids = append(s.kids, kids...)
	return val{d, int32(len(s.nodes) - 1)}
}

// maxStore bounds the store's slices so that their indices fit in an int32.
const maxStore = 1<<31 - 1

// fits reports that d's values can be indexed in its store: a document of n bytes
// makes at most n values and 3n member entries.
func (d *doc) fits() bool {
	s := d.s
	return len(s.nodes)+len(d.src) < maxStore && len(s.kids)+3*len(d.src) < maxStore && len(s.strs)+len(d.src) < maxStore
}

// parse parses d's text without recursion, so that any depth is safe, into d's store,
// which d must fit. It returns no value for text that is not exactly one JSON value.
func (d *doc) parse() val {
	s := d.s
	p := parser{s: d.src, st: s, nodes: s.nodes, mem: s.mem[:0], stack: s.frames[:0]}
	root := p.parse()
	s.nodes = p.nodes
	s.mem, s.frames = p.mem[:0], p.stack[:0] // reuse their capacity
	if root < 0 {
		return val{}
	}
	p.space()
	if p.pos != len(p.s) {
		return val{}
	}
	return val{d, root}
}

type parser struct {
	s     string
	pos   int
	st    *store
	nodes []node // the store's, while parsing
	// The members of the open containers; a container's are copied out, exactly
	// sized, when it closes.
	mem   []int32
	stack []frame // the open containers
}

// frame is an open container. It holds no pointers, so that the stack of them
// costs the collector nothing.
type frame struct {
	n          int32 // the container's node
	base       int   // where its members start on mem
	start, end int32 // the current member's key, as in a triple
	indexed    bool  // a large object, whose members are in store.index
}

func (p *parser) node(kind byte, start int) int32 {
	p.nodes = append(p.nodes, node{kind: kind, start: int32(start)})
	return int32(len(p.nodes) - 1)
}

// close copies a closing container's members out of the parser's stack.
func (p *parser) close(f *frame) {
	s := p.st
	mem := p.mem[f.base:]
	n := &p.nodes[f.n]
	n.n = int32(len(mem))
	if n.kind == 'o' {
		n.n /= 3
		var bits uint64
		for i := 0; i < len(mem); i += 3 {
			bits |= keyBit(p.keyText(mem[i], mem[i+1]))
		}
		n.bits = bits
	}
	n.first = int32(len(s.kids))
	s.kids = append(s.kids, mem...)
	p.mem = p.mem[:f.base]
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

// parse returns the root node, or -1.
func (p *parser) parse() int32 {
	for {
		p.space()
		if p.pos >= len(p.s) {
			return -1
		}
		var v int32
		start := p.pos
		switch c := p.s[p.pos]; {
		case c == '{' || c == '[':
			p.pos++
			kind := byte('o')
			if c == '[' {
				kind = 'a'
			}
			v = p.node(kind, start)
			p.space()
			if p.pos < len(p.s) && (p.s[p.pos] == '}' && c == '{' || p.s[p.pos] == ']' && c == '[') {
				p.pos++
				p.nodes[v].end = int32(p.pos)
				break
			}
			f := frame{n: v, base: len(p.mem)}
			if c == '{' {
				var ok bool
				if f.start, f.end, ok = p.key(); !ok {
					return -1
				}
			}
			p.stack = append(p.stack, f)
			continue
		case c == '"':
			value, esc, ok := p.str()
			if !ok {
				return -1
			}
			v = p.node('s', start)
			if esc {
				n := &p.nodes[v]
				n.esc, n.first = true, int32(len(p.st.strs))
				p.st.strs = append(p.st.strs, value)
			}
		case c == 't' && strings.HasPrefix(p.s[p.pos:], "true"):
			p.pos += 4
			v = p.node('b', start)
			p.nodes[v].b = true
		case c == 'f' && strings.HasPrefix(p.s[p.pos:], "false"):
			p.pos += 5
			v = p.node('b', start)
		case c == 'n' && strings.HasPrefix(p.s[p.pos:], "null"):
			p.pos += 4
			v = p.node('z', start)
		case c == '-' || c >= '0' && c <= '9':
			if !p.number() {
				return -1
			}
			v = p.node('n', start)
		default:
			return -1
		}
		if n := &p.nodes[v]; n.end == 0 {
			n.end = int32(p.pos)
		}
		// Attach v to the open containers, closing those that end here.
		for {
			if len(p.stack) == 0 {
				return v
			}
			top := &p.stack[len(p.stack)-1]
			obj := p.nodes[top.n].kind == 'o'
			if obj {
				p.add(top, v)
			} else {
				p.mem = append(p.mem, v)
			}
			p.space()
			if p.pos >= len(p.s) {
				return -1
			}
			c := p.s[p.pos]
			p.pos++
			if c == ',' {
				if obj {
					var ok bool
					if top.start, top.end, ok = p.key(); !ok {
						return -1
					}
				}
				break
			}
			if c == '}' && obj || c == ']' && !obj {
				p.close(top)
				v = top.n
				p.nodes[v].end = int32(p.pos)
				p.stack = p.stack[:len(p.stack)-1]
				continue
			}
			return -1
		}
	}
}

// add adds a member to the open object f; a repeated key keeps its first position
// and takes the new value.
func (p *parser) add(f *frame, v int32) {
	mem := p.mem[f.base:]
	k := p.keyText(f.start, f.end)
	switch {
	case f.indexed:
		index := p.st.index[f.n]
		if i, ok := index[k]; ok {
			mem[3*i+2] = v
			return
		}
		index[k] = int32(len(mem) / 3)
	case len(mem) < 3*largeObject:
		for i := 0; i < len(mem); i += 3 {
			if p.keyText(mem[i], mem[i+1]) == k {
				mem[i+2] = v
				return
			}
		}
	default: // a large object: index it, so that n members cost O(n), not O(n²)
		index := make(map[string]int32, 2*len(mem)/3)
		for i := 0; i < len(mem); i += 3 {
			index[p.keyText(mem[i], mem[i+1])] = int32(i / 3)
		}
		if p.st.index == nil {
			p.st.index = map[int32]map[string]int32{}
		}
		p.st.index[f.n] = index
		f.indexed = true
		p.add(f, v)
		return
	}
	p.mem = append(p.mem, f.start, f.end, v)
}

func (p *parser) keyText(start, end int32) string {
	if start < 0 {
		return p.st.strs[^start]
	}
	return p.s[start:end]
}

// key reads `"name" :` at an object member's start, returning the name as a triple's
// key start and end.
func (p *parser) key() (start, end int32, ok bool) {
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return 0, 0, false
	}
	from := p.pos
	k, esc, ok := p.str()
	if !ok {
		return 0, 0, false
	}
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != ':' {
		return 0, 0, false
	}
	p.pos++
	if esc {
		p.st.strs = append(p.st.strs, k)
		return ^int32(len(p.st.strs) - 1), 0, true
	}
	return int32(from + 1), int32(from + 1 + len(k)), true
}

package workspace

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// bufSize is the buffer read_file and grep read a file through: a line that fits is
// handled in place, a longer one in pieces, so that no call holds a whole file.
const bufSize = 64 << 10

// textCheck tells, over a file read in pieces, whether it is text: valid UTF-8 without
// a NUL byte. A character split between two pieces is checked once it is whole.
type textCheck struct {
	tail [utf8.UTFMax]byte // the start of a character the last piece ended inside
	n    int
	bad  bool
}

// write checks the next piece and reports whether the text so far is still text.
func (c *textCheck) write(p []byte) bool {
	if c.bad {
		return false
	}
	if bytes.IndexByte(p, 0) >= 0 {
		c.bad = true
		return false
	}
	for c.n > 0 && len(p) > 0 { // complete the character the last piece ended inside
		c.tail[c.n] = p[0]
		c.n++
		p = p[1:]
		if utf8.FullRune(c.tail[:c.n]) {
			if r, size := utf8.DecodeRune(c.tail[:c.n]); r == utf8.RuneError && size <= 1 || size != c.n {
				c.bad = true
				return false
			}
			c.n = 0
		}
	}
	// Hold back a character that p ends inside (FullRune is false only for the valid
	// start of one).
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				c.n = copy(c.tail[:], p[i:])
				p = p[:i]
			}
			break
		}
	}
	if !utf8.Valid(p) {
		c.bad = true
	}
	return !c.bad
}

// end reports whether the whole file was text (it does not end inside a character).
func (c *textCheck) end() bool { return !c.bad && c.n == 0 }

// lineCut is the first bytes of a line, kept up to max+1 of them, and the line's length.
type lineCut struct {
	max    int
	prefix []byte
	total  int
}

func (l *lineCut) reset() { l.prefix, l.total = l.prefix[:0], 0 }

// write adds the next piece of the line.
func (l *lineCut) write(p []byte) {
	l.total += len(p)
	if room := l.max + 1 - len(l.prefix); room > 0 {
		l.prefix = append(l.prefix, p[:min(room, len(p))]...)
	}
}

// parts returns the line, or its first max bytes (on a character boundary) and a suffix
// saying how many bytes were left out.
func (l *lineCut) parts() (kept []byte, suffix string) {
	if l.total <= l.max {
		return l.prefix, ""
	}
	n := l.max
	for n > 0 && !utf8.RuneStart(l.prefix[n]) {
		n--
	}
	return l.prefix[:n], fmt.Sprintf("… (%d more bytes)", l.total-n)
}

// String returns the line as parts does, in one string.
func (l *lineCut) String() string {
	kept, suffix := l.parts()
	return string(kept) + suffix
}

package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/runcode-go/runcode/internal/boundre"
	"github.com/runcode-go/runcode/registry"
)

// Go's regexp matches in time proportional to the text times the program's instructions,
// and one call cannot be stopped; a short pattern grows when compiled, as {n,m} copies
// what it repeats. grep therefore refuses a program over MaxRegexpInsts before compiling
// it, matches a line in one call only when its length times the program's is small
// (directWork), and otherwise matches through a reader that ends the text once the call
// is cancelled. It reads a file a line at a time through one buffer, a line longer than
// the buffer a piece at a time, and returns at most MaxLineBytes of a matching line.
const (
	// MaxLineBytes is how much of a matching line grep returns; the rest is replaced by
	// "… (N more bytes)".
	MaxLineBytes = 1024
	// MaxRegexpInsts bounds the instructions a grep pattern compiles to: `[a-z]{0,1000}`
	// is about 2,000 of them, a word or two a dozen.
	MaxRegexpInsts = 10000
	// directWork bounds the line length times program instructions matched in one
	// uncancellable call; it is also about the work between two looks at cancellation.
	directWork = 1 << 20
)

// pattern is a grep pattern compiled within MaxRegexpInsts.
type pattern struct {
	re    *regexp.Regexp
	insts int
}

// compilePattern compiles expr after checking, on its parse tree and then on its
// compiled program, that it stays within MaxRegexpInsts: the check comes before the
// repeats are expanded, which is where a short pattern grows.
func compilePattern(expr string) (*pattern, error) {
	if len(expr) > MaxPathBytes {
		return nil, fmt.Errorf("regular expression is %d bytes long, over the limit of %d", len(expr), MaxPathBytes)
	}
	re, insts, err := boundre.Compile(expr, MaxRegexpInsts)
	switch {
	case errors.Is(err, boundre.ErrTooLarge):
		return nil, fmt.Errorf("regular expression compiles to more than %d instructions (the limit); use fewer or smaller {n,m} repeats", MaxRegexpInsts)
	case err != nil:
		return nil, fmt.Errorf("invalid regular expression %q: %v", expr, err)
	}
	return &pattern{re: re, insts: insts}, nil
}

func (w *Workspace) grep(ctx context.Context, call *registry.Call) (any, error) {
	var in struct{ Pattern, Path, Glob string }
	if err := call.Args.Decode(&in); err != nil {
		return nil, err
	}
	pat, err := compilePattern(in.Pattern)
	if err != nil {
		return nil, err
	}
	if in.Path == "" {
		in.Path = "."
	}
	p, err := clean(in.Path)
	if err != nil {
		return nil, err
	}
	// Named explicitly, a path that is neither a directory nor a regular file is refused;
	// met during the walk, it is skipped like any file that cannot be read.
	if info, err := w.root.Stat(p); err == nil && !info.IsDir() && !info.Mode().IsRegular() {
		return nil, fsError(p, &notRegularError{info.Mode()})
	}
	if in.Glob != "" {
		if err := checkGlob(in.Glob); err != nil {
			return nil, err
		}
	}
	g := &grepper{ctx: ctx, pat: pat, br: bufio.NewReaderSize(nil, bufSize), cut: lineCut{max: MaxLineBytes}}
	g.long.first = make([]byte, 0, bufSize+utf8.UTFMax)
	matches := []map[string]any{}
	truncated := false
	err = w.walk(ctx, p, func(fp string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || in.Glob != "" && !doublestar.MatchUnvalidated(in.Glob, fp) {
			return nil
		}
		found, more, err := w.grepFile(g, fp, MaxResults-len(matches))
		if err != nil {
			return err
		}
		matches = append(matches, found...)
		if more {
			truncated = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"matches": matches, "truncated": truncated}, nil
}

// grepper is one grep call's pattern and buffers, reused from file to file.
type grepper struct {
	ctx  context.Context
	pat  *pattern
	br   *bufio.Reader
	cut  lineCut
	long longLine
}

// grepFile returns up to room matches in the file at fp, and whether there were more.
// A file that cannot be read, is over MaxFileBytes or is not text (not UTF-8, or with a
// NUL byte anywhere) has none: it is read to its end before its matches count.
func (w *Workspace) grepFile(g *grepper, fp string, room int) (found []map[string]any, more bool, err error) {
	f, info, err := w.open(fp, false)
	if err != nil || info.Size() > MaxFileBytes {
		return nil, false, nil
	}
	defer f.Close()
	g.br.Reset(io.LimitReader(f, MaxFileBytes+1))
	var text textCheck
	size := 0
	for line := 1; ; line++ {
		if err := g.ctx.Err(); err != nil {
			return nil, false, err
		}
		chunk, rerr := g.br.ReadSlice('\n')
		if rerr != nil && rerr != io.EOF && rerr != bufio.ErrBufferFull {
			return nil, false, nil // unreadable
		}
		if len(chunk) == 0 {
			break
		}
		size += len(chunk)
		var ok bool
		g.cut.reset()
		if rerr == bufio.ErrBufferFull {
			// A line longer than the buffer: matched and checked as it is read.
			lr := &g.long
			lr.br, lr.text, lr.cut = g.br, &text, &g.cut
			lr.start(chunk)
			if !more {
				if ok, err = g.pat.matchReader(g.ctx, lr); err != nil {
					return nil, false, err
				}
			}
			lr.drain()
			size += lr.n
		} else {
			if !text.write(chunk) {
				return nil, false, nil
			}
			chunk = bytes.TrimSuffix(chunk, []byte("\n"))
			if !more {
				if ok, err = g.pat.match(g.ctx, chunk); err != nil {
					return nil, false, err
				}
			}
			if ok {
				g.cut.write(chunk)
			}
		}
		if text.bad || size > MaxFileBytes {
			return nil, false, nil
		}
		switch {
		case !ok:
		case len(found) == room:
			more = true // the rest of the file is only checked to be text
		default:
			found = append(found, map[string]any{"path": fp, "line": line, "text": g.cut.String()})
		}
	}
	if !text.end() {
		return nil, false, nil
	}
	return found, more, nil
}

// match reports whether the pattern matches line, or ctx's error once the call is
// cancelled. A match whose work could be long goes through a cancellable reader.
func (p *pattern) match(ctx context.Context, line []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if len(line) <= directWork/p.insts {
		return p.re.Match(line), nil
	}
	return p.matchReader(ctx, bytes.NewReader(line))
}

// matchReader matches the runes r reads, looking at cancellation every directWork
// instructions' worth of them.
func (p *pattern) matchReader(ctx context.Context, r io.RuneReader) (bool, error) {
	ok := p.re.MatchReader(&cancellableReader{done: ctx.Done(), r: r, every: max(1, directWork/p.insts)})
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return ok, nil
}

// cancellableReader reads runes until done is closed, then reports the end of the text.
type cancellableReader struct {
	done  <-chan struct{}
	r     io.RuneReader
	n     int
	every int
}

func (c *cancellableReader) ReadRune() (rune, int, error) {
	if c.n++; c.n%c.every == 0 {
		select {
		case <-c.done:
			return 0, 0, io.EOF
		default:
		}
	}
	return c.r.ReadRune()
}

// longLine reads, as runes, a line longer than the buffer: first the piece of it that
// was read (first, completed to a character's end), then windows on br's buffer up to
// the line's newline. What it has read it passes to text (the text check) and cut (the
// line's start kept for the result), a window at a time.
type longLine struct {
	br     *bufio.Reader
	text   *textCheck
	cut    *lineCut
	first  []byte
	win    []byte // first, then a window on br's buffer
	pos    int    // how much of win is read
	fromBr bool   // win is on br's buffer, not first
	last   bool   // win ends the line
	n      int    // the line's bytes read from br after first
}

// start begins a line whose first piece is chunk (which br has returned).
func (l *longLine) start(chunk []byte) {
	*l = longLine{br: l.br, text: l.text, cut: l.cut, first: append(l.first[:0], chunk...)}
	// Complete a character cut at chunk's end, so that the windows start on one.
	for i := len(l.first) - 1; i >= 0 && i > len(l.first)-utf8.UTFMax; i-- {
		if !utf8.RuneStart(l.first[i]) {
			continue
		}
		for !utf8.FullRune(l.first[i:]) {
			b, err := l.br.ReadByte()
			if err != nil {
				break
			}
			if b == '\n' {
				l.br.UnreadByte()
				break
			}
			l.first = append(l.first, b)
			l.n++
		}
		break
	}
	l.win = l.first
}

// next gives up win, passing on what was read of it (first whole), and looks at the
// next window; false at the line's end or once it is not text.
func (l *longLine) next() bool {
	if l.fromBr {
		l.pass(l.win[:l.pos])
		l.br.Discard(l.pos)
		l.n += l.pos
	} else {
		l.pass(l.win)
	}
	l.win, l.pos, l.fromBr = nil, 0, true
	if l.last || l.text.bad {
		return false
	}
	p, err := l.br.Peek(bufSize) // a window without a newline is bufSize long
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		p, l.last = p[:i+1], true
	} else if err != nil {
		l.last = true
	}
	l.win = p
	return len(p) > 0
}

func (l *longLine) pass(p []byte) {
	l.text.write(p)
	l.cut.write(bytes.TrimSuffix(p, []byte("\n")))
}

func (l *longLine) ReadRune() (rune, int, error) {
	// A window that ends inside a character (not the line's last) is left at its start.
	for l.pos == len(l.win) || !l.last && !utf8.FullRune(l.win[l.pos:]) {
		if !l.next() {
			return 0, 0, io.EOF
		}
	}
	r, size := utf8.DecodeRune(l.win[l.pos:])
	l.pos += size
	if r == '\n' {
		return 0, 0, io.EOF
	}
	return r, size, nil
}

// drain reads the rest of the line, for the text check and the line's length.
func (l *longLine) drain() {
	for {
		l.pos = len(l.win)
		if !l.next() {
			return
		}
	}
}

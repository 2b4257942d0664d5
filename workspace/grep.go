package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/runcode-go/runcode/registry"
)

// Go's regexp matches in time proportional to the text times the pattern's states, and
// cannot be stopped: a short pattern such as `[a-z]{0,1000}x` keeps a CPU busy for
// minutes over one long line. grep therefore
// checks for cancellation between lines, matches a long line through a reader that ends
// the text once the call is cancelled, and returns at most MaxLineBytes of a line.
const (
	// MaxLineBytes is how much of a matching line grep returns; the rest is replaced by
	// "… (N more bytes)".
	MaxLineBytes = 1024
	// readerLine is the line length from which grep matches through a cancellable reader.
	readerLine = 4096
)

func (w *Workspace) grep(ctx context.Context, call *registry.Call) (any, error) {
	var in struct{ Pattern, Path, Glob string }
	if err := call.Args.Decode(&in); err != nil {
		return nil, err
	}
	if len(in.Pattern) > MaxPathBytes {
		return nil, fmt.Errorf("regular expression is %d bytes long, over the limit of %d", len(in.Pattern), MaxPathBytes)
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", in.Pattern, err)
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
	matches := []map[string]any{}
	truncated := false
	errFull := errors.New("full")
	err = w.walk(ctx, p, func(fp string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || in.Glob != "" && !doublestar.MatchUnvalidated(in.Glob, fp) {
			return nil
		}
		data, err := w.readSmall(fp)
		if err != nil || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			return nil // unreadable, large or binary files are skipped
		}
		for i, line := range strings.Split(string(data), "\n") {
			if ok, err := matchLine(ctx, re, line); err != nil {
				return err
			} else if !ok {
				continue
			}
			if len(matches) == MaxResults {
				truncated = true
				return errFull
			}
			matches = append(matches, map[string]any{"path": fp, "line": i + 1, "text": cutLine(line)})
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFull) {
		return nil, err
	}
	return map[string]any{"matches": matches, "truncated": truncated}, nil
}

// matchLine reports whether re matches line, or ctx's error once the call is cancelled.
func matchLine(ctx context.Context, re *regexp.Regexp, line string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if len(line) < readerLine {
		return re.MatchString(line), nil
	}
	ok := re.MatchReader(&cancellableReader{done: ctx.Done(), r: strings.NewReader(line)})
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return ok, nil
}

// cancellableReader reads runes until done is closed, then reports the end of the text.
type cancellableReader struct {
	done <-chan struct{}
	r    io.RuneReader
	n    int
}

func (c *cancellableReader) ReadRune() (rune, int, error) {
	if c.n++; c.n%1024 == 0 {
		select {
		case <-c.done:
			return 0, 0, io.EOF
		default:
		}
	}
	return c.r.ReadRune()
}

// cutLine returns line, or its first MaxLineBytes (on a character boundary) and how many
// bytes were left out.
func cutLine(line string) string {
	if len(line) <= MaxLineBytes {
		return line
	}
	n := MaxLineBytes
	for n > 0 && !utf8.RuneStart(line[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d more bytes)", line[:n], len(line)-n)
}

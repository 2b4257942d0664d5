package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/runcode-go/runcode/registry"
)

// Limits bound what one call may read or return.
const (
	// MaxFileBytes is the largest file read_file and grep read, and the largest offset
	// and limit read_file takes (such a file has no more lines).
	MaxFileBytes = 10 << 20
	// DefaultLines is how many lines read_file returns without a limit.
	DefaultLines = 2000
	// MaxReadLineBytes is how much of a line read_file returns; the rest is replaced by
	// "… (N more bytes)".
	MaxReadLineBytes = 64 << 10
	// MaxReadBytes bounds the text read_file returns: it stops before the line that
	// would go over, and its endLine says where it stopped.
	MaxReadBytes = 1 << 20
	// MaxResults bounds glob paths, grep matches and list_dir entries.
	MaxResults = 1000
	// MaxPathBytes bounds a path argument (Linux's PATH_MAX): a longer one names no file,
	// and is refused without being repeated in the error.
	MaxPathBytes = 4096
	// MaxGlobAlternatives bounds how many patterns a glob's {a,b} groups expand to: the
	// matcher tries them one by one for every name, so twenty groups of two take seconds
	// per directory and forty would run for days.
	MaxGlobAlternatives = 256
)

// Workspace is a directory tree the tools are jailed to. It is safe for concurrent
// use; Close releases it.
type Workspace struct {
	root *os.Root
	fsys fs.FS
}

// Open opens dir as a workspace.
func Open(dir string) (*Workspace, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening workspace root: %w", err)
	}
	w := &Workspace{root: root}
	w.fsys = rootFS{w}
	return w, nil
}

// Close releases the root.
func (w *Workspace) Close() error { return w.root.Close() }

// Tools returns the five workspace tools.
func (w *Workspace) Tools() []*registry.Tool {
	safe := func(registry.Value) bool { return true }
	return []*registry.Tool{
		{
			Name:        "read_file",
			Description: fmt.Sprintf("Read a text file's lines (1-based offset, limit lines; default the first %d), or an image file as an image. A line is cut after %d bytes, and at most %d bytes of text come back: endLine says where it stopped.", DefaultLines, MaxReadLineBytes, MaxReadBytes),
			Parameters: registry.Object(
				registry.Required("path", registry.String().Describe("Path relative to the workspace root.")),
				registry.Optional("offset", registry.Integer().Describe(fmt.Sprintf("First line to return, 1-based, from 1 to %d. Default 1.", MaxFileBytes))),
				registry.Optional("limit", registry.Integer().Describe(fmt.Sprintf("How many lines to return, from 1 to %d. Default %d.", MaxFileBytes, DefaultLines))),
			).Closed(),
			Output: registry.Output{
				Schema: registry.Object(
					registry.Required("path", registry.String()),
					registry.Optional("text", registry.String().Describe(fmt.Sprintf("The lines read, joined by newlines; past %d bytes a line is cut, ending in \"… (N more bytes)\".", MaxReadLineBytes))),
					registry.Optional("startLine", registry.Integer()),
					registry.Optional("endLine", registry.Integer()),
					registry.Required("totalLines", registry.Integer().Describe("Lines in the file (0 for an image).")),
					registry.Optional("mimeType", registry.String().Describe("Set for an image file.")),
					registry.Optional("bytes", registry.Integer().Describe("Size of an image file.")),
				).Closed(),
				Render: w.renderRead,
			},
			IsConcurrencySafe: safe,
			PresentCall:       func(args registry.Value) registry.Presentation { return present(registry.IntentRead, "read", args) },
			Execute:           w.readFile,
		},
		{
			Name:        "list_dir",
			Description: fmt.Sprintf("List a directory's entries, sorted by name; a directory of more than %d is an error (use glob).", MaxResults),
			Parameters: registry.Object(
				registry.Required("path", registry.String().Describe("Directory relative to the workspace root; \".\" is the root.")),
			).Closed(),
			Output: registry.Output{Schema: registry.Array(registry.Object(
				registry.Required("name", registry.String()),
				registry.Required("type", registry.String().Enum("file", "dir", "symlink", "other")),
				registry.Required("size", registry.Integer()),
			).Closed())},
			IsConcurrencySafe: safe,
			Execute:           w.listDir,
		},
		{
			Name:        "glob",
			Description: "Find paths matching a glob pattern relative to the root (\"*\" within a name, \"**\" across directories, {a,b} alternatives, [abc] classes), sorted.",
			Parameters: registry.Object(
				registry.Required("pattern", registry.String().Describe(`For example "**/*.go" or "docs/*.md".`)),
			).Closed(),
			Output:            registry.Output{Schema: registry.Array(registry.String())},
			IsConcurrencySafe: safe,
			PresentCall:       func(args registry.Value) registry.Presentation { return present(registry.IntentSearch, "glob", args) },
			Execute:           w.glob,
		},
		{
			Name:        "grep",
			Description: "Search text files for lines matching a regular expression (RE2 syntax), optionally under a path and limited to files matching a glob.",
			Parameters: registry.Object(
				registry.Required("pattern", registry.String().Describe(fmt.Sprintf("RE2 regular expression, at most %d bytes, compiling to at most %d instructions (a {n,m} repeat copies what it repeats m times).", MaxPathBytes, MaxRegexpInsts))),
				registry.Optional("path", registry.String().Describe("File or directory to search. Default the root.")),
				registry.Optional("glob", registry.String().Describe(`Only files whose path matches, e.g. "**/*.ts".`)),
			).Closed(),
			Output: registry.Output{Schema: registry.Object(
				registry.Required("matches", registry.Array(registry.Object(
					registry.Required("path", registry.String()),
					registry.Required("line", registry.Integer()),
					registry.Required("text", registry.String().Describe("The line; past 1,024 bytes it is cut, ending in \"… (N more bytes)\".")),
				).Closed())),
				registry.Required("truncated", registry.Boolean().Describe("True when more than 1000 lines matched.")),
			).Closed()},
			IsConcurrencySafe: safe,
			PresentCall:       func(args registry.Value) registry.Presentation { return present(registry.IntentSearch, "grep", args) },
			Execute:           w.grep,
		},
		{
			Name:        "stat",
			Description: "Describe a path: type, size, permissions and modification time.",
			Parameters: registry.Object(
				registry.Required("path", registry.String().Describe("Path relative to the workspace root.")),
			).Closed(),
			Output: registry.Output{Schema: registry.Object(
				registry.Required("path", registry.String()),
				registry.Required("type", registry.String().Enum("file", "dir", "symlink", "other")),
				registry.Required("size", registry.Integer()),
				registry.Required("mode", registry.String()),
				registry.Required("modTime", registry.String().Describe("RFC 3339.")),
			).Closed()},
			IsConcurrencySafe: safe,
			Execute:           w.stat,
		},
	}
}

func present(intent registry.Intent, kind string, args registry.Value) registry.Presentation {
	var in struct{ Path, Pattern string }
	_ = args.Decode(&in)
	title := in.Path
	if title == "" {
		title = in.Pattern
	}
	return registry.Presentation{Intent: intent, Title: title, Kind: kind}
}

// clean turns a model's path into a root-relative slash path, refusing absolute paths
// and empty ones; os.Root refuses ".." and symlinks that leave the root.
func clean(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty; use \".\" for the workspace root")
	}
	if len(p) > MaxPathBytes {
		return "", fmt.Errorf("path is %d bytes long, over the limit of %d", len(p), MaxPathBytes)
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("path %q is absolute; paths are relative to the workspace root", p)
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q leaves the workspace root", p)
	}
	return c, nil
}

// fsError words an error from the jailed file system without exposing host paths.
func fsError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", p)
	case strings.Contains(err.Error(), "escapes") || strings.Contains(err.Error(), "outside"):
		return fmt.Errorf("%s: path escapes the workspace root", p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", p, pe.Err)
	}
	return fmt.Errorf("%s: %v", p, err)
}

func typeOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

func (w *Workspace) listDir(ctx context.Context, call *registry.Call) (any, error) {
	var in struct{ Path string }
	if err := call.Args.Decode(&in); err != nil {
		return nil, err
	}
	p, err := clean(in.Path)
	if err != nil {
		return nil, err
	}
	entries, err := w.readDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		size := int64(0)
		if info, err := e.Info(); err == nil && e.Type().IsRegular() {
			size = info.Size()
		}
		out = append(out, map[string]any{"name": e.Name(), "type": typeOf(e.Type()), "size": size})
	}
	return out, nil
}

// readDir returns the entries of the directory p, sorted by name. It reads at most
// MaxResults+1 of them: a larger directory is refused without being read whole.
func (w *Workspace) readDir(p string) ([]fs.DirEntry, error) {
	f, _, err := w.open(p, true)
	if err != nil {
		return nil, fsError(p, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(MaxResults + 1)
	if err != nil && err != io.EOF {
		return nil, fsError(p, err)
	}
	if len(entries) > MaxResults {
		return nil, fmt.Errorf("%s: more than %d entries; use glob", p, MaxResults)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

func (w *Workspace) stat(ctx context.Context, call *registry.Call) (any, error) {
	var in struct{ Path string }
	if err := call.Args.Decode(&in); err != nil {
		return nil, err
	}
	p, err := clean(in.Path)
	if err != nil {
		return nil, err
	}
	info, err := w.root.Lstat(p)
	if err != nil {
		return nil, fsError(p, err)
	}
	return map[string]any{
		"path": p, "type": typeOf(info.Mode()), "size": info.Size(),
		"mode": info.Mode().Perm().String(), "modTime": info.ModTime().UTC().Format(time.RFC3339),
	}, nil
}

func (w *Workspace) glob(ctx context.Context, call *registry.Call) (any, error) {
	var in struct{ Pattern string }
	if err := call.Args.Decode(&in); err != nil {
		return nil, err
	}
	if err := checkGlob(in.Pattern); err != nil {
		return nil, err
	}
	out := []string{}
	// doublestar walks only the directories the pattern can reach, through the
	// os.Root file system: nothing outside the root, symbolic links listed and never
	// followed, and names only (nothing is opened, so a FIFO cannot block it). It calls
	// back only for a match: the file system looks at ctx at every directory instead.
	err := doublestar.GlobWalk(ctxFS{w.fsys, ctx}, in.Pattern, func(p string, d fs.DirEntry) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == "." {
			return nil
		}
		if len(out) == MaxResults {
			return fmt.Errorf("pattern %q matches more than %d paths; narrow it", in.Pattern, MaxResults)
		}
		out = append(out, p)
		return nil
	}, doublestar.WithNoFollow(), doublestar.WithFailOnIOErrors())
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fsError(pe.Path, pe.Err)
		}
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// ctxFS is a file system that fails every open and stat once ctx is done.
type ctxFS struct {
	fs.FS
	ctx context.Context
}

func (c ctxFS) Open(name string) (fs.File, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return c.FS.Open(name)
}

func (c ctxFS) Stat(name string) (fs.FileInfo, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return fs.Stat(c.FS, name)
}

// walk visits the tree under p (symbolic links are listed, never followed).
func (w *Workspace) walk(ctx context.Context, p string, visit func(p string, d fs.DirEntry) error) error {
	return fs.WalkDir(w.fsys, p, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fsError(p, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return visit(p, d)
	})
}

// checkGlob refuses, with a message saying why and what would work, a pattern the glob
// syntax (doublestar's: "*" and "?" within a name, "**" across directories, [abc],
// [!abc], [^abc], {a,b} alternatives, \ escapes) cannot answer: rather an error than
// a silently empty list.
func checkGlob(pattern string) error {
	switch {
	case pattern == "":
		return errors.New("glob pattern is empty")
	case len(pattern) > MaxPathBytes:
		return fmt.Errorf("glob pattern is %d bytes long, over the limit of %d", len(pattern), MaxPathBytes)
	case strings.HasPrefix(pattern, "/"):
		return fmt.Errorf("glob pattern %q is absolute; patterns are relative to the workspace root", pattern)
	case pattern == ".." || strings.HasPrefix(pattern, "../") || strings.Contains(pattern, "/../") || strings.HasSuffix(pattern, "/.."):
		return fmt.Errorf("glob pattern %q leaves the workspace root; patterns are relative to it and stay inside", pattern)
	case strings.HasPrefix(pattern, "./") || strings.Contains(pattern, "/./") || strings.Contains(pattern, "//"):
		return fmt.Errorf("glob pattern %q has an empty or \".\" path element; write it without (e.g. %q)", pattern, path.Clean(pattern))
	case strings.HasPrefix(pattern, "!"):
		return fmt.Errorf("glob pattern %q is negated; negation is not supported: match what you want instead, e.g. with {a,b} alternatives", pattern)
	}
	for i := 0; i+1 < len(pattern); i++ {
		if strings.IndexByte("?*+@!", pattern[i]) >= 0 && pattern[i+1] == '(' && (i == 0 || pattern[i-1] != '\\') {
			return fmt.Errorf("glob pattern %q uses an extended glob %c(…), which is not supported; use {a,b} alternatives instead", pattern, pattern[i])
		}
	}
	if !doublestar.ValidatePattern(pattern) {
		return fmt.Errorf("glob pattern %q is malformed (an unclosed [ or {, or a trailing \\)", pattern)
	}
	if n, _ := alternatives(pattern, 0, false); n > MaxGlobAlternatives {
		return fmt.Errorf("glob pattern %q expands to more than %d alternatives; use fewer {a,b} groups, or * and ?", pattern, MaxGlobAlternatives)
	}
	return nil
}

// alternatives counts the patterns that the {a,b} groups of a valid pattern expand to,
// from i up to the end (or, inGroup, up to the , or } that ends an alternative), and
// returns where it stopped. Counts stop growing past MaxGlobAlternatives.
func alternatives(p string, i int, inGroup bool) (n, end int) {
	n = 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[': // a class: braces in it are characters
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			i = j + 1
		case '{':
			sum := 0
			for i < len(p) && p[i] != '}' {
				m, next := alternatives(p, i+1, true)
				sum = min(sum+m, MaxGlobAlternatives+1)
				i = next
			}
			n = min(n*sum, MaxGlobAlternatives+1)
			i++
		case ',', '}':
			if inGroup {
				return n, i
			}
			i++
		default:
			i++
		}
	}
	return n, i
}

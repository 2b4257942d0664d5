package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// TestGrepProgramLimit: a pattern whose compiled program is over MaxRegexpInsts is
// refused with an error naming the limit, before it is compiled for real (315 copies of
// [a-z]{0,1000}, a 4 KB pattern, compile to 630,002 instructions).
func TestGrepProgramLimit(t *testing.T) {
	set, p := setup(t)
	big := strings.Repeat(`[a-z]{0,1000}`, 315)
	tests := []struct{ name, pattern, want string }{
		{"315 repeats", big, `regular expression compiles to more than 10000 instructions (the limit); use fewer or smaller {n,m} repeats`},
		{"six repeats", strings.Repeat(`[a-z]{0,1000}`, 6), `regular expression compiles to more than 10000 instructions`},
		{"nested repeats", `(?:[a-z]{0,30}|[0-9]{0,30}|[A-Z]{0,30}|_{0,30}|-{0,30}|\\.{0,30}){0,30}`, `regular expression compiles to more than 10000 instructions`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, set, p, "grep", `{"pattern":"`+tt.pattern+`"}`)
			if !res.IsError() || !strings.Contains(res.Content[0].Text, tt.want) {
				t.Errorf("got %.300q, want an error containing %q", res.Content[0].Text, tt.want)
			}
		})
	}
	// Below the limit, large repeats still work.
	res := run(t, set, p, "grep", `{"pattern":"T[A-Z]{0,1000}: w"}`)
	if res.IsError() || res.Value.String() != `{"matches":[{"line":2,"path":"README.md","text":"TODO: write"}],"truncated":false}` {
		t.Errorf("a pattern under the limit: %q %v", res.Value.String(), res.Content)
	}
}

// cancelledCtx is a context whose Done channel is closed but whose Err reports nothing
// on its first call: a call cancelled just after its start. A match that looks at Done
// while it works stops; one that only checks Err before it starts runs to its end.
type cancelledCtx struct {
	context.Context
	errs int
}

func (c *cancelledCtx) Done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (c *cancelledCtx) Err() error {
	if c.errs++; c.errs == 1 {
		return nil
	}
	return context.Canceled
}

// TestMatchCancellable: a line under 4 KiB (which was matched in one uncancellable call)
// with a program of thousands of instructions is matched through the cancellable reader
// too.
func TestMatchCancellable(t *testing.T) {
	pat, err := compilePattern(`[a-z]{0,1000}x`)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("a", 4000))
	ctx := &cancelledCtx{Context: context.Background()}
	if ok, err := pat.match(ctx, line); err == nil {
		t.Errorf("match = %v, nil; want the context's error", ok)
	}
}

// bigWorkspace opens a new workspace holding one file.
func bigWorkspace(t *testing.T, name string, data []byte) *Workspace {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// allocated returns how many bytes f allocated (the whole process's count: other
// goroutines add noise, which the margins below allow for).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStreamingAllocs: read_file and grep stream a file instead of splitting it into
// lines: on a 10 MiB file of newlines (or of one line), a call allocates a small fraction
// of the file, not hundreds of megabytes.
func TestStreamingAllocs(t *testing.T) {
	const margin = 4 << 20 // the buffers, the result and other goroutines' noise
	for _, tt := range []struct {
		name string
		data []byte
		tool string
		args string
	}{
		{"read_file newlines", []byte(strings.Repeat("\n", MaxFileBytes)), "read_file", `{"path":"f","offset":5000000,"limit":10}`},
		{"grep newlines", []byte(strings.Repeat("\n", MaxFileBytes)), "grep", `{"pattern":"x","path":"f"}`},
		{"read_file one line", []byte(strings.Repeat("a", MaxFileBytes)), "read_file", `{"path":"f"}`},
		{"grep one line", []byte(strings.Repeat("a", MaxFileBytes)), "grep", `{"pattern":"b","path":"f"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := bigWorkspace(t, "f", tt.data)
			var execute func(context.Context, *registry.Call) (any, error)
			for _, tool := range ws.Tools() {
				if tool.Name == tt.tool {
					execute = tool.Execute
				}
			}
			call := &registry.Call{Args: registry.MustParseValue(tt.args)}
			var err error
			n := allocated(func() { _, err = execute(context.Background(), call) })
			if err != nil {
				t.Fatal(err)
			}
			if n > margin {
				t.Errorf("%s allocated %d bytes, want at most %d", tt.tool, n, margin)
			}
		})
	}
}

// TestReadFileRanges: offset and limit outside their ranges are refused with an error
// naming the argument and its range; none of them panics (offset 1500 with a limit near
// 2^63 overflowed the last line's number and sliced out of range).
func TestReadFileRanges(t *testing.T) {
	ws := bigWorkspace(t, "long.txt", []byte(strings.Repeat("line\n", 2000)))
	set, p := testreg.Resolve(t, ws.Tools()...), pipeline.New(nil)
	tests := []struct{ name, args, want string }{
		{"limit near 2^63", `{"path":"long.txt","offset":1500,"limit":9223372036854774784}`, "Error: limit must be between 1 and 10485760"},
		{"limit over int64", `{"path":"long.txt","limit":9223372036854775807}`, "Error: limit must be between 1 and 10485760"},
		{"limit 1e300", `{"path":"long.txt","limit":1e300}`, "Error: limit must be between 1 and 10485760"},
		{"limit zero", `{"path":"long.txt","limit":0}`, "Error: limit must be between 1 and 10485760"},
		{"limit negative", `{"path":"long.txt","limit":-1}`, "Error: limit must be between 1 and 10485760"},
		{"offset near 2^63", `{"path":"long.txt","offset":9223372036854774784}`, "Error: offset must be between 1 and 10485760 (lines are numbered from 1)"},
		{"offset zero", `{"path":"long.txt","offset":0}`, "Error: offset must be between 1 and 10485760 (lines are numbered from 1)"},
		{"offset negative", `{"path":"long.txt","offset":-5}`, "Error: offset must be between 1 and 10485760 (lines are numbered from 1)"},
		{"offset -1e300", `{"path":"long.txt","offset":-1e300}`, "Error: offset must be between 1 and 10485760 (lines are numbered from 1)"},
		{"offset over MaxFileBytes", `{"path":"long.txt","offset":10485761}`, "Error: offset must be between 1 and 10485760 (lines are numbered from 1)"},
		{"limit over MaxFileBytes", `{"path":"long.txt","limit":10485761}`, "Error: limit must be between 1 and 10485760"},
		{"whole numbers written otherwise", `{"path":"long.txt","offset":1.999e3,"limit":2.0}`, "long.txt (lines 1999-2000 of 2000)\nline\nline"},
		{"largest offset and limit", `{"path":"long.txt","offset":10485760,"limit":10485760}`, "long.txt: no lines in range (the file has 2000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, set, p, "read_file", tt.args)
			if res.IsError() != strings.HasPrefix(tt.want, "Error: ") || res.Content[0].Text != tt.want {
				t.Errorf("got %.300q, want %q", res.Content[0].Text, tt.want)
			}
		})
	}
}

// TestTextCheck: a file read in pieces is text when it is valid UTF-8 without NUL, also
// when a character is split between pieces.
func TestTextCheck(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		want   bool
	}{
		{"ascii", []string{"ab", "c\n"}, true},
		{"empty", nil, true},
		{"split two-byte", []string{"x\xc3", "\xa9y"}, true},
		{"split three ways", []string{"\xe2", "\x82", "\xacz"}, true},
		{"split four-byte", []string{"a\xf0\x9f", "\x98\x80"}, true},
		{"replacement character", []string{"\xef\xbf\xbd"}, true},
		{"nul", []string{"ab", "\x00"}, false},
		{"bad continuation", []string{"\xc3", "a"}, false},
		{"ends inside a character", []string{"ok\xe2\x82"}, false},
		{"lone continuation", []string{"a", "\x80b"}, false},
		{"invalid lead", []string{"\xff"}, false},
		{"overlong", []string{"\xc0", "\xaf"}, false},
		{"surrogate", []string{"\xed\xa0", "\x80"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c textCheck
			for _, p := range tt.pieces {
				c.write([]byte(p))
			}
			if got := c.end(); got != tt.want {
				t.Errorf("text = %v, want %v", got, tt.want)
			}
			if want := utf8.ValidString(strings.Join(tt.pieces, "")) && !strings.Contains(strings.Join(tt.pieces, ""), "\x00"); want != tt.want {
				t.Errorf("the table is wrong: utf8.Valid says %v", want)
			}
		})
	}
}

// TestReadFileStreaming: read_file's text comes out as it did when the file was split
// into lines (pieces longer than the read buffer included); a line is cut after
// MaxReadLineBytes, the text stops before MaxReadBytes, and a file that is not text
// anywhere (also far past the lines returned) is refused.
func TestReadFileStreaming(t *testing.T) {
	long := strings.Repeat("é", bufSize) // 128 KiB: longer than the buffer, é across its edge
	many := strings.Repeat(strings.Repeat("x", 1000)+"\n", 2000)
	tests := []struct {
		name, data, args string
		want             map[string]any
		wantErr          string
	}{
		{"no final newline", "a\nb", `{"path":"f"}`, map[string]any{"path": "f", "text": "a\nb", "startLine": 1, "endLine": 2, "totalLines": 2}, ""},
		{"empty lines", "\n\n\n", `{"path":"f","offset":2}`, map[string]any{"path": "f", "text": "\n", "startLine": 2, "endLine": 3, "totalLines": 3}, ""},
		{"empty file", "", `{"path":"f"}`, map[string]any{"path": "f", "text": "", "totalLines": 0}, ""},
		{"crlf kept", "a\r\nb\r\n", `{"path":"f"}`, map[string]any{"path": "f", "text": "a\r\nb\r", "startLine": 1, "endLine": 2, "totalLines": 2}, ""},
		{"a long line cut", "a\n" + long + "\nz\n", `{"path":"f","offset":2}`, map[string]any{"path": "f", "text": strings.Repeat("é", MaxReadLineBytes/2) + "… (65536 more bytes)\nz", "startLine": 2, "endLine": 3, "totalLines": 3}, ""},
		{"a line cut inside a character", "x" + long, `{"path":"f"}`, map[string]any{"path": "f", "text": "x" + strings.Repeat("é", MaxReadLineBytes/2-1) + "… (65538 more bytes)", "startLine": 1, "endLine": 1, "totalLines": 1}, ""},
		{"lines after a long one", long + "\nb\nc", `{"path":"f","offset":3}`, map[string]any{"path": "f", "text": "c", "startLine": 3, "endLine": 3, "totalLines": 3}, ""},
		{"stops before MaxReadBytes", many, `{"path":"f"}`, map[string]any{"path": "f", "text": strings.TrimSuffix(many[:1047*1001], "\n"), "startLine": 1, "endLine": 1047, "totalLines": 2000}, ""},
		{"NUL far past the range", "a\n" + strings.Repeat("b", 3*bufSize) + "\x00", `{"path":"f","limit":1}`, nil, "f: not a text file (binary content)"},
		{"invalid UTF-8 in a long line", "a\n" + strings.Repeat("b", bufSize-1) + "\xc3\x28", `{"path":"f","limit":1}`, nil, "f: not a text file (binary content)"},
		{"ends inside a character", "a\n\xe2\x82", `{"path":"f","limit":1}`, nil, "f: not a text file (binary content)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := bigWorkspace(t, "f", []byte(tt.data))
			out, err := ws.readFile(context.Background(), &registry.Call{Args: registry.MustParseValue(tt.args)})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("(-want +got):\n%.2000s", diff)
			}
		})
	}
}

// TestGrepStreaming: grep finds matches in lines longer than its buffer (and counts
// lines past them), returns a matching line cut after MaxLineBytes, and drops the
// matches of a file that turns out not to be text past them.
func TestGrepStreaming(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a-long.txt":      strings.Repeat("é", bufSize) + "needle\nneedle\n", // é across the buffer's edge
		"b-binary.txt":    "needle\n" + strings.Repeat("b", 3*bufSize) + "\x00\n",
		"c-badlong.txt":   "needle\n" + strings.Repeat("b", 2*bufSize) + "\xff" + strings.Repeat("b", bufSize) + "\n",
		"d-split.txt":     "needle\n" + strings.Repeat("b", bufSize-1) + "\xe2\x82",
		"e-early.txt":     "needle" + strings.Repeat("b", 2*bufSize) + "\nneedle\n", // matched before the line is read
		"f-early-nul.txt": "needle" + strings.Repeat("b", 2*bufSize) + "\x00\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	out, err := ws.grep(context.Background(), &registry.Call{Args: registry.MustParseValue(`{"pattern":"needle"}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"truncated": false, "matches": []map[string]any{
		{"path": "a-long.txt", "line": 1, "text": strings.Repeat("é", MaxLineBytes/2) + "… (130054 more bytes)"},
		{"path": "a-long.txt", "line": 2, "text": "needle"},
		{"path": "e-early.txt", "line": 1, "text": "needle" + strings.Repeat("b", MaxLineBytes-6) + "… (130054 more bytes)"},
		{"path": "e-early.txt", "line": 2, "text": "needle"},
	}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%.2000s", diff)
	}
}

// TestGrepTruncated: the 1,001st match ends the search with truncated set, also in the
// middle of a file.
func TestGrepTruncated(t *testing.T) {
	ws := bigWorkspace(t, "f", []byte(strings.Repeat("x\n", MaxResults+5)))
	out, err := ws.grep(context.Background(), &registry.Call{Args: registry.MustParseValue(`{"pattern":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	m := out.(map[string]any)
	if matches := m["matches"].([]map[string]any); len(matches) != MaxResults || m["truncated"] != true || matches[MaxResults-1]["line"] != MaxResults {
		t.Errorf("got %d matches, truncated %v", len(matches), m["truncated"])
	}
}

// TestGlobCancelled: a glob that matches nothing still stops when its call is cancelled
// (it looked at the context only when a path matched, so "**/nothing" walked a whole
// tree, however large, after its run had ended).
func TestGlobCancelled(t *testing.T) {
	ws := bigWorkspace(t, "c.txt", nil)
	if err := ws.root.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := ws.glob(ctx, &registry.Call{Args: registry.MustParseValue(`{"pattern":"**/nothing"}`)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("glob = %v, %v; want the context's error", out, err)
	}
}

// TestListDirAllocs: list_dir reads no more than MaxResults+1 entries of a directory it
// refuses, instead of all of them.
func TestListDirAllocs(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 * MaxResults {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("file-with-a-longish-name-%06d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	call := &registry.Call{Args: registry.MustParseValue(`{"path":"."}`)}
	var out any
	n := allocated(func() { out, err = ws.listDir(context.Background(), call) })
	if want := ".: more than 1000 entries; use glob"; err == nil || err.Error() != want {
		t.Errorf("list_dir = %v, %v; want the error %q", out, err, want)
	}
	if n > 1<<20 {
		t.Errorf("list_dir allocated %d bytes, want at most %d", n, 1<<20)
	}
}

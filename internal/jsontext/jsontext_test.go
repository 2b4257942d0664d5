package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain text, long enough to take the eight-byte path", `"plain text, long enough to take the eight-byte path"`},
		{"q\"b\\s/", `"q\"b\\s/"`},
		{"\b\f\n\r\t\x00\x1f\x7f", `"\b\f\n\r\t\u0000\u001f` + "\x7f" + `"`},
		{"<&> \u2028 é 😀", "\"<&> \u2028 é 😀\""},
		{"bad \xff byte", "\"bad \uFFFD byte\""},
	} {
		if got := string(AppendString(nil, tc.in)); got != tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAppendRune(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want string
	}{
		{'a', "a"}, {'"', `\"`}, {'\\', `\\`}, {'/', "/"}, {'\n', `\n`}, {0x1b, `\u001b`},
		{0xD800, `\ud800`}, {0xDFFF, `\udfff`}, {'é', "é"}, {0x1F600, "😀"},
	} {
		if got := string(AppendRune(nil, tc.r)); got != tc.want {
			t.Errorf("AppendRune(%U) = %s, want %s", tc.r, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		r    rune
		next int
	}{
		{`\n`, '\n', 2}, {`\/x`, '/', 2}, {`\u00e9`, 'é', 6}, {`\u00E9`, 'é', 6},
		{`\ud83d\ude00`, 0x1F600, 12},
		{`\ud83d`, 0xD83D, 6},       // unpaired high surrogate
		{`\ud83d\n`, 0xD83D, 6},     // followed by another escape
		{`\ud83d\u0041`, 0xD83D, 6}, // followed by a non-surrogate
		{`\ude00\ud83d`, 0xDE00, 6}, // low before high: two lone ones
		{`\x`, 0, -1}, {`\`, 0, -1}, {`\u12`, 0, -1}, {`\u12g4`, 0, -1},
	} {
		r, next := Escape(tc.in, 0)
		if r != tc.r || next != tc.next {
			t.Errorf("Escape(%q) = %U, %d; want %U, %d", tc.in, r, next, tc.r, tc.next)
		}
		if r2, next2 := Escape([]byte(tc.in), 0); r2 != r || next2 != next {
			t.Errorf("Escape([]byte(%q)) differs from the string form", tc.in)
		}
	}
}

func TestSkip(t *testing.T) {
	s := "0123456789abcdefé\"x"
	if got := SkipPlain(s, 0); got != strings.IndexByte(s, '"') {
		t.Errorf("SkipPlain = %d", got)
	}
	if got := SkipASCII(s, 0); got != strings.IndexRune(s, 'é') {
		t.Errorf("SkipASCII = %d", got)
	}
	for _, c := range []byte{'"', '\\', 0, 0x1f} {
		for at := range 20 {
			b := []byte(strings.Repeat("x", 20))
			b[at] = c
			if got := SkipPlain(b, 0); got != at {
				t.Errorf("SkipPlain with %#x at %d = %d", c, at, got)
			}
		}
	}
	if got := SkipPlain("abc", 3); got != 3 {
		t.Errorf("SkipPlain at the end = %d", got)
	}
	for _, tc := range []struct {
		s        string
		from, at int
	}{
		{"", 0, 0}, {" \t\r\n", 0, 4}, {" \t\r\n", 2, 4}, {"  x ", 0, 2}, {"x", 0, 0},
		{"\v\f", 0, 0}, {"\u00a0", 0, 0}, // not JSON white space
	} {
		if got := SkipSpace(tc.s, tc.from); got != tc.at {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", tc.s, tc.from, got, tc.at)
		}
	}
}

// FuzzString checks the escaper and the unescaper against encoding/json: what
// AppendString writes is valid JSON that decodes to s (with U+FFFD for bytes that
// are not UTF-8), and Unquote of any valid JSON string literal is what
// encoding/json decodes.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\/\b\f\n\r\t\x00", "é😀\u2028", "\xff\xfe", `\ud83d\ude00`, `\ud83d`, `"\u0041\ud83d\ude00\udc00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s: not JSON: %v", s, enc, err)
		}
		if want := string([]rune(s)); back != want {
			t.Fatalf("AppendString(%q) = %s decodes to %q, want %q", s, enc, back, want)
		}
		if got := Unquote(string(enc)); got != back {
			t.Fatalf("Unquote(AppendString(%q)) = %q, want %q", s, got, back)
		}
		// s itself as a literal, when encoding/json accepts it.
		lit := `"` + s + `"`
		var want string
		if json.Unmarshal([]byte(lit), &want) == nil && utf8.ValidString(want) {
			if got := Unquote(lit); got != want {
				t.Fatalf("Unquote(%s) = %q, encoding/json says %q", lit, got, want)
			}
		}
	})
}

package runtime

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/dop251/goja"
)

// The RegExp guards replace goja's global replace, match, split and matchAll with their
// own search loop, result building and ports of goja's generic paths; FuzzRegExpOps holds
// them to goja's own results. Each input becomes a pattern, flags, a subject, a
// replacement and an operation, run in a guarded VM (told to emulate even what it would
// let goja run) and in a bare goja VM; the rendered results, exceptions and lastIndex
// must be equal.

// Pattern pieces, subject characters and replacement pieces the fuzzer combines: the
// constructs whose handling differs between goja's engines and paths (empty matches,
// lookarounds, backreferences, named groups, sticky and unicode advancement, surrogates).
var (
	fuzzPatternPieces = []string{
		"a", "b", "ä", "😀", ".", "*", "+", "?", "*?", "|", "(", ")", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<n>", "\\1",
		"\\k<n>", "\\d", "\\w", "\\s", "\\b", "^", "$", "[ab]", "[^a]", "{2}", "{0,2}", "\\u{1F600}", "\\ud83d", "x", "",
	}
	fuzzSubjectUnits = []uint16{'a', 'b', 'x', ' ', '\n', '1', 0xe4, 0xd83d, 0xde00, 0xd800, 0xdc00, 'a', 'b'}
	fuzzReplPieces   = []string{"-", "$&", "$`", "$'", "$1", "$2", "$<n>", "$<m>", "$$", "$", "$0", "$10", "$<", "x"}
	fuzzFlags        = []string{"g", "i", "m", "s", "u", "y"}
)

// jsString writes units as a JavaScript string literal (escaping everything not
// printable ASCII, lone surrogates included).
func jsUnits(units []uint16) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, u := range units {
		if u >= 0x20 && u < 0x7f && u != '"' && u != '\\' {
			b.WriteByte(byte(u))
		} else {
			fmt.Fprintf(&b, "\\u%04x", u)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func pick[T any](from []T, b byte) T { return from[int(b)%len(from)] }

// fuzzProgram builds the program one fuzz input runs.
func fuzzProgram(pattern, subject, repl []byte, flags, op byte, generic bool) string {
	var p, rp strings.Builder
	for _, c := range pattern[:min(len(pattern), 12)] {
		p.WriteString(pick(fuzzPatternPieces, c))
	}
	units := make([]uint16, 0, 16)
	for _, c := range subject[:min(len(subject), 16)] {
		units = append(units, pick(fuzzSubjectUnits, c))
	}
	for _, c := range repl[:min(len(repl), 6)] {
		rp.WriteString(pick(fuzzReplPieces, c))
	}
	var f strings.Builder
	for i, fl := range fuzzFlags {
		if flags&(1<<i) != 0 {
			f.WriteString(fl)
		}
	}
	pat := jsUnits(utf16.Encode([]rune(p.String())))
	s := jsUnits(units)
	r := jsUnits(utf16.Encode([]rune(rp.String())))
	ops := []string{
		"s.replace(re, " + r + ")",
		"s.replace(re, (...a) => JSON.stringify(a))",
		"s.match(re)",
		"[...s.matchAll(re)]",
		"s.split(re)",
		"s.split(re, 2)",
		"s.replaceAll(re, " + r + ")",
		"s.search(re)",
		"re.exec(s)",
		"s.replace(re, () => '')",
	}
	deopt := ""
	if generic {
		deopt = "Object.defineProperty(re, 'deopt', {value: 1});"
	}
	return "(function () { try { const s = " + s + ", re = new RegExp(" + pat + ", " + jsUnits(utf16.Encode([]rune(f.String()))) + "); " + deopt +
		" re.lastIndex = " + fmt.Sprint(int(flags>>6)) + "; const v = " + pick(ops, op) + "; return show(v) + ' @' + re.lastIndex }" +
		" catch (e) { return 'threw ' + e.name + ': ' + e.message } })()"
}

func FuzzRegExpOps(f *testing.F) {
	seeds := []struct {
		pattern, subject, repl []byte
		flags, op              byte
		generic                bool
	}{
		{[]byte{0}, []byte{0, 1, 0}, []byte{1}, 1, 0, false},            // /a/g, "aba", $&
		{[]byte{0, 5}, []byte{1, 0, 0, 0}, []byte{0}, 1, 0, false},      // /a*/g over "baaa"
		{[]byte{2, 5}, []byte{1, 6, 6, 6}, []byte{0}, 1, 0, false},      // /ä*/g over "bäää"
		{[]byte{14, 0, 11, 0}, []byte{0, 0, 0}, []byte{0}, 1, 0, false}, // /(?=a)a/g
		{[]byte{17, 0, 11, 18}, []byte{0, 0, 1, 1}, []byte{4}, 1, 0, false},
		{[]byte{16, 0, 11}, []byte{0, 1, 0}, []byte{6}, 1, 0, false},    // named group, $<n>
		{[]byte{33}, []byte{7, 8, 7, 8}, []byte{0}, 1 | 16, 0, false},   // empty pattern, gu, surrogates
		{[]byte{33}, []byte{7, 8, 9, 10}, []byte{0}, 1, 4, false},       // split, lone surrogates
		{[]byte{0}, []byte{0, 0, 1, 0}, []byte{0}, 1 | 32, 2, false},    // /a/gy match
		{[]byte{0}, []byte{0, 0, 1, 0}, []byte{2}, 1, 0, true},          // generic $`
		{[]byte{0, 6}, []byte{0, 0, 1}, []byte{3}, 1, 3, false},         // matchAll
		{[]byte{20, 0, 11, 0}, []byte{1, 0, 0}, []byte{0}, 1, 5, false}, // split with a limit
		{[]byte{10, 6}, []byte{5, 4, 5}, []byte{0}, 1 | 4, 1, false},    // /\d+/gm with a function
		{[]byte{22, 23}, []byte{0, 4, 0}, []byte{0}, 1 | 8, 0, true},    // /^$/gs generic
	}
	for _, s := range seeds {
		f.Add(s.pattern, s.subject, s.repl, s.flags, s.op, s.generic)
	}
	p := newTestPool(f, &Limits{HeapBytes: 64 << 20})
	bare := goja.New()
	if _, err := bare.RunString(showSrc); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pattern, subject, repl []byte, flags, op byte, generic bool) {
		prg := fuzzProgram(pattern, subject, repl, flags, op, generic)
		want, panicked := bareRunVM(bare, prg)
		if panicked != nil {
			// goja's own Go panics (a sticky RegExp past the end of UTF-16 text is one)
			// fail a run as an internal error either way; nothing to compare.
			t.Skipf("goja panics: %v", panicked)
		}
		r, err := p.acquire() // a VM of its own: a failure marks the VM failed for good
		if err != nil {
			t.Fatal(err)
		}
		r.installLazy(familyRegExp)
		r.textState().emulate = true
		if _, err := r.vm.RunString(showSrc); err != nil {
			t.Fatal(err)
		}
		got, err := r.vm.RunString(prg)
		if err != nil {
			t.Fatalf("guarded VM: %v\n%s", err, prg)
		}
		if r.failed() {
			t.Fatalf("guarded VM: %s\n%s", r.failure.Message, prg)
		}
		if got.String() != want.String() {
			t.Errorf("%s\n  runcode: %s\n  goja:    %s", prg, got, want)
		}
	})
}

// bareRun runs prg in bare goja, reporting a Go panic that escapes it.
func bareRunVM(vm *goja.Runtime, prg string) (v goja.Value, panicked any) {
	defer func() { panicked = recover() }()
	v, err := vm.RunString(prg)
	if err != nil {
		return vm.ToValue("error: " + err.Error()), nil
	}
	return v, nil
}

package jsvm

import (
	"testing"

	"github.com/dop251/goja"
)

// TestUTF8Length: the length TextEncoder checks before encoding is the length goja's
// conversion produces, lone surrogates (either half, at either end) included.
func TestUTF8Length(t *testing.T) {
	vm := goja.New()
	for _, src := range []string{`''`, `'abc'`, `'é€'`, `'😀x'`, `'\ud800'`, `'x\udc00'`, `'\udc00\ud800'`, `'\ud800\ud800\udc00'`, `'a\u07ff\u0800\uffff'`} {
		v, err := vm.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		s := v.ToString().(goja.String)
		if got, want := utf8Length(s), len(v.String()); got != want {
			t.Errorf("utf8Length(%s) = %d, want %d", src, got, want)
		}
	}
}

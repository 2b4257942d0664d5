package runtime

import (
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkStringify compares our JSON.stringify with goja's own on the same values,
// each built once per VM. Run narrowly, for example:
//
//	go test -run '^$' -bench Stringify -benchmem ./runtime/
func BenchmarkStringify(b *testing.B) {
	values := []struct{ name, build string }{
		{"small object", "({id: 7, name: 'Ada Lovelace', email: 'ada@example.com', active: true, score: 98.5, tags: ['math', 'poetry'], address: null})"},
		{"10k rows", "Array.from({length: 10000}, (_, i) => ({id: i, name: 'user ' + i, email: 'user' + i + '@example.com', active: i % 2 === 0, score: i / 7, tags: ['a', 'b'], note: null}))"},
		{"10k rows indented", "Array.from({length: 10000}, (_, i) => ({id: i, name: 'user ' + i, active: i % 2 === 0, tags: ['a', 'b']}))"},
		{"long strings", "Array.from({length: 100}, (_, i) => 'line ' + i + ' \"quoted\"\\n'.repeat(200) + 'é')"},
		{"numbers", "Array.from({length: 100000}, (_, i) => i * 1.25)"},
		{"1000 deep", "(() => { let o = {}; for (let i = 0; i < 1000; i++) o = {o}; return o; })()"},
	}
	for _, v := range values {
		call := "JSON.stringify(v)"
		if v.name == "10k rows indented" {
			call = "JSON.stringify(v, null, 2)"
		}
		fn := "(() => { const v = " + v.build + "; return () => " + call + "; })()"
		for _, impl := range []string{"goja", "ours"} {
			b.Run(v.name+"/"+impl, func(b *testing.B) {
				var vm *goja.Runtime
				if impl == "goja" {
					vm = goja.New()
				} else {
					vm = newJSONRun(b).vm
				}
				f, err := vm.RunString(fn)
				if err != nil {
					b.Fatal(err)
				}
				stringify, _ := goja.AssertFunction(f)
				out, err := stringify(goja.Undefined())
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(out.String())))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := stringify(goja.Undefined()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package runtime

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/dop251/goja"
)

// The lazy path decodes what JSON.parse would: the same seeds as the eager decoder.
func TestLazyDecodeLikeJSONParse(t *testing.T) {
	vm := goja.New()
	same, _ := vm.RunString(sameValueSrc)
	fn, _ := goja.AssertFunction(same)
	parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
	for _, text := range decodeSeeds {
		if loneSurrogate.MatchString(text) {
			continue
		}
		want, perr := parse(goja.Undefined(), vm.ToValue(text))
		got, err := lazyDecode(vm, []byte(text))
		if perr != nil {
			continue // as for the eager decoder: lenient where JSON.parse is strict
		}
		if err != nil {
			t.Errorf("lazyDecode(%q) failed (%v); JSON.parse gives %v", text, err, want)
			continue
		}
		if eq, err := fn(goja.Undefined(), got, want); err != nil || !eq.ToBoolean() {
			t.Errorf("lazyDecode(%q) differs from JSON.parse (%v)", text, err)
		}
	}
}

// orderRowsJSON is bench scenario S4's result: 10,000 order rows of seven fields.
func orderRowsJSON() []byte {
	type row struct {
		ID         int    `json:"id"`
		Category   string `json:"category"`
		Region     string `json:"region"`
		PriceCents int    `json:"priceCents"`
		Qty        int    `json:"qty"`
		Active     bool   `json:"active"`
		Created    string `json:"created"`
	}
	cats := []string{"books", "electronics", "garden", "grocery", "toys"}
	regions := []string{"north", "south", "east", "west", "central", "islands", "abroad"}
	rows := make([]row, 10000)
	for i := range rows {
		rows[i] = row{i + 1, cats[i%5], regions[(i*3)%7], 100 + (i*7919)%99900, (i * 31) % 50, i%3 != 0, fmt.Sprintf("2024-%02d-%02d", 1+i%12, 1+i%28)}
	}
	data, _ := json.Marshal(rows)
	return data
}

// BenchmarkResultPath decodes a tool result and runs the program's use of it, in a
// guarded pooled VM, eagerly (the production decoder) and lazily (lazyDecode): a small
// result read once, S4's rows filtered and grouped as the scenario does, and the rows
// with every field read.
func BenchmarkResultPath(b *testing.B) {
	rows := orderRowsJSON()
	results := []struct {
		name string
		data []byte
		use  string
	}{
		{"small", []byte(`{"id":7,"name":"widget","ok":true}`), `(r) => r.ok ? r.id : 0`},
		{"S4 rows", rows, `(rows) => {
			const active = rows.filter(function (r) { return r.active && r.qty > 10; });
			const byCat = {};
			for (const r of active) {
				let g = byCat[r.category];
				if (!g) { g = { category: r.category, count: 0, revenueCents: 0 }; byCat[r.category] = g; }
				g.count += 1;
				g.revenueCents += r.priceCents * r.qty;
			}
			return Object.keys(byCat).length;
		}`},
		{"rows every field", rows, `(rows) => { let n = 0; for (const r of rows) for (const k in r) n += String(r[k]).length; return n; }`},
	}
	decoders := []struct {
		name   string
		decode func(*run, []byte) (goja.Value, error)
	}{
		{"eager", (*run).decodeJSON},
		{"lazy", func(r *run, data []byte) (goja.Value, error) { return lazyDecode(r.vm, data) }},
		{"proxy", func(r *run, data []byte) (goja.Value, error) { return proxyDecode(r.vm, data) }},
	}
	for _, res := range results {
		for _, dec := range decoders {
			b.Run(res.name+"/"+dec.name, func(b *testing.B) {
				r, err := newRun(benchPool(b))
				if err != nil {
					b.Fatal(err)
				}
				fv, err := r.vm.RunString(res.use)
				if err != nil {
					b.Fatal(err)
				}
				use, _ := goja.AssertFunction(fv)
				b.SetBytes(int64(len(res.data)))
				b.ReportAllocs()
				for b.Loop() {
					v, err := dec.decode(r, res.data)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := use(goja.Undefined(), v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

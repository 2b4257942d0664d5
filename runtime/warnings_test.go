package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWarnings(t *testing.T) {
	const msg = " += …` in a loop copies the whole string on every append; push the parts to an array and join them once"
	tests := []struct {
		name, code string
		want       []Warning
	}{
		{"for loop", "let s = ''\nfor (let i = 0; i < 3; i++) {\n  s += i\n}\nreturn s",
			[]Warning{{Line: 3, Column: 3, Message: "`s" + msg}}},
		{"for-of, template initializer, once per place", "let out = ``\nfor (const a of [1]) for (const b of [2]) out += a + b\nreturn out",
			[]Warning{{Line: 2, Column: 43, Message: "`out" + msg}}},
		{"while and do-while", "let a = '', b = \"\"\nwhile (a.length < 3) a += 'x'\ndo { b += 'y' } while (b.length < 3)\nreturn a + b",
			[]Warning{{Line: 2, Column: 22, Message: "`a" + msg}, {Line: 3, Column: 6, Message: "`b" + msg}}},
		{"TypeScript", "let s: string = ''\nfor (const x of [1, 2]) {\n  s += String(x)\n}\nreturn s",
			[]Warning{{Line: 3, Column: 3, Message: "`s" + msg}}},
		{"a number is fine", "let n = 0\nfor (let i = 0; i < 3; i++) n += i\nreturn n", nil},
		{"outside a loop is fine", "let s = ''\ns += 'x'\nreturn s", nil},
		{"the array pattern is fine", "const parts = []\nfor (let i = 0; i < 3; i++) parts.push(i)\nreturn parts.join('')", nil},
		{"a call's field read without await", "const total = tools.get_order({id: 1}).total\nreturn total",
			[]Warning{{Line: 1, Column: 40, Message: unawaited("get_order", "`.total`")}}},
		{"a variable holding the promise", "const o = tools.get_order({id: 1})\nreturn o.total",
			[]Warning{{Line: 2, Column: 10, Message: unawaited("get_order", "`o.total`")}}},
		{"through an alias", "const t = tools\nreturn t.stat({}).size",
			[]Warning{{Line: 2, Column: 19, Message: unawaited("stat", "`.size`")}}},
		{"awaited is fine", "const o = await tools.get_order({})\nconst p = tools.get_order({})\nconst q = await p\nreturn [o.total, q.total, (await tools.stat({})).size]", nil},
		{"a promise handed on is fine", "const a = tools.x({}), b = tools.y({})\nconst [r, s] = await Promise.all([a, b])\ntools.z({}).then(v => v.n)\nreturn [r.n, s.n]", nil},
		{"a parameter named tools is not the namespace", "const f = (tools) => tools.list.length\nreturn f({list: []})", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Warnings(tt.code, &PrepareOptions{Namespaces: []string{"tools"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Warnings("for (", nil); err == nil {
		t.Error("a program that does not parse gave no error")
	}
}

func unawaited(member, how string) string {
	return "`tools." + member + "(…)` is not awaited, so " + how + " reads a property of a Promise, not of the result: write `(await tools." + member + "(…))`"
}

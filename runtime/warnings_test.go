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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Warnings(tt.code, nil)
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

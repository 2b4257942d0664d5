package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What models write around a program runs, or fails with a hint, never with "completed
// with no output"; errors keep the model's positions and carry the program's file name.
func TestIntake(t *testing.T) {
	p := newTestPool(t, nil)
	tests := []struct{ name, code, file, want string }{
		{"fenced", "```js\nconsole.log('hi')\nreturn 1\n```", "", "hi\n1"},
		{"fenced error keeps its line", "```ts\nconst n: number = 1\nthrow new Error('x' + n)\n```", "", "Error: code run failed (exception): Error: x1\n    at program.ts:3:7"},
		{"arrow", "async () => { return 2 }", "", "2"},
		{"parenthesized function", "(async function () { return 3 })", "", "3"},
		{"declaration", "async function main() {\n  return 4\n}", "", "4"},
		{"export default", "export default async function () { return 5 }", "", "5"},
		{"typed arrow", "async (): Promise<number> => { return 6 }", "", "6"},
		{"function with parameters", "async (tools) => { return 1 }", "", "Error: code run failed (exception): " +
			"the program only defines a function, and nothing calls it: the program is already the body of an async function, so write the body itself (top-level await and return work) instead of wrapping it in a function"},
		{"a returned function is not called", "return () => 1", "", "Error: code run failed (invalid-output): program completion must be lossless JSON"},
		{"two statements are left alone", "async function main() {}\nawait main()", "", "(run_code completed with no output)"},
		{"file name in frames", "\nthrow new Error('x')", "prog.js", "Error: code run failed (exception): Error: x\n    at prog.js:2:7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCode(t, p, tt.code, &RunOptions{FileName: tt.file})
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

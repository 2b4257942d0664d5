package jsprep

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A fence or an `export default` is blanked in place: every other character keeps its
// line and column.
func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "return 1", "return 1"},
		{"js fence", "```js\nreturn 1\n```", "\nreturn 1\n"},
		{"bare fence, prose after", "\n```\nreturn 1\n```\nThis returns one.\n", "\n\nreturn 1\n\n\n"},
		{"typescript fence, no closing fence", "```typescript\nreturn 1", "\nreturn 1"},
		{"another language is not stripped", "```python\nreturn 1\n```", "```python\nreturn 1\n```"},
		{"a fence later in the text stays", "const s = 1\n```js\n```", "const s = 1\n```js\n```"},
		{"export default function", "export default async function main() {}", "void           async function main() {}"},
		{"export default arrow", "  export default () => 1", "  void           () => 1"},
		{"export default value stays", "export default { a: 1 }", "export default { a: 1 }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalize(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("normalize(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if len(got) > len(tt.in) {
				t.Errorf("normalize grew the program")
			}
		})
	}
}

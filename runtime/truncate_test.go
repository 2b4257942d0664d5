package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// In truncation mode, output over the budget is cut, marked and announced instead of
// failing the run; without it, the contract's output-limit failure stands.
func TestTruncateOutput(t *testing.T) {
	p := newTestPool(t, &Limits{OutputBytes: 1024})
	header := `[output truncated to the 1024-byte output budget: what was cut ends in a "…N more" marker]`
	tests := []struct {
		name, code string
		want       string // the text's first lines after the header
		failure    Kind
	}{
		{
			name: "a long result array",
			code: "return Array.from({length: 500}, (_, i) => i)",
			want: "…",
		},
		{
			name: "a log flood",
			code: "for (let i = 0; i < 100; i++) console.log('line ' + i + ' ' + 'x'.repeat(40))",
			want: "line 0 ",
		},
		{
			name: "one huge log entry",
			code: "console.log('y'.repeat(5000)); return 'after'",
			want: "yyyy",
		},
		{
			name:    "a long thrown message",
			code:    "throw new Error('z'.repeat(5000))",
			failure: KindException,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCode(t, p, tt.code, &RunOptions{TruncateOutput: true})
			if tt.failure != "" {
				if res.Failure == nil || res.Failure.Kind != tt.failure || !strings.Contains(res.Failure.Message, "more bytes") {
					t.Fatalf("failure = %+v, want %s with a cut message", res.Failure, tt.failure)
				}
			} else if res.Failure != nil {
				t.Fatalf("failure = %v, want a cut result", res.Failure)
			}
			if len(res.Logs) == 0 || res.Logs[0] != header {
				t.Fatalf("logs = %q, want the header first", res.Logs)
			}
			size := len(res.Value) + 2
			for i, l := range res.Logs {
				size += jsonLen(l)
				if i > 0 {
					size++
				}
			}
			if size > 1024 {
				t.Errorf("output is %d bytes, over the 1024-byte budget", size)
			}
			if res.Value != nil && !json.Valid(res.Value) {
				t.Errorf("value is not JSON: %s", res.Value)
			}
			if !strings.Contains(res.Text(), "more ") {
				t.Errorf("text has no marker:\n%s", res.Text())
			}
			if tt.want != "" && !strings.Contains(res.Text(), tt.want) {
				t.Errorf("text lacks %q:\n%s", tt.want, res.Text())
			}
			// The default stays the contract's.
			if res := runCode(t, p, tt.code, nil); res.Failure == nil || res.Failure.Kind != KindOutputLimit {
				t.Errorf("without truncation: %v, want output-limit", res.Failure)
			}
		})
	}
}

// jsonLen is the length of s as JSON.stringify writes it.
func jsonLen(s string) int {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return b.Len() - 1 // the newline Encode adds
}

package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCutJSON(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"fits", `[1,2,3]`, 100, `[1,2,3]`},
		{"array cut", `[1111,2222,3333,4444,5555,6666,7777,8888,9999,1111,2222,3333]`, 60, `[1111,2222,3333,4444,5555,"…7 more items"]`},
		{"object cut", `{"a":"xxxxxxxxxx","b":"yyyyyyyyyy","c":"zzzzzzzzzz","d":1}`, 64, `{"a":"xxxxxxxxxx","…":"3 more items"}`},
		{"string cut", `"` + strings.Repeat("x", 100) + `"`, 40, `"` + strings.Repeat("x", 21) + `…79 more bytes"`},
		{"nested cut", `{"items":[` + strings.Repeat(`"abcdefgh",`, 20) + `"end"],"total":21}`, 120, `{"items":["abcdefgh","abcdefgh","abcdefgh","abcdefgh","…17 more items"],"…":"1 more item"}`},
		{"no room to open", `[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]]`, 60, `["…52 more bytes"]`},
		{"too small", `[1,2,3]`, 3, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := cutJSON([]byte(tt.in), tt.limit)
			if ok != (tt.want != "") {
				t.Fatalf("cutJSON(%s, %d) ok = %v, got %s", tt.in, tt.limit, ok, got)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("cutJSON(%s, %d) mismatch (-want +got):\n%s", tt.in, tt.limit, diff)
			}
			if !json.Valid(got) || len(got) > tt.limit {
				t.Errorf("got %d bytes of invalid or oversized JSON: %s", len(got), got)
			}
		})
	}
}

// FuzzCutJSON: whatever compact JSON the completion encoder can write and whatever the
// limit, the cut is valid JSON within the limit, or nothing.
func FuzzCutJSON(f *testing.F) {
	f.Add(`{"a":[1,2,{"b":"c\"\\d"}],"e":null}`, 20)
	f.Add(`[[[[["deep"]]]],"x","é漢字"]`, 25)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		var v any
		if json.Unmarshal([]byte(text), &v) != nil || limit < 0 || limit > 1<<16 {
			return
		}
		compact, _ := json.Marshal(v)
		got, ok := cutJSON(compact, limit)
		if !ok {
			return
		}
		if !json.Valid(got) || len(got) > limit {
			t.Fatalf("cutJSON(%s, %d) = %s (%d bytes)", compact, limit, got, len(got))
		}
	})
}

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
				size += jsonStringLen(l)
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

package jsvm

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

package runtime

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReferences(t *testing.T) {
	tests := []struct {
		name, code string
		want       []Reference
	}{
		{"dot and bracket", "const a = await tools.read_file({path: 'x'});\nawait tools[\"my-tool\"]({});\nconst f = tools.glob;", []Reference{
			{"read_file", 1, 23}, {"my-tool", 2, 14}, {"glob", 3, 17},
		}},
		{"nested in functions and Promise.all", "await Promise.all([1,2].map(async (i) => { return tools.lookup({i}) }));", []Reference{{"lookup", 1, 57}}},
		{"dynamic access is not listed", "const n = 'x'; await tools[n]({}); other.thing();", nil},
		{"typescript positions map back", "interface A { x: number }\nconst a: A = { x: 1 };\nawait tools.stat({ path: String(a.x) });", []Reference{{"stat", 3, 13}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := References(tt.code, "tools", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("references (-want +got):\n%s", diff)
			}
		})
	}
	_, err := References("await tools.x(", "tools", nil)
	var f *Failure
	if !errors.As(err, &f) || f.Kind != KindException {
		t.Errorf("syntax error: %v", err)
	}
}

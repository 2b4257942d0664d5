package sdkgen

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShapeObserve(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		want    string // the schema
	}{
		{"one object", []string{`{"id": 1, "name": "a"}`}, `{"type":"object","properties":{"id":{"type":"number"},"name":{"type":"string"}},"required":["id","name"]}`},
		{"a field only some results had is optional", []string{`{"id": 1, "email": "x"}`, `{"id": 2}`}, `{"type":"object","properties":{"email":{"type":"string"},"id":{"type":"number"}},"required":["id"]}`},
		{"null joins the kind", []string{`{"id": 1}`, `{"id": null}`}, `{"type":"object","properties":{"id":{"anyOf":[{"type":"number"},{"type":"null"}]}},"required":["id"]}`},
		{"array elements merge", []string{`[{"a": 1}, {"a": 2, "b": true}]`}, `{"type":"array","items":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"boolean"}},"required":["a"]}}`},
		{"empty array", []string{`[]`}, `{"type":"array","items":{}}`},
		{"scalar then object", []string{`"x"`, `{"a": 1}`}, `{"anyOf":[{"type":"string"},{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}]}`},
		{"four kinds are any value", []string{`1`, `"x"`, `true`, `[1]`}, `{}`},
		{"null alone", []string{`null`}, `{"type":"null"}`},
		{"keys that need escaping", []string{`{"a\"b": 1, "\u0001": 2}`}, `{"type":"object","properties":{"\u0001":{"type":"number"},"a\"b":{"type":"number"}},"required":["\u0001","a\"b"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Shape
			for _, r := range tt.results {
				if _, err := s.Observe([]byte(r)); err != nil {
					t.Fatal(err)
				}
			}
			if got := string(s.Schema()); got != tt.want {
				t.Errorf("schema\n got %s\nwant %s", got, tt.want)
			}
			if !json.Valid(s.Schema()) {
				t.Errorf("not JSON: %s", s.Schema())
			}
		})
	}
}

func TestShapeChangedAndStored(t *testing.T) {
	var s Shape
	for i, tc := range []struct {
		result  string
		changed bool
	}{
		{`{"a": 1}`, true},
		{`{"a": 2}`, false},           // same type
		{`{"a": 3, "b": "x"}`, true},  // b appears: optional
		{`{"a": 4, "b": "y"}`, false}, // b still optional
		{`{"a": 5}`, false},
	} {
		changed, err := s.Observe([]byte(tc.result))
		if err != nil || changed != tc.changed {
			t.Errorf("result %d %s: changed %v, %v; want %v", i, tc.result, changed, err, tc.changed)
		}
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Shape
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(s.Schema()), string(back.Schema())); diff != "" {
		t.Errorf("stored and read back (-before +after):\n%s", diff)
	}
	// The counts survive too: b, seen in 2 of 5, stays optional; a field seen in every
	// result from now on (c) is required only while it has been in all of them.
	if _, err := back.Observe([]byte(`{"a": 6, "b": "z"}`)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(back.Schema()), `"required":["a"]`) {
		t.Errorf("after reading back: %s", back.Schema())
	}
}

func TestShapeBounds(t *testing.T) {
	// Deep nesting past the bound becomes any value there, not an error.
	deep := strings.Repeat(`{"x":`, 20) + "1" + strings.Repeat("}", 20)
	var s Shape
	if _, err := s.Observe([]byte(deep)); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Schema()); strings.Count(got, `"properties"`) != shapeDepth+1 || !strings.Contains(got, `"x":{}`) {
		t.Errorf("deep: %s", got)
	}
	// Too many fields: a map of any value.
	var wide strings.Builder
	wide.WriteString("{")
	for i := range shapeFields + 5 {
		if i > 0 {
			wide.WriteString(",")
		}
		fmt.Fprintf(&wide, `"f%d":%d`, i, i)
	}
	wide.WriteString("}")
	var w Shape
	if _, err := w.Observe([]byte(wide.String())); err != nil {
		t.Fatal(err)
	}
	if got := string(w.Schema()); got != `{"type":"object","additionalProperties":{}}` {
		t.Errorf("wide: %s", got)
	}
	// A huge result is looked at up to the token budget; the rest is any value.
	big := "[" + strings.Repeat(`{"a":1},`, shapeTokens) + `{"b":"x"}]`
	var h Shape
	if _, err := h.Observe([]byte(big)); err != nil {
		t.Fatal(err)
	}
	if got := string(h.Schema()); got != `{"type":"array","items":{}}` {
		t.Errorf("big: %s", got)
	}
	// Not JSON: an error, and the shape is unchanged.
	if _, err := h.Observe([]byte(`{"a":`)); err == nil {
		t.Error("a cut result was accepted")
	}
}

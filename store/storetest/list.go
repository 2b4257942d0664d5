package storetest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/store"
)

// listKeys holds keys whose order differs between byte order and a natural-language
// collation, LIKE's wildcards, and the code points a prefix range must step over.
var listKeys = []string{
	"a", "a%", "a%b", "a_", "a_b", "aXb", "ab", "abc", "aa", "A", "B", "b", "%", "_", "_x",
	"é", "e", "z", "\u00ff", "ü",
	"x\U0010FFFF", "x\U0010FFFFa", "x\U0010FFFF\U0010FFFF", "y",
	"\uD7FF", "\uD7FFz", "\uE000",
	"",
}

func keysOf(rs []store.Record) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Key)
	}
	return out
}

// withPrefix is what List(prefix) must return: the keys starting with prefix, in byte
// order.
func withPrefix(prefix string) []string {
	var out []string
	for _, k := range listKeys {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func testList(t *testing.T, s store.Store) {
	for _, k := range listKeys {
		mustPut(t, s, store.Record{Kind: "k", Key: k, Data: []byte("data of " + k)}, 0)
	}
	mustPut(t, s, store.Record{Kind: "k2", Key: "a", Data: []byte("other kind")}, 0)
	mustPut(t, s, store.Record{Kind: "k", Key: "aq", Data: []byte("twice")}, 0)
	mustPut(t, s, store.Record{Kind: "k", Key: "aq", Data: []byte("twice")}, 1)
	if err := s.Delete(t.Context(), "k", "aq"); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		prefix string
		want   []string // nil: withPrefix(prefix)
	}{
		{name: "all", prefix: ""},
		{name: "a", prefix: "a", want: []string{"a", "a%", "a%b", "aXb", "a_", "a_b", "aa", "ab", "abc"}},
		{name: "percent is literal", prefix: "a%", want: []string{"a%", "a%b"}},
		{name: "underscore is literal", prefix: "a_", want: []string{"a_", "a_b"}},
		{name: "lone percent", prefix: "%", want: []string{"%"}},
		{name: "lone underscore", prefix: "_", want: []string{"_", "_x"}},
		{name: "case matters", prefix: "A", want: []string{"A"}},
		{name: "whole key", prefix: "abc", want: []string{"abc"}},
		{name: "longer than any key", prefix: "abcd", want: []string{}},
		{name: "no match", prefix: "q", want: []string{}},
		{name: "non-ASCII", prefix: "é", want: []string{"é"}},
		{name: "last code point", prefix: "x\U0010FFFF"},
		{name: "last code point twice", prefix: "x\U0010FFFF\U0010FFFF"},
		{name: "before the surrogates", prefix: "\uD7FF"},
		{name: "after the surrogates", prefix: "\uE000"},
		{name: "deleted key's prefix", prefix: "aq", want: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = withPrefix(tc.prefix)
			}
			if tc.want != nil {
				if diff := cmp.Diff(withPrefix(tc.prefix), want, recordOpts); diff != "" {
					t.Fatalf("the case's keys are wrong (-byte order +case):\n%s", diff)
				}
			}
			got, err := s.List(t.Context(), "k", tc.prefix, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, keysOf(got), recordOpts); diff != "" {
				t.Errorf("List(%q) keys (-want +got):\n%s", tc.prefix, diff)
			}
			for _, r := range got {
				if r.Kind != "k" || r.Version != 1 || string(r.Data) != "data of "+r.Key {
					t.Errorf("List returned %+v, want the whole record at version 1", r)
				}
			}
		})
	}
}

func testListLimit(t *testing.T, s store.Store) {
	keys := []string{"d", "b", "e", "a", "c"}
	for _, k := range keys {
		mustPut(t, s, store.Record{Kind: "k", Key: k}, 0)
	}
	for _, tc := range []struct {
		prefix string
		limit  int
		want   []string
	}{
		{"", 0, []string{"a", "b", "c", "d", "e"}},
		{"", -1, []string{"a", "b", "c", "d", "e"}},
		{"", 1, []string{"a"}},
		{"", 3, []string{"a", "b", "c"}},
		{"", 5, []string{"a", "b", "c", "d", "e"}},
		{"", 50, []string{"a", "b", "c", "d", "e"}},
		{"c", 2, []string{"c"}},
	} {
		got, err := s.List(t.Context(), "k", tc.prefix, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, keysOf(got)); diff != "" {
			t.Errorf("List(%q, %d) keys (-want +got):\n%s", tc.prefix, tc.limit, diff)
		}
	}
	got, err := s.List(t.Context(), "empty", "", 0)
	if err != nil || len(got) != 0 {
		t.Errorf("List of a kind with no records = %v, %v; want none", got, err)
	}
}

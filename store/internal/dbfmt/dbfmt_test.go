package dbfmt

import (
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct {
		prefix, end string
		ok          bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"a%", "a&", true},
		{"az", "a{", true},
		{"\u007f", "\u0080", true}, // one byte to two
		{"é", "ê", true},
		{"\uD7FF", "\uE000", true}, // over the surrogates
		{"\uFFFF", "\U00010000", true},
		{"x\U0010FFFF", "y", true},
		{"x\U0010FFFF\U0010FFFF", "y", true},
		{"\U0010FFFF", "", false},
	} {
		end, ok := PrefixEnd(tc.prefix)
		if end != tc.end || ok != tc.ok {
			t.Errorf("PrefixEnd(%q) = %q, %t; want %q, %t", tc.prefix, end, ok, tc.end, tc.ok)
		}
	}
}

// FuzzPrefixEnd checks the promise the SQL stores' List relies on: for valid UTF-8, a
// key starts with prefix exactly when it is in [prefix, end).
func FuzzPrefixEnd(f *testing.F) {
	for _, s := range [][2]string{{"a", "ab"}, {"a", "b"}, {"x\U0010FFFF", "x\U0010FFFFz"}, {"\uD7FF", "\uE000"}, {"", "q"}, {"é", "e"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, prefix, key string) {
		if !utf8.ValidString(prefix) || !utf8.ValidString(key) {
			return
		}
		end, ok := PrefixEnd(prefix)
		if ok && !utf8.ValidString(end) {
			t.Fatalf("PrefixEnd(%q) = %q, not valid UTF-8", prefix, end)
		}
		inRange := key >= prefix && (!ok || key < end)
		if inRange != strings.HasPrefix(key, prefix) {
			t.Fatalf("key %q, prefix %q, end %q (%t): in range %t, has prefix %t", key, prefix, end, ok, inRange, !inRange)
		}
	})
}

func TestExpires(t *testing.T) {
	if n := ExpiresNano(time.Time{}); n != 0 {
		t.Errorf("ExpiresNano(zero) = %d", n)
	}
	if got := ExpiresTime(0); !got.IsZero() {
		t.Errorf("ExpiresTime(0) = %v", got)
	}
	in := time.Date(2100, 5, 6, 7, 8, 9, 10, time.FixedZone("x", -7200))
	got := ExpiresTime(ExpiresNano(in))
	if !got.Equal(in) || got.Location() != time.UTC {
		t.Errorf("round trip of %v = %v", in, got)
	}
}

func TestNano(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want int64
	}{
		{time.Time{}, 0},
		{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{time.Unix(0, 0), 0},
		{time.Unix(1, 5), 1_000_000_005},
		{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), math.MaxInt64},
	} {
		if got := Nano(tc.t); got != tc.want {
			t.Errorf("Nano(%v) = %d, want %d", tc.t, got, tc.want)
		}
	}
}

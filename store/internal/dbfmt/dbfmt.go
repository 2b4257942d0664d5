package dbfmt

import (
	"math"
	"time"
	"unicode/utf8"
)

// ExpiresNano is an expiry as the SQL stores keep it: Unix nanoseconds, 0 for never.
// Valid only for a time store.CheckPut accepted.
func ExpiresNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// ExpiresTime is ExpiresNano's inverse: the zero Time for 0, a UTC time otherwise.
func ExpiresTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Nano is a time to compare expiries with (Prune's now), as Unix nanoseconds, clamped
// to what an int64 holds: before 1970 it is 0, which no expiry is at or before; after
// 2262 it is the largest int64, which every expiry is before.
func Nano(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, 0)):
		return 0
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// Data returns b, or an empty non-nil slice for nil: the SQL stores keep payloads NOT
// NULL, and read an empty one back as empty, not nil.
func Data(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// PrefixEnd returns the least string greater than every valid UTF-8 string that starts
// with prefix, so that such keys are exactly those in [prefix, end) in byte order. ok
// is false when no such string exists (an empty prefix, or one of U+10FFFF only): then
// every key at or after prefix starts with it.
//
// UTF-8's byte order is its code points' order, so the end is the prefix with its last
// code point below U+10FFFF incremented and what follows it dropped.
func PrefixEnd(prefix string) (end string, ok bool) {
	rs := []rune(prefix)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		switch {
		case r == utf8.MaxRune:
			continue
		case r == 0xD7FF: // skip the surrogates, which UTF-8 cannot hold
			r = 0xE000
		default:
			r++
		}
		return string(rs[:i]) + string(r), true
	}
	return "", false
}

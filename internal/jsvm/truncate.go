package jsvm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/runcode-go/runcode/internal/jsontext"
)

// Truncation mode (Job.Truncate): instead of failing as output-limit, the run keeps what
// fits and says what it cut. The log entry that does not fit (or a thrown message) ends in
// "…N more bytes" and later entries are dropped, counted by "…N more log entries"; a
// completion is cut to valid JSON: a string ends in "…N more bytes", an array with the
// element "…N more items", an object with the member "…": "N more items", and a container
// with no room for any member becomes "…N more bytes". The logs open with truncHeader.
// Header and markers come out of truncReserve, so the output stays within the budget.

// truncReserve holds the header (under 150 bytes as JSON) and the dropped-entries and
// outer completion markers (under 50 each).
const truncReserve = 256

// truncMarkerRoom is what one container's marker and closing bracket can take.
const truncMarkerRoom = 32

func truncHeader(budget int) string {
	return fmt.Sprintf("[output truncated to the %d-byte output budget: what was cut ends in a \"…N more\" marker]", budget)
}

// outputLimit is what logs and completion may fill: the budget less truncation's reserve.
func (r *VM) outputLimit() int {
	if !r.truncate {
		return r.limits.OutputBytes
	}
	return max(r.limits.OutputBytes-min(truncReserve, r.limits.OutputBytes/2), 0)
}

// truncated reports whether truncation mode has cut the logs already.
func (r *VM) truncated() bool {
	if !r.truncate {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cut
}

// cutString cuts s so that, with "…N more bytes" appended (N the bytes cut), it is at most
// room bytes as a JSON string, and reports whether anything fits at all.
func cutString(s string, room int) (string, bool) {
	marker := func(n int) string { return "…" + strconv.Itoa(n) + " more bytes" }
	if jsonStringLen(marker(len(s))) > room {
		return "", false
	}
	// The marker's own length depends on N; reserve the longest it can be.
	avail := room - jsonStringLen(marker(len(s)))
	end, used := 0, 0
	for end < len(s) {
		_, size := utf8.DecodeRuneInString(s[end:])
		cost := jsonStringLen(s[end:end+size]) - 2
		if used+cost > avail {
			break
		}
		used += cost
		end += size
	}
	return s[:end] + marker(len(s)-end), true
}

// cutJSON cuts the compact JSON text in to at most limit bytes of valid JSON with the
// markers above, in one pass: once something does not fit, the rest is dropped and
// counted. ok is false when not even a marker fits, or in is not compact JSON.
func cutJSON(in []byte, limit int) (out []byte, ok bool) {
	c := &cutter{in: in, limit: limit}
	defer func() {
		if recover() != nil { // malformed input: an index out of range
			out, ok = nil, false
		}
	}()
	if !c.value(0) || c.i != len(in) || c.bad {
		return nil, false
	}
	return c.out, true
}

type cutter struct {
	in    []byte
	i     int
	out   []byte
	limit int
	full  bool // something did not fit: skip the rest
	bad   bool // not compact JSON
}

// value copies, cuts or skips the value at c.i, leaving reserve bytes free for what
// closes the containers around it, and reports whether it wrote anything.
func (c *cutter) value(reserve int) bool {
	if c.full {
		c.skip()
		return false
	}
	start := c.i
	switch c.in[c.i] {
	case '{', '[':
		return c.container(reserve)
	case '"':
		c.skip()
		if len(c.out)+c.i-start+reserve <= c.limit {
			c.out = append(c.out, c.in[start:c.i]...)
			return true
		}
		c.full = true
		var s string
		if err := json.Unmarshal(c.in[start:c.i], &s); err != nil {
			c.bad = true
			return false
		}
		cut, ok := cutString(s, c.limit-reserve-len(c.out))
		if !ok {
			return false
		}
		c.out = jsontext.AppendString(c.out, cut)
		return true
	default:
		c.skip()
		if len(c.out)+c.i-start+reserve <= c.limit {
			c.out = append(c.out, c.in[start:c.i]...)
			return true
		}
		c.full = true
		return false
	}
}

// container copies or cuts the array or object at c.i.
func (c *cutter) container(reserve int) bool {
	start := c.i
	obj := c.in[c.i] == '{'
	if len(c.out)+2+truncMarkerRoom+reserve > c.limit {
		// No room to open it: the whole container becomes a marker, if that fits.
		c.skip()
		c.full = true
		marker := "…" + strconv.Itoa(c.i-start) + " more bytes"
		if len(c.out)+jsonStringLen(marker)+reserve > c.limit {
			return false
		}
		c.out = jsontext.AppendString(c.out, marker)
		return true
	}
	c.out = append(c.out, c.in[c.i])
	c.i++
	closing := byte(']')
	if obj {
		closing = '}'
	}
	inner := reserve + truncMarkerRoom + 1
	written, dropped := 0, 0
	for c.in[c.i] != closing {
		if c.in[c.i] == ',' {
			c.i++
		}
		mark := len(c.out)
		if c.full {
			if obj {
				c.skip() // the key
				c.i++    // ':'
			}
			c.skip()
			dropped++
			continue
		}
		if written > 0 {
			c.out = append(c.out, ',')
		}
		if obj {
			k := c.i
			c.skip()
			c.out = append(c.out, c.in[k:c.i]...)
			if c.in[c.i] != ':' {
				c.bad = true
				return false
			}
			c.out = append(c.out, ':')
			c.i++
			if len(c.out) > c.limit-inner {
				c.full = true
			}
		}
		if !c.value(inner) {
			c.out = c.out[:mark]
			dropped++
			continue
		}
		written++
	}
	c.i++
	if dropped > 0 {
		if written > 0 {
			c.out = append(c.out, ',')
		}
		if obj {
			c.out = jsontext.AppendString(c.out, "…")
			c.out = append(c.out, ':')
			c.out = jsontext.AppendString(c.out, moreItems(int64(dropped)))
		} else {
			c.out = jsontext.AppendString(c.out, "…"+moreItems(int64(dropped)))
		}
	}
	c.out = append(c.out, closing)
	return true
}

// stringEnd returns the index just after the JSON string that opens at s[i].
func stringEnd(s []byte, i int) int {
	for i = jsontext.SkipPlain(s, i+1); s[i] != '"'; i = jsontext.SkipPlain(s, i) {
		if s[i] == '\\' {
			i++ // the escaped byte; the rest of a \uXXXX is plain
		}
		i++
	}
	return i + 1
}

// skip moves c.i past the value (or object key) at c.i, in one pass.
func (c *cutter) skip() {
	depth := 0
	for {
		switch b := c.in[c.i]; b {
		case '"':
			c.i = stringEnd(c.in, c.i)
		case '{', '[':
			depth++
			c.i++
		case '}', ']':
			depth--
			c.i++
		case ',', ':':
			if depth == 0 {
				c.bad = true
				return
			}
			c.i++
		default:
			for c.i < len(c.in) && c.in[c.i] != ',' && c.in[c.i] != ']' && c.in[c.i] != '}' && c.in[c.i] != ':' {
				c.i++
			}
		}
		if depth == 0 {
			return
		}
	}
}

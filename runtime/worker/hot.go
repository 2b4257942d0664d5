package worker

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The hot frames are the two of every sub-call, call and result, on the round trip's
// critical path, where encoding/json is several times slower (BENCHMARKS.md, "runtime/worker
// design notes"). appendHot writes them byte for byte as encoding/json would
// (TestHotEncoding); decodeHot reads only that form and leaves every other body to the
// strict decoder.

// appendHot appends m's JSON body to b if m is a call or a result that uses only its own
// fields, and reports whether it did. A call's args must be valid JSON (the lossless
// encoder's); a result's value, JSON or not, is written as it came and last, with nothing
// else beside it. Both are written as they are, where encoding/json would compact them.
func appendHot(b []byte, m *message) ([]byte, bool) {
	if m.Grace != 0 || m.MaxFrame != 0 || m.Limits != nil || m.PID != 0 || m.VMBytes != 0 || m.ASLimit != 0 || m.GCPercent != 0 ||
		m.Code != "" || m.ProgramBytes != 0 || m.NS != nil || m.Reason != "" || m.Logs != nil || m.Failure != nil || m.Compute != 0 || m.Draws != nil {
		return b, false
	}
	switch m.T {
	case tCall:
		if m.Value != nil || m.Error != nil || m.Panic != "" || m.Left < 0 {
			return b, false
		}
		b = append(b, `{"t":"call"`...)
		if m.Left != 0 {
			b = append(b, `,"left":`...)
			b = strconv.AppendInt(b, m.Left, 10)
		}
		if m.ID != 0 {
			b = append(b, `,"id":`...)
			b = strconv.AppendUint(b, m.ID, 10)
		}
		if m.NSI != 0 {
			b = append(b, `,"nsi":`...)
			b = strconv.AppendInt(b, int64(m.NSI), 10)
		}
		if m.Member != "" {
			b = append(b, `,"member":`...)
			b = appendString(b, m.Member)
		}
		if len(m.Args) != 0 {
			b = append(b, `,"args":`...)
			b = append(b, m.Args...)
		}
	case tResult:
		if m.Left != 0 || m.NSI != 0 || m.Member != "" || m.Args != nil || len(m.Value) != 0 && (m.Error != nil || m.Panic != "") {
			return b, false
		}
		b = append(b, `{"t":"result"`...)
		if m.ID != 0 {
			b = append(b, `,"id":`...)
			b = strconv.AppendUint(b, m.ID, 10)
		}
		if len(m.Value) != 0 {
			b = append(b, `,"value":`...)
			b = append(b, m.Value...)
		}
		if m.Error != nil {
			b = append(b, `,"error":{"message":`...)
			b = appendString(b, m.Error.Message)
			if len(m.Error.Fields) != 0 {
				b = append(b, `,"fields":{`...)
				keys := make([]string, 0, len(m.Error.Fields))
				for k := range m.Error.Fields {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for i, k := range keys {
					if i > 0 {
						b = append(b, ',')
					}
					b = appendString(b, k)
					b = append(b, ':')
					b = appendString(b, m.Error.Fields[k])
				}
				b = append(b, '}')
			}
			b = append(b, '}')
		}
		if m.Panic != "" {
			b = append(b, `,"panic":`...)
			b = appendString(b, m.Panic)
		}
	default:
		return b, false
	}
	return append(b, '}'), true
}

// appendString appends s as a JSON string as the frame encoder would (no HTML escaping).
func appendString(b []byte, s string) []byte {
	if plain(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b = buf.Bytes()
	return b[:len(b)-1]
}

// plain reports whether s needs no escaping in JSON: printable ASCII without '"' or '\'.
func plain[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// decodeHot decodes body if it is a call or a result in exactly the form appendHot writes
// for the common cases:
//
//	{"t":"call","left":N,"id":N,"nsi":N,"member":"plain","args":RAW}   ("left" and "nsi" only when not 0)
//	{"t":"result","id":N,"value":RAW}
//
// N is a positive decimal without leading zeros, "plain" printable ASCII without escapes.
// A call's RAW (from the untrusted worker) is one valid JSON value, not null, without
// whitespace around it; a result's RAW is everything up to the final '}', at least one
// byte. Anything else is left to decodeStrict (ok false), which accepts every message
// decodeHot does as the same message (FuzzDecode).
func decodeHot(body []byte) (m *message, ok bool) {
	p := hotParser{b: body}
	switch {
	case p.lit(`{"t":"call",`):
		m = &message{T: tCall}
		if p.lit(`"left":`) {
			n, ok := p.uint()
			if !ok || n > 1<<63-1 || !p.lit(`,`) {
				return nil, false
			}
			m.Left = int64(n)
		}
		if !p.lit(`"id":`) {
			return nil, false
		}
		if m.ID, ok = p.uint(); !ok {
			return nil, false
		}
		if p.lit(`,"nsi":`) {
			n, ok := p.uint()
			if !ok || n > 1<<31-1 {
				return nil, false
			}
			m.NSI = int(n)
		}
		if !p.lit(`,"member":"`) {
			return nil, false
		}
		if m.Member, ok = p.plainString(); !ok || !p.lit(`,"args":`) {
			return nil, false
		}
		if m.Args, ok = p.lastRaw(); !ok {
			return nil, false
		}
		return m, true
	case p.lit(`{"t":"result","id":`):
		m = &message{T: tResult}
		if m.ID, ok = p.uint(); !ok || !p.lit(`,"value":`) {
			return nil, false
		}
		if m.Value, ok = p.rest(); !ok {
			return nil, false
		}
		return m, true
	}
	return nil, false
}

type hotParser struct {
	b []byte
	i int
}

func (p *hotParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// uint reads a positive decimal without leading zeros that fits in a uint64.
func (p *hotParser) uint() (uint64, bool) {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	d := p.b[start:p.i]
	if len(d) == 0 || d[0] == '0' || len(d) > 19 { // 19 digits always fit
		return 0, false
	}
	n, err := strconv.ParseUint(string(d), 10, 64)
	return n, err == nil
}

// plainString reads the rest of a string whose opening quote was read, if it has no
// escapes and only printable ASCII.
func (p *hotParser) plainString() (string, bool) {
	end := bytes.IndexByte(p.b[p.i:], '"')
	if end < 0 {
		return "", false
	}
	s := p.b[p.i : p.i+end]
	if !plain(s) || !utf8.Valid(s) {
		return "", false
	}
	p.i += end + 1
	return string(s), true
}

// rest reads the last field's value: everything up to the body's final '}', at least one
// byte. It aliases the body, which belongs to this frame alone.
func (p *hotParser) rest() (json.RawMessage, bool) {
	n := len(p.b)
	if n-p.i < 2 || p.b[n-1] != '}' {
		return nil, false
	}
	raw := p.b[p.i : n-1]
	p.i = n
	return json.RawMessage(raw), true
}

// lastRaw reads the last field's value as rest does, if it is one valid JSON value, not
// null, without whitespace around it.
func (p *hotParser) lastRaw() (json.RawMessage, bool) {
	raw, ok := p.rest()
	if !ok {
		return nil, false
	}
	switch raw[0] {
	case '{', '[', '"', 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
	default:
		return nil, false
	}
	switch raw[len(raw)-1] {
	case ' ', '\t', '\n', '\r':
		return nil, false
	}
	return raw, json.Valid(raw)
}

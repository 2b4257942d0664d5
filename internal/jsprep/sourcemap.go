package jsprep

import (
	"encoding/json"
	"errors"
	"strings"
)

// gojaSourceMap is esbuild's source map as goja must be given it (see forGoja), or the
// map unchanged should it not decode.
func gojaSourceMap(generated string, srcMap []byte) []byte {
	if m, err := forGoja(generated, srcMap); err == nil {
		return m
	}
	return srcMap
}

// maxInterpolated bounds how many columns after a segment forGoja fills in: error
// positions fall on tokens, and a longer gap is a string or a comment.
const maxInterpolated = 64

// forGoja rewrites an esbuild source map for goja's lookup, so that a TypeScript
// program's positions are those of the same program in plain JavaScript:
//
//   - goja looks up a 1-based generated column and reports the 0-based original column
//     as is, so every column is made one higher.
//   - goja takes the segment at or before the column without the offset into it, and
//     esbuild maps only some tokens (not a call's parenthesis, where goja places its
//     frame), so each column of a segment's span gets its own segment, up to the next
//     segment (not past its original column) or maxInterpolated columns.
func forGoja(generated string, srcMap []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(srcMap, &m); err != nil {
		return nil, err
	}
	var mappings string
	if err := json.Unmarshal(m["mappings"], &mappings); err != nil {
		return nil, err
	}
	genLines := strings.Split(generated, "\n")
	var enc vlqEncoder
	var prev [5]int // the previous segment's absolute fields, for deltas
	for i, line := range strings.Split(mappings, ";") {
		if i > 0 {
			enc.newLine()
		}
		prev[0] = 0 // generated columns are relative within a line
		var segs [][]int
		for seg := range strings.SplitSeq(line, ",") {
			if seg == "" {
				continue
			}
			fields, err := decodeVLQ(seg)
			if err != nil {
				return nil, err
			}
			if len(fields) != 1 && len(fields) != 4 && len(fields) != 5 {
				return nil, errors.New("source map: segment of an unexpected length")
			}
			for k, f := range fields {
				prev[k] += f
				fields[k] = prev[k]
			}
			segs = append(segs, fields)
		}
		genLine := ""
		if i < len(genLines) {
			genLine = genLines[i]
		}
		first := true
		emit := func(fields []int) {
			if !first {
				enc.b.WriteByte(',')
			}
			first = false
			enc.segment(fields)
		}
		for k, s := range segs {
			emit(shifted(s))
			if len(s) < 4 {
				continue
			}
			end := len(genLine)
			if k+1 < len(segs) {
				end = segs[k+1][0]
			}
			end = min(end, s[0]+maxInterpolated+1)
			// esbuild starts a statement's segment at its line's indentation, which
			// the original need not have: the offset counts from the first token.
			at := s[0]
			for at < end && at < len(genLine) && (genLine[at] == ' ' || genLine[at] == '\t') {
				at++
			}
			for c := s[0] + 1; c < end; c++ {
				col := s[3] + max(0, c-at)
				if k+1 < len(segs) && len(segs[k+1]) >= 4 && segs[k+1][1] == s[1] && segs[k+1][2] == s[2] && col >= segs[k+1][3] {
					break
				}
				emit(shifted([]int{c, s[1], s[2], col}))
			}
		}
	}
	text, err := json.Marshal(enc.b.String())
	if err != nil {
		return nil, err
	}
	m["mappings"] = text
	return json.Marshal(m)
}

// shifted returns a segment's absolute fields with its columns one higher.
func shifted(s []int) []int {
	out := append([]int(nil), s...)
	out[0]++
	if len(out) >= 4 {
		out[3]++
	}
	return out
}

// vlqEncoder writes segments given by absolute fields as the deltas a mappings text
// holds.
type vlqEncoder struct {
	b      strings.Builder
	genCol int    // the previous generated column on the current line
	src    [4]int // the previous source index, line, column and name
}

// newLine ends a generated line.
func (e *vlqEncoder) newLine() {
	e.b.WriteByte(';')
	e.genCol = 0
}

func (e *vlqEncoder) segment(fields []int) {
	e.writeField(fields[0] - e.genCol)
	e.genCol = fields[0]
	for k := 1; k < len(fields); k++ {
		e.writeField(fields[k] - e.src[k-1])
		e.src[k-1] = fields[k]
	}
}

func (e *vlqEncoder) writeField(f int) {
	v := f << 1
	if f < 0 {
		v = (-f << 1) | 1
	}
	for {
		d := v & 31
		v >>= 5
		if v != 0 {
			d |= 32
		}
		e.b.WriteByte(base64VLQ[d])
		if v == 0 {
			return
		}
	}
}

const base64VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeVLQ decodes one segment's base64 VLQ fields.
func decodeVLQ(seg string) ([]int, error) {
	var out []int
	value, shift := 0, 0
	for i := 0; i < len(seg); i++ {
		d := strings.IndexByte(base64VLQ, seg[i])
		if d < 0 || shift > 30 {
			return nil, errors.New("source map: bad VLQ segment")
		}
		value += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		if value&1 != 0 {
			out = append(out, -(value >> 1))
		} else {
			out = append(out, value>>1)
		}
		value, shift = 0, 0
	}
	if shift != 0 || len(out) == 0 {
		return nil, errors.New("source map: truncated VLQ segment")
	}
	return out, nil
}

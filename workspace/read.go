package workspace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/runcode-go/runcode/registry"
)

type readArgs struct {
	Path   string      `json:"path"`
	Offset json.Number `json:"offset"`
	Limit  json.Number `json:"limit"`
}

func (w *Workspace) readFile(ctx context.Context, call *registry.Call) (any, error) {
	var in readArgs
	if err := call.Args.Decode(&in); err != nil {
		return nil, err
	}
	p, err := clean(in.Path)
	if err != nil {
		return nil, err
	}
	start, err := intArg("offset", in.Offset, 1, 1, MaxFileBytes, " (lines are numbered from 1)")
	if err != nil {
		return nil, err
	}
	limit, err := intArg("limit", in.Limit, DefaultLines, 1, MaxFileBytes, "")
	if err != nil {
		return nil, err
	}
	f, info, err := w.openSmall(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(io.LimitReader(f, MaxFileBytes+1))
	head, err := br.Peek(512) // all that http.DetectContentType looks at
	if err != nil && err != io.EOF {
		return nil, fsError(p, err)
	}
	if mime := imageType(head); mime != "" {
		return map[string]any{"path": p, "totalLines": 0, "mimeType": mime, "bytes": info.Size()}, nil
	}
	r, err := readLines(br, start, limit)
	switch {
	case errors.Is(err, errNotText):
		return nil, fmt.Errorf("%s: not a text file (binary content)", p)
	case errors.Is(err, errTooLarge):
		return nil, fmt.Errorf("%s: over the %d-byte limit", p, MaxFileBytes) // it grew since it was opened
	case err != nil:
		return nil, fsError(p, err)
	}
	out := map[string]any{"path": p, "totalLines": r.total, "text": r.text}
	if r.end >= start {
		out["startLine"], out["endLine"] = start, r.end
	}
	return out, nil
}

// intArg is an optional integer argument's value: def when it is absent, else the
// number, which must be a whole number from lo to hi (written as JSON allows: 1000, 1e3
// and 1000.0 are the same number).
func intArg(name string, n json.Number, def, lo, hi int, hint string) (int, error) {
	if n == "" {
		return def, nil
	}
	v, err := strconv.ParseFloat(string(n), 64) // exact for every value in range
	if err != nil && !errors.Is(err, strconv.ErrRange) || v != math.Trunc(v) {
		return 0, fmt.Errorf("%s must be a whole number between %d and %d%s", name, lo, hi, hint)
	}
	if v < float64(lo) || v > float64(hi) { // ±Inf when out of float64's range
		return 0, fmt.Errorf("%s must be between %d and %d%s", name, lo, hi, hint)
	}
	return int(v), nil
}

var (
	errNotText  = errors.New("not text")
	errTooLarge = errors.New("too large")
)

// readResult is what readLines read: the text of the lines returned, the last of them
// (end, 0 if none), and how many lines the file has.
type readResult struct {
	text       string
	end, total int
}

// readLines reads, a buffer at a time, the limit lines of r from line start: each cut
// after MaxReadLineBytes, and no more of them than fit in MaxReadBytes. It reads to the
// end, to count the lines and check that the file is text (errNotText if not); lines
// outside the range are only counted.
func readLines(r io.Reader, start, limit int) (readResult, error) {
	var (
		res     readResult
		text    textCheck
		out     strings.Builder
		line    = lineCut{max: MaxReadLineBytes}
		buf     = make([]byte, bufSize)
		size    int
		ends    int  // newlines read: the line being read is ends+1
		partial bool // the last byte read was not a newline: a line is started
		full    bool // no more lines fit
	)
	// done ends line ends+1, which was wanted.
	done := func() {
		if kept, suffix := line.parts(); res.end > 0 && out.Len()+1+len(kept)+len(suffix) > MaxReadBytes {
			full = true
		} else {
			if res.end > 0 {
				out.WriteByte('\n')
			}
			out.Write(kept)
			out.WriteString(suffix)
			res.end = ends + 1
		}
		line.reset()
	}
	wanted := func() bool { return !full && ends+1 >= start && ends+1-start < limit }
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		if size += n; size > MaxFileBytes {
			return res, errTooLarge
		}
		if !text.write(chunk) {
			return res, errNotText
		}
		if n > 0 {
			partial = chunk[n-1] != '\n'
		}
		for len(chunk) > 0 {
			switch {
			case wanted():
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					line.write(chunk)
					chunk = nil
					break
				}
				line.write(chunk[:i])
				done()
				ends++
				chunk = chunk[i+1:]
			case ends+1 < start && bytes.Count(chunk, []byte("\n")) >= start-1-ends:
				for ends+1 < start { // skip to line start
					chunk = chunk[bytes.IndexByte(chunk, '\n')+1:]
					ends++
				}
			default: // before start (not in this chunk) or past the range
				ends += bytes.Count(chunk, []byte("\n"))
				chunk = nil
			}
		}
		switch {
		case err == io.EOF:
			if !text.end() {
				return res, errNotText
			}
			res.total = ends
			if partial {
				if wanted() {
					done()
				}
				res.total++
			}
			res.text = out.String()
			return res, nil
		case err != nil:
			return res, err
		}
	}
}

func imageType(data []byte) string {
	switch mime := http.DetectContentType(data); mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return mime
	}
	return ""
}

// renderRead shows text as is (with its line range) and an image as image content.
func (w *Workspace) renderRead(_, v registry.Value) ([]registry.Content, error) {
	var out struct {
		Path, Text, MimeType           string
		StartLine, EndLine, TotalLines int
	}
	if err := v.Decode(&out); err != nil {
		return nil, err
	}
	if out.MimeType != "" {
		data, err := w.readSmall(out.Path)
		if err != nil {
			return nil, err
		}
		return []registry.Content{
			registry.Text(fmt.Sprintf("<path>%s</path>\n<type>image</type>", out.Path)),
			{Type: "image", MIMEType: out.MimeType, Data: base64.StdEncoding.EncodeToString(data)},
		}, nil
	}
	if out.StartLine == 0 {
		return []registry.Content{registry.Text(fmt.Sprintf("%s: no lines in range (the file has %d)", out.Path, out.TotalLines))}, nil
	}
	return []registry.Content{registry.Text(fmt.Sprintf("%s (lines %d-%d of %d)\n%s", out.Path, out.StartLine, out.EndLine, out.TotalLines, out.Text))}, nil
}

package genkit

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// part is one block of a rendered result: a text, or an image as a media part.
type part struct {
	text  string
	image *ai.Part
}

// parts returns a result's model-facing content: its content, then its contexts,
// labelled as runcode's MCP server labels them (pipeline.ContextContent: an image a
// run_code sub-call produced follows a text naming the sub-call; any other context
// follows one text naming what attached it). A failed result's content is its
// "Error: ..." text, unchanged.
func parts(res *pipeline.Result) []part {
	out := appendParts(nil, res.Content)
	return appendParts(out, pipeline.ContextContent(res.Contexts))
}

// appendParts appends content as parts. An image becomes a media part holding a data
// URL (Genkit's way of carrying inline media); an image whose data is not base64,
// audio and binary resources become a text saying what was left out, so that one bad
// block never fails a request; a text resource is its URI and text. Empty texts are
// dropped.
func appendParts(out []part, content []registry.Content) []part {
	text := func(s string) {
		if s != "" {
			out = append(out, part{text: s})
		}
	}
	for _, c := range content {
		switch c.Type {
		case "image":
			data := strings.NewReplacer("\r", "", "\n", "").Replace(c.Data)
			mime := strings.ToLower(strings.TrimSpace(c.MIMEType))
			if !isBase64(data) || !strings.HasPrefix(mime, "image/") || strings.ContainsAny(mime, ";, ") {
				text(fmt.Sprintf("[image of type %q with invalid data omitted]", c.MIMEType))
				continue
			}
			out = append(out, part{image: ai.NewMediaPart(mime, "data:"+mime+";base64,"+data)})
		case "audio":
			text(fmt.Sprintf("[audio content (%s) omitted]", c.MIMEType))
		case "resource":
			switch {
			case c.Text != "":
				text(fmt.Sprintf("Resource %s:\n%s", c.URI, c.Text))
			case c.Data != "":
				text(fmt.Sprintf("[resource %s of type %q: binary content omitted]", c.URI, c.MIMEType))
			default:
				text("Resource " + c.URI)
			}
		default:
			text(c.Text)
		}
	}
	return out
}

// isBase64 reports whether s is non-empty standard base64.
func isBase64(s string) bool {
	if s == "" {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// media returns the image parts.
func media(ps []part) []*ai.Part {
	var out []*ai.Part
	for _, p := range ps {
		if p.image != nil {
			out = append(out, p.image)
		}
	}
	return out
}

// joinText joins the texts with line breaks, each image replaced by say(n), n its
// 1-based number among all images numbered so far (say may return "" to leave images
// out).
func joinText(ps []part, images *int, say func(n int) string) string {
	var sb strings.Builder
	for _, p := range ps {
		text := p.text
		if p.image != nil {
			*images++
			text = say(*images)
		}
		if text == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(text)
	}
	return sb.String()
}

package openai

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// part is one block of a rendered result: text, or an image as a data URL.
type part struct {
	text  string
	image string
}

// render returns a result's model-facing parts: its content, then its contexts,
// labelled as the MCP server labels them (mcpbridge), since an OpenAI tool output
// has no other place for them. An image run_code attributed to a sub-call follows
// a text part naming the sub-call; any other context follows one text part naming
// what attached it. A failed result's content is its "Error: ..." text, unchanged.
func render(res *pipeline.Result) []part {
	out := blocks(nil, res.Content)
	out = blocks(out, pipeline.ContextContent(res.Contexts))
	return out
}

// blocks appends content blocks as parts. OpenAI tool outputs carry text and
// images only: audio and resources become text saying what they were, and an image
// the API would refuse (a type it does not accept, data that is not base64) becomes
// text saying why, so one bad block never fails the request.
func blocks(out []part, content []registry.Content) []part {
	for _, b := range content {
		switch b.Type {
		case "image":
			url, problem := dataURL(b)
			if problem != "" {
				out = append(out, part{text: "[" + problem + "]"})
				continue
			}
			out = append(out, part{image: url})
		case "audio":
			out = append(out, part{text: fmt.Sprintf("[audio content (%s) omitted: OpenAI tool outputs carry only text and images]", b.MIMEType)})
		case "resource":
			text := "[resource " + b.URI + "]"
			if b.Text != "" {
				text += "\n" + b.Text
			}
			out = append(out, part{text: text})
		default:
			out = append(out, part{text: b.Text})
		}
	}
	return out
}

// imageTypes are the image media types OpenAI accepts as input.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// dataURL returns b as a data URL, or a description of why it cannot be one. The
// media type and the data come from a tool (perhaps an upstream MCP server), so
// both are checked before they are spliced into a URL.
func dataURL(b registry.Content) (url, problem string) {
	mime := strings.ToLower(strings.TrimSpace(b.MIMEType))
	if !imageTypes[mime] {
		return "", fmt.Sprintf("image of type %q omitted: OpenAI accepts image/png, image/jpeg, image/gif and image/webp", b.MIMEType)
	}
	if !isBase64(b.Data) {
		return "", "image content with invalid base64 data"
	}
	return "data:" + mime + ";base64," + b.Data, ""
}

// isBase64 reports whether s is non-empty, padded standard base64 and nothing
// else (the decoder alone would skip line breaks).
func isBase64(s string) bool {
	if s == "" || len(s)%4 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// joinText joins the non-empty text parts with a line break, each image replaced
// by say(n), n its 1-based number among all images numbered so far.
func joinText(parts []part, images *int, say func(n int) string) string {
	var sb strings.Builder
	for _, p := range parts {
		text := p.text
		if p.image != "" {
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

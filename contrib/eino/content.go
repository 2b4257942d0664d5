package eino

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// parts returns a result's model-facing content as Eino tool output parts: its
// content, then its contexts, labelled as runcode's MCP server labels them
// (pipeline.ContextContent: an image a run_code sub-call produced follows a text
// naming the sub-call; any other context follows one text naming what attached it).
// A failed result's content is its "Error: ..." text, unchanged.
func parts(res *pipeline.Result) []schema.ToolOutputPart {
	out := appendParts(nil, res.Content)
	return appendParts(out, pipeline.ContextContent(res.Contexts))
}

// appendParts appends content as text and image parts. An image keeps its base64 data
// and media type (schema.MessagePartCommon's Base64Data and MIMEType); an image whose
// data is not base64, audio and binary resources become a text part saying what was
// left out, so that one bad block never fails a request; a text resource is its URI
// and text. Empty texts are dropped.
func appendParts(out []schema.ToolOutputPart, content []registry.Content) []schema.ToolOutputPart {
	text := func(s string) {
		if s != "" {
			out = append(out, schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: s})
		}
	}
	for _, c := range content {
		switch c.Type {
		case "image":
			data := strings.NewReplacer("\r", "", "\n", "").Replace(c.Data)
			if !isBase64(data) {
				text("[image content with invalid base64 data]")
				continue
			}
			out = append(out, schema.ToolOutputPart{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{
				MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: c.MIMEType}}})
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

// countImages counts the image parts.
func countImages(ps []schema.ToolOutputPart) int {
	n := 0
	for _, p := range ps {
		if p.Type == schema.ToolPartTypeImage {
			n++
		}
	}
	return n
}

// inputParts converts tool output parts to a message's input parts, as Eino's
// ToolsNode does for an EnhancedInvokableTool's result.
func inputParts(ps []schema.ToolOutputPart) []schema.MessageInputPart {
	out, err := (&schema.ToolResult{Parts: ps}).ToMessageInputParts()
	if err != nil { // unreachable: every part made here has its content
		return []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: err.Error()}}
	}
	return out
}

// joinText joins the text parts with line breaks, each image replaced by say(n), n
// its 1-based number among all images numbered so far (say may return "" to leave
// images out).
func joinText(ps []schema.ToolOutputPart, images *int, say func(n int) string) string {
	var sb strings.Builder
	for _, p := range ps {
		text := p.Text
		if p.Type == schema.ToolPartTypeImage {
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

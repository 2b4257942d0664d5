package anthropic

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// imageTypes are the media types the Messages API accepts for a base64 image.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// toolResult renders a result as the tool_result answering call id: its content, then
// its contexts, since a tool_result is the only place the API gives them. This is the
// rendering mcpbridge gives an MCP client: an image a run_code sub-call produced
// follows a text block naming the sub-call (its text is the program's to print); any
// other context's blocks follow one text block naming what attached it.
func toolResult(id string, res *pipeline.Result, maxImage int) sdk.ToolResultBlockParam {
	out := sdk.ToolResultBlockParam{ToolUseID: id, Content: blocks(nil, res.Content, maxImage)}
	if res.IsError() {
		out.IsError = sdk.Bool(true)
	}
	out.Content = blocks(out.Content, pipeline.ContextContent(res.Contexts), maxImage)
	return out
}

// blocks appends content as tool_result blocks. What the API cannot take in a
// tool_result becomes a short text saying so, rather than a request it would refuse:
// an image of another media type, with broken base64 or over maxImage bytes of base64
// (negative: no bound), audio, a binary resource. Line breaks in an image's base64 are
// removed. Empty text blocks are dropped (the API refuses them).
func blocks(out []sdk.ToolResultBlockParamContentUnion, content []registry.Content, maxImage int) []sdk.ToolResultBlockParamContentUnion {
	for _, c := range content {
		switch c.Type {
		case "image":
			data := c.Data
			if strings.ContainsAny(data, "\r\n") {
				data = strings.NewReplacer("\r", "", "\n", "").Replace(data)
			}
			switch {
			case !imageTypes[c.MIMEType]:
				out = appendText(out, fmt.Sprintf("[image of type %q omitted: the Messages API takes image/jpeg, image/png, image/gif and image/webp]", c.MIMEType))
			case maxImage >= 0 && len(data) > maxImage:
				out = appendText(out, fmt.Sprintf("[image omitted: its %d bytes of base64 are over the limit of %d]", len(data), maxImage))
			case !validBase64(data):
				out = appendText(out, "[image content with invalid base64 data]")
			default:
				out = append(out, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{
					Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
						Data: data, MediaType: sdk.Base64ImageSourceMediaType(c.MIMEType)}}}})
			}
		case "audio":
			out = appendText(out, fmt.Sprintf("[audio content of type %q omitted: the Messages API has no audio blocks]", c.MIMEType))
		case "resource":
			switch {
			case c.Text != "":
				out = appendText(out, fmt.Sprintf("Resource %s:\n%s", c.URI, c.Text))
			case c.Data != "":
				out = appendText(out, fmt.Sprintf("[resource %s of type %q: binary content omitted]", c.URI, c.MIMEType))
			default:
				out = appendText(out, fmt.Sprintf("Resource %s", c.URI))
			}
		default:
			out = appendText(out, c.Text)
		}
	}
	return out
}

// appendText appends a text block unless text is empty.
func appendText(out []sdk.ToolResultBlockParamContentUnion, text string) []sdk.ToolResultBlockParamContentUnion {
	if text == "" {
		return out
	}
	return append(out, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: text}})
}

// validBase64 reports whether s is non-empty standard base64, without holding the
// decoded bytes.
func validBase64(s string) bool {
	if s == "" {
		return false
	}
	_, err := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding, strings.NewReader(s)))
	return err == nil
}

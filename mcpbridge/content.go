package mcpbridge

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/registry"
)

// answer turns an upstream result into the body's outcome: an isError result fails
// with its text; otherwise the canonical value is the structured content when
// present, else the text parsed as JSON when it parses losslessly, else the text
// (null when there is no text), and the server's blocks are the content.
func answer(res *mcp.CallToolResult) (any, error) {
	text := resultText(res.Content)
	if res.IsError {
		if strings.TrimSpace(text) == "" {
			text = "the tool reported an error without a message"
		}
		return nil, errors.New(text)
	}
	value := registry.NullValue
	switch {
	case res.StructuredContent != nil:
		v, err := registry.ValueOf(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		value = v
	case hasText(res.Content):
		if v, err := registry.ParseValue([]byte(text)); err == nil {
			value = v
		} else {
			value = registry.StringValue(text)
		}
	}
	return registry.Answer{Value: value, Content: toContent(res.Content)}, nil
}

func hasText(blocks []mcp.Content) bool {
	for _, b := range blocks {
		if _, ok := b.(*mcp.TextContent); ok {
			return true
		}
	}
	return false
}

// resultText joins the text blocks with newlines.
func resultText(blocks []mcp.Content) string {
	var parts []string
	for _, b := range blocks {
		if t, ok := b.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toContent converts MCP content blocks to registry content.
func toContent(blocks []mcp.Content) []registry.Content {
	out := make([]registry.Content, 0, len(blocks))
	for _, b := range blocks {
		switch b := b.(type) {
		case *mcp.TextContent:
			out = append(out, registry.Text(b.Text))
		case *mcp.ImageContent:
			out = append(out, registry.Content{Type: "image", Data: base64.StdEncoding.EncodeToString(b.Data), MIMEType: b.MIMEType})
		case *mcp.AudioContent:
			out = append(out, registry.Content{Type: "audio", Data: base64.StdEncoding.EncodeToString(b.Data), MIMEType: b.MIMEType})
		case *mcp.ResourceLink:
			out = append(out, registry.Content{Type: "resource", URI: b.URI, MIMEType: b.MIMEType, Text: b.Description})
		case *mcp.EmbeddedResource:
			c := registry.Content{Type: "resource"}
			if r := b.Resource; r != nil {
				c.URI, c.MIMEType, c.Text = r.URI, r.MIMEType, r.Text
				if len(r.Blob) > 0 {
					c.Data = base64.StdEncoding.EncodeToString(r.Blob)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// fromContent converts registry content to MCP content blocks.
func fromContent(blocks []registry.Content) []mcp.Content {
	out := make([]mcp.Content, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case "image", "audio":
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				out = append(out, &mcp.TextContent{Text: "[" + b.Type + " content with invalid base64 data]"})
				continue
			}
			if b.Type == "image" {
				out = append(out, &mcp.ImageContent{Data: data, MIMEType: b.MIMEType})
			} else {
				out = append(out, &mcp.AudioContent{Data: data, MIMEType: b.MIMEType})
			}
		case "resource":
			rc := &mcp.ResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: b.Text}
			if b.Data != "" {
				rc.Blob, _ = base64.StdEncoding.DecodeString(b.Data)
			}
			out = append(out, &mcp.EmbeddedResource{Resource: rc})
		default:
			out = append(out, &mcp.TextContent{Text: b.Text})
		}
	}
	return out
}

// tailBytes is how much of a server's stderr is kept for messages.
const tailBytes = 2048

// tail keeps the end of what is written to it. It is safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// String returns the last lines kept, trimmed, at most about tailBytes.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// prefixWriter writes each Write to w after a prefix, serialising writers.
type prefixWriter struct {
	mu     sync.Mutex
	prefix string
	w      io.Writer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

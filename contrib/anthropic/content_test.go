package anthropic_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/anthropic"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// big is 200 bytes of valid base64.
var big = base64.StdEncoding.EncodeToString(make([]byte, 150))

// TestContentBlocks pins how each kind of content reaches a tool_result: what the API
// cannot take becomes a text saying so, empty text is dropped, and a policy's context
// follows the content after a text naming it.
func TestContentBlocks(t *testing.T) {
	audit := func(ctx context.Context, call *pipeline.Call, res *pipeline.Result) (pipeline.PostAction, error) {
		return pipeline.PostAction{Contexts: []pipeline.AdditionalContext{
			{Source: "audit", Content: []registry.Content{registry.Text("reviewed")}},
			{Source: "empty"},
			{Source: "tagger", CallID: "c-9", Tool: "tag", Content: []registry.Content{registry.Text("tagged")}},
		}}, nil
	}
	turn := answer(t, []registry.Content{
		registry.Text("first"),
		registry.Text(""),
		{Type: "image", Data: pngPixel, MIMEType: "image/svg+xml"},
		{Type: "image", Data: "not base64!", MIMEType: "image/png"},
		{Type: "image", MIMEType: "image/png"},
		{Type: "audio", Data: "AAAA", MIMEType: "audio/wav"},
		{Type: "resource", URI: "file:///notes.txt", MIMEType: "text/plain", Text: "a note"},
		{Type: "resource", URI: "file:///blob.bin", MIMEType: "application/octet-stream", Data: "AAAA"},
		{Type: "resource", URI: "https://example.com/x"},
		{Type: "image", Data: pngPixel, MIMEType: "image/webp"},
		{Type: "image", Data: pngPixel[:40] + "\r\n" + pngPixel[40:], MIMEType: "image/gif"},
		{Type: "image", Data: big, MIMEType: "image/jpeg"},
	}, &pipeline.Options{PostExecute: []pipeline.PostExecuteFunc{audit}}, &anthropic.Options{MaxImageBytes: 100})
	var wire struct {
		Content []struct {
			IsError *bool            `json:"is_error"`
			Content []map[string]any `json:"content"`
		} `json:"content"`
	}
	if err := json.Unmarshal(indent(t, turn), &wire); err != nil {
		t.Fatal(err)
	}
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	want := []map[string]any{
		text("first"),
		text(`[image of type "image/svg+xml" omitted: the Messages API takes image/jpeg, image/png, image/gif and image/webp]`),
		text("[image content with invalid base64 data]"),
		text("[image content with invalid base64 data]"),
		text(`[audio content of type "audio/wav" omitted: the Messages API has no audio blocks]`),
		text("Resource file:///notes.txt:\na note"),
		text(`[resource file:///blob.bin of type "application/octet-stream": binary content omitted]`),
		text("Resource https://example.com/x"),
		{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/webp", "data": pngPixel}},
		{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/gif", "data": pngPixel}},
		text("[image omitted: its 200 bytes of base64 are over the limit of 100]"),
		text("Context attached by audit:"),
		text("reviewed"),
		text("Context attached by tagger to tag (sub-call c-9):"),
		text("tagged"),
	}
	if len(wire.Content) != 1 {
		t.Fatalf("%d tool_results, want 1", len(wire.Content))
	}
	if wire.Content[0].IsError != nil {
		t.Errorf("is_error sent on a successful result")
	}
	if diff := cmp.Diff(want, wire.Content[0].Content); diff != "" {
		t.Errorf("tool_result content (-want +got):\n%s", diff)
	}
}

// TestMaxImageBytes: the default bound is the API's 5 MiB of base64, and a negative
// bound lets any size through.
func TestMaxImageBytes(t *testing.T) {
	huge := strings.Repeat("A", anthropic.DefaultMaxImageBytes+4)
	for _, tc := range []struct {
		name  string
		max   int
		data  string
		image bool
	}{
		{"default, at the limit", 0, huge[:anthropic.DefaultMaxImageBytes], true},
		{"default, over", 0, huge, false},
		{"no bound", -1, huge, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := answer(t, []registry.Content{{Type: "image", Data: tc.data, MIMEType: "image/png"}}, nil, &anthropic.Options{MaxImageBytes: tc.max})
			got := turn.OfUser.Content[0].OfToolResult.Content[0]
			if (got.OfImage != nil) != tc.image {
				text := ""
				if got.OfText != nil {
					text = got.OfText.Text
				}
				t.Errorf("image sent = %v, want %v (text %q)", got.OfImage != nil, tc.image, text)
			}
		})
	}
}

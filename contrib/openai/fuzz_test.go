package openai

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/runcode-go/runcode/registry"
)

var safeDataURL = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$`)

// FuzzDataURL: a tool controls an image's media type and data; whatever they are,
// a data URL either comes out in the one safe shape or not at all.
func FuzzDataURL(f *testing.F) {
	f.Add("image/png", "iVBORw0KGgo=")
	f.Add("image/png;base64,AAAA", "AAAA")
	f.Add("image/png", "AA\nAA==")
	f.Add("IMAGE/JPEG ", "////")
	f.Add("text/html", "PGI+")
	f.Fuzz(func(t *testing.T, mime, data string) {
		url, problem := dataURL(registry.Content{Type: "image", MIMEType: mime, Data: data})
		if (url == "") == (problem == "") {
			t.Fatalf("dataURL(%q, %q) = (%q, %q): want exactly one", mime, data, url, problem)
		}
		if url != "" && !safeDataURL.MatchString(url) {
			t.Fatalf("dataURL(%q, %q) = %q: not a safe data URL", mime, data, url)
		}
	})
}

// FuzzStrictable: a schema may come from an upstream MCP server; checking it
// never panics, and only a JSON object qualifies.
func FuzzStrictable(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"type":"string"},{"$ref":"#"}]}}},"required":["a"],"additionalProperties":false}`)
	f.Add(`{"type":["object","null"],"properties":{},"required":[],"additionalProperties":false,"$defs":{"x":{"enum":[1]}}}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, schema string) {
		if Strictable(json.RawMessage(schema)) {
			var m map[string]any
			if err := json.Unmarshal([]byte(schema), &m); err != nil {
				t.Fatalf("Strictable(%q) = true for a schema that is not a JSON object: %v", schema, err)
			}
		}
	})
}

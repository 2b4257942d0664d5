package sdkgen

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestCorpusPromptSize measures the prompt on the project's corpus of real MCP tools: the
// index section against the same tools' native schemas (name, description and input
// schema, minified JSON, as an MCP tools/list carries them) and against the full SDK.
// The index must stay within 10% of the native schemas and 25% of the full SDK.
func TestCorpusPromptSize(t *testing.T) {
	tools, _, ok := loadDiscovery(t, "../testdata/discovery")
	if !ok {
		t.Fatal("../testdata/discovery is missing")
	}
	var native int
	for _, tl := range tools {
		var schema bytes.Buffer
		if err := json.Compact(&schema, tl.Parameters); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		b, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}{tl.Name, tl.Description, schema.Bytes()})
		if err != nil {
			t.Fatal(err)
		}
		native += len(b) + 1
	}
	index := len(Section(tools, nil).Section)
	full := len(Section(tools, &Options{Full: true}).Section)
	t.Logf("%d tools: index %d bytes, full SDK %d bytes, native schemas %d bytes (index/native %.3f, index/full %.3f)",
		len(tools), index, full, native, float64(index)/float64(native), float64(index)/float64(full))
	if index*10 > native {
		t.Errorf("the index (%d bytes) is over 10%% of the native schemas (%d bytes)", index, native)
	}
	if index*4 > full {
		t.Errorf("the index (%d bytes) is over 25%% of the full SDK (%d bytes)", index, full)
	}
}

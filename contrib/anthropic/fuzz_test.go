package anthropic_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// FuzzExecute feeds responses the API (and the model in it) controls: whatever decodes
// as a Message either is refused with an error or answered with exactly one tool_result
// per tool_use, in order, with no empty text block.
func FuzzExecute(f *testing.F) {
	for _, name := range []string{"turn_orders.json", "turn_chart.json", "turn_done.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"content":[{"type":"tool_use","id":"a","name":"get_order","input":"x"},{"type":"tool_use","id":"b","name":"nope","input":[1]}]}`))
	set := resolve(f, registry.ModeNative)
	a := mustNew(f, testexec.Native(f, pipeline.New(nil)), set, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		var msg sdk.Message
		if json.Unmarshal(data, &msg) != nil {
			return
		}
		var ids []string
		for _, b := range msg.Content {
			if b.Type == "tool_use" {
				ids = append(ids, b.AsToolUse().ID)
			}
		}
		turn, err := a.Execute(context.Background(), &msg)
		if err != nil {
			return
		}
		if turn.OfUser == nil || len(turn.OfUser.Content) != len(ids) {
			t.Fatalf("%d tool_use blocks answered by %s", len(ids), indent(t, turn))
		}
		for i, b := range turn.OfUser.Content {
			tr := b.OfToolResult
			if tr == nil || tr.ToolUseID != ids[i] {
				t.Fatalf("block %d does not answer %q: %s", i, ids[i], indent(t, b))
			}
			checkBlocks(t, tr.Content)
		}
		if _, err := json.Marshal(turn); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzContent feeds the content a tool returns: every block reaches the tool_result as
// something the API takes.
func FuzzContent(f *testing.F) {
	f.Add("image", pngPixel, "image/png", "")
	f.Add("image", "!!", "image/png", "")
	f.Add("audio", "AAAA", "audio/wav", "")
	f.Add("resource", "", "text/plain", "a note")
	f.Add("text", "", "", "")
	f.Fuzz(func(t *testing.T, typ, data, mime, text string) {
		turn := answer(t, []registry.Content{{Type: typ, Data: data, MIMEType: mime, Text: text, URI: text}}, nil, nil)
		checkBlocks(t, turn.OfUser.Content[0].OfToolResult.Content)
	})
}

// checkBlocks fails on a block the API would refuse: an empty text, an image of another
// type or with base64 that does not decode.
func checkBlocks(t *testing.T, blocks []sdk.ToolResultBlockParamContentUnion) {
	t.Helper()
	for _, c := range blocks {
		switch {
		case c.OfText != nil:
			if c.OfText.Text == "" {
				t.Fatal("empty text block")
			}
		case c.OfImage != nil:
			src := c.OfImage.Source.OfBase64
			if src == nil {
				t.Fatal("image without a base64 source")
			}
			switch src.MediaType {
			case "image/jpeg", "image/png", "image/gif", "image/webp":
			default:
				t.Fatalf("image of type %q", src.MediaType)
			}
			if _, err := base64.StdEncoding.DecodeString(src.Data); err != nil || src.Data == "" {
				t.Fatalf("image data %q: %v", src.Data, err)
			}
		default:
			t.Fatalf("unexpected block %s", indent(t, c))
		}
	}
}

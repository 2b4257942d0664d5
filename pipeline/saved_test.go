package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

// pausedBatch is a turn of three calls: a finished one with a value and a context, a
// failed one, and a paused run_code call.
func pausedBatch() PausedBatch {
	return PausedBatch{
		Host:  "test",
		Extra: json.RawMessage(`{"refs":["r1","r2","r3"]}`),
		Calls: []RawCall{
			{ID: "a", Name: "search", Arguments: `{"q":"x"}`, Agent: "planner"},
			{ID: "b", Name: "echo", Arguments: "not json"},
			{ID: "c", Name: "run_code", Arguments: `{"code":"await tools.pay({})"}`},
		},
		Results: []*Result{
			{CallID: "a", Name: "search", Value: registry.MustParseValue(`{"hits":[1,2.5,null]}`),
				Content:  []registry.Content{registry.Text("2 hits"), {Type: "image", Data: "iVBO", MIMEType: "image/png"}},
				Contexts: []AdditionalContext{{Source: "audit", CallID: "a", Tool: "search", Content: []registry.Content{registry.Text("logged")}}}},
			{CallID: "b", Name: "echo", Error: &ToolError{Code: CodeInvalidArgs, Message: `"arguments" must be an object`},
				Content: []registry.Content{registry.Text(`Error: "arguments" must be an object`)}},
			{CallID: "c", Name: "run_code", Content: []registry.Content{registry.Text(Waiting("pay", 1))},
				Pause: &Pause{Continuation: "tok", Pending: []PendingCall{{ID: "c:1", Tool: "pay", Arguments: json.RawMessage(`{}`), Message: `tool "pay" requires approval`}}}},
		},
	}
}

func TestPausedBatchRoundTrip(t *testing.T) {
	want := pausedBatch()
	// A JSON null value is a value, not the zero Value: it survives as one.
	want.Results[0].Value = registry.NullValue
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got PausedBatch
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got.Results[1].Value.IsZero() != true || got.Results[0].Value.String() != "null" {
		t.Errorf("values: %q %q", got.Results[0].Value, got.Results[1].Value)
	}
}

// A cause is not saved: the loaded error has the code and message only.
func TestPausedBatchDropsCause(t *testing.T) {
	b := pausedBatch()
	b.Results[1].Error.Err = errJSON{}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var got PausedBatch
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&ToolError{Code: CodeInvalidArgs, Message: `"arguments" must be an object`}, got.Results[1].Error); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

type errJSON struct{}

func (errJSON) Error() string { return "cause" }

func TestPausedBatchRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*PausedBatch)
		want   string
	}{
		{"missing result", func(b *PausedBatch) { b.Results = b.Results[:2] }, "2 results for 3 calls"},
		{"nil result", func(b *PausedBatch) { b.Results[0] = nil }, "result 0 is nil"},
		{"no id", func(b *PausedBatch) { b.Calls[0].ID = ""; b.Results[0].CallID = "" }, "call 0 has no id"},
		{"wrong order", func(b *PausedBatch) { b.Results[0], b.Results[1] = b.Results[1], b.Results[0] },
			`result 0 answers echo "b", not call "a" (search)`},
		{"error with value", func(b *PausedBatch) { b.Results[1].Value = registry.NullValue },
			"result 1: a failed result has a code and neither a value nor a pause"},
		{"error without code", func(b *PausedBatch) { b.Results[1].Error.Code = "" },
			"result 1: a failed result has a code and neither a value nor a pause"},
		{"content type", func(b *PausedBatch) { b.Results[0].Content[0].Type = "video" },
			`result 0: content of type "video", want text, image, audio or resource`},
		{"context content type", func(b *PausedBatch) { b.Results[0].Contexts[0].Content[0].Type = "" },
			`result 0: context from "audit": content of type "", want text, image, audio or resource`},
		{"no continuation", func(b *PausedBatch) { b.Results[2].Pause.Continuation = "" },
			"result 2: a pause has a continuation and at least one pending call"},
		{"nothing pending", func(b *PausedBatch) { b.Results[2].Pause.Pending = nil },
			"result 2: a pause has a continuation and at least one pending call"},
		{"pending arguments", func(b *PausedBatch) { b.Results[2].Pause.Pending[0].Arguments = nil },
			`result 2: pending call "c:1": it has an id, a tool and JSON arguments`},
		{"pending twice", func(b *PausedBatch) {
			b.Results[2].Pause.Pending = append(b.Results[2].Pause.Pending, b.Results[2].Pause.Pending[0])
		}, `result 2: pending call "c:1" appears twice in the batch`},
		{"nothing paused", func(b *PausedBatch) { b.Results[2].Pause = nil }, "no result is paused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pausedBatch()
			tc.change(&b)
			_, err := json.Marshal(b)
			if err == nil || !strings.Contains(err.Error(), "pipeline: PausedBatch: "+tc.want) {
				t.Errorf("Marshal: got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPausedBatchDecodeRefuses(t *testing.T) {
	data, err := json.Marshal(pausedBatch())
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"format", strings.Replace(good, "runcode.paused-batch/v1", "runcode.paused-batch/v2", 1),
			`format "runcode.paused-batch/v2", want "runcode.paused-batch/v1"`},
		{"unknown field", strings.Replace(good, `"calls":`, `"more":1,"calls":`, 1), `unknown field "more"`},
		{"trailing", good + ` {}`, "data after the batch"},
		{"lossy value", strings.Replace(good, `"value":{"hits":[1,2.5,null]}`, `"value":{"a":1,"a":2}`, 1), "result 0: value: "},
		{"checked like Marshal", strings.Replace(good, `"callId":"c"`, `"callId":"x"`, 1), `result 2 answers run_code "x", not call "c" (run_code)`},
		{"not an object", `[]`, "cannot unmarshal array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b PausedBatch
			// Called directly: json.Unmarshal refuses trailing data before it calls it.
			err := b.UnmarshalJSON([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pipeline: PausedBatch: ") {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzPausedBatch decodes what a host loads back from its own storage: any input is
// refused with an error or decodes to a batch that encodes and decodes to itself.
func FuzzPausedBatch(f *testing.F) {
	data, err := json.Marshal(pausedBatch())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"format":"runcode.paused-batch/v1","calls":[],"results":[]}`))
	// Whitespace inside JSON the batch carries as is: loaded compact, so stable.
	f.Add([]byte(`{"format":"runcode.paused-batch/v1","extra":{ "a" : [1, 2] },"calls":[{"id":"c","name":"run_code","arguments":""}],` +
		`"results":[{"callId":"c","name":"run_code","content":[],"pause":{"continuation":"t","pending":[{"id":"c:1","tool":"x","arguments":{ "b" : 1 },"message":""}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b PausedBatch
		if err := json.Unmarshal(data, &b); err != nil {
			return
		}
		again, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("a decoded batch does not encode: %v", err)
		}
		var b2 PausedBatch
		if err := json.Unmarshal(again, &b2); err != nil {
			t.Fatalf("an encoded batch does not decode: %v\n%s", err, again)
		}
		if diff := cmp.Diff(b, b2); diff != "" {
			t.Fatalf("not stable (-first +second):\n%s", diff)
		}
	})
}

func TestLoadPausedBatch(t *testing.T) {
	data, err := json.Marshal(pausedBatch())
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadPausedBatch(data, "test")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pausedBatch(), *b); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	if _, err := LoadPausedBatch(data, "anthropic"); err == nil || err.Error() != `pipeline: PausedBatch: saved by "test", not by "anthropic"` {
		t.Errorf("another host's: %v", err)
	}
	if _, err := LoadPausedBatch([]byte(`{"format":"x"}`), "test"); err == nil || !strings.Contains(err.Error(), `format "x"`) {
		t.Errorf("not a batch: %v", err)
	}
}

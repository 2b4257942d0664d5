package worker

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var hotMessages = []*message{
	{T: tCall, ID: 1, Member: "echo", Args: json.RawMessage(`{"i":1}`)},
	{T: tCall, ID: 18446744073709551615, NSI: 3, Member: "read_file", Args: json.RawMessage(`{"path":"a\"b","n":[1,2.5e3,null,true]}`)},
	{T: tCall, ID: 7, Member: "é\u2028<tab>\t\"\\", Args: json.RawMessage(`[]`)},
	{T: tCall, ID: 7, Member: "x"},
	{T: tCall, Left: 59_999_000_000, ID: 9, NSI: 1, Member: "echo", Args: json.RawMessage(`{}`)},
	{T: tCall, Left: 1, ID: 10, Member: "echo", Args: json.RawMessage(`{}`)},
	{T: tCall},
	{T: tResult, ID: 2, Value: json.RawMessage(`{"i":1}`)},
	{T: tResult, ID: 2, Value: json.RawMessage(`"\u00e9"`)},
	{T: tResult, ID: 3},
	{T: tResult, ID: 4, Error: &callError{Message: "deliberate failure", Fields: map[string]string{"code": "TOOL_FAILED", "a": "b\n"}}},
	{T: tResult, ID: 4, Error: &callError{Message: "bad \xff utf-8 \x01 <&>", Fields: map[string]string{}}},
	{T: tResult, ID: 6, Panic: "wait exploded"},
}

// TestHotEncoding: the hand-written encoder writes the hot frames byte for byte as
// encoding/json does (for compact raw values), and leaves every other message to it.
func TestHotEncoding(t *testing.T) {
	for _, m := range hotMessages {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		got, ok := appendHot(nil, m)
		if !ok {
			t.Errorf("%+v: not encoded as a hot frame", m)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("appendHot(%+v)\n got %s\nwant %s", m, got, want)
		}
		strict, err := decodeStrict(got)
		if err != nil {
			t.Errorf("decodeStrict(%s): %v", got, err)
			continue
		}
		if back, err := decode(got); err != nil || !cmp.Equal(back, strict) {
			t.Errorf("decode(%s) = %+v, %v; decodeStrict = %+v", got, back, err, strict)
		}
	}
	for _, m := range []*message{
		{T: tDone, ID: 1, Value: json.RawMessage(`1`)},
		{T: tCall, ID: 1, Member: "x", Args: json.RawMessage(`{}`), Value: json.RawMessage(`1`)},
		{T: tResult, ID: 1, Member: "x"},
		{T: tResult, ID: 1, Left: 5},
		{T: tCall, ID: 1, Left: -5, Member: "x", Args: json.RawMessage(`{}`)},
		{T: tResult, ID: 1, Logs: []string{"x"}},
		{T: tResult, ID: 1, Value: json.RawMessage(`1`), Error: &callError{Message: "x"}}, // the value would not be last
		{T: tResult, ID: 1, Value: json.RawMessage(`1`), Panic: "x"},
		{T: tCancel, Reason: "stop"},
	} {
		if b, ok := appendHot(nil, m); ok {
			t.Errorf("%+v encoded as a hot frame: %s", m, b)
		}
	}
}

// TestHotDecoding: the sub-call frames the two sides write take the fast path.
func TestHotDecoding(t *testing.T) {
	for _, m := range []*message{
		{T: tCall, ID: 1, Member: "echo", Args: json.RawMessage(`{"i":1}`)},
		{T: tCall, ID: 12, NSI: 2, Member: "read_file", Args: json.RawMessage(`{"p":"\n"}`)},
		{T: tCall, Left: 1500, ID: 13, NSI: 2, Member: "read_file", Args: json.RawMessage(`{}`)},
		{T: tResult, ID: 3, Value: json.RawMessage(`[1,"x",{"y":null}]`)},
		{T: tResult, ID: 3, Value: json.RawMessage(`0`)},
		// A result's value is the tool's output as it came: the worker's runtime decodes it
		// (and rejects what is not JSON) as it would in process.
		{T: tResult, ID: 4, Value: json.RawMessage(`null`)},
		{T: tResult, ID: 4, Value: json.RawMessage(" {\"a\":1}\n")},
		{T: tResult, ID: 4, Value: json.RawMessage(`{not json`)},
		{T: tResult, ID: 4, Value: json.RawMessage(`1,"error":{"message":"x"}`)},
		{T: tResult, ID: 4, Value: json.RawMessage(`}`)},
		{T: tResult, ID: 4, Value: json.RawMessage("\xff\x00")},
	} {
		b, _ := appendHot(nil, m)
		got, ok := decodeHot(b)
		if !ok {
			t.Errorf("%s: not decoded on the fast path", b)
			continue
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("%s (-sent +read):\n%s", b, diff)
		}
	}
}

// FuzzDecode: whatever call the fast path accepts, the strict decoder accepts as the same
// message; a result's value is exactly the bytes its frame holds after "value": (framing it
// again gives the same body), and when they are one JSON value, the strict decoder reads the
// same message, but for whitespace around the value.
func FuzzDecode(f *testing.F) {
	for _, m := range hotMessages {
		b, _ := appendHot(nil, m)
		f.Add(b)
	}
	for _, s := range []string{
		`{"t":"call","id":1,"member":"echo","args":null}`,
		`{"t":"call","id":01,"member":"echo","args":{}}`,
		`{"t":"call","id":1,"nsi":0,"member":"echo","args":{}}`,
		`{"t":"call","id":1,"member":"echo","args":{} }`,
		`{"t":"call","id":1,"member":"echo","args": {}}`,
		`{"t":"call","id":1,"member":"echo","args":{}},"x":{}}`,
		`{"t":"call","id":1,"member":"echo","args":1},"evil":{"a":1}`,
		`{"t":"call","id":1,"member":"echo","args":{},"evil":1}`,
		`{"t":"result","id":99999999999999999999,"value":1}`,
		`{"t":"result","id":1,"value":1}x`,
		`{"t":"result","id":1,"value":"\ud800"}`,
		`{"t":"result","id":1,"value":null}`,
		`{"t":"result","id":1,"value": [1] }`,
		`{"t":"result","id":1,"value":{not json}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		hot, ok := decodeHot(body)
		if !ok {
			return
		}
		if hot.T == tResult {
			if again, ok := appendHot(nil, hot); !ok || !bytes.Equal(again, body) {
				t.Fatalf("decodeHot(%q) = %+v, which frames as %q", body, hot, again)
			}
			if !json.Valid(hot.Value) {
				return // not JSON: the worker's runtime rejects it, as it would in process
			}
			hot.Value = bytes.TrimSpace(hot.Value)
		}
		strict, err := decodeStrict(body)
		if err != nil {
			t.Fatalf("decodeHot accepted %q, decodeStrict: %v", body, err)
		}
		if diff := cmp.Diff(strict, hot); diff != "" {
			t.Fatalf("%q (-strict +hot):\n%s", body, diff)
		}
	})
}

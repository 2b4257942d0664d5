package worker

import (
	"bytes"
	"encoding/json"
	"testing"
)

// BenchmarkFrame is the cost of writing and reading back the two hot frames of a sub-call,
// as the two ends do it (a frameWriter and a frameReader); see hot.go.
func BenchmarkFrame(b *testing.B) {
	msgs := map[string]*message{
		"call":   {T: tCall, ID: 42, Member: "echo", Args: json.RawMessage(`{"i":41}`)},
		"result": {T: tResult, ID: 42, Value: json.RawMessage(`{"i":41}`)},
	}
	for name, m := range msgs {
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			fw := frameWriter{w: &buf, max: DefaultMaxFrame}
			fr := newFrameReader(&buf, DefaultMaxFrame)
			b.ReportAllocs()
			for b.Loop() {
				if err := fw.write(m); err != nil {
					b.Fatal(err)
				}
				if _, err := fr.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

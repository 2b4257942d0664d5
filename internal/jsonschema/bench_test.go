package jsonschema

import "testing"

// benchSchema is a typical tool's parameters: typed properties, bounds, an enum, an
// array, required names and a closed root (registry's BenchmarkValidateArgs has the
// same, through the registry).
const benchSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Absolute path"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":10000},` +
	`"mode":{"type":"string","enum":["read","write","append"]},` +
	`"recursive":{"type":"boolean"},` +
	`"tags":{"type":"array","items":{"type":"string"}}},` +
	`"required":["path","mode"],"additionalProperties":false}`

// BenchmarkValidate validates decoded values against benchSchema: a valid call, and
// one with four violations.
func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, benchSchema)
	for _, c := range []struct {
		name, value string
		want        int
	}{
		{"valid", `{"path":"/tmp/a.txt","limit":100,"mode":"read","recursive":true,"tags":["a","b"]}`, 0},
		{"invalid", `{"path":1,"limit":0,"mode":"delete","tags":["a"],"extra":true}`, 4},
	} {
		v := decode(b, []byte(c.value))
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := s.Validate(v); len(got) != c.want {
					b.Fatal(got)
				}
			}
		})
	}
}

// BenchmarkCompile compiles benchSchema from its decoded document.
func BenchmarkCompile(b *testing.B) {
	doc := decode(b, []byte(benchSchema))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

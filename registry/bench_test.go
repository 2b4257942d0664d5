package registry_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/registry"
)

// Benchmarks of the registry's share of a tool result's trip: snapshotting a large JSON
// answer as a Value and validating it against the output schema. Run narrowly, e.g.
//
//	go test -run '^$' -bench . -benchtime 20x ./registry/

// rowsText is about 1.1 MB of JSON: the 10,000 rows of runcode bench's S4 scenario.
func rowsText() string {
	cats := []string{"books", "electronics", "garden", "grocery", "toys"}
	regions := []string{"us-east", "us-west", "eu-west", "eu-central", "ap-south", "ap-east", "sa-east"}
	var b strings.Builder
	b.WriteByte('[')
	for i := range 10000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"category":%q,"region":%q,"priceCents":%d,"qty":%d,"active":%t,"created":"2024-%02d-%02d"}`,
			i+1, cats[i%5], regions[(i*3)%7], 100+(i*7919)%99900, (i*31)%50, i%3 != 0, 1+i%12, 1+i%28)
	}
	b.WriteByte(']')
	return b.String()
}

func BenchmarkParseValue1MB(b *testing.B) {
	data := []byte(rowsText())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := registry.ParseValue(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateOutput1MB validates 1.1 MB of rows against no output schema (what a tool
// without one gets) and against {"type":"array"}.
func BenchmarkValidateOutput1MB(b *testing.B) {
	v := registry.MustParseValue(rowsText())
	for _, c := range []struct {
		name   string
		schema registry.Schema
	}{
		{"no schema", registry.Schema{}},
		{"type array", registry.RawSchema([]byte(`{"type":"array"}`))},
	} {
		b.Run(c.name, func(b *testing.B) {
			scope := registry.New()
			if _, err := scope.Register(&registry.Tool{
				Name: "rows", Output: registry.Output{Schema: c.schema},
				Execute: func(context.Context, *registry.Call) (any, error) { return nil, nil },
			}); err != nil {
				b.Fatal(err)
			}
			set, err := scope.Resolve(context.Background(), registry.Step{})
			if err != nil {
				b.Fatal(err)
			}
			e, _ := set.Get("rows")
			b.SetBytes(int64(len(v.String())))
			b.ReportAllocs()
			for b.Loop() {
				if errs := e.ValidateOutput(v); errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}

// toolSchema is a typical tool's parameters: typed properties, bounds, an enum, an
// array, required names and a closed root. The enum keeps the quick plan out, so the
// benchmark measures the full validator (decoding the value to a Go tree included).
const toolSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Absolute path"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":10000},` +
	`"mode":{"type":"string","enum":["read","write","append"]},` +
	`"recursive":{"type":"boolean"},` +
	`"tags":{"type":"array","items":{"type":"string"}}},` +
	`"required":["path","mode"],"additionalProperties":false}`

// BenchmarkValidateArgs validates a typical tool's arguments: a valid call and one
// with four violations.
func BenchmarkValidateArgs(b *testing.B) {
	scope := registry.New()
	if _, err := scope.Register(&registry.Tool{
		Name: "files", Parameters: registry.RawSchema([]byte(toolSchema)),
		Execute: func(context.Context, *registry.Call) (any, error) { return nil, nil },
	}); err != nil {
		b.Fatal(err)
	}
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		b.Fatal(err)
	}
	e, _ := set.Get("files")
	for _, c := range []struct {
		name, args string
		want       int
	}{
		{"valid", `{"path":"/tmp/a.txt","limit":100,"mode":"read","recursive":true,"tags":["a","b"]}`, 0},
		{"invalid", `{"path":1,"limit":0,"mode":"delete","tags":["a"],"extra":true}`, 4},
	} {
		args := registry.MustParseValue(c.args)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := e.ValidateArgs(args); len(got) != c.want {
					b.Fatal(got)
				}
			}
		})
	}
}

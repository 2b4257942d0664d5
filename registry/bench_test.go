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

package ptc_test

import (
	"context"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// wordsEmbedder is a deterministic stand-in for an embedding model: a text is the sum
// of one-hot vectors of its words, a word first replaced by its meaning.
type wordsEmbedder map[string]string

func (e wordsEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if m, ok := e[w]; ok {
				w = m
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

// TestEmbedderOption: Options.Embedder reaches the programs' tools.$search.
func TestEmbedderOption(t *testing.T) {
	scope := registry.New()
	scope.SetMode(registry.ModePTC)
	body := func(context.Context, *registry.Call) (any, error) { return "ok", nil }
	for _, tool := range []*registry.Tool{
		{Name: "get_elevation", Description: "Get elevation data for locations on the earth.", Execute: body},
		{Name: "read_file", Description: "Read a file from disk.", Execute: body},
	} {
		if _, err := scope.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	set, err := scope.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	call := pipeline.RawCall{ID: "c1", Name: registry.RunCodeName,
		Arguments: `{"description": "find a tool", "code": "return (await tools.$search('how tall is the summit')).map(h => h.name)"}`}
	for _, tc := range []struct {
		name string
		opts ptc.Options
		want string
	}{
		{"lexical", ptc.Options{Pool: pool}, "[]"},
		{"embedder", ptc.Options{Pool: pool, Embedder: wordsEmbedder{"tall": "elevation", "summit": "elevation"}}, `"get_elevation"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := ptc.New(pipeline.New(nil), &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			res := ex.Execute(context.Background(), set, []pipeline.RawCall{call})[0]
			if res.Error != nil {
				t.Fatalf("run_code failed: %v", res.Error)
			}
			if got := res.Content[0].Text; !strings.Contains(got, tc.want) {
				t.Errorf("result %q, want it to contain %s", got, tc.want)
			}
		})
	}
}

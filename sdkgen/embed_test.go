package sdkgen

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeEmbedder is a deterministic stand-in for an embedding model: a text's vector is
// the sum of its words' vectors, where a word is first replaced by its meaning (so that
// "altitude" and "height" point the same way, as a model's would) and then hashed to
// a one-hot axis. It counts its calls and can be made to fail.
type fakeEmbedder struct {
	meaning map[string]string
	fail    error
	bad     func([][]float32) [][]float32 // corrupts the vectors it returns
	calls   atomic.Int32
	texts   atomic.Int32
}

const fakeDim = 256

func (e *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	e.texts.Add(int32(len(texts)))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.fail != nil {
		return nil, e.fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, fakeDim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			if m, ok := e.meaning[w]; ok {
				w = m
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%fakeDim]++
		}
		out[i] = v
	}
	if e.bad != nil {
		out = e.bad(out)
	}
	return out, nil
}

var embedTools = []Tool{
	{Name: "maps_elevation", Description: "Get elevation data for locations on the earth."},
	{Name: "maps_geocode", Description: "Convert an address into geographic coordinates."},
	{Name: "read_file", Description: "Read the contents of a file."},
	{Name: "write_file", Description: "Write a file."},
	{Name: "send_message", Description: "Post a message to a chat channel."},
	{Name: "list_issues", Description: "List issues in a repository."},
}

// semantics says what the fake model knows: words of one meaning.
var semantics = map[string]string{"altitude": "elevation", "tall": "elevation", "summit": "elevation", "chat": "message", "ping": "message"}

func hitNames(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// TestHybridFindsWhatWordsMiss: a task whose words no tool has is found by meaning.
func TestHybridFindsWhatWordsMiss(t *testing.T) {
	const q = "how tall is the summit of Mount Rainier"
	if got := NewIndex(embedTools, nil).Search(q, 3, nil); len(got) > 0 && got[0].Name == "maps_elevation" {
		t.Fatalf("the lexical ranking already finds it (%v): the test shows nothing", hitNames(got))
	}
	ix := NewIndex(embedTools, &IndexOptions{Embedder: &fakeEmbedder{meaning: semantics}})
	if got := hitNames(ix.Search(q, 3, nil)); len(got) == 0 || got[0] != "maps_elevation" {
		t.Errorf("hybrid search = %v, want maps_elevation first", got)
	}
}

// TestHybridFusion pins reciprocal rank fusion: each ranking gives a tool 1/(60+rank).
func TestHybridFusion(t *testing.T) {
	e := &fakeEmbedder{meaning: semantics}
	ix := NewIndex(embedTools, &IndexOptions{Embedder: e})
	const q = "ping the channel about the release"
	lex := ix.lexical(q, nil, 0)
	vecs, norms, err := ix.toolVectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	qv, _ := e.Embed(context.Background(), []string{q})
	var sem []cand
	for d, v := range vecs {
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(qv[0][i])
		}
		sem = append(sem, cand{d, dot / (norm(qv[0]) * norms[d])})
	}
	sortCands(sem)
	want := map[string]float64{}
	for _, r := range [][]cand{lex, sem} {
		for i, c := range r {
			want[ix.tools[c.d].Name] += 1 / float64(60+i+1)
		}
	}
	got := ix.Search(q, 50, nil)
	if len(got) != len(embedTools) {
		t.Fatalf("hybrid search returned %d tools, want every tool (each has a similarity)", len(got))
	}
	for i, h := range got {
		if math.Abs(h.Score-want[h.Name]) > 1e-12 {
			t.Errorf("%s scores %v, want %v", h.Name, h.Score, want[h.Name])
		}
		if i > 0 && (got[i-1].Score < h.Score || (got[i-1].Score == h.Score && got[i-1].Name > h.Name)) {
			t.Errorf("not ranked by score, then name: %v before %v", got[i-1], h)
		}
	}
	if got[0].Name != "send_message" {
		t.Errorf("first is %s, want send_message (first in both rankings)", got[0].Name)
	}
}

// TestHybridFallsBack: whatever goes wrong with the embedder, search ranks lexically,
// reports the error, and asks for the tools' vectors again next time.
func TestHybridFallsBack(t *testing.T) {
	const q = "read a file"
	lexical := NewIndex(embedTools, nil).Search(q, 5, nil)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		e    *fakeEmbedder
		ctx  context.Context
		err  error
	}{
		{"error", &fakeEmbedder{fail: errors.New("model unavailable")}, context.Background(), nil},
		{"too few vectors", &fakeEmbedder{bad: func(v [][]float32) [][]float32 { return v[:len(v)-1] }}, context.Background(), ErrEmbedding},
		{"ragged", &fakeEmbedder{bad: func(v [][]float32) [][]float32 { v[len(v)-1] = v[len(v)-1][:3]; return v }}, context.Background(), ErrEmbedding},
		{"NaN", &fakeEmbedder{bad: func(v [][]float32) [][]float32 { v[0][0] = float32(math.NaN()); return v }}, context.Background(), ErrEmbedding},
		{"empty", &fakeEmbedder{bad: func(v [][]float32) [][]float32 {
			for i := range v {
				v[i] = nil
			}
			return v
		}}, context.Background(), ErrEmbedding},
		{"cancelled", &fakeEmbedder{}, cancelled, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs []error
			ix := NewIndex(embedTools, &IndexOptions{Embedder: tc.e, OnError: func(err error) { errs = append(errs, err) }})
			for range 2 {
				if diff := cmp.Diff(lexical, ix.SearchContext(tc.ctx, q, 5, nil)); diff != "" {
					t.Errorf("search with a failing embedder is not the lexical one:\n%s", diff)
				}
			}
			if len(errs) != 2 {
				t.Fatalf("OnError was called %d times, want once per search", len(errs))
			}
			if tc.err != nil && !errors.Is(errs[0], tc.err) {
				t.Errorf("error %v, want %v", errs[0], tc.err)
			}
			if tc.name != "cancelled" && tc.e.calls.Load() != 2 {
				t.Errorf("the embedder was called %d times, want twice (the tools again after a failure)", tc.e.calls.Load())
			}
		})
	}
	// A failing embedder without OnError is not fatal either.
	ix := NewIndex(embedTools, &IndexOptions{Embedder: &fakeEmbedder{fail: errors.New("down")}})
	if diff := cmp.Diff(lexical, ix.Search(q, 5, nil)); diff != "" {
		t.Errorf("search differs:\n%s", diff)
	}
}

// TestHybridEmbedsToolsOnce: the tools are embedded on the first search only, once
// even when searches race, and each search embeds its query.
func TestHybridEmbedsToolsOnce(t *testing.T) {
	e := &fakeEmbedder{meaning: semantics}
	ix := NewIndex(embedTools, &IndexOptions{Embedder: e})
	if e.calls.Load() != 0 {
		t.Fatal("NewIndex called the embedder; it should wait for a search")
	}
	var wg sync.WaitGroup
	results := make([][]Hit, 8)
	for i := range results {
		wg.Go(func() { results[i] = ix.Search("altitude of a place", 3, nil) })
	}
	wg.Wait()
	for _, r := range results[1:] {
		if diff := cmp.Diff(results[0], r); diff != "" {
			t.Errorf("concurrent searches differ:\n%s", diff)
		}
	}
	if got, want := e.texts.Load(), int32(len(embedTools)+len(results)); got != want {
		t.Errorf("embedded %d texts, want %d (the tools once, then one query per search)", got, want)
	}
}

// TestHybridKeep: a tool the filter drops is in neither ranking.
func TestHybridKeep(t *testing.T) {
	ix := NewIndex(embedTools, &IndexOptions{Embedder: &fakeEmbedder{meaning: semantics}})
	keep := func(n string) bool { return n != "maps_elevation" }
	if got := hitNames(ix.Search("altitude of Denver", 10, keep)); slices.Contains(got, "maps_elevation") {
		t.Errorf("a filtered tool was returned: %v", got)
	}
}

func TestHybridDeterministic(t *testing.T) {
	rev := slices.Clone(embedTools)
	slices.Reverse(rev)
	a := NewIndex(embedTools, &IndexOptions{Embedder: &fakeEmbedder{meaning: semantics}}).Search("send a chat about the file", 10, nil)
	b := NewIndex(rev, &IndexOptions{Embedder: &fakeEmbedder{meaning: semantics}}).Search("send a chat about the file", 10, nil)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("hybrid ranking depends on input order:\n%s", diff)
	}
}

func TestEmbedText(t *testing.T) {
	var st store
	got := embedText(&st, Tool{Name: "read_file", Description: "Read a file.", Parameters: []byte(`{"properties":{"path":{},"encoding":{}}}`)})
	if want := "read_file: Read a file.\nParameters: path, encoding"; got != want {
		t.Errorf("embedText = %q, want %q", got, want)
	}
}

package sdkgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Embedder turns texts into vectors with an embedding model, for semantic ranking
// ([IndexOptions.Embedder]). Embed returns one vector per text, in order, all of one
// length; vectors are compared by cosine similarity. It must be safe for concurrent
// use. runcode ships none: hosts that have a model (a local one, or an API) adapt it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// IndexOptions configures [NewIndex]. The zero value (or nil) is a lexical index.
type IndexOptions struct {
	// Embedder, if set, makes search hybrid: the lexical ranking and the ranking by
	// cosine similarity of the query's vector to each tool's are fused by reciprocal
	// rank fusion (k = 60), so that a tool either ranking puts high comes first. Tools
	// are embedded on the first search (one Embed call with every tool's name,
	// description and parameter names), the query on each; an index is built per tool
	// set, so an embedder behind a remote model should cache vectors by text. When
	// Embed fails (or returns vectors that do not fit), that search ranks lexically and
	// the tools' vectors are asked for again on the next. Search is then only as
	// deterministic as the embedder. Nil (the default) means lexical ranking only.
	Embedder Embedder
	// OnError, if set, is called with each error of the embedder (the search went on
	// lexically), for the host to log. Nil means such errors are dropped.
	OnError func(error)
}

// rrfK is the constant of reciprocal rank fusion: a tool at rank r (from 1) of a
// ranking scores 1/(rrfK+r) from it. 60 is the value of the method's paper (Cormack,
// Clarke and Büttcher, SIGIR 2009), which damps the weight of the very first ranks.
const rrfK = 60

// vectors are the tools' embeddings, made on first use. lock is a one-slot semaphore
// (so that a search waiting for another's Embed call still honours its context); vec
// and norm are set once, under it.
type vectors struct {
	lock chan struct{}
	vec  [][]float32
	norm []float64
}

// ErrEmbedding is wrapped by the errors of an embedder that does not return a vector of
// the model's length for each text.
var ErrEmbedding = errors.New("sdkgen: embedder returned unusable vectors")

// hybrid fuses the lexical candidates with the tools ranked by similarity to the query.
func (ix *Index) hybrid(ctx context.Context, query string, lex []cand, keep func(string) bool) ([]cand, error) {
	vecs, norms, err := ix.toolVectors(ctx)
	if err != nil {
		return nil, err
	}
	qv, err := ix.emb.Embed(ctx, []string{query})
	if err == nil {
		err = checkVectors(qv, 1, len(vecs[0]))
	}
	if err != nil {
		return nil, fmt.Errorf("sdkgen: embedding the query: %w", err)
	}
	q := qv[0]
	qn := norm(q)
	sem := make([]cand, 0, len(vecs))
	for d, v := range vecs {
		if keep != nil && !keep(ix.tools[d].Name) {
			continue
		}
		var dot float64
		for i, x := range v {
			dot += float64(x) * float64(q[i])
		}
		cos := 0.0
		if qn > 0 && norms[d] > 0 {
			cos = dot / (qn * norms[d])
		}
		sem = append(sem, cand{d, cos})
	}
	sortCands(sem)
	fused := make([]float64, len(ix.tools))
	for _, ranking := range [][]cand{lex, sem} {
		for r, c := range ranking {
			fused[c.d] += 1 / float64(rrfK+r+1)
		}
	}
	var out []cand
	for d, s := range fused {
		if s > 0 {
			out = append(out, cand{d, s})
		}
	}
	sortCands(out)
	return out, nil
}

// toolVectors returns the tools' vectors and norms, embedding them on first use.
func (ix *Index) toolVectors(ctx context.Context) ([][]float32, []float64, error) {
	select {
	case ix.vecs.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx)
	}
	defer func() { <-ix.vecs.lock }()
	if ix.vecs.vec != nil {
		return ix.vecs.vec, ix.vecs.norm, nil
	}
	texts := make([]string, len(ix.tools))
	var st store
	for d, t := range ix.tools {
		texts[d] = embedText(&st, t)
	}
	vecs, err := ix.emb.Embed(ctx, texts)
	if err == nil {
		dim := 0
		if len(vecs) > 0 {
			dim = len(vecs[0])
		}
		err = checkVectors(vecs, len(texts), dim)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("sdkgen: embedding the tools: %w", err)
	}
	norms := make([]float64, len(vecs))
	for d, v := range vecs {
		norms[d] = norm(v)
	}
	ix.vecs.vec, ix.vecs.norm = vecs, norms
	return vecs, norms, nil
}

// embedText is what a tool is embedded as: its name, description and parameter names.
func embedText(st *store, t Tool) string {
	var b strings.Builder
	b.WriteString(t.Name)
	if t.Description != "" {
		b.WriteString(": ")
		b.WriteString(t.Description)
	}
	first := true
	forParams(st, t.Parameters, func(name, _ string) {
		if first {
			b.WriteString("\nParameters: ")
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(name)
	})
	return b.String()
}

// checkVectors reports vectors that are not n of length dim (dim > 0), finite.
func checkVectors(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("%w: %d vectors for %d texts", ErrEmbedding, len(vecs), n)
	}
	if dim == 0 {
		return fmt.Errorf("%w: empty vectors", ErrEmbedding)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("%w: vector %d has length %d, not %d", ErrEmbedding, i, len(v), dim)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: vector %d is not finite", ErrEmbedding, i)
			}
		}
	}
	return nil
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

package sdkgen

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/runcode-go/runcode/internal/editdist"
	"github.com/runcode-go/runcode/internal/searchtext"
)

// Index is a lexical search index over a tool set: tools.$search ranks with it, and
// tools.$describe finds names in it. It is built once per set ([NewIndex]), is
// immutable, and is safe for concurrent use.
//
// Ranking is BM25F over a tool's fields: its name's words (split on _ - . and
// camelCase) weigh most, then the description and parameter names, then parameter
// descriptions and the source (an MCP server's package name, without its version); a
// name word that repeats the source's name (slack_post_message) weighs as the source.
// Each field's counts are normalized by that field's length. Text is processed by
// internal/searchtext: words are lower-cased and stemmed (Snowball English), queries drop
// stop words, and each remaining word, phrase or value of the query is a concept
// (searchtext.ParseQuery) that a tool matches as well as its best term: the word
// itself, or at half weight a synonym from the table in internal/searchtext. A tool
// whose name says it changes things ranks at half its score for a task that reads
// (a question, "show me …"), and the other way round. Each server (the tools of one
// source) is also ranked as one document, and a tool gains up to half again its score
// from how well its server matches the task. Equal scores rank by byte-wise name, so
// results are deterministic.
type Index struct {
	tools    []Tool // sorted by name, unique
	byName   map[string]int
	terms    map[string]int32 // term -> posting list
	postings [][]posting
	actions  []searchtext.Action // what each tool does, by its name
	// The servers (sources), each as one document of its tools' text: a term's
	// postings over them, and each tool's server.
	sources  [][]posting // by term id, like postings; doc is a server
	sourceOf []int32
	nSources int

	// The embedder's, when there is one (embed.go).
	emb     Embedder
	onError func(error)
	vecs    vectors
}

type posting struct {
	doc int32
	tf  float32 // BM25F pseudo-frequency: the fields' weighted, length-normalized counts
}

// sourceBoost is how much a tool gains from its server's own match of the query: up
// to half again for the server that matches best. A task speaks of one server's world
// ("the staging cluster", "the payments namespace") even when no tool of it has every
// word, and the tools of that server are more likely to be meant than a stray match
// elsewhere.
const sourceBoost = 0.5

// actionMismatch scales the score of a tool whose name's action (read or change)
// is not the task's: halved, so that a tool that does what was asked wins among
// comparable matches while a much better match still shows.
const actionMismatch = 0.5

// The fields of a tool, their weights and length normalization (BM25F). The name says
// what a tool does; the description says it at length; a parameter's name says what a
// tool takes and its description is about that argument, not the tool, so it weighs
// half; the source tells the server, which a task names when it names a product.
const (
	fName = iota
	fDesc
	fParamName
	fParamDesc
	fSource
	nFields
)

// fieldW and fieldB are the fields' weights and length normalizations; never changed.
var (
	fieldW = [nFields]float64{fName: 3, fDesc: 1, fParamName: 1, fParamDesc: 0.5, fSource: 0.5}
	fieldB = [nFields]float64{fName: 0.75, fDesc: 0.75, fParamName: 0.75, fParamDesc: 0.75, fSource: 0.75}
)

// BM25's constants: term-frequency saturation, and the length normalization of a
// server as a document. The usual values.
const (
	k1    = 1.2
	bm25B = 0.75
)

// docTerm is a term's counts in one tool's fields, while the index is built.
type docTerm struct {
	term int32
	n    [nFields]float32
}

// NewIndex indexes tools (for equal names, the first is kept). opts may be nil.
func NewIndex(tools []Tool, opts *IndexOptions) *Index {
	order := sortedUnique(tools)
	ix := &Index{
		tools:   make([]Tool, len(order)),
		byName:  make(map[string]int, len(order)),
		terms:   map[string]int32{},
		actions: make([]searchtext.Action, len(order)),
	}
	docs := make([][]docTerm, len(order))
	lens := make([][nFields]float32, len(order))
	var total [nFields]float64
	at := map[int32]int{} // term -> its entry in the current tool's docTerms
	var buf, src []string
	var st store
	var stemmer searchtext.Stemmer
	for d, j := range order {
		t := tools[j]
		ix.tools[d] = t
		ix.byName[t.Name] = d
		clear(at)
		var dt []docTerm
		add := func(text string, f int) {
			buf = stemmer.Terms(buf[:0], text)
			for _, tok := range buf {
				g := f
				if f == fName && slices.Contains(src, tok) {
					g = fSource // slack_post_message: "slack" says the server, not what the tool does
				}
				id, ok := ix.terms[tok]
				if !ok {
					id = int32(len(ix.postings))
					ix.terms[tok] = id
					ix.postings = append(ix.postings, nil)
				}
				i, ok := at[id]
				if !ok {
					i = len(dt)
					at[id] = i
					dt = append(dt, docTerm{term: id})
				}
				dt[i].n[g]++
			}
			lens[d][f] += float32(len(buf))
		}
		src = stemmer.Terms(src[:0], sourceName(t.Source))
		own := slices.DeleteFunc(searchtext.Words(nil, t.Name), func(w string) bool { return slices.Contains(src, stemmer.Stem(w)) })
		ix.actions[d] = searchtext.NameAction(own, &stemmer)
		add(t.Name, fName)
		add(sourceName(t.Source), fSource)
		add(t.Description, fDesc)
		forParams(&st, t.Parameters, func(name, desc string) {
			add(name, fParamName)
			add(desc, fParamDesc)
		})
		docs[d] = dt
		for f := range nFields {
			total[f] += float64(lens[d][f])
		}
	}
	var avg [nFields]float64
	for f := range nFields {
		avg[f] = 1
		if len(order) > 0 && total[f] > 0 {
			avg[f] = total[f] / float64(len(order))
		}
	}
	if opts != nil && opts.Embedder != nil {
		ix.emb, ix.onError = opts.Embedder, opts.OnError
		ix.vecs.lock = make(chan struct{}, 1)
	}
	ix.indexSources(docs)
	for d, dt := range docs {
		var norm [nFields]float64
		for f := range nFields {
			norm[f] = fieldW[f] / (1 - fieldB[f] + fieldB[f]*float64(lens[d][f])/avg[f])
		}
		for _, e := range dt {
			var tf float64
			for f := range nFields {
				tf += float64(e.n[f]) * norm[f]
			}
			ix.postings[e.term] = append(ix.postings[e.term], posting{doc: int32(d), tf: float32(tf)})
		}
	}
	return ix
}

// indexSources indexes each server (the tools of one source) as a document: its
// tools' name, description and parameter-name words, counted together and normalized
// by the server's length (BM25).
func (ix *Index) indexSources(docs [][]docTerm) {
	ix.sourceOf = make([]int32, len(docs))
	ids := map[string]int32{}
	var lens []float64
	// By term, the servers it occurs in with its count (tf, for now); a term is in few.
	ix.sources = make([][]posting, len(ix.postings))
	for d, dt := range docs {
		name := sourceName(ix.tools[d].Source)
		si, ok := ids[name]
		if !ok {
			si = int32(len(lens))
			ids[name] = si
			lens = append(lens, 0)
		}
		ix.sourceOf[d] = si
		for _, e := range dt {
			c := e.n[fName] + e.n[fDesc] + e.n[fParamName]
			if c == 0 {
				continue
			}
			ps := ix.sources[e.term]
			i := slices.IndexFunc(ps, func(p posting) bool { return p.doc == si })
			if i < 0 {
				ps = append(ps, posting{doc: si})
				i = len(ps) - 1
				ix.sources[e.term] = ps
			}
			ps[i].tf += c
			lens[si] += float64(c)
		}
	}
	ix.nSources = len(lens)
	var avg float64
	for _, l := range lens {
		avg += l
	}
	avg = max(avg/float64(max(1, len(lens))), 1)
	for _, ps := range ix.sources {
		for i := range ps {
			ps[i].tf = float32(float64(ps[i].tf) / (1 - bm25B + bm25B*lens[ps[i].doc]/avg))
		}
	}
}

// sourceName is the name of a tool's source without its version: an npm package's
// "@scope/name@1.2.3" is "@scope/name" (a version says nothing about what a tool does).
func sourceName(s string) string {
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		return s[:i]
	}
	return s
}

// Len returns the number of tools indexed.
func (ix *Index) Len() int { return len(ix.tools) }

// Tool returns the indexed tool named name.
func (ix *Index) Tool(name string) (Tool, bool) {
	d, ok := ix.byName[name]
	if !ok {
		return Tool{}, false
	}
	return ix.tools[d], true
}

// Hit is one search result.
type Hit struct {
	Name        string
	Description string
	Score       float64
}

// Search is SearchContext with context.Background().
func (ix *Index) Search(query string, limit int, keep func(name string) bool) []Hit {
	return ix.SearchContext(context.Background(), query, limit, keep)
}

// SearchContext returns at most limit tools matching query, best first. keep, if
// non-nil, filters the candidates (a tool no longer visible). Ranked lexically, it
// returns none when no term of the query occurs in any tool. With an embedder
// ([IndexOptions.Embedder]) the lexical and the semantic ranking are fused, and ctx
// bounds the embedder's calls; if the embedder fails, the ranking is lexical.
func (ix *Index) SearchContext(ctx context.Context, query string, limit int, keep func(name string) bool) []Hit {
	if limit <= 0 || len(ix.tools) == 0 {
		return nil
	}
	top := limit
	if ix.emb != nil {
		top = 0 // fusion ranks every lexical candidate
	}
	cands := ix.lexical(query, keep, top)
	if ix.emb != nil {
		if fused, err := ix.hybrid(ctx, query, cands, keep); err == nil {
			cands = fused
		} else if ix.onError != nil {
			ix.onError(err)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	cands = cands[:min(limit, len(cands))]
	out := make([]Hit, len(cands))
	for i, c := range cands {
		t := ix.tools[c.d]
		out[i] = Hit{Name: t.Name, Description: t.Description, Score: c.s}
	}
	return out
}

// cand is a candidate tool (its index) and its score.
type cand struct {
	d int
	s float64
}

// lexical returns the tools that match query, best first, ties by name: the best top
// of them, or all when top is 0.
func (ix *Index) lexical(query string, keep func(name string) bool, top int) []cand {
	q := searchtext.ParseQuery(query)
	scores := make([]float64, len(ix.tools))
	if !score(q.Concepts, ix.terms, ix.postings, scores) {
		return nil
	}
	if ix.nSources > 1 {
		servers := make([]float64, ix.nSources)
		score(q.Concepts, ix.terms, ix.sources, servers)
		if best := slices.Max(servers); best > 0 {
			for d := range scores {
				scores[d] *= 1 + sourceBoost*servers[ix.sourceOf[d]]/best
			}
		}
	}
	var cands []cand
	for d, s := range scores {
		if a := ix.actions[d]; q.Action != 0 && a != 0 && a&q.Action == 0 {
			s *= actionMismatch
		}
		if s > 0 && (keep == nil || keep(ix.tools[d].Name)) {
			cands = append(cands, cand{d, s})
		}
	}
	if top > 0 && len(cands) > top {
		cands = best(cands, top)
	}
	sortCands(cands)
	return cands
}

// best returns the k best of cands (k < len(cands)), in no order: it keeps a heap of the
// best so far, the worst of them at its root, in cands[:k].
func best(cands []cand, k int) []cand {
	h := cands[:k]
	worse := func(a, b cand) bool { return a.s < b.s || (a.s == b.s && a.d > b.d) }
	down := func(i int) {
		for {
			l, w := 2*i+1, i
			if l < k && worse(h[l], h[w]) {
				w = l
			}
			if r := l + 1; r < k && worse(h[r], h[w]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, c := range cands[k:] {
		if worse(h[0], c) {
			h[0] = c
			down(0)
		}
	}
	return h
}

// sortCands sorts candidates by score, best first, and equal scores by name (tools
// are indexed in name order).
func sortCands(cands []cand) {
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return a.d - b.d
	})
}

// score adds to scores, per document of postings (tools or servers), the BM25 score of
// each concept: its best term's. It reports whether any term occurs.
func score(concepts []searchtext.Concept, terms map[string]int32, postings [][]posting, scores []float64) bool {
	n := float64(len(scores))
	// best holds, per document, its best term's score for the concept being scored;
	// touched lists the documents it holds one for.
	best := make([]float64, len(scores))
	var touched []int32
	hit := false
	for _, c := range concepts {
		for _, qt := range c.Terms {
			id, ok := terms[qt.Stem]
			if !ok {
				continue
			}
			ps := postings[id]
			df := float64(len(ps))
			if df == 0 {
				continue
			}
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			for _, p := range ps {
				tf := float64(p.tf)
				v := qt.Weight * idf * tf * (k1 + 1) / (tf + k1)
				if best[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				best[p.doc] = max(best[p.doc], v)
				hit = true
			}
		}
		for _, d := range touched {
			scores[d] += best[d]
			best[d] = 0
		}
		touched = touched[:0]
	}
	return hit
}

// Suggest returns the indexed name closest to name by edit distance, if one is close
// enough to be a likely typo, or "".
func (ix *Index) Suggest(name string, keep func(string) bool) string {
	if len(name) > 128 { // longer than any tool name may be: no typo of one
		return ""
	}
	best, bestD := "", math.MaxInt
	lower := strings.ToLower(name)
	for _, t := range ix.tools {
		if keep != nil && !keep(t.Name) {
			continue
		}
		d := editdist.Levenshtein(lower, strings.ToLower(t.Name))
		if d < bestD {
			best, bestD = t.Name, d
		}
	}
	if best == "" || bestD > max(2, utf8.RuneCountInString(name)/3) {
		return ""
	}
	return best
}

// forParams calls f for each parameter (and nested property, two levels deep) with
// its name and description, in the schema's order. st is scratch reused across
// schemas. A schema it cannot read has none.
func forParams(st *store, schema json.RawMessage, f func(name, desc string)) {
	if len(schema) == 0 {
		return
	}
	st.nodes, st.kids, st.strs = st.nodes[:0], st.kids[:0], st.strs[:0]
	clear(st.index)
	d := &doc{src: string(schema), s: st}
	if !d.fits() {
		return
	}
	root := d.parse()
	var walk func(v val, depth int)
	walk = func(v val, depth int) {
		if v.kind() != 'o' || depth > 2 {
			return
		}
		props := v.get("properties")
		if props.kind() != 'o' {
			return
		}
		for i := range props.len() {
			c := props.at(i)
			desc := ""
			if c.kind() == 'o' {
				if dv := c.get("description"); dv.kind() == 's' {
					desc = dv.str()
				}
			}
			f(props.key(i), desc)
			walk(c, depth+1)
		}
	}
	walk(root, 0)
}

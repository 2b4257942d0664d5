package sdkgen

import (
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
// Ranking is BM25 over one bag of terms per tool in which fields weigh differently:
// the name's words (split on _ - . and camelCase) most, then the description, then
// parameter names and their descriptions, and the source's name (an MCP server's)
// a little. Terms are lower-cased, lightly stemmed
// (plurals, -ing, -ed), and common English words are dropped from queries. Equal
// scores rank by byte-wise name, so results are deterministic.
type Index struct {
	tools    []Tool // sorted by name, unique
	byName   map[string]int
	terms    map[string]int32 // term -> posting list
	postings [][]posting
	avgLen   float64
	lens     []float32
}

type posting struct {
	doc int32
	tf  float32 // field-weighted term frequency
}

// Field weights.
const (
	wName      = 3.0
	wDesc      = 1.0
	wParam     = 1.0
	wParamDesc = 0.5
	wSource    = 0.5
	k1         = 1.2
	bm25B      = 0.75
)

// NewIndex indexes tools (for equal names, the first is kept).
func NewIndex(tools []Tool) *Index {
	order := sortedUnique(tools)
	ix := &Index{
		tools:  make([]Tool, len(order)),
		byName: make(map[string]int, len(order)),
		terms:  map[string]int32{},
		lens:   make([]float32, len(order)),
	}
	var total float64
	bag := map[string]float32{}
	var buf []string
	var st store
	var stemmer searchtext.Stemmer
	for d, j := range order {
		t := tools[j]
		ix.tools[d] = t
		ix.byName[t.Name] = d
		clear(bag)
		var n float32
		add := func(text string, w float32) {
			buf = stemmer.Terms(buf[:0], text)
			for _, tok := range buf {
				bag[tok] += w
				n += w
			}
		}
		add(t.Name, wName)
		add(t.Source, wSource)
		add(t.Description, wDesc)
		forParams(&st, t.Parameters, func(name, desc string) {
			add(name, wParam)
			add(desc, wParamDesc)
		})
		ix.lens[d] = n
		total += float64(n)
		for term, tf := range bag {
			id, ok := ix.terms[term]
			if !ok {
				id = int32(len(ix.postings))
				ix.terms[term] = id
				ix.postings = append(ix.postings, nil)
			}
			ix.postings[id] = append(ix.postings[id], posting{doc: int32(d), tf: tf})
		}
	}
	if len(order) > 0 {
		ix.avgLen = total / float64(len(order))
	}
	if ix.avgLen == 0 {
		ix.avgLen = 1
	}
	return ix
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

// Search returns at most limit tools matching query, best first; none when no term
// of the query occurs in any tool. keep, if non-nil, filters the candidates (a tool
// no longer visible).
func (ix *Index) Search(query string, limit int, keep func(name string) bool) []Hit {
	if limit <= 0 || len(ix.tools) == 0 {
		return nil
	}
	var stemmer searchtext.Stemmer
	q := expand(tokens(&stemmer, nil, query, true))
	scores := make([]float64, len(ix.tools))
	hit := false
	n := float64(len(ix.tools))
	for _, qt := range q {
		term := qt.term
		id, ok := ix.terms[term]
		if !ok {
			continue
		}
		ps := ix.postings[id]
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := k1 * (1 - bm25B + bm25B*float64(ix.lens[p.doc])/ix.avgLen)
			scores[p.doc] += qt.w * idf * tf * (k1 + 1) / (tf + norm)
			hit = true
		}
	}
	if !hit {
		return nil
	}
	type cand struct {
		d int
		s float64
	}
	var cands []cand
	for d, s := range scores {
		if s > 0 && (keep == nil || keep(ix.tools[d].Name)) {
			cands = append(cands, cand{d, s})
		}
	}
	// Docs are in name order, so a stable sort by score keeps ties by name.
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	cands = cands[:min(limit, len(cands))]
	out := make([]Hit, len(cands))
	for i, c := range cands {
		t := ix.tools[c.d]
		out[i] = Hit{Name: t.Name, Description: t.Description, Score: c.s}
	}
	return out
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

// queryTerm is one term of a query with its weight.
type queryTerm struct {
	term string
	w    float64
}

// synonymWeight is the weight of a term a query did not say but implies.
const synonymWeight = 0.5

// synonyms relate the words task descriptions and tool descriptions use for the same
// thing (by stem, see stem): a query term also matches its group's other terms, at
// synonymWeight, so that "open a bug on the repo" meets create_issue's "repository".
var synonyms = func() map[string][]string {
	groups := [][]string{
		{"repo", "repository"}, {"pr", "pull"}, {"dir", "directory", "folder"},
		{"bug", "issue", "ticket"}, {"delete", "remove", "erase", "drop"},
		{"create", "add", "make", "open", "new"}, {"find", "search", "look", "lookup", "query"},
		{"show", "get", "fetch", "retrieve", "read", "view"}, {"list", "enumerate"},
		{"edit", "update", "modify", "change", "replace"}, {"write", "save", "store"},
		{"message", "msg", "chat", "post"}, {"send", "post"}, {"rename", "move"},
		{"big", "size", "large"}, {"download", "fetch"}, {"url", "link", "web", "page", "website"},
		{"screenshot", "capture", "snapshot"}, {"comment", "reply", "respond"},
		{"email", "mail"}, {"calendar", "event", "meeting", "schedule"}, {"run", "execute", "invoke"},
		{"sql", "database", "db"}, {"user", "member", "people", "person"},
		{"doc", "document"}, {"time", "clock", "date"}, {"commit", "change"},
		{"merge", "combine"}, {"info", "metadata", "details", "stat"},
		{"click", "press", "tap"}, {"type", "enter", "fill", "input"},
	}
	for _, g := range groups {
		for i, w := range g {
			g[i] = stem(w)
		}
	}
	m := map[string][]string{}
	for _, g := range groups {
		for _, a := range g {
			for _, b := range g {
				if a != b && !slices.Contains(m[a], b) {
					m[a] = append(m[a], b)
				}
			}
		}
	}
	return m
}()

// expand returns the query's terms, unique, with their synonyms at synonymWeight (a
// term the query says itself keeps its full weight).
func expand(terms []string) []queryTerm {
	w := map[string]float64{}
	for _, t := range terms {
		w[t] = 1
	}
	for _, t := range terms {
		for _, s := range synonyms[t] {
			if w[s] < synonymWeight {
				w[s] = synonymWeight
			}
		}
	}
	out := make([]queryTerm, 0, len(w))
	for t, x := range w {
		out = append(out, queryTerm{t, x})
	}
	// Summation order fixes the last bits of a score: keep it the same every time.
	slices.SortFunc(out, func(a, b queryTerm) int { return strings.Compare(a.term, b.term) })
	return out
}

// tokens appends the terms of text to dst (searchtext.Stemmer.Terms); a query drops
// stop words.
func tokens(st *searchtext.Stemmer, dst []string, text string, query bool) []string {
	n := len(dst)
	dst = searchtext.Words(dst, text)
	out := dst[:n]
	for _, w := range dst[n:] {
		if query && searchtext.IsStopWord(w) {
			continue
		}
		out = append(out, st.Stem(w))
	}
	return out
}

func stem(w string) string { return searchtext.Stem(w) }

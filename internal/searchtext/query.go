package searchtext

import (
	"slices"
	"strings"
	"unicode"
)

// Concept is one thing a query asks for: the terms that say it, each with its weight.
// A tool matches a concept as well as its best-matching term, so a concept counts once
// however many words say it ("make a new directory" asks for one creation, not two).
type Concept struct {
	// Terms are sorted by stem; the query's own words weigh 1, the words the synonym
	// table adds SynonymWeight.
	Terms []Term
}

// Term is a stemmed search term and its weight.
type Term struct {
	Stem   string
	Weight float64
}

// Query is a parsed query: what it asks for, and what it asks to do.
type Query struct {
	Concepts []Concept
	// Action is what the task does (see [Action]): a question reads; an instruction does
	// what its first action word does ("throw away the unused database" changes, "show me
	// the logs" reads); 0 when its words do not say.
	Action Action
}

// ParseQuery returns the concepts of a query, in the order the query says them:
//
//   - each word that is not a stop word is one, with the members of its synonym groups;
//   - a phrase of the synonym table ("throw away", "how many") is one, with its group's
//     members only (and a word of the phrase that is itself a member: "api key" says key);
//     a stop word that is in a group ("who", "where") likewise;
//   - a value is one by its kind, never by its words: a URL stands for url, an email
//     address for email, a file path or name (build/output, ~/notes, app.yaml) for path,
//     file and directory, a phone number for phone and number; other numbers are dropped.
//     Values are a task's arguments, and their words ("login" in fix/login-redirect)
//     would match tools that have nothing to do with the task.
//
// Concepts that share a term merge into one. A query of stop words alone has none.
func ParseQuery(query string) Query {
	var words, stems []string
	var kinds []int // for each word, -1 or the value kind it stands for
	for chunk := range strings.FieldsSeq(query) {
		chunk = strings.TrimFunc(chunk, func(r rune) bool { return strings.ContainsRune("\"'`()[]{}<>,;:!?", r) })
		if k := valueKind(chunk); k >= 0 {
			words, stems, kinds = append(words, ""), append(stems, ""), append(kinds, k)
			continue
		}
		n := len(words)
		words = Words(words, chunk)
		for _, w := range words[n:] {
			stems, kinds = append(stems, Stem(w)), append(kinds, -1)
		}
	}
	var q Query
	if isQuestion(query, words) {
		q.Action = Reads
	}
	said := q.Action != 0 // the action is known
	var cs []concept
	for i := 0; i < len(words); {
		if kinds[i] >= 0 {
			cs, _ = addConcept(cs, "", nil, valueTerms[kinds[i]])
			i++
			continue
		}
		if n, groups := matchPhrase(stems[i:]); n > 0 {
			var at int
			cs, at = addConcept(cs, "", groups, nil)
			if a := wordAction(groups); !said && a != 0 {
				q.Action, said = a, true
			}
			for j := i; j < i+n; j++ {
				if _, ok := cs[at].w[stems[j]]; ok && !IsStopWord(words[j]) {
					cs[at].w[stems[j]] = 1
				}
			}
			i += n
			continue
		}
		if !IsStopWord(words[i]) && !isNumber(words[i]) {
			cs, _ = addConcept(cs, stems[i], synonyms().byStem[stems[i]], nil)
			if a := actionOf(words[i], stems[i]); !said && a != 0 {
				q.Action, said = a, true
			}
		}
		i++
	}
	q.Concepts = make([]Concept, len(cs))
	for i, c := range cs {
		terms := make([]Term, 0, len(c.w))
		for s, w := range c.w {
			terms = append(terms, Term{s, w})
		}
		slices.SortFunc(terms, func(a, b Term) int { return strings.Compare(a.Stem, b.Stem) })
		q.Concepts[i] = Concept{Terms: terms}
	}
	return q
}

// isQuestion reports whether a query (its text, and its words) asks a question: it
// ends with a question mark or opens with a question word ("which pods are failing",
// "is CI green"), and is not a request put politely ("can you delete it?").
func isQuestion(text string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	if len(words) > 1 && polite[words[0]] && (words[1] == "you" || words[1] == "we" || words[1] == "i") {
		return false
	}
	return strings.HasSuffix(strings.TrimSpace(text), "?") || questionWords[words[0]]
}

var polite = map[string]bool{"can": true, "could": true, "would": true, "will": true}

var questionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("what which who whom whose where when why how is are was were do does did has have had any") {
		m[w] = true
	}
	return m
}()

// Kinds of values, and the terms each stands for.
const (
	kindURL = iota
	kindEmail
	kindPath
	kindPhone
)

var valueTerms = [...][]string{
	kindURL:   {"url", "link"},
	kindEmail: {"email"},
	kindPath:  {"path", "file", Stem("directory")},
	kindPhone: {"phone", "number"},
}

// valueKind returns the kind of value the whitespace-free chunk is, or -1 for words.
func valueKind(c string) int {
	lc := strings.ToLower(c)
	switch {
	case strings.Contains(lc, "://") || strings.HasPrefix(lc, "www."):
		return kindURL
	case strings.IndexByte(c, '@') > 0 && strings.IndexByte(c[strings.IndexByte(c, '@'):], '.') > 0:
		return kindEmail
	case len(c) >= 8 && c[0] == '+' && isNumber(strings.NewReplacer("-", "", " ", "", "(", "", ")", "").Replace(c[1:])):
		return kindPhone
	case strings.HasPrefix(c, "~") || strings.HasPrefix(c, "./") || strings.HasPrefix(c, "*."):
		return kindPath
	case strings.ContainsAny(c, `/\`) && strings.IndexFunc(c, unicode.IsLetter) >= 0:
		return kindPath
	}
	// A file name: letters, a dot and an extension of letters ("app.yaml", "CHANGELOG.md").
	if dot := strings.LastIndexByte(c, '.'); dot > 0 && dot < len(c)-1 && len(c)-dot-1 <= 5 {
		ext := c[dot+1:]
		if strings.IndexFunc(ext, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 && strings.IndexFunc(c[:dot], unicode.IsLetter) >= 0 {
			return kindPath
		}
	}
	return -1
}

func isNumber(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// concept is a Concept being built: weights by stem, and the groups it came from.
type concept struct {
	w      map[string]float64
	groups []int
}

// addConcept adds the concept of the stem own (none for a phrase or a value), with the
// members of groups and the stems extra, merging it into an earlier concept that has
// one of its terms or shares a group; it returns the concepts and the index of the one
// it went into.
func addConcept(cs []concept, own string, groups []int, extra []string) ([]concept, int) {
	at := -1
	for i, c := range cs {
		shares := func(s string) bool { _, ok := c.w[s]; return ok }
		if (own != "" && shares(own)) || slices.ContainsFunc(extra, shares) ||
			slices.ContainsFunc(groups, func(g int) bool { return slices.Contains(c.groups, g) }) {
			at = i
			break
		}
	}
	if at < 0 {
		cs = append(cs, concept{w: map[string]float64{}})
		at = len(cs) - 1
	}
	c := &cs[at]
	for _, g := range groups {
		if !slices.Contains(c.groups, g) {
			c.groups = append(c.groups, g)
		}
		for _, s := range synonyms().groups[g].terms {
			c.w[s] = max(c.w[s], SynonymWeight)
		}
	}
	for _, s := range extra {
		c.w[s] = max(c.w[s], SynonymWeight)
	}
	if own != "" {
		c.w[own] = 1
	}
	return cs, at
}

// matchPhrase returns the length of the longest phrase of the table that stems starts
// with, and its groups (every group with that phrase); 0 when none does.
func matchPhrase(stems []string) (n int, groups []int) {
	if len(stems) == 0 {
		return 0, nil
	}
	for _, p := range synonyms().byPhrase[stems[0]] {
		if len(p.stems) > len(stems) || !slices.Equal(p.stems, stems[:len(p.stems)]) {
			continue
		}
		switch {
		case len(p.stems) > n:
			n, groups = len(p.stems), []int{p.group}
		case len(p.stems) == n && !slices.Contains(groups, p.group):
			groups = append(groups, p.group)
		}
	}
	return n, groups
}

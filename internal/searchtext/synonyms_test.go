package searchtext

import (
	"slices"
	"strings"
	"testing"
)

// TestSynonymTable checks the table's shape: every group relates two or more words,
// and the table stays small and general (a few dozen groups, none of them long).
func TestSynonymTable(t *testing.T) {
	if n := len(synonyms().groups); n < 30 || n > 120 {
		t.Errorf("the table has %d groups; it is meant to be a few dozen", n)
	}
	for i, g := range synonyms().groups {
		if n := len(g.terms) + len(g.phrases); n < 2 {
			t.Errorf("group %d (%v %v) relates fewer than two words", i, g.terms, g.phrases)
		}
		if len(g.terms)+len(g.phrases) > 16 {
			t.Errorf("group %d (%v) is long; split it or drop the rarer words", i, g.terms)
		}
		if len(g.terms) == 0 {
			t.Errorf("group %d (%v) has no single word to search for", i, g.phrases)
		}
		for _, s := range g.terms {
			if s == "" || strings.ContainsRune(s, ' ') {
				t.Errorf("group %d has a malformed term %q", i, s)
			}
		}
	}
}

// expansion returns the terms ParseQuery gives the query's one concept, as "stem:w".
func expansion(t *testing.T, query string) []string {
	t.Helper()
	q := ParseQuery(query)
	if len(q.Concepts) != 1 {
		t.Fatalf("ParseQuery(%q) has %d concepts, want 1: %v", query, len(q.Concepts), q.Concepts)
	}
	var out []string
	for _, term := range q.Concepts[0].Terms {
		w := "syn"
		if term.Weight == 1 {
			w = "own"
		}
		out = append(out, term.Stem+":"+w)
	}
	return out
}

func TestSynonyms(t *testing.T) {
	for _, tc := range []struct {
		query string
		has   []string // stem:own or stem:syn
		lacks []string // stems that must not be there
	}{
		// Actions, either way round, weighted below the query's own word.
		{"make", []string{"make:own", "creat:syn", "new:syn", "add:syn"}, []string{"delet"}},
		{"create", []string{"creat:own", "make:syn"}, nil},
		{"remove", []string{"remov:own", "delet:syn", "drop:syn", "destroy:syn"}, []string{"creat"}},
		{"throw away", []string{"delet:syn", "remov:syn"}, []string{"throw", "away"}},
		{"get rid of", []string{"delet:syn"}, []string{"get", "rid"}},
		{"show", []string{"show:own", "list:syn", "get:syn", "fetch:syn"}, nil},
		// Forms meet through the stemmer: "deleting" is delete.
		{"deleting", []string{"delet:own", "remov:syn"}, nil},
		// Things.
		{"folder", []string{"folder:own", "directori:syn"}, nil},
		{"repo", []string{"repo:own", "repositori:syn"}, nil},
		// A phrase's own word that is a member stays the query's own.
		{"api key", []string{"key:own", "token:syn", "credenti:syn"}, []string{"api"}},
		// Questions: the question word is a trigger, never a term.
		{"how many", []string{"count:syn", "total:syn"}, []string{"how", "mani"}},
		{"how high above sea level", []string{"elev:syn", "altitud:syn"}, []string{"sea", "level", "high"}},
		{"who", []string{"user:syn", "member:syn", "peopl:syn"}, []string{"who"}},
		{"where", []string{"find:syn", "search:syn"}, []string{"where"}},
		// Abbreviations.
		{"k8s", []string{"k8s:own", "kubernet:syn"}, nil},
		{"mongo", []string{"mongo:own", "mongodb:syn"}, nil},
	} {
		got := expansion(t, tc.query)
		for _, h := range tc.has {
			if !slices.Contains(got, h) {
				t.Errorf("%q expands to %v, which lacks %s", tc.query, got, h)
			}
		}
		for _, l := range tc.lacks {
			if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, l+":") }) {
				t.Errorf("%q expands to %v, which has %s", tc.query, got, l)
			}
		}
	}
}

func TestNameAction(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Action
	}{
		{"create_issue", Changes},
		{"delete-many", Changes},
		{"TwilioApiV2010--UpdateCall", Changes},
		{"API-post-page", Changes},
		{"list_issues", Reads},
		{"get_pull_request", Reads},
		{"search_files", Reads},
		{"hubspot-batch-read-objects", Reads},
		{"browser_take_screenshot", 0},
		{"open_nodes", 0},                       // "open" creates, reads or visits
		{"netlify-project-services-updater", 0}, // an updater is a thing
		{"transfer_funds", Changes},             // -er, but not a noun of a verb
		{"get_deployment", Reads},
		{"start_process", 0},
		{"aggregate", 0},
	} {
		if got := NameAction(Words(nil, tc.name), nil); got != tc.want {
			t.Errorf("NameAction(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

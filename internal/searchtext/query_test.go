package searchtext

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// concepts renders a query's concepts: each as its stems joined by "|", own words
// first marked with "!".
func concepts(q Query) []string {
	var out []string
	for _, c := range q.Concepts {
		var own, syn []string
		for _, t := range c.Terms {
			if t.Weight == 1 {
				own = append(own, "!"+t.Stem)
			} else {
				syn = append(syn, t.Stem)
			}
		}
		out = append(out, strings.Join(append(own, syn...), "|"))
	}
	return out
}

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string // a prefix of each concept: its own words
	}{
		// Stop words go; each other word is a concept.
		{"what is the time in Tokyo", []string{"!time", "!tokyo"}},
		// Words of one group are one concept: "make a new X" asks for one creation.
		{"make a new directory", []string{"!make|!new", "!directori"}},
		// Values stand for their kind; their words are not searched.
		{"read https://go.dev/blog/loopvar-preview", []string{"!read", "link|url"}},
		{"start a branch called fix/login-redirect", []string{"!start", "!branch", "!call", "directori|file|path"}},
		{"open config/app.yaml", []string{"!open", "directori|file|path"}},
		{"rename old_handler.go", []string{"!renam", "directori|file|path"}},
		{"send it to dana@example.com", []string{"!send", "email"}},
		{"verify +15559876543", []string{"!verifi", "number|phone"}},
		{"bump the replicas to 5", []string{"!bump", "!replica"}},
		// Only stop words: nothing.
		{"what is it", nil},
		{"", nil},
	} {
		got := concepts(ParseQuery(tc.query))
		if len(got) != len(tc.want) {
			t.Errorf("ParseQuery(%q) = %q, want %d concepts starting %q", tc.query, got, len(tc.want), tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("ParseQuery(%q) concept %d = %q, want it to start %q", tc.query, i, got[i], tc.want[i])
			}
		}
	}
}

func TestQueryAction(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  Action
	}{
		{"which Sentry projects do we have?", Reads},
		{"what changed on main this week", Reads}, // a question reads, whatever its verb
		{"is CI green on PR 412", Reads},
		{"show me the logs", Reads},
		{"throw away the unused staging database", Changes},
		{"make a new directory build/output", Changes},
		{"could you delete the old branch?", Changes}, // a request put politely
		{"open the docs in a second tab", 0},          // open: create, read or visit
		{"tail the logs of the api deployment", 0},    // a deployment is a thing
	} {
		if got := ParseQuery(tc.query).Action; got != tc.want {
			t.Errorf("ParseQuery(%q).Action = %d, want %d", tc.query, got, tc.want)
		}
	}
}

// TestParseQueryDeterministic: the same query parses the same way every time (maps are
// not ranged into the result).
func TestParseQueryDeterministic(t *testing.T) {
	const q = "make a new folder and throw away the old repo, then show me who has access"
	want := ParseQuery(q)
	for range 20 {
		if diff := cmp.Diff(want, ParseQuery(q)); diff != "" {
			t.Fatalf("ParseQuery differs between calls:\n%s", diff)
		}
	}
	for _, c := range want.Concepts {
		if !slices.IsSortedFunc(c.Terms, func(a, b Term) int { return strings.Compare(a.Stem, b.Stem) }) {
			t.Errorf("terms not sorted: %v", c.Terms)
		}
	}
}

func ExampleParseQuery() {
	q := ParseQuery("throw away the unused staging database")
	for _, c := range q.Concepts {
		fmt.Println(c.Terms[0], len(c.Terms))
	}
	fmt.Println(q.Action == Changes)
	// Output:
	// {delet 0.5} 10
	// {unus 1} 1
	// {stage 1} 1
	// {databas 1} 3
	// true
}

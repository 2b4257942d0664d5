package searchtext

import (
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	var s Stemmer
	for _, tc := range []struct{ in, want string }{
		{"create_issue", "creat issu"},
		{"getPullRequest", "get pull request"},
		{"browser.take-screenshot", "browser take screenshot"},
		{"HTTPServerLogs", "http server log"},
		{"list_directories", "list directori"},
		{"list_directory", "list directori"},
		{"slack2Go", "slack2 go"},
		{"TwilioApiV2010--CreateIncomingPhoneNumber", "twilio api v2010 creat incom phone number"},
		{"Creating, created: CREATES", "creat creat creat"},
		{"été ÉTÉ", "été été"},
		{"", ""},
	} {
		if got := strings.Join(s.Terms(nil, tc.in), " "); got != tc.want {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStem(t *testing.T) {
	// Forms of one word meet; what the old suffix rules got wrong stays apart or meets
	// as English does.
	for _, group := range [][]string{
		{"issue", "issues"},
		{"directory", "directories"},
		{"create", "created", "creating", "creates"},
		{"run", "running", "runs"},
		{"query", "queries", "queried"},
		{"organization", "organizations"},
		{"delete", "deleted", "deletion"},
	} {
		want := Stem(group[0])
		for _, w := range group[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q as for %q", w, got, want, group[0])
			}
		}
	}
	for _, w := range []string{"a", "go", "v2010", "slack2", "été", "日本"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestStemmerCache(t *testing.T) {
	var s Stemmer
	for range 2 {
		if got := s.Stem("repositories"); got != Stem("repositories") {
			t.Fatalf("cached stem %q differs from Stem's", got)
		}
	}
	if len(s.cache) != 1 {
		t.Errorf("cache holds %d words, want 1", len(s.cache))
	}
}

func TestIsStopWord(t *testing.T) {
	for _, w := range []string{"the", "please", "my", "which", "s"} {
		if !IsStopWord(w) {
			t.Errorf("%q is not a stop word", w)
		}
	}
	for _, w := range []string{"make", "new", "get", "open", "file", "list"} {
		if IsStopWord(w) {
			t.Errorf("%q, which names an action or a thing, is a stop word", w)
		}
	}
}

func BenchmarkTerms(b *testing.B) {
	const text = "Retrieve a list of recordings belonging to the account used to make the request (Uses default AccountSid if not provided)"
	var s Stemmer
	var buf []string
	b.ReportAllocs()
	for b.Loop() {
		buf = s.Terms(buf[:0], text)
	}
}

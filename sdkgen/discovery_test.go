package sdkgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// discoveryQuery is one entry of a discovery corpus's queries.json: a task as a user
// puts it to an agent, optionally the query the agent passes to tools.$search for it,
// and the tools that serve it.
type discoveryQuery struct {
	Query      string   `json:"query"`
	Search     string   `json:"search"`
	Acceptable []string `json:"acceptable"`
}

// loadDiscovery reads a corpus directory (tools.json and queries.json); ok is false
// when its files are absent.
func loadDiscovery(t testing.TB, dir string) (tools []Tool, queries []discoveryQuery, ok bool) {
	t.Helper()
	td, err := os.ReadFile(filepath.Join(dir, "tools.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	queries, ok = loadQueries(t, filepath.Join(dir, "queries.json"))
	if !ok {
		return nil, nil, false
	}
	return decodeTools(t, string(td)), queries, true
}

// loadQueries reads a file of queries ({"queries": [...]}); ok is false when it is absent.
func loadQueries(t testing.TB, path string) (queries []discoveryQuery, ok bool) {
	t.Helper()
	qd, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var qs struct {
		Queries []discoveryQuery `json:"queries"`
	}
	if err := json.Unmarshal(qd, &qs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return qs.Queries, true
}

// recall searches ix with each query's text (text picks the field) and returns the
// share of queries with an acceptable tool first (r1) and in the top 5 (r5), and a line
// per query that has none in the top 5.
func recall(t testing.TB, ix *Index, queries []discoveryQuery, text func(discoveryQuery) string) (r1, r5 float64, misses []string) {
	t.Helper()
	var at1, at5 int
	for _, q := range queries {
		s := text(q)
		if s == "" {
			t.Fatalf("query %q has no text to search with", q.Query)
		}
		hits := ix.Search(s, 5, nil)
		rank := slices.IndexFunc(hits, func(h Hit) bool { return slices.Contains(q.Acceptable, h.Name) })
		if rank == 0 {
			at1++
		}
		if rank >= 0 {
			at5++
			continue
		}
		names := make([]string, len(hits))
		for i, h := range hits {
			names[i] = h.Name
		}
		misses = append(misses, fmt.Sprintf("%q wants %v, got %v", s, q.Acceptable, names))
	}
	n := float64(len(queries))
	return float64(at1) / n, float64(at5) / n, misses
}

// TestRecall measures search quality: recall@1 and recall@5 are logged, and either
// under its floor fails. The project's corpus (testdata/discovery at the repository
// root: 619 real MCP tools) is searched three ways: queries.json's 104 tasks with the
// agent's search queries (written for each task by someone who saw the tasks and the
// server names but no tool), which must reach the goal of 0.9 at 5; the same tasks as
// the user worded them; and tasks.json's 273 tasks, worded as a user or a model states
// a task and written before the ranking was tuned (see its README). The floors of the
// last two are what the ranking reaches today, a little below, so that any loss fails;
// they are short of the goal the issue set for tasks.json (recall@5 0.95, recall@1
// 0.75), which lexical ranking does not reach (BENCHMARKS.md). This package's small
// fixture must stay at the goal with its task wording.
func TestRecall(t *testing.T) {
	query := func(q discoveryQuery) string { return q.Query }
	search := func(q discoveryQuery) string { return q.Search }
	for _, tc := range []struct {
		name, dir, file string
		text            func(discoveryQuery) string
		floor1, floor5  float64
	}{
		{"fixture", "testdata/discovery", "queries.json", query, 0.9, 0.95},
		{"corpus/search", "../testdata/discovery", "queries.json", search, 0.77, 0.9},
		{"corpus/query", "../testdata/discovery", "queries.json", query, 0.44, 0.64},
		{"corpus/tasks", "../testdata/discovery", "tasks.json", query, 0.44, 0.76},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, _, ok := loadDiscovery(t, tc.dir)
			if !ok {
				t.Fatalf("%s/tools.json or queries.json is missing", tc.dir)
			}
			queries, ok := loadQueries(t, filepath.Join(tc.dir, tc.file))
			if !ok {
				t.Fatalf("%s/%s is missing", tc.dir, tc.file)
			}
			ix := NewIndex(tools, nil)
			r1, r5, misses := recall(t, ix, queries, tc.text)
			for _, m := range misses {
				t.Logf("miss: %s", m)
			}
			t.Logf("%d tools, %d queries: recall@1 %.3f, recall@5 %.3f", ix.Len(), len(queries), r1, r5)
			if r1 < tc.floor1 {
				t.Errorf("recall@1 is %.3f, below the floor of %.2f", r1, tc.floor1)
			}
			if r5 < tc.floor5 {
				t.Errorf("recall@5 is %.3f, below the floor of %.2f", r5, tc.floor5)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	tools, _, _ := loadDiscovery(t, "testdata/discovery")
	ix := NewIndex(tools, nil)
	names := func(hs []Hit) []string {
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = h.Name
		}
		return out
	}
	if got := names(ix.Search("screenshot", 3, nil)); len(got) == 0 || got[0] != "browser_take_screenshot" {
		t.Errorf("search screenshot = %v, want browser_take_screenshot first", got)
	}
	if got := ix.Search("zzzz qqqq", 8, nil); got != nil {
		t.Errorf("a query matching nothing returned %v", names(got))
	}
	if got := ix.Search("file", 2, nil); len(got) != 2 {
		t.Errorf("limit 2 returned %d hits", len(got))
	}
	keep := func(n string) bool { return n != "read_file" }
	if got := names(ix.Search("read file", 8, keep)); slices.Contains(got, "read_file") {
		t.Errorf("a filtered tool was returned: %v", got)
	}
	// Deterministic whatever the input order.
	rev := slices.Clone(tools)
	slices.Reverse(rev)
	if diff := cmp.Diff(ix.Search("file directory", 10, nil), NewIndex(rev, nil).Search("file directory", 10, nil)); diff != "" {
		t.Errorf("ranking depends on input order:\n%s", diff)
	}
	// A limit keeps the first of the whole ranking, whatever it is.
	corpus, _, _ := loadDiscovery(t, "../testdata/discovery")
	cx := NewIndex(corpus, nil)
	for _, q := range []string{"get", "list the issues", "create a new file in the repo", "twilio call"} {
		all := cx.Search(q, len(corpus), nil)
		for _, limit := range []int{1, 2, 5, 8, 50} {
			if diff := cmp.Diff(all[:min(limit, len(all))], cx.Search(q, limit, nil)); diff != "" {
				t.Errorf("Search(%q, %d) is not the first %d of the whole ranking:\n%s", q, limit, limit, diff)
			}
		}
	}
	if got := ix.Suggest("read_fiel", nil); got != "read_file" {
		t.Errorf("Suggest(read_fiel) = %q", got)
	}
	if got := ix.Suggest("completely_different", nil); got != "" {
		t.Errorf("Suggest of a far name = %q, want none", got)
	}
}

func TestFirstSentence(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct{ in, want string }{
		{"Read a file. Then more.", "Read a file."},
		{"  Spaced\n  out   text  ", "Spaced out text"},
		{"Version 1.2 of it. More", "Version 1.2 of it."},
		{"", ""},
		{long, strings.TrimSpace(long[:99]) + "…"},
	} {
		if got := FirstSentence(tc.in); got != tc.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSectionBudget(t *testing.T) {
	tools, _, _ := loadDiscovery(t, "testdata/discovery")
	full := Render(tools)
	if got := Section(tools, nil); got.Index || got.Section != full.Section {
		t.Errorf("under the default budget the section is not the full SDK")
	}
	idx := Section(tools, &Options{Budget: 100})
	if !idx.Index {
		t.Fatal("over the budget the section is not an index")
	}
	if got := Section(tools, &Options{Budget: 100, Full: true}); got.Index {
		t.Error("Full did not force the full SDK")
	}
	if got := Section(tools, &Options{Budget: -1}); got.Index {
		t.Error("a negative budget did not mean always full")
	}
	rev := slices.Clone(tools)
	slices.Reverse(rev)
	if got := Section(rev, &Options{Budget: 100}); got.Section != idx.Section {
		t.Error("the index depends on the tools' order")
	}
	wantContains(t, "the index", idx.Section, "There are 30 tools", "github (9 tools):", "- create_issue: Create a new issue in a GitHub repository.", "tools.$search", "tools.$describe", "declare const tools: { [name: string]: (args: any) => Promise<any> } & ")
}

func TestDeferLoading(t *testing.T) {
	tools := []Tool{
		{Name: "shown", Description: "Shown."},
		{Name: "lazy", Description: "Lazy.", DeferLoading: true},
		{Name: "odd-name", Description: "Odd.", DeferLoading: true},
	}
	sdk := Render(tools)
	if strings.Contains(sdk.Declarations, "lazy") {
		t.Errorf("a deferLoading tool is declared:\n%s", sdk.Declarations)
	}
	if want := "\nAlso available, declarations via `tools.$describe`: lazy, tools[\"odd-name\"]\n"; !strings.HasSuffix(sdk.Section, want) {
		t.Errorf("section does not end with %q:\n%s", want, sdk.Section)
	}
	d := Declarations(tools[1:2])
	want := "interface ToolArgsMap {\n  /** Lazy. */\n  lazy: Record<string, JsonValue>;\n}\n\ninterface ToolOutputMap {\n  lazy: JsonValue;\n}\n"
	if d != want {
		t.Errorf("Declarations = %q, want %q", d, want)
	}
}

// synthTools makes n distinct tools from the fixture, renamed and reworded, for the
// benchmarks.
func synthTools(b testing.TB, n int) []Tool {
	base, _, _ := loadDiscovery(b, "testdata/discovery")
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon")
	out := make([]Tool, n)
	for i := range out {
		t := base[i%len(base)]
		w := words[(i/len(base))%len(words)]
		t.Name = fmt.Sprintf("%s_%s_%d", w, t.Name, i)
		t.Description = t.Description + " Works on " + w + " items."
		t.Source = fmt.Sprintf("server%d", i%7)
		out[i] = t
	}
	return out
}

func BenchmarkIndexBuild1000(b *testing.B) {
	tools := synthTools(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		NewIndex(tools, nil)
	}
}

func BenchmarkSearch1000(b *testing.B) {
	ix := NewIndex(synthTools(b, 1000), nil)
	queries := []string{"open a bug report on the repo", "take a screenshot of the page", "what time is it in Tokyo", "send a message to a Slack channel"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.Search(queries[i%len(queries)], 8, nil)
		i++
	}
}

// The project's corpus: 619 real MCP tools, searched with tasks.json's task wording.
func BenchmarkIndexBuildCorpus(b *testing.B) {
	tools, _, _ := loadDiscovery(b, "../testdata/discovery")
	b.ReportAllocs()
	for b.Loop() {
		NewIndex(tools, nil)
	}
}

func BenchmarkSearchCorpus(b *testing.B) {
	tools, _, _ := loadDiscovery(b, "../testdata/discovery")
	queries, _ := loadQueries(b, "../testdata/discovery/tasks.json")
	ix := NewIndex(tools, nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.Search(queries[i%len(queries)].Query, 8, nil)
		i++
	}
}

// TestIndexTypeChecks: tsc --strict accepts a program written against the index alone
// (any-typed members, $search and $describe), and once the program carries the text
// $describe returns, calls are typed: a wrong argument fails.
func TestIndexTypeChecks(t *testing.T) {
	tsc := findTSC(t)
	tools, _, _ := loadDiscovery(t, "testdata/discovery")
	idx := Section(tools, &Options{Budget: 1})
	described := idx.Declarations + "\n" + Declarations([]Tool{tools[slices.IndexFunc(tools, func(x Tool) bool { return x.Name == "read_file" })]})
	res := typeCheck(t, tsc, []tsProject{
		{name: "index", sdk: idx.Declarations, programs: map[string]string{
			"search.ts": `const hits = await tools.$search("read a file", { limit: 3 });
const text: string = await tools.$describe(...hits.map((h) => h.name), "write_file");
const r = await tools.read_file({ path: "a" });
try { await tools["odd-name"]({}); } catch (e) { if (e instanceof ToolCallError) console.log(e.code, e.toolName); }
return { n: hits.length, d: hits[0].declaration + text, r };`,
		}},
		{name: "described", sdk: described, programs: map[string]string{
			"typed.ts": `const text = await tools.read_file({ path: "a" });
const v: JsonValue = text;
const s = typeof v === "string" ? v.trim() : "";
const other = await tools.write_file({ path: "b", content: s });
return other;`,
			"wrong.ts": `await tools.read_file({ nope: 1 });`,
		}},
	})
	for proj, files := range res {
		for file, diags := range files {
			if proj == "described" && file == "wrong.ts" {
				continue
			}
			t.Errorf("%s/%s: %v", proj, file, diags)
		}
	}
	if len(res["described"]["wrong.ts"]) == 0 {
		t.Error("a wrong argument to a described tool type-checked: calls are not typed")
	}
}

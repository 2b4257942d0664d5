package runcode_test

// This file enforces the dependency direction of docs/architecture.md.
//
// The table below is policy, not bookkeeping: change it only with a reason in the
// commit message (a new edge is a design decision), never to make a build pass.

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/runcode-go/runcode"

// allowed maps each package (relative to the module root) to the packages of ours and
// the external module paths it may import in non-test files. Standard-library imports
// are always allowed. A package directory that is not in this table fails the test, and
// so does an allowed edge that no non-test file uses (the table says what is, not what
// might be).
var allowed = map[string][]string{
	"registry":          {"internal/jsontext", "internal/jsonschema"},
	"pipeline":          {"registry"},
	"sdkgen":            {"registry", "internal/jsontext", "internal/editdist", "internal/searchtext"},
	"manifest":          {"registry"},
	"native":            {"pipeline", "registry"},
	"runtime":           {"internal/jsvm", "internal/jsprep", "golang.org/x/sync"},
	"runtime/worker":    {"runtime", "internal/jsvm", "internal/jsprep", "internal/procfd", "internal/procstat"},
	"internal/hostile":  {},
	"internal/testwait": {},
	"internal/testproc": {},
	"internal/testpg":   {"github.com/jackc/pgx/v5"},
	// The TestMain leak check is goleak's, shared by packages whose tests run programs.
	"internal/testleak": {"go.uber.org/goleak"},
	"internal/testfs":   {},
	"internal/testreg":  {"registry"},
	"internal/testexec": {"ptc", "native", "pipeline", "registry", "runtime"},
	// Preparing a program: text in, a compiled program out; no VM, no pool.
	"internal/jsprep": {"github.com/dop251/goja", "github.com/evanw/esbuild"},
	// A program's shape for suggested scripts: analysis of a program that ran, read
	// from goja's syntax tree as jsprep parses it, outside the runtime's imports.
	"internal/jsshape": {"internal/jsprep", "github.com/dop251/goja"},
	// One VM and the run on it, under runtime's public API and the worker's child; it
	// reads the heap profile (pprof) to attribute memory to runs.
	"internal/jsvm":     {"internal/jsprep", "internal/jsontext", "github.com/dop251/goja", "github.com/dop251/goja_nodejs", "github.com/google/pprof"},
	"internal/procfd":   {},
	"internal/jsontext": {},
	"internal/editdist": {},
	// JSON Schema compile and validate, written for the registry: no package init of
	// its own (a schema library's metaschemas cost every process that linked it).
	"internal/jsonschema": {"internal/boundre"},
	"internal/boundre":    {},
	// Tool discovery's text processing: words, stop words and synonyms, and stems from
	// a maintained Snowball stemmer (pure Go, no dependencies of its own).
	"internal/searchtext": {"github.com/kljensen/snowball"},
	"internal/procstat":   {},
	"bindings":            {"runtime", "pipeline", "registry", "sdkgen"},
	"ptc":                 {"bindings", "runtime", "pipeline", "registry", "sdkgen", "store", "internal/jsontext", "internal/jsshape"},
	"workspace":           {"registry", "internal/boundre", "github.com/bmatcuk/doublestar/v4"},
	"mcpbridge":           {"pipeline", "registry", "github.com/modelcontextprotocol/go-sdk"},
	"internal/bench":      {"ptc", "pipeline", "registry", "runtime", "internal/jsvm", "internal/procstat"},
	"cmd/runcode":         {"workspace", "mcpbridge", "ptc", "native", "runtime", "runtime/worker", "pipeline", "registry", "sdkgen", "manifest", "bindings", "store", "store/sqlite", "store/postgres", "internal/bench", "internal/editdist"},
	// Where runs outlive a request: the contract and the memory store, then one package
	// per durable backend, each alone with its driver (so a binary pays only for the
	// backends it imports), sharing how records are laid out in rows.
	"store":                {},
	"store/internal/dbfmt": {},
	"store/sqlite":         {"store", "modernc.org/sqlite"},
	"store/postgres":       {"store", "github.com/jackc/pgx/v5"},
	// The suite every Store passes, public so that a Store written elsewhere can run
	// it too (like testing/fstest); a test helper, so no non-test file imports it.
	"store/storetest": {"store", "github.com/google/go-cmp"},
	// contrib/ modules are integrations on top of the core's seams; only they may
	// import the third-party SDKs they integrate.
	// The MCP SDK's middleware type is what the MCP semantic-convention spans plug into
	// (mcpbridge's Server/ClientOptions.Middleware).
	"contrib/otel": {"mcpbridge", "ptc", "pipeline", "registry", "go.opentelemetry.io/otel", "github.com/modelcontextprotocol/go-sdk"},
	// Tracing for a served runcode: the exporter the OTEL_* variables choose, and
	// package otel's hooks applied to a server's options (runcode serve --trace).
	"contrib/otel/otelserve": {"contrib/otel", "mcpbridge", "pipeline", "ptc", "registry", "go.opentelemetry.io/otel"},
	// A module of its own (contrib/openai/go.mod): the provider SDK stays out of the
	// core module, and the adapter sees runcode only through the Executor interface.
	"contrib/openai": {"pipeline", "registry", "github.com/openai/openai-go/v3"},
	// Integrations are modules of their own (so the core module never requires a provider
	// SDK); the walk still sees them, and they keep to the executor's interface.
	"contrib/anthropic": {"pipeline", "registry", "github.com/anthropics/anthropic-sdk-go/v2"},
	// Agent frameworks, each a module of its own: both directions (runcode's tools in the
	// framework's types, the framework's tools as a registry source), through the
	// executor's interface. Eino's tool infos hold its own JSON Schema type, from
	// eino-contrib/jsonschema.
	"contrib/eino":   {"pipeline", "registry", "github.com/cloudwego/eino", "github.com/eino-contrib/jsonschema"},
	"contrib/genkit": {"pipeline", "registry", "github.com/firebase/genkit/go"},
}

// testOnly lists what every package's _test.go files may import on top of the table
// (and on top of the package itself, for external _test packages).
var testOnly = []string{"github.com/google/go-cmp", "go.uber.org/goleak"}

// testAllowed lists packages of ours and external modules that a package's tests may
// use beyond its row, where the tests exercise the package the way users do (tools
// through the pipeline, a served run_code through an MCP client).
var testAllowed = map[string][]string{
	"workspace": {"pipeline"},
	"mcpbridge": {"ptc", "native", "sdkgen", "runtime"},
	// What recording every sub-call in a SQLite file costs a run (BenchmarkRecording);
	// kept results' per-session index under concurrent keeps from two connections to
	// one SQLite file or PostgreSQL database, as two processes would keep them.
	"ptc": {"store/sqlite", "store/postgres"},
	// The hostile corpus: both runtimes run it, so that each shape ends the same way.
	// runtime's tests also compare a run's globals with a bare goja VM's.
	"runtime":        {"internal/hostile", "github.com/dop251/goja"},
	"runtime/worker": {"internal/hostile"},
	// The scenarios benchmarked in worker processes, as runcode bench --isolation process
	// runs them (the harness itself is given its workers by the command).
	"internal/bench": {"runtime/worker"},
	"cmd/runcode":    {"internal/procstat", "github.com/modelcontextprotocol/go-sdk"},
	// Spans across run_code in both isolation modes, and across MCP from a Go SDK
	// client to a served native executor.
	"contrib/otel": {"runtime", "runtime/worker", "native", "github.com/modelcontextprotocol/go-sdk"},
	// runcode serve --trace, built and driven by a Go SDK client.
	"contrib/otel/otelserve": {"github.com/modelcontextprotocol/go-sdk"},
	// The round trips run real executors: run_code on a pool, and native; a saved pause
	// resumes on another executor sharing a store.
	"contrib/openai": {"ptc", "native", "runtime", "store"},
	// Real executors behind the adapter, as a host wires them (and a store shared by two).
	"contrib/anthropic": {"ptc", "native", "runtime", "store"},
	// Real executors (and a store shared by two), and eino-ext's OpenAI chat model as the
	// client of the round trips.
	"contrib/eino": {"ptc", "native", "runtime", "store", "github.com/cloudwego/eino-ext"},
	// Real executors (and a store shared by two), and Genkit's OpenAI plugin (on the
	// OpenAI SDK, whose option package points it at the loopback server) as the client of
	// the round trips.
	"contrib/genkit": {"ptc", "native", "runtime", "store", "github.com/openai/openai-go"},
}

// gojaAllowed is checked on top of the table: goja appears only in the internal packages
// runtime is built over, in bindings, and in internal/jsshape, which reads the syntax
// tree of a program that ran (its parser and ast, never a VM) for ptc.
var gojaAllowed = []string{"internal/jsprep", "internal/jsvm", "internal/jsshape", "bindings"}

func TestImportTable(t *testing.T) {
	pkgs := packageImports(t)
	if len(pkgs) == 0 {
		t.Fatal("found no Go packages under the module root")
	}
	for dir, imps := range pkgs {
		rules, ok := allowed[dir]
		if dir == "." {
			continue // the root holds only this test
		}
		if !ok {
			t.Errorf("package %q is not in the import table of deps_test.go; add it with its allowed imports", dir)
			continue
		}
		for imp, isTest := range imps {
			if !isOurs(imp) && isStd(imp) {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if isOurs(imp) && rel == dir {
				continue // external _test package importing the package under test
			}
			if isTest && (slices.ContainsFunc(testOnly, func(m string) bool { return within(imp, m) }) ||
				slices.Contains(testHelpers, rel) || strings.HasPrefix(rel, dir+"/") || permits(testAllowed[dir], imp)) {
				continue
			}
			if !permits(rules, imp) {
				kind := "file"
				if isTest {
					kind = "test file"
				}
				t.Errorf("%s: a %s imports %q, which the import table does not allow", dir, kind, imp)
			}
			if within(imp, "github.com/dop251/goja") && !slices.Contains(gojaAllowed, dir) {
				t.Errorf("%s imports goja; only %v may", dir, gojaAllowed)
			}
			if within(imp, "go.opentelemetry.io") && !strings.HasPrefix(dir, "contrib/") {
				t.Errorf("%s imports OpenTelemetry; only contrib/ modules may", dir)
			}
		}
	}
}

// TestEveryPackageHasDoc pins the rule that each library package opens with a doc.go.
func TestEveryPackageHasDoc(t *testing.T) {
	for dir := range packageImports(t) {
		if dir == "." || strings.HasPrefix(dir, "cmd/") || strings.Contains(dir, "testdata") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "doc.go")); err != nil {
			t.Errorf("package %q has no doc.go", dir)
		}
	}
}

func permits(rules []string, imp string) bool {
	for _, r := range rules {
		if strings.Contains(r, ".") { // an external module path
			if within(imp, r) {
				return true
			}
			continue
		}
		if imp == module+"/"+r || strings.HasPrefix(imp, module+"/"+r+"/internal/") {
			return true
		}
	}
	return false
}

// testHelpers are packages of ours for tests only: no non-test file may import them.
// The bench harness (internal/bench) is the CLI's too (runcode bench), and no one else's.
var testHelpers = []string{"internal/hostile", "internal/testwait", "internal/testleak", "internal/testfs", "internal/testreg", "internal/testexec", "internal/testpg", "internal/testproc", "store/storetest"}

func TestHelpersStayInTests(t *testing.T) {
	for dir, imps := range packageImports(t) {
		for imp, isTest := range imps {
			rel := strings.TrimPrefix(imp, module+"/")
			if isTest || !isOurs(imp) {
				continue
			}
			if slices.Contains(testHelpers, rel) && !slices.Contains(testHelpers, dir) {
				t.Errorf("%s: a non-test file imports the test helper %s", dir, rel)
			}
			if rel == "internal/bench" && dir != "cmd/runcode" {
				t.Errorf("%s: a non-test file imports the bench harness, which only cmd/runcode may", dir)
			}
		}
	}
}

// TestNoUnusedEdges fails on an allowed edge that no non-test file of the package uses.
func TestNoUnusedEdges(t *testing.T) {
	pkgs := packageImports(t)
	for dir, rules := range allowed {
		imps, ok := pkgs[dir]
		if !ok {
			t.Errorf("the import table names %q, which is not a package", dir)
			continue
		}
		for _, r := range rules {
			used := false
			for imp, isTest := range imps {
				if !isTest && permits([]string{r}, imp) {
					used = true
					break
				}
			}
			if !used {
				t.Errorf("%s: the import table allows %q, which no non-test file imports; remove the edge", dir, r)
			}
		}
	}
}

func within(imp, mod string) bool { return imp == mod || strings.HasPrefix(imp, mod+"/") }
func isOurs(imp string) bool      { return within(imp, module) }
func isStd(imp string) bool       { return !strings.Contains(strings.Split(imp, "/")[0], ".") }

// packageImports returns, per package directory, each import and whether it appears only
// in _test.go files.
func packageImports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := path.Clean(filepath.ToSlash(filepath.Dir(p)))
		if out[dir] == nil {
			out[dir] = map[string]bool{}
		}
		isTest := strings.HasSuffix(name, "_test.go")
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if prev, seen := out[dir][imp]; seen {
				out[dir][imp] = prev && isTest
			} else {
				out[dir][imp] = isTest
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

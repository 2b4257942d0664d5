package jsonschema

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The official JSON-Schema-Test-Suite, as github.com/google/jsonschema-go carries it
// (a module already in go.mod, through the MCP SDK): its draft 2020-12 and draft-07
// directories, read where the module cache holds them rather than copied here.
const suiteModule = "github.com/google/jsonschema-go"

// suiteSkips lists the groups ("file/description") and cases
// ("file/description/case") that are not run, each for a reason the package
// documents.
var suiteSkips = map[string]string{
	// References to other documents: the suite serves its remotes from
	// http://localhost:1234, and this package resolves references only inside the
	// schema (by design; they do not compile).
	"draft2020-12/refRemote.json": "remote refs",
	"draft7/refRemote.json":       "remote refs",
	"draft2020-12/dynamicRef.json/strict-tree schema, guards against misspelled properties":       "remote refs",
	"draft2020-12/dynamicRef.json/tests for implementation dynamic anchor and reference link":     "remote refs",
	"draft2020-12/dynamicRef.json/$ref and $dynamicAnchor are independent of order - $defs first": "remote refs",
	"draft2020-12/dynamicRef.json/$ref and $dynamicAnchor are independent of order - $ref first":  "remote refs",
	"draft2020-12/dynamicRef.json/$ref to $dynamicRef finds detached $dynamicAnchor":              "remote refs",
	// References to the drafts' metaschemas (json-schema.org), which this package does
	// not embed: validating a schema against its metaschema is not its job.
	"draft2020-12/defs.json/validate definition against metaschema":  "metaschema ref",
	"draft2020-12/ref.json/remote ref, containing refs itself":       "metaschema ref",
	"draft7/definitions.json/validate definition against metaschema": "metaschema ref",
	"draft7/ref.json/remote ref, containing refs itself":             "metaschema ref",
}

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

func suiteDir(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not available to locate %s (the JSON-Schema-Test-Suite): %v", suiteModule, err)
	}
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}", suiteModule).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m %s: %v (%q); run go mod download %s", suiteModule, err, out, suiteModule)
	}
	return filepath.Join(dir, "jsonschema", "testdata")
}

func decode(t testing.TB, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return v
}

// TestSuite runs every case of the suite's draft2020-12 and draft7 directories
// (except suiteSkips), through both Valid and Validate.
func TestSuite(t *testing.T) {
	root := suiteDir(t)
	var run, passed, skipped int
	for _, d := range []struct {
		dir   string
		draft Draft
	}{{"draft2020-12", Draft2020}, {"draft7", Draft7}} {
		files, err := filepath.Glob(filepath.Join(root, d.dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no suite files in %s: %v", filepath.Join(root, d.dir), err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteGroup
			if err := json.Unmarshal(data, &groups); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			name := d.dir + "/" + filepath.Base(file)
			for _, g := range groups {
				key := name + "/" + g.Description
				if _, skip := suiteSkips[name]; skip {
					skipped += len(g.Tests)
					continue
				}
				if _, skip := suiteSkips[key]; skip {
					skipped += len(g.Tests)
					continue
				}
				s, err := Compile(decode(t, g.Schema), &CompileOptions{Draft: d.draft})
				if err != nil {
					t.Errorf("%s: compile: %v", key, err)
					continue
				}
				for _, c := range g.Tests {
					if _, skip := suiteSkips[key+"/"+c.Description]; skip {
						skipped++
						continue
					}
					run++
					v := decode(t, c.Data)
					valid := s.Valid(v)
					violations := s.Validate(v)
					if valid != c.Valid || (violations == nil) != c.Valid {
						t.Errorf("%s/%s: Valid = %v, Validate = %v; want valid %v\nschema %s\ndata %s", key, c.Description, valid, violations, c.Valid, g.Schema, c.Data)
						continue
					}
					passed++
				}
			}
		}
	}
	t.Logf("suite: %d cases run, %d passed, %d skipped", run, passed, skipped)
}

package sdkgen

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
)

// TestLibNamesCurrent checks that libnames.txt holds every top-level name of the
// installed TypeScript's standard library, so that no alias collides with one. After
// upgrading typescript, regenerate the list if this fails.
func TestLibNamesCurrent(t *testing.T) {
	tsc := findTSC(t)
	root := filepath.Dir(filepath.Dir(filepath.Dir(tsc))) // .../node_modules/.bin/tsc -> repo
	libs, _ := filepath.Glob(filepath.Join(root, "node_modules", "@typescript", "*", "lib", "lib.*.d.ts"))
	more, _ := filepath.Glob(filepath.Join(root, "node_modules", "typescript", "lib", "lib.*.d.ts"))
	libs = append(libs, more...)
	if len(libs) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no lib.*.d.ts files found next to tsc, and CI is set: has the typescript package's layout changed?")
		}
		t.Skip("no lib.*.d.ts files found next to tsc")
	}
	decl := regexp.MustCompile(`(?m)^(?:declare )?(?:interface|type|class|enum|namespace|var|const|let|function) ([A-Za-z_$][A-Za-z0-9_$]*)`)
	missing := map[string]bool{}
	for _, f := range libs {
		data := testfs.Read(t, f)
		for _, m := range decl.FindAllStringSubmatch(data, -1) {
			if !reserved()[m[1]] {
				missing[m[1]] = true
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("libnames.txt lacks %d names the TypeScript library declares, e.g. %v", len(missing), missing)
	}
}

package sdkgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// findTSC walks up from the package directory to node_modules/.bin/tsc (installed by
// `npm ci` at the repository root). Without it the test skips, unless CI is set.
func findTSC(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "node_modules", ".bin", "tsc")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if os.Getenv("CI") != "" {
		t.Fatal("node_modules/.bin/tsc not found and CI is set: .ci/run must run `npm ci` at the repository root before go test")
	}
	t.Skip("node_modules/.bin/tsc not found: run `npm ci` at the repository root to type-check generated SDKs")
	return ""
}

// tsProject is one TypeScript program to check: an SDK as a global script, and
// programs, each the body of an async function.
type tsProject struct {
	name     string
	sdk      string
	programs map[string]string // file name -> program body
}

// tsDiagnostic is one tsc error.
type tsDiagnostic struct {
	file, code, text string
}

var diagLine = regexp.MustCompile(`^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$`)

// typeCheck checks all projects with one tsc invocation (build mode over one
// tsconfig per project, so that each SDK's globals stay apart) and returns the errors
// by project and file ("sdk.ts" or a program's name).
func typeCheck(t *testing.T, tsc string, projects []tsProject) map[string]map[string][]tsDiagnostic {
	t.Helper()
	root := t.TempDir()
	args := []string{"-b", "--pretty", "false"}
	for _, p := range projects {
		dir := filepath.Join(root, p.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files := []string{"sdk.ts"}
		write := func(name, text string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("sdk.ts", p.sdk)
		for i, name := range slices.Sorted(func(yield func(string) bool) {
			for n := range p.programs {
				if !yield(n) {
					return
				}
			}
		}) {
			// Each program is a function body, as run_code runs it.
			write(name, fmt.Sprintf("async function program%d() {\n%s\n}\n", i, p.programs[name]))
			files = append(files, name)
		}
		cfg, _ := json.Marshal(map[string]any{
			"compilerOptions": map[string]any{"strict": true, "noEmit": true, "types": []string{}, "skipLibCheck": true},
			"files":           files,
		})
		write("tsconfig.json", string(cfg))
		args = append(args, p.name)
	}
	cmd := exec.Command(tsc, args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("running tsc: %v", err)
	}
	res := map[string]map[string][]tsDiagnostic{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := diagLine.FindStringSubmatch(sc.Text())
		if m == nil {
			if strings.TrimSpace(sc.Text()) != "" && !strings.HasPrefix(sc.Text(), " ") {
				t.Logf("tsc: %s", sc.Text())
			}
			continue
		}
		proj, file, _ := strings.Cut(filepath.ToSlash(m[1]), "/")
		if res[proj] == nil {
			res[proj] = map[string][]tsDiagnostic{}
		}
		res[proj][file] = append(res[proj][file], tsDiagnostic{file: file, code: m[2], text: m[3]})
	}
	if err != nil && len(res) == 0 {
		t.Fatalf("tsc failed without diagnostics:\n%s", out)
	}
	return res
}

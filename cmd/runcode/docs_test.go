package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
)

// TestReadmeCountsPrograms: the README's count of the example programs in
// testdata/programs/ is the number of programs pinned there (one *.want.json each).
func TestReadmeCountsPrograms(t *testing.T) {
	pinned, err := filepath.Glob(filepath.Join(programsDir, "*.want.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`testdata/programs/` holds (\\d+) such").FindStringSubmatch(testfs.Read(t, "../../README.md"))
	if m == nil {
		t.Fatal("README.md no longer counts the programs of testdata/programs/")
	}
	if n, _ := strconv.Atoi(m[1]); n != len(pinned) {
		t.Errorf("README.md says testdata/programs/ holds %d programs; it holds %d", n, len(pinned))
	}
}

package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Read returns the content of the file at path.
func Read(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Temp writes text to a file named name in a fresh temporary directory, which the
// test's cleanup removes, and returns the file's path.
func Temp(t testing.TB, name, text string) string {
	t.Helper()
	dir := t.TempDir()
	Tree(t, dir, map[string]string{name: text})
	return filepath.Join(dir, filepath.FromSlash(name))
}

// Tree writes files under dir: each key is a slash-separated path relative to dir
// (its directories are created), each value the file's text.
func Tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// TestGrepLongLines: a matching line comes back cut after MaxLineBytes, on a character
// boundary, saying how much was left out; matches past the cut still count.
func TestGrepLongLines(t *testing.T) {
	dir := t.TempDir()
	line := "x" + strings.Repeat("é", 600) + "needle" // 1,207 bytes; byte 1,024 is inside an é
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), []byte("short needle\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	out, err := ws.grep(context.Background(), &registry.Call{Args: registry.MustParseValue(`{"pattern":"needle"}`)})
	if err != nil {
		t.Fatal(err)
	}
	matches := out.(map[string]any)["matches"].([]map[string]any)
	want := []string{"short needle", "x" + strings.Repeat("é", 511) + "… (184 more bytes)"}
	if len(matches) != 2 || matches[0]["text"] != want[0] || matches[1]["text"] != want[1] {
		t.Errorf("matches = %v, want texts %q", matches, want)
	}
}

// TestGrepCancelled: a pattern whose matching over one long line would keep a CPU busy for
// about fifteen seconds (without the cancellable reader) ends with the call's
// cancellation instead.
func TestGrepCancelled(t *testing.T) {
	line := strings.Repeat("a", 1<<20)
	pat, err := compilePattern(`[a-z]{0,1000}x`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ok, err := pat.match(ctx, []byte(line)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("match = %v, %v; want the context's error", ok, err)
	}
	// Short and long lines match as they would without a reader.
	for _, l := range []string{"abcx", strings.Repeat("b", 4096) + "x"} {
		if ok, err := pat.match(context.Background(), []byte(l)); !ok || err != nil {
			t.Errorf("match(%d bytes) = %v, %v; want a match", len(l), ok, err)
		}
	}
}

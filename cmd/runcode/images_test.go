package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxImageBytes: a run attaches a workspace image's reads up to --max-image-bytes;
// the text on stdout says how many were left out and why, and stderr lists the ones
// attached.
func TestMaxImageBytes(t *testing.T) {
	root := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 700)...) // 944 bytes of base64
	if err := os.WriteFile(filepath.Join(root, "shot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "prog.js")
	if err := os.WriteFile(prog, []byte(`for (let i = 0; i < 3; i++) await tools.read_file({path: "shot.png"}); return "read 3"`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "run", "--root", root, "--max-image-bytes", "1KiB", prog)
	want := "read 3\n[2 of 3 images left out, from sub-call call-1:code:2 (read_file) on: a run's images may take at most 1 KiB of base64 data; read fewer or smaller images per run]\n"
	if code != exitOK || stdout != want {
		t.Errorf("exit %d, stdout %q; want 0, %q", code, stdout, want)
	}
	if got := strings.Count(stderr, "image from read_file"); got != 1 {
		t.Errorf("stderr lists %d images, want 1:\n%s", got, stderr)
	}
	code, stdout, _ = runCLI(t, "run", "--root", root, prog)
	if code != exitOK || stdout != "read 3\n" {
		t.Errorf("default budget: exit %d, stdout %q; want every image attached", code, stdout)
	}
}

// TestMaxImageBytesFlag: run and serve refuse a --max-image-bytes out of its range,
// naming the range, and both document the flag.
func TestMaxImageBytesFlag(t *testing.T) {
	for _, cmd := range []string{"run", "serve"} {
		for _, tt := range []struct{ value, want string }{
			{"-1", "runcode " + cmd + ": --max-image-bytes must be from 1 byte to 1GiB, or 0 for the default 16MiB; got -1"},
			{"2GiB", "runcode " + cmd + ": --max-image-bytes must be from 1 byte to 1GiB, or 0 for the default 16MiB; got 2GiB"},
		} {
			args := []string{cmd, "--max-image-bytes", tt.value}
			if cmd == "run" {
				args = append(args, "-")
			}
			code, stdout, stderr := runCLI(t, args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || stdout != "" || first != tt.want {
				t.Errorf("%s --max-image-bytes %s: exit %d, stdout %q, stderr %q; want 2 and %q", cmd, tt.value, code, stdout, first, tt.want)
			}
		}
		if _, stdout, _ := runCLI(t, cmd, "--help"); !strings.Contains(stdout, "-max-image-bytes BYTES") || !strings.Contains(stdout, "default 16MiB") {
			t.Errorf("%s --help does not document --max-image-bytes:\n%s", cmd, stdout)
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// TestServeBadFlags: every bad serve flag exits 2 before anything is served, and the
// first line on stderr names the flag and what would be right.
func TestServeBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"mode", []string{"--mode", "all"}, `runcode serve: unknown --mode "all"; want native, ptc or both`},
		{"isolation", []string{"--isolation", "container"}, `runcode serve: --isolation must be in-process or process, got "container"`},
		{"timeout without unit", []string{"--timeout", "10"}, `invalid value "10" for flag -timeout: want a duration with a unit, e.g. 30s, 2m or 500ms`},
		{"negative compute", []string{"--compute", "-1s"}, "runcode serve: --timeout and --compute must not be negative"},
		{"max-output unit", []string{"--max-output", "1MB"}, `invalid value "1MB" for flag -max-output: want a number of bytes, optionally followed by KiB, MiB or GiB (e.g. 1048576 or 1MiB)`},
		{"negative max-output", []string{"--max-output", "-1KiB"}, "runcode serve: --max-output must be a positive number of bytes, got -1024"},
		{"negative max-parallel", []string{"--max-parallel", "-2"}, "runcode serve: --max-parallel must be a positive integer, got -2"},
		{"negative max-calls", []string{"--max-calls", "-1"}, "runcode serve: --max-calls must not be negative, got -1"},
		{"workers", []string{"--workers", "-1"}, "runcode serve: --workers must be a positive integer, got -1"},
		{"workers not a number", []string{"--workers", "many"}, `invalid value "many" for flag -workers: parse error`},
		{"negative ceiling", []string{"--isolation", "in-process", "--memory-ceiling", "-1"}, "runcode serve: --memory-ceiling must not be negative (0 turns the ceiling off), got -1"},
		{"ceiling in process isolation", []string{"--memory-ceiling", "1GiB"}, "runcode serve: --memory-ceiling applies to --isolation in-process only (worker processes each have a hard memory limit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"serve"}, tt.args...)...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || stdout != "" || first != tt.want {
				t.Errorf("exit %d, stdout %q, stderr's first line %q\nwant exit 2, nothing on stdout, %q", code, stdout, first, tt.want)
			}
		})
	}
}

// TestServeHelp: serve --help documents every flag of the load test's and operators'.
func TestServeHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "serve", "--help")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"-timeout DURATION", "-compute DURATION", "-max-output BYTES", "-max-parallel N", "-max-calls N",
		"-workers N", "default 2 worker processes with --isolation process, 64 runs per CPU in process",
		"-memory-ceiling BYTES", "default 1GiB, or GOMEMLIMIT's limit when that is set",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, stdout)
		}
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		text string // String of the parsed value
	}{
		{"0", 0, "0"},
		{"1500", 1500, "1500"},
		{"65536", 65536, "64KiB"},
		{"64KiB", 64 << 10, "64KiB"},
		{"1 MiB", 1 << 20, "1MiB"},
		{"3GiB", 3 << 30, "3GiB"},
		{"-1", -1, "-1"},
	}
	for _, tt := range tests {
		var s byteSize
		if err := s.Set(tt.in); err != nil || int64(s) != tt.want || s.String() != tt.text {
			t.Errorf("Set(%q): %d (%q), %v; want %d (%q)", tt.in, s, s.String(), err, tt.want, tt.text)
		}
	}
	for _, in := range []string{"", "1GB", "1.5GiB", "GiB", "1e6", "99999999999GiB"} {
		var s byteSize
		if err := s.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, s)
		}
	}
}

// TestServeCeiling: the memory ceiling serve gives an in-process pool.
func TestServeCeiling(t *testing.T) {
	tests := []struct {
		name       string
		f          serveFlags
		goMemLimit bool
		want       int64
	}{
		{"default", serveFlags{isolation: isolationInProcess}, false, 1 << 30},
		{"GOMEMLIMIT", serveFlags{isolation: isolationInProcess}, true, -1},
		{"given", serveFlags{isolation: isolationInProcess, memoryCeiling: 256 << 20, set: map[string]bool{"memory-ceiling": true}}, true, 256 << 20},
		{"off", serveFlags{isolation: isolationInProcess, set: map[string]bool{"memory-ceiling": true}}, false, 0},
		{"worker processes", serveFlags{isolation: isolationProcess}, false, 0},
	}
	for _, tt := range tests {
		if got := tt.f.ceiling(tt.goMemLimit); got != tt.want {
			t.Errorf("%s: ceiling %d, want %d", tt.name, got, tt.want)
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// TestNumericFlagRanges: every numeric flag of run, serve and search refuses a value
// outside its range, 0 included where 0 is not a setting of its own (it used to mean
// "the default" silently), with a usage error that gives the range; the edges of each
// range are accepted.
func TestNumericFlagRanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // the first line on stderr; "" for an accepted value
	}{
		{"max-parallel 0", []string{"run", "--max-parallel", "0"}, "runcode run: --max-parallel must be between 1 and 1000, got 0"},
		{"max-parallel negative", []string{"serve", "--max-parallel", "-2"}, "runcode serve: --max-parallel must be between 1 and 1000, got -2"},
		{"max-parallel too many", []string{"run", "--max-parallel", "1001"}, "runcode run: --max-parallel must be between 1 and 1000, got 1001"},
		{"max-parallel 1", []string{"run", "--max-parallel", "1"}, ""},
		{"max-parallel 1000", []string{"run", "--max-parallel", "1000"}, ""},
		{"max-output 3", []string{"run", "--max-output", "3"}, "runcode run: --max-output must be between 1KiB and 1GiB, got 3"},
		{"max-output 0", []string{"serve", "--max-output", "0"}, "runcode serve: --max-output must be between 1KiB and 1GiB, got 0"},
		{"max-output negative", []string{"serve", "--max-output", "-1KiB"}, "runcode serve: --max-output must be between 1KiB and 1GiB, got -1KiB"},
		{"max-output too large", []string{"run", "--max-output", "2GiB"}, "runcode run: --max-output must be between 1KiB and 1GiB, got 2GiB"},
		{"max-output 1KiB", []string{"run", "--max-output", "1024"}, ""},
		{"max-output 1GiB", []string{"run", "--max-output", "1GiB"}, ""},
		{"max-calls 0", []string{"run", "--max-calls", "0"}, "runcode run: --max-calls must be at least 1 (leave it out for no cap), got 0"},
		{"max-calls negative", []string{"serve", "--max-calls", "-1"}, "runcode serve: --max-calls must be at least 1 (leave it out for no cap), got -1"},
		{"max-calls 1", []string{"run", "--max-calls", "1"}, ""},
		{"timeout 0", []string{"run", "--timeout", "0s"}, "runcode run: --timeout must be between 1ms and 24h, got 0s"},
		{"timeout negative", []string{"serve", "--timeout", "-1s"}, "runcode serve: --timeout must be between 1ms and 24h, got -1s"},
		{"timeout too long", []string{"run", "--timeout", "25h"}, "runcode run: --timeout must be between 1ms and 24h, got 25h0m0s"},
		{"timeout 24h", []string{"run", "--timeout", "24h"}, ""},
		{"compute 0", []string{"serve", "--compute", "0s"}, "runcode serve: --compute must be between 1ms and 24h, got 0s"},
		{"compute too short", []string{"run", "--compute", "1us"}, "runcode run: --compute must be between 1ms and 24h, got 1µs"},
		{"compute 1ms", []string{"run", "--compute", "1ms"}, ""},
		{"sdk-budget 0", []string{"run", "--sdk-budget", "0"}, ""},
		{"sdk-budget negative (always the full SDK)", []string{"run", "--sdk-budget", "-1"}, ""},
		{"workers 0", []string{"serve", "--workers", "0"}, "runcode serve: --workers must be between 1 and 256 with --isolation process, got 0"},
		{"workers too many processes", []string{"serve", "--isolation", "process", "--workers", "257"}, "runcode serve: --workers must be between 1 and 256 with --isolation process, got 257"},
		{"workers in process", []string{"serve", "--isolation", "in-process", "--workers", "0"}, "runcode serve: --workers must be between 1 and 65536 with --isolation in-process, got 0"},
		{"memory-ceiling 3", []string{"serve", "--isolation", "in-process", "--memory-ceiling", "3"}, "runcode serve: --memory-ceiling must be 0 (off) or at least 64MiB, got 3"},
		{"memory-ceiling negative", []string{"serve", "--isolation", "in-process", "--memory-ceiling", "-1"}, "runcode serve: --memory-ceiling must be 0 (off) or at least 64MiB, got -1"},
		{"search limit 0", []string{"search", "--limit", "0", "q"}, "runcode search: --limit must be between 1 and 50, got 0"},
		{"search limit 51", []string{"search", "--limit", "51", "q"}, "runcode search: --limit must be between 1 and 50, got 51"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.want == "" || args[0] == "run" {
				// Accepted values run a trivial program; refused ones never read it.
				args = append(args, "--root", t.TempDir(), "--json", "-")
			}
			if tc.want == "" && args[0] != "run" {
				t.Fatal("accepted values are tried with run")
			}
			var out, errOut strings.Builder
			code := run(t.Context(), args, strings.NewReader("return 1"), &out, &errOut)
			first, _, _ := strings.Cut(errOut.String(), "\n")
			switch {
			case tc.want == "" && code == exitUsage:
				// Accepted: the run may still fail (a 1ms compute budget on a busy machine).
				t.Errorf("exit %d, stderr %q; want the value accepted", code, errOut.String())
			case tc.want != "" && (code != exitUsage || first != tc.want):
				t.Errorf("exit %d, stderr's first line %q\nwant exit 2 and %q", code, first, tc.want)
			}
		})
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
)

// TestNoToolsHint: a program that calls a tool runcode run does not have, run without
// --tools, fails as it would for the model, and stderr says that only the workspace
// tools are loaded and names the flag. A missing member of another object, or of tools
// when a manifest was given, gets no hint.
func TestNoToolsHint(t *testing.T) {
	const hint = "runcode run: the program called tools.get_order, but no --tools manifest was given: only the workspace tools over --root are loaded (glob, grep, list_dir, read_file, stat); pass --tools MANIFEST\n"
	for _, tc := range []struct {
		name, program string
		args          []string
		stderr        string
	}{
		{"no manifest", `return await tools.get_order({id: "A1"})`, nil, hint},
		{"another object", `const o = {}; return o.get_order()`, nil, ""},
		{"a manifest", `return await tools.no_such_tool({})`, []string{"--tools", manifests + "../programs/shop.json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--root", t.TempDir()}, tc.args...)
			code, stdout, stderr := runCLI(t, append(args, testfs.Temp(t, "p.js", tc.program))...)
			if code != exitFail || !strings.Contains(stdout, "TypeError") || stderr != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant exit 1, a TypeError and stderr %q", code, stdout, stderr, tc.stderr)
			}
		})
	}
}

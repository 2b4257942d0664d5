package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	shop := filepath.Join(programsDir, "shop.json")
	tests := []cliCase{
		{"clean program", []string{"--tools", shop, filepath.Join(programsDir, "top-customers.ts")}, "", 0,
			filepath.Join(programsDir, "top-customers.ts") + ": reaches get_customer, list_orders\n", ""},
		{"did you mean", []string{"--tools", shop, "-"}, "await tools.lst_orders({});\nconst r = await tools[\"get-order\"]({ id: 'A1' });\nawait tools.zzzzzzz({});\nawait tools.run_code({});", 1,
			"program from stdin:1:13: unknown tool \"lst_orders\"; did you mean \"list_orders\"?\n" +
				"program from stdin:2:24: unknown tool \"get-order\"; did you mean \"get_order\"?\n" +
				"program from stdin:3:13: unknown tool \"zzzzzzz\"\n" +
				"program from stdin:4:13: unknown tool \"run_code\"; run_code cannot be called from a program\n" +
				"program from stdin: reaches no tools\n", ""},
		{"typescript positions", []string{"--tools", shop, "-"}, "type Id = string;\nconst id: Id = 'A1';\nawait tools.get_ordr({ id });", 1,
			"program from stdin:3:13: unknown tool \"get_ordr\"; did you mean \"get_order\"?\nprogram from stdin: reaches no tools\n", ""},
		{"aliases, destructuring and computed access", []string{"--root", programsDir, "-"},
			"const t = tools;\nconst { glob } = tools;\nawait t[\"list_dir\"]({ path: \".\" });\nawait tools[`stat`]({ path: \".\" });", 0,
			"program from stdin: reaches glob, list_dir, stat\n", ""},
		{"an unknown tool through an alias", []string{"--root", programsDir, "-"}, "const { globb } = tools;", 1,
			"program from stdin:1:9: unknown tool \"globb\"; did you mean \"glob\"?\nprogram from stdin: reaches no tools\n", ""},
		{"dynamic access", []string{"--root", programsDir, "-"}, "const t = tools;\nawait t.stat({ path: \".\" });\nfor (const n of [\"glob\"]) await t[n]({});", 0,
			"program from stdin: reaches at least stat (tools is used dynamically at 3:33)\n", ""},
		{"dynamic access only", []string{"--root", programsDir, "-"}, "const names = Object.keys(tools);", 0,
			"program from stdin: reaches tools only dynamically (at 1:27)\n", ""},
		{"syntax error", []string{"--root", programsDir, "-"}, "const x = 1;\nif (x {\n}", 1,
			"program from stdin: SyntaxError: Unexpected token { (line 2, column 7)\n    if (x {\n          ^\n", ""},
		{"workspace tools by default", []string{"--root", programsDir, filepath.Join(programsDir, "tour.ts")}, "", 0,
			filepath.Join(programsDir, "tour.ts") + ": reaches glob, read_file\n", ""},
		{"discovery members are not unknown tools", []string{"--tools", shop, "-"}, "const [h] = await tools.$search(\"order\");\nconst d = await tools.$describe(h.name);\nawait tools.get_order({ id: 'A1' });", 0,
			"program from stdin: reaches get_order\n", ""},
		{"a string built with += in a loop is a warning", []string{"--root", programsDir, "-"},
			"let out = '';\nfor (const f of await tools.glob({ pattern: '*' })) {\n  out += f + '\\n';\n}\nreturn out;", 0,
			"program from stdin:3:3: warning: `out += …` in a loop copies the whole string on every append; push the parts to an array and join them once\n" +
				"program from stdin: reaches glob\n", ""},
		{"no program", []string{"--root", programsDir}, "", 2, "", "runcode check: takes one program (a FILE, or - for stdin), got 0 arguments\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"check"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			tt.check(t, code, stdout.String(), stderr.String())
		})
	}
}

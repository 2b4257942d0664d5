package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stressEnv turns on the stress tests: checks of how fast something answers, which a busy
// machine can fail. The README's test command leaves them out; CI runs them on their own
// (.ci/run), on a machine that runs nothing else then.
const stressEnv = "RUNCODE_STRESS"

// stressHostile are programs written to exhaust the process they run in, each of which
// once took down or outlasted an in-process host.
var stressHostile = []struct{ name, code string }{
	{"folding enum", "enum E { " + enumDoubling(40) + " }\nreturn E.M40.length"},
	{"allocation under nested callbacks", "[0].forEach(() => [0].forEach(() => [0].forEach(() => [0].forEach(() => [0].forEach(() => [0].forEach(() => [0].forEach(() => [0].forEach(() => { const a = []; while (true) a.push('x'.repeat(1e5) + a.length) }))))))))"},
	{"console.log of a 2^32-1 array", "const a = []; a.length = 2 ** 32 - 1; console.log(a); return 'printed'"},
	{"URLSearchParams of a huge string", "return new URLSearchParams('a=1&'.repeat(1.5e7)).size"},
	{"string doubling", "let s = 'x'; while (true) s += s"},
	// A computed name: the typed-array guard sees only constructors a program names.
	{"30 GB typed array", "return new globalThis['Float' + '64Array'](4e9).length"},
	{"BigInt shift of 32 GiB", "return (1n << 2n ** 38n) > 0n"},
	{"parser stack", "return " + strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000)},
	{"default sort of millions", "const a = []; for (let i = 0; i < 3e6; i++) a.push((i * 7919) % 1e6); a.sort(); return a.length"},
}

// enumDoubling is n+1 TypeScript enum members, each the previous one twice over, which
// esbuild folds into one constant of 16 * 2^n characters.
func enumDoubling(n int) string {
	members := []string{"M0 = 'xxxxxxxxxxxxxxxx'"}
	for i := 1; i <= n; i++ {
		members = append(members, fmt.Sprintf("M%d = M%d + M%d", i, i-1, i-1))
	}
	return strings.Join(members, ", ")
}

// TestStressHostileRun runs each hostile program through `runcode run` with no isolation
// flag, as a user would: each must end with a failure kind (or a RangeError the program
// returns), the command must exit as a failed run does (not die), and the answer must come
// within the wall clock plus one second of the command's start.
func TestStressHostileRun(t *testing.T) {
	if os.Getenv(stressEnv) == "" {
		t.Skipf("a stress test: set %s=1 to run it (CI runs it on its own)", stressEnv)
	}
	bin := filepath.Join(t.TempDir(), "runcode")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const wall = 5 * time.Second
	for _, tt := range stressHostile {
		t.Run(tt.name, func(t *testing.T) {
			prog := filepath.Join(t.TempDir(), "prog.ts")
			if err := os.WriteFile(prog, []byte(tt.code), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "run", "--timeout", wall.String(), "--compute", "3s", prog)
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The answer is the first output: the command may take longer to exit, while
			// the kernel tears down a worker of gigabytes.
			var stdout bytes.Buffer
			var took time.Duration
			buf := make([]byte, 32<<10)
			for {
				n, rerr := out.Read(buf)
				if n > 0 && took == 0 {
					took = time.Since(start)
				}
				stdout.Write(buf[:n])
				if rerr != nil {
					break
				}
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			code := 0
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			text := stdout.String()
			failed := strings.HasPrefix(text, "Error: code run failed (") && code == exitFail
			if !failed && !strings.Contains(text, "RangeError") {
				t.Errorf("exit %d, stdout %.300q, stderr %.300q: want a failed run (exit %d) or a RangeError", code, text, stderr.String(), exitFail)
			}
			if took > wall+time.Second {
				t.Errorf("answered after %v, want within the wall clock (%v) plus 1s", took.Round(time.Millisecond), wall)
			}
			t.Logf("%v: %.120s", took.Round(time.Millisecond), strings.TrimSpace(text))
		})
	}
}

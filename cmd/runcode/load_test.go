//go:build unix

package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testwait"
	"go.uber.org/goleak"
)

// The load test's flags. The defaults are the short form CI runs (each hostile program
// once, 40 calls, at concurrency 10); scripts/loadtest.sh runs the full form (200 calls
// at concurrency 20).
var (
	loadCalls       = flag.Int("load.calls", 0, "TestServeLoad: run_code calls per isolation mode (default each hostile program once: five calls each)")
	loadConcurrency = flag.Int("load.concurrency", 10, "TestServeLoad: calls in flight at once, each from a client session of its own")
	loadModes       = flag.String("load.mode", "in-process,process", "TestServeLoad: the isolation modes to load, comma-separated")
	loadSummary     = flag.String("load.summary", "", "TestServeLoad: append each mode's summary table to `FILE`")
	loadServeArgs   = flag.String("load.serve-args", "", "TestServeLoad: more `FLAGS` for runcode serve, space-separated (later flags win)")
)

// loadCase is one program of the load, and what its call must return.
type loadCase struct {
	name, code string
	// kind is the failure kind a hostile program must get, or kinds separated by "|" (which
	// one depends on how fast the machine is); "" for a well-behaved one.
	kind string
	// processOnly marks a program written to exhaust the process it runs in: only worker
	// processes hold it, and the in-process load leaves it out.
	processOnly bool
	// want is the exact result text: required for a well-behaved program, optional for a
	// hostile one (its text must then also be exactly this). A well-behaved program with
	// wantPrefix instead must succeed with a text that starts with it.
	want, wantPrefix string
	// message, if set, is how a hostile program's failure message must start.
	message string
}

// wellBehaved are the programs an agent writes, with their exact results: four in five
// calls of the load. They read the workspace loadWorkspace writes.
var wellBehaved = []loadCase{
	{name: "compute", code: `let s = 0; for (let i = 1; i <= 1000; i++) s += i * i; return s`, want: "333833500"},
	{name: "console", code: `console.log("a", 1, { b: [2] }); console.warn("w"); return "done"`, want: "a 1 { b: [ 2 ] }\nw\ndone"},
	{name: "fan-out", code: `const [a, b, n] = await Promise.all([tools.read_file({ path: "notes/a.txt" }), tools.read_file({ path: "notes/b.txt" }), tools.stat({ path: "data/numbers.txt" })]);
return { lines: a.totalLines + b.totalLines, size: n.size }`, want: "{\n  \"lines\": 5,\n  \"size\": 10\n}"},
	{name: "list_dir", code: "const es = await tools.list_dir({ path: \".\" }); return es.map((e) => `${e.name} ${e.type}`).join(\"\\n\")",
		want: "README.md file\nbig dir\ndata dir\nnotes dir\nspecial dir"},
	{name: "grep", code: "const r = await tools.grep({ pattern: \"TODO\", path: \"notes\" }); return r.matches.map((m) => `${m.path}:${m.line}: ${m.text}`)",
		want: "[\n  \"notes/a.txt:2: TODO: first\",\n  \"notes/b.txt:2: TODO: second\"\n]"},
	{name: "glob and read", code: `const files = await tools.glob({ pattern: "data/*.txt" });
const f = await tools.read_file({ path: files[0] });
return f.text.split("\n").map(Number).reduce((a, b) => a + b, 0)`, want: "15"},
	{name: "typescript", code: "interface Note { path: string; lines: number }\n" +
		"const notes: Note[] = await Promise.all([\"notes/a.txt\", \"notes/b.txt\"].map(async (path): Promise<Note> => ({ path, lines: (await tools.read_file({ path })).totalLines })));\n" +
		"return notes.map((n: Note) => `${n.path}=${n.lines}`).join(\", \")", want: "notes/a.txt=3, notes/b.txt=2"},
	{name: "caught tool error", code: `try { await tools.read_file({ path: "missing.txt" }); return "read" } catch (e) { if (e instanceof ToolCallError) return "caught: " + e.message; throw e }`,
		want: "caught: missing.txt: no such file or directory"},
	{name: "object", code: `return { name: "load", ok: true, list: [1, "two", null], nested: { depth: 2 } }`,
		want: "{\n  \"name\": \"load\",\n  \"ok\": true,\n  \"list\": [\n    1,\n    \"two\",\n    null\n  ],\n  \"nested\": {\n    \"depth\": 2\n  }\n}"},
	{name: "timer", code: `await new Promise((r) => setTimeout(r, 20)); console.log("slept"); return null`, want: "slept\nnull"},
	{name: "no output", code: `const x = 1`, want: "(run_code completed with no output)"},
}

// hostile are programs that attack the server, each with the failure kind it must get:
// one in five calls of the load.
var hostile = []loadCase{
	{name: "busy loop", code: `while (true) {}`, kind: "timeout"},
	// Near its memory limit a process collects more and more often, so on a busy machine
	// the compute budget can end the bomb first.
	{name: "memory bomb", code: `const a = []; const s = "x".repeat(100000); while (true) a.push(s + a.length)`, kind: "memory-limit|timeout"},
	{name: "huge ArrayBuffer", code: `return new ArrayBuffer(3e10).byteLength`, kind: "exception"},
	// The same by a computed name, which the guard does not see: the worker's limit holds it.
	{name: "huge ArrayBuffer by a computed name", code: `return new globalThis["Array" + "Buffer"](3e10).byteLength`, kind: "memory-limit", processOnly: true},
	{name: "log flood", code: `while (true) console.log("flood ".repeat(100))`, kind: "output-limit"},
	{name: "function result", code: `return () => 1`, kind: "invalid-output"},
	{name: "deep result", code: `let v = []; for (let i = 0; i < 2000; i++) v = [v]; return v`, kind: "invalid-output"},
	{name: "never settles", code: `await new Promise(() => {})`, kind: "exception"},
	{name: "FIFO read", code: `return await tools.read_file({ path: "special/fifo" })`, kind: "exception",
		want: "Error: code run failed (exception): ToolCallError: special/fifo: not a regular file (named pipe)\n    at tools.read_file (program.js:1:29)"},
	{name: "throw symbol", code: `throw Symbol('x')`, kind: "exception", want: "Error: code run failed (exception): Symbol(x)"},
	{name: "close wrapper", code: `return 1 })(); (async () => {`, kind: "exception"},
	{name: "nested brackets", code: "return " + strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000), kind: "timeout|memory-limit|worker-exit", processOnly: true},
	{name: "indexOf array-like", code: `return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 42)`, kind: "timeout", processOnly: true},
	{name: "shared DAG", code: `let o = [1]; for (let i = 0; i < 30; i++) o = [o, o]; return JSON.stringify(o).length`, kind: "memory-limit|timeout", processOnly: true},
	{name: "apply array-like", code: `return Math.max.apply(null, { length: 2 ** 32 })`, kind: "memory-limit|timeout", processOnly: true},
	{name: "spread sparse", code: `return [...Array(2 ** 32 - 1)].length`, kind: "memory-limit|timeout", processOnly: true},
	{name: "flat cycle", code: `const a = [0]; a[0] = a; return a.flat(Infinity)`, kind: "memory-limit|timeout|worker-exit", processOnly: true},
	{name: "deep toString", code: `let a = []; for (let i = 0; i < 200000; i++) a = [a]; return String(a).length`, kind: "memory-limit|timeout|worker-exit", processOnly: true},
	// What a program can make the host's tools do: each is refused with a tool error, or
	// ends ok with bounded work, in both modes, and the server's memory check after the
	// load covers what they held.
	{name: "grep automaton", code: `return await tools.grep({ pattern: "[a-z]{0,1000}".repeat(290), path: "notes" })`, kind: "exception", message: "ToolCallError: "},
	{name: "read_file limit 2^63", code: `return await tools.read_file({ path: "notes/a.txt", limit: 2 ** 63 })`, kind: "exception", message: "ToolCallError: limit must be between 1 and 10485760"},
	{name: "newline file ×10", code: `const rs = await Promise.all(Array.from({ length: 10 }, () => tools.read_file({ path: "big/newlines.txt", offset: 10000000, limit: 2 }))); return rs.every((r) => r.totalLines === 10485760)`, want: "true"},
	{name: "9 MiB image ×20", code: `for (let i = 0; i < 20; i++) await tools.read_file({ path: "big/picture.png" }); return "read"`, wantPrefix: "read\n[19 of 20 images left out"},
	// Parsed in time, it is a 100,000-deep array: not lossless JSON.
	{name: "eval deep", code: `return eval("[".repeat(100000) + "]".repeat(100000))`, kind: "invalid-output|timeout|memory-limit|worker-exit", processOnly: true},
}

// loadPlan returns the program of each call in an isolation mode: every fifth a hostile
// one that the mode holds, in turn, the others well-behaved ones in turn. Zero calls
// means just enough for each such hostile program to be sent once.
func loadPlan(calls int, mode string) []loadCase {
	var bad []loadCase
	for _, c := range hostile {
		if !c.processOnly || mode == isolationProcess {
			bad = append(bad, c)
		}
	}
	if calls == 0 {
		calls = 5 * len(bad)
	}
	plan := make([]loadCase, calls)
	for i := range plan {
		if i%5 == 4 {
			plan[i] = bad[(i/5)%len(bad)]
		} else {
			plan[i] = wellBehaved[(i-i/5)%len(wellBehaved)]
		}
	}
	return plan
}

// loadWorkspace writes the workspace the programs read, with a FIFO the workspace tools
// must refuse, and returns its directory.
func loadWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testfs.Tree(t, dir, map[string]string{
		"README.md":        "# Load test workspace\nA few files the well-behaved programs read.\n",
		"notes/a.txt":      "alpha\nTODO: first\nbeta\n",
		"notes/b.txt":      "gamma\nTODO: second\n",
		"data/numbers.txt": "1\n2\n3\n4\n5\n",
		// The hostile reads: a file of 10 MiB of newlines, and a 9 MiB PNG.
		"big/newlines.txt": strings.Repeat("\n", 10<<20),
		"big/picture.png":  "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 9<<20),
	})
	if err := os.Mkdir(filepath.Join(dir, "special"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "special", "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServeLoad starts the real runcode binary as `serve --http` in each isolation mode
// and sends it -load.calls run_code calls, -load.concurrency at a time, one in five a
// hostile program. Every well-behaved call must return its exact text and every hostile
// one its own failure kind; after the load the server must give back what it took
// (goroutines, threads, descriptors, child processes, memory: in process under 1 GiB),
// and exit on SIGTERM within a few seconds with nothing left running. The default is a
// short form; scripts/loadtest.sh runs the full one.
func TestServeLoad(t *testing.T) {
	if *loadCalls < 0 || *loadConcurrency < 1 {
		t.Fatalf("-load.calls %d must not be negative, -load.concurrency %d must be positive", *loadCalls, *loadConcurrency)
	}
	bin := filepath.Join(t.TempDir(), "runcode")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, mode := range strings.Split(*loadModes, ",") {
		if mode != isolationInProcess && mode != isolationProcess {
			t.Fatalf("-load.mode: unknown isolation mode %q", mode)
		}
		t.Run(mode, func(t *testing.T) { loadServer(t, bin, mode) })
	}
}

// loadServer is TestServeLoad in one isolation mode.
func loadServer(t *testing.T, bin, mode string) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // the clients' goroutines end too
	srv := startServer(t, bin, mode, loadWorkspace(t))
	before := srv.settle(t, nil)

	plan := loadPlan(*loadCalls, mode)
	start := time.Now()
	outcomes := srv.load(t, plan, *loadConcurrency)
	elapsed := time.Since(start)
	for _, o := range outcomes {
		if msg := o.check(); msg != "" {
			t.Errorf("call %d (%s): %s", o.call, o.c.name, msg)
		}
	}

	after := srv.settle(t, &before)
	// Back to its size: the server gives what a call freed back to the system once the
	// process holds more than returnAbove.
	if after.rss > before.rss+returnAbove {
		t.Errorf("server RSS %d MiB after the load, %d MiB before: want it back within %d MiB", after.rss>>20, before.rss>>20, returnAbove>>20)
	}
	srv.stop(t)
	table := summary(mode, len(plan), *loadConcurrency, elapsed, outcomes, before, after)
	t.Log("\n" + table)
	if *loadSummary != "" {
		f, err := os.OpenFile(*loadSummary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(f, table)
		f.Close()
	}
}

// server is a runcode serve process under load.
type server struct {
	cmd        *exec.Cmd
	bin, mode  string
	url, debug string
	stderr     *syncBuffer
	drained    chan struct{}
	// http is the clients' HTTP client, whose idle connections are closed after the load
	// so that the server's end of them is not counted.
	http *http.Client
}

// startServer starts `runcode serve --http` with small budgets and waits for both of
// its addresses.
func startServer(t *testing.T, bin, mode, root string) *server {
	t.Helper()
	compute := loadCompute(*loadConcurrency)
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--debug-addr", "127.0.0.1:0", "--isolation", mode, "--root", root,
		"--compute", compute.String(), "--timeout", (compute + 5*time.Second).String(), "--workers", strconv.Itoa(*loadConcurrency))
	cmd.Args = append(cmd.Args, strings.Fields(*loadServeArgs)...)
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, bin: bin, mode: mode, stderr: &syncBuffer{}, drained: make(chan struct{}),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * *loadConcurrency}}}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewScanner(errOut)
	for (s.url == "" || s.debug == "") && lines.Scan() {
		line := lines.Text()
		if u, ok := strings.CutPrefix(line, "runcode serve: MCP over streamable HTTP at "); ok {
			s.url = u
		} else if u, ok := strings.CutPrefix(line, "runcode serve: debug endpoint at "); ok {
			s.debug = u
		} else {
			s.stderr.Write([]byte(line + "\n"))
		}
	}
	if s.url == "" || s.debug == "" {
		t.Fatalf("runcode serve did not say where it serves; stderr:\n%s", s.stderr.String())
	}
	go func() {
		for lines.Scan() {
			s.stderr.Write([]byte(lines.Text() + "\n"))
		}
		close(s.drained)
	}()
	return s
}

// loadCompute is the compute budget of the load's runs. In process, a run's compute is
// the time its VM is busy, on a CPU or waiting for one, so a CPU-bound run gets about
// the budget times the CPUs over the runs competing for them: the memory bomb, which
// needs about a CPU-second to reach its heap budget (two under the race detector),
// competes with the busy loops and the other bombs of the load, and in CI with the
// other packages' tests, and would otherwise end as a timeout.
func loadCompute(concurrency int) time.Duration {
	return max(10*time.Second, time.Duration(concurrency)*1500*time.Millisecond)
}

// outcome is what one call returned.
type outcome struct {
	call    int
	c       loadCase
	text    string
	isError bool
	err     error
	took    time.Duration
}

// kind is the outcome's failure kind, "ok" for a success, or "error" when the call
// itself failed.
func (o *outcome) kind() string {
	switch {
	case o.err != nil:
		return "error"
	case !o.isError:
		return "ok"
	}
	rest, ok := strings.CutPrefix(o.text, "Error: code run failed (")
	if kind, _, found := strings.Cut(rest, "): "); ok && found {
		return kind
	}
	return "error"
}

// check returns what is wrong with the outcome, or "".
func (o *outcome) check() string {
	if o.err != nil {
		return fmt.Sprintf("the call failed after %v: %v", o.took.Round(time.Millisecond), o.err)
	}
	if o.c.kind == "" && o.c.wantPrefix != "" {
		if o.isError || !strings.HasPrefix(o.text, o.c.wantPrefix) {
			return fmt.Sprintf("got (isError %v) %q, want a success that starts with %q", o.isError, clipText(o.text), o.c.wantPrefix)
		}
		return ""
	}
	if o.c.kind == "" {
		if o.isError || o.text != o.c.want {
			return fmt.Sprintf("got (isError %v) %q, want %q", o.isError, clipText(o.text), o.c.want)
		}
		return ""
	}
	var prefixes []string
	for _, k := range strings.Split(o.c.kind, "|") {
		prefix := "Error: code run failed (" + k + "): " + o.c.message
		if o.isError && strings.HasPrefix(o.text, prefix) {
			if o.c.want != "" && o.text != o.c.want {
				return fmt.Sprintf("got %q, want %q", clipText(o.text), o.c.want)
			}
			return ""
		}
		prefixes = append(prefixes, strconv.Quote(prefix))
	}
	return fmt.Sprintf("got (isError %v) %q, want a text that starts with %s", o.isError, clipText(o.text), strings.Join(prefixes, " or "))
}

// clipText shortens a text for a message (a flood's captured output is a megabyte).
func clipText(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// load sends the plan's calls, concurrency at a time, each worker on a client session
// of its own, and returns their outcomes in plan order.
func (s *server) load(t *testing.T, plan []loadCase, concurrency int) []outcome {
	t.Helper()
	sessions := make([]*mcp.ClientSession, concurrency)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: s.http, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connecting session %d: %v", i, err)
		}
		sessions[i] = cs
	}
	outcomes := make([]outcome, len(plan))
	next := make(chan int)
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Go(func() {
			for i := range next {
				outcomes[i] = call(cs, i, plan[i])
			}
		})
	}
	for i := range plan {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, cs := range sessions {
		if err := cs.Close(); err != nil {
			t.Errorf("closing session %d: %v", i, err)
		}
	}
	s.http.CloseIdleConnections()
	return outcomes
}

// callBound fails a call that has not returned long after the server's wall clock (the
// compute budget and 5s), so that a regression fails the test instead of hanging it.
const callBound = 2 * time.Minute

// call runs one program through run_code.
func call(cs *mcp.ClientSession, i int, c loadCase) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "Load test: " + c.name, "code": c.code,
	}})
	o := outcome{call: i, c: c, err: err, took: time.Since(start)}
	if err == nil {
		o.isError = res.IsError
		var texts []string
		for _, content := range res.Content {
			if tc, ok := content.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		o.text = strings.Join(texts, "\n")
	}
	return o
}

// stopBound is how long the server may take to exit after SIGTERM when it is idle: its
// stop grace (stopGrace) and a margin.
const stopBound = stopGrace + 3*time.Second

// stop sends SIGTERM and wants the server to exit 0 within stopBound, with no process
// of its binary left running.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		<-s.drained
		exited <- s.cmd.Wait()
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("runcode serve after SIGTERM: %v", err)
		}
	case <-time.After(stopBound):
		t.Errorf("runcode serve still running %v after SIGTERM", stopBound)
		s.cmd.Process.Kill()
		testwait.Receive(t, exited, "the killed server to exit")
	}
	if goruntime.GOOS == "linux" {
		var left []int
		for deadline := time.Now().Add(stopBound); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if left = running(s.bin); len(left) == 0 {
				break
			}
		}
		if len(left) > 0 {
			t.Errorf("processes of runcode still running after the server exited: %v", left)
		}
	}
	if text := s.stderr.String(); strings.Contains(text, "panic") || strings.Contains(text, "runcode serve: ") {
		t.Errorf("runcode serve's stderr:\n%s", text)
	} else if text != "" {
		t.Logf("runcode serve's stderr:\n%s", text)
	}
}

// summary renders a mode's table: per kind of outcome, the count and the median and
// maximum time to result; then the server's resources before and after the load.
func summary(mode string, calls, concurrency int, elapsed time.Duration, outcomes []outcome, before, after holdings) string {
	byKind := map[string][]time.Duration{}
	for _, o := range outcomes {
		byKind[o.kind()] = append(byKind[o.kind()], o.took)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "runcode serve --isolation %s: %d calls at concurrency %d in %v\n", mode, calls, concurrency, elapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "%-16s %6s %10s %10s\n", "outcome", "count", "median", "max")
	for _, k := range kinds {
		d := byKind[k]
		slices.Sort(d)
		fmt.Fprintf(&b, "%-16s %6d %10v %10v\n", k, len(d), d[len(d)/2].Round(time.Millisecond), d[len(d)-1].Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "%-16s %10s %10s\n", "server", "before", "after")
	fmt.Fprintf(&b, "%-16s %10d %10d\n", "goroutines", before.goroutines, after.goroutines)
	if after.linux {
		fmt.Fprintf(&b, "%-16s %10d %10d\n", "threads", before.threads, after.threads)
		fmt.Fprintf(&b, "%-16s %10d %10d\n", "descriptors", before.fds, after.fds)
		fmt.Fprintf(&b, "%-16s %10d %10d\n", "children", len(before.children), len(after.children))
		fmt.Fprintf(&b, "%-16s %10s %10s\n", "RSS", mib(before.rss), mib(after.rss))
		fmt.Fprintf(&b, "%-16s %10s %10s\n", "peak RSS", mib(before.hwm), mib(after.hwm))
		if before.childRSS+after.childRSS > 0 {
			fmt.Fprintf(&b, "%-16s %10s %10s\n", "children's RSS", mib(before.childRSS), mib(after.childRSS))
		}
	}
	fmt.Fprintf(&b, "settled %v after the load", after.settledAfter.Round(time.Millisecond))
	return b.String()
}

func mib(n int64) string { return fmt.Sprintf("%dMiB", n>>20) }

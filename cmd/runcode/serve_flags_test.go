package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testwait"
	"go.uber.org/goleak"
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
		{"timeout without unit", []string{"--timeout", "10"}, `invalid value "10" for flag -timeout: a duration needs a unit: 10s for seconds or 10ms for milliseconds (units: ms, s, m, h)`},
		{"timeout that is not a duration", []string{"--timeout", "soon"}, `invalid value "soon" for flag -timeout: want a duration with a unit, e.g. 30s, 2m or 500ms`},
		{"negative compute", []string{"--compute", "-1s"}, "runcode serve: --compute must be between 1ms and 24h, got -1s"},
		{"max-output unit", []string{"--max-output", "1MB"}, `invalid value "1MB" for flag -max-output: want a number of bytes, optionally followed by KiB, MiB or GiB (e.g. 1048576 or 1MiB)`},
		{"negative max-output", []string{"--max-output", "-1KiB"}, "runcode serve: --max-output must be between 1KiB and 1GiB, got -1KiB"},
		{"negative max-parallel", []string{"--max-parallel", "-2"}, "runcode serve: --max-parallel must be between 1 and 1000, got -2"},
		{"negative max-calls", []string{"--max-calls", "-1"}, "runcode serve: --max-calls must be at least 1 (leave it out for no cap), got -1"},
		{"workers", []string{"--workers", "-1"}, "runcode serve: --workers must be between 1 and 256 with --isolation process, got -1"},
		{"workers not a number", []string{"--workers", "many"}, `invalid value "many" for flag -workers: parse error`},
		{"negative ceiling", []string{"--isolation", "in-process", "--memory-ceiling", "-1"}, "runcode serve: --memory-ceiling must be 0 (off) or at least 64MiB, got -1"},
		{"ceiling in process isolation", []string{"--memory-ceiling", "1GiB"}, "runcode serve: --memory-ceiling applies to --isolation in-process only (worker processes each have a hard memory limit)"},
		{"debug address", []string{"--debug-addr", "127.0.0.1:no-port"}, "runcode serve: --debug-addr: listen tcp: lookup tcp/no-port: unknown port"},
		{"log level", []string{"--log-level", "loud"}, `runcode serve: --log-level must be debug, info, warn or error, got "loud"`},
		{"log level in capitals", []string{"--log-level", "INFO"}, `runcode serve: --log-level must be debug, info, warn or error, got "INFO"`},
		{"log format", []string{"--log-format", "xml"}, `runcode serve: --log-format must be text or json, got "xml"`},
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
		"-debug-addr ADDR", "/debug/pprof/goroutine and /debug/pprof/heap",
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

// TestDebugHandler: the debug endpoint serves the goroutine and heap profiles as text,
// and nothing else.
func TestDebugHandler(t *testing.T) {
	h := debugHandler()
	get := func(method, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		first, _, _ := strings.Cut(rec.Body.String(), ":")
		return rec.Code, first
	}
	type answer struct {
		Code  int
		First string
	}
	var got []answer
	for _, req := range [][2]string{{"GET", "/debug/pprof/goroutine"}, {"GET", "/debug/pprof/heap"}, {"GET", "/debug/pprof/profile"}, {"GET", "/debug/pprof/"}, {"POST", "/debug/pprof/heap"}} {
		code, first := get(req[0], req[1])
		if code != http.StatusOK {
			first = ""
		}
		got = append(got, answer{code, first})
	}
	want := []answer{{200, "goroutine profile"}, {200, "heap profile"}, {404, ""}, {404, ""}, {405, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// announced reads the first line serve writes on stderr, which must begin with prefix,
// returns what follows the prefix, and discards the rest of stderr.
func announced(t *testing.T, stderr io.Reader, prefix string) string {
	t.Helper()
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatal("serve ended without a word on stderr")
	}
	rest, ok := strings.CutPrefix(lines.Text(), prefix)
	if !ok {
		t.Fatalf("stderr %q", lines.Text())
	}
	go io.Copy(io.Discard, stderr)
	return rest
}

// TestServeDebugAddr: serve in process with --debug-addr serves the goroutine profile
// while it runs, holds the Go runtime's memory limit at --memory-ceiling, and puts both
// back when it stops.
func TestServeDebugAddr(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: serve leaves the Go runtime's memory limit alone")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	before := debug.SetMemoryLimit(-1)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"serve", "--isolation", "in-process", "--memory-ceiling", "300MiB", "--debug-addr", "127.0.0.1:0", "--root", t.TempDir()},
			inR, outW, errW)
		outW.Close()
		errW.Close()
		done <- code
	}()
	url := announced(t, errR, "runcode serve: debug endpoint at ")
	// Once it answers initialize, serve is serving.
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	answers := bufio.NewScanner(outR)
	if !answers.Scan() || !strings.Contains(answers.Text(), `"result"`) {
		t.Fatalf("initialize: %q", answers.Text())
	}
	go io.Copy(io.Discard, outR)
	res, err := http.Get(url + "goroutine")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if !strings.HasPrefix(string(body), "goroutine profile: total ") || !strings.Contains(string(body), ".serveStdio+") {
		t.Errorf("goroutine profile:\n%s", body)
	}
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("memory limit while serving %d, want %d", got, 300<<20)
	}
	inW.Close()
	if code := testwait.MustReceive(t, done, "serve's exit"); code != exitOK {
		t.Errorf("exit %d", code)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("memory limit after serving %d, want %d as before", got, before)
	}
}

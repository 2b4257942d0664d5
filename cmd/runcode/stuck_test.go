//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testwait"
)

// testRole plays the roles of the tests of stuck calls, and reports whether it played
// one:
//   - "__hold FIFO" is a command tool that outlives its own cancellation: it leaves a
//     copy of itself ("__hold-child") in a session of its own holding its stdout for
//     a few seconds, out of reach of the kill of its process group, and then blocks
//     reading FIFO, as read_file did on a FIFO before it refused them. After the kill
//     its call only returns when manifest's WaitDelay gives up on its stdout (a
//     second), far past the run's grace.
//   - "__cli ARGS…" is the runcode binary itself (main), for tests that signal it.
func testRole(role string, args []string) bool {
	switch role {
	case "__hold":
		child := exec.Command(os.Args[0], "__hold-child")
		child.Stdout = os.Stdout
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		io.Copy(io.Discard, f)
		fmt.Println(`"released"`)
	case "__hold-child":
		time.Sleep(3 * time.Second)
	case "__cli":
		os.Args = append(os.Args[:1], args...)
		main()
	default:
		return false
	}
	return true
}

// holdTools writes a manifest whose tool "hold" is the __hold role on a new FIFO, and
// returns the manifest's path and the FIFO's.
func holdTools(t *testing.T) (manifest, fifo string) {
	t.Helper()
	dir := t.TempDir()
	fifo = filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "hold", "description": "Read a FIFO nobody writes.", "inputSchema": map[string]any{"type": "object"},
		"command": []string{os.Args[0], "__hold", fifo},
	}}})
	manifest = filepath.Join(dir, "tools.json")
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return manifest, fifo
}

// entered returns a channel that yields the write end of fifo once the hold tool has
// opened it: the call is then in flight, blocked reading it. The test closes it.
func entered(t *testing.T, fifo string) <-chan *os.File {
	t.Helper()
	ch := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		ch <- f
	}()
	return ch
}

// TestRunStuckSubCall: `runcode run --timeout` returns its timeout, in both modes,
// while a sub-call blocked reading a FIFO ignores its cancellation, and --json shows
// that call abandoned.
func TestRunStuckSubCall(t *testing.T) {
	for _, isolation := range []string{isolationInProcess, isolationProcess} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			manifest, _ := holdTools(t)
			exited := make(chan int, 1)
			var stdout, stderr bytes.Buffer
			start := time.Now()
			go func() {
				exited <- run(context.Background(), []string{"run", "--json", "--timeout", "1s", "--isolation", isolation, "--tools", manifest, "-"},
					strings.NewReader(`console.log("reading"); return await tools.hold({})`), &stdout, &stderr)
			}()
			code := testwait.MustReceive(t, exited, "runcode run")
			t.Logf("returned %v after the run started (timeout 1s)", time.Since(start))
			var rep jsonReport
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || code != exitFail {
				t.Fatalf("exit %d, %v; stdout %s, stderr %s", code, err, stdout.String(), stderr.String())
			}
			if diff := cmp.Diff(&jsonFailure{Kind: "timeout", Message: "wall-clock ceiling reached (1000ms)"}, rep.Error); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if rep.Text != "Error: code run failed (timeout): wall-clock ceiling reached (1000ms)\nCaptured output:\nreading" {
				t.Errorf("text %q", rep.Text)
			}
			if len(rep.Calls) != 1 || rep.Calls[0].ID != "call-1:code:1" || !rep.Calls[0].Abandoned || !rep.Calls[0].IsError {
				t.Errorf("calls: %+v", rep.Calls)
			}
		})
	}
}

// mcpSession drives a runcode serve session over stdio by hand.
type mcpSession struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

func newSession(t *testing.T, in io.WriteCloser, out io.Reader) *mcpSession {
	s := &mcpSession{t: t, in: in, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

func (s *mcpSession) send(msg string) {
	if _, err := io.WriteString(s.in, msg+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// start initializes the session and calls run_code with a program that calls hold.
func (s *mcpSession) start() {
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line := testwait.MustReceive(s.t, s.lines, "initialize's answer"); !strings.Contains(line, `"result"`) {
		s.t.Fatalf("initialize: %s", line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":{"description":"Hold","code":"return await tools.hold({})"}}}`)
}

// TestServeStuckCall: runcode serve over stdio exits after stdin ends, or when told
// to stop (SIGTERM's context), while a call is blocked reading a FIFO and ignores its
// cancellation, in both modes.
func TestServeStuckCall(t *testing.T) {
	for _, isolation := range []string{isolationInProcess, isolationProcess} {
		for _, stop := range []string{"stdin EOF", "signal"} {
			t.Run(isolation+"/"+stop, func(t *testing.T) {
				t.Parallel()
				manifest, fifo := holdTools(t)
				writer := entered(t, fifo)
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var stderr syncBuffer
				exited := make(chan int, 1)
				go func() {
					exited <- run(ctx, []string{"serve", "--isolation", isolation, "--tools", manifest}, inR, outW, &stderr)
					outW.Close()
				}()
				s := newSession(t, inW, outR)
				s.start()
				defer (testwait.MustReceive(t, writer, "the call's start")).Close()
				start := time.Now()
				if stop == "signal" {
					cancel()
				} else {
					inW.Close()
				}
				// Exit 0, and not through the backstop: the run ended a grace after the stop.
				if code := testwait.MustReceive(t, exited, "runcode serve's exit"); code != exitOK || strings.Contains(stderr.String(), "runcode serve: ") {
					t.Errorf("exit %d; stderr %s", code, stderr.String())
				}
				t.Logf("exited %v after the %s", time.Since(start), stop)
				inW.Close()
				for range s.lines {
				}
			})
		}
	}
}

// TestServeSIGTERM: the runcode binary serving over stdio or streamable HTTP exits
// with status 0 on SIGTERM while a call is blocked reading a FIFO and ignores its
// cancellation.
func TestServeSIGTERM(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			manifest, fifo := holdTools(t)
			writer := entered(t, fifo)
			args := []string{"__cli", "serve", "--tools", manifest}
			if transport == "http" {
				args = append(args, "--http", "127.0.0.1:0")
			}
			cmd := exec.Command(os.Args[0], args...)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errOut, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			stderrLines := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(errOut)
				for sc.Scan() {
					stderrLines <- sc.Text()
				}
				close(stderrLines)
			}()
			if transport == "stdio" {
				newSession(t, in, out).start()
			} else {
				var url string
				for url == "" {
					line, ok := <-stderrLines
					if !ok {
						t.Fatal("runcode serve --http ended without an address")
					}
					_, url, _ = strings.Cut(line, "streamable HTTP at ")
				}
				go httpCall(t, url)
			}
			defer (testwait.MustReceive(t, writer, "the call's start")).Close()
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			var rest []string
			go func() {
				for line := range stderrLines {
					if strings.HasPrefix(line, "runcode serve: ") { // not the MCP SDK's log
						rest = append(rest, line)
					}
				}
				waited <- cmd.Wait()
			}()
			// Exit 0, and not through a backstop: the run ended a grace after SIGTERM.
			if err := testwait.MustReceive(t, waited, "runcode serve's exit"); err != nil || len(rest) > 0 {
				t.Errorf("runcode serve after SIGTERM: %v; stderr %q", err, rest)
			}
			t.Logf("exited %v after SIGTERM", time.Since(start))
		})
	}
}

// httpCall initializes a streamable HTTP session at url by hand and calls run_code with
// a program that calls hold; it returns when the server answers or goes away.
func httpCall(t *testing.T, url string) {
	httpRun(t, url, "return await tools.hold({})")
}

// httpRun is httpCall with the program's code.
func httpRun(t *testing.T, url, code string) {
	args, _ := json.Marshal(map[string]string{"description": "Hold", "code": code})
	session := ""
	post := func(body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil // the server stopped
		}
		return res
	}
	res := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if res == nil {
		t.Error("initialize: no answer")
		return
	}
	session = res.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":` + string(args) + `}}`,
	} {
		if res := post(body); res != nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}
}

package mcpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testwait"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// runcodeBinary builds cmd/runcode once per test binary. A test decides whether it
// skips before it calls this, so that a skipped test costs no build.
func runcodeBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "runcode-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "runcode")
		cmd := exec.Command("go", "build", "-o", binPath, "../cmd/runcode")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building runcode: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

// e2eManifest writes a manifest with server-everything, the fake server (which
// writes mark when its stdin ends) and a server that is not installed, and returns
// its path.
func e2eManifest(t *testing.T, mark string) string {
	t.Helper()
	everything := npmServer(t, "mcp-server-everything")
	m := map[string]any{"mcpServers": map[string]any{
		"every": map[string]any{"command": everything, "args": []string{"stdio"}},
		"fake":  map[string]any{"command": node(t), "args": []string{fixture(t, "fake-server.js"), "serve"}, "env": map[string]string{"FAKE_MARK": mark}},
		"gone":  map[string]any{"command": "runcode-no-such-mcp-server"},
	}}
	data, _ := json.Marshal(m)
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkServe lists the tools of a runcode serve session and runs a program that
// takes server-everything's image and calls the fake server.
func checkServe(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	names, tools := listNames(t, cs)
	if diff := cmp.Diff([]string{"run_code"}, names); diff != "" {
		t.Fatalf("tools mismatch (-want +got):\n%s", diff)
	}
	for _, want := range []string{`"mcp__every__get-tiny-image": Record<string, JsonValue>;`, "mcp__fake__ok"} {
		if !strings.Contains(tools["run_code"].Description, want) {
			t.Errorf("run_code's SDK lacks %q", want)
		}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "Fetch the logo and check the fake server",
		"code": `const [img, ok] = await Promise.all([tools["mcp__every__get-tiny-image"]({}), tools.mcp__fake__ok({ n: 1 })]);
return { img: img.split("\n")[0], ok: ok.ok };`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			got = append(got, c.Text)
		case *mcp.ImageContent:
			got = append(got, "[image "+c.MIMEType+"]")
		}
	}
	want := []string{"{\n  \"img\": \"Here's the image you requested:\",\n  \"ok\": true\n}",
		"Image from mcp__every__get-tiny-image (sub-call mcp-1:code:1):", "[image image/png]"}
	if diff := cmp.Diff(want, got); diff != "" || res.IsError {
		t.Errorf("run_code result (isError %v) mismatch (-want +got):\n%s", res.IsError, diff)
	}
}

// TestServeStdio drives `runcode serve` over stdio with the Go SDK's client; closing
// the session (stdin EOF) stops runcode, which stops its upstream servers.
func TestServeStdio(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "stopped")
	manifest := e2eManifest(t, mark) // skips without node or server-everything: before the build
	bin := runcodeBinary(t)
	cmd := exec.Command(bin, "serve", "--tools", manifest)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	checkServe(t, cs)
	if err := cs.Close(); err != nil { // closes runcode's stdin and waits for it to exit
		t.Errorf("close: %v (stderr %s)", err, stderr.String())
	}
	if !cmd.ProcessState.Success() {
		t.Errorf("runcode serve exited with %v; stderr:\n%s", cmd.ProcessState, stderr.String())
	}
	if data, err := os.ReadFile(mark); err != nil || string(data) != "stopped\n" {
		t.Errorf("upstream server not stopped: %q %v", data, err)
	}
	want := `runcode serve: mcp server "gone": cannot start: exec: "runcode-no-such-mcp-server": executable file not found in $PATH; serving without its tools` + "\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
}

// TestServeHTTP drives `runcode serve --http 127.0.0.1:0` with the Go SDK's
// streamable client; SIGTERM stops runcode, which stops its upstream servers.
func TestServeHTTP(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "stopped")
	manifest := e2eManifest(t, mark) // skips without node or server-everything: before the build
	cmd, url, stderr := serveHTTP(t, runcodeBinary(t), manifest)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkServe(t, cs)
	cs.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest := stderr()
	if err := cmd.Wait(); err != nil {
		t.Errorf("runcode serve after SIGTERM: %v; stderr:\n%s", err, strings.Join(rest, "\n"))
	}
	if data, err := os.ReadFile(mark); err != nil || string(data) != "stopped\n" {
		t.Errorf("upstream server not stopped: %q %v", data, err)
	}
}

// TestServeHTTPStop: SIGTERM stops `runcode serve --http` at once while a Go SDK
// client is connected (its stream of server messages open), rather than after the
// shutdown's bound, which it would report on stderr.
func TestServeHTTPStop(t *testing.T) {
	bin := runcodeBinary(t)
	manifest := testfs.Temp(t, "tools.json", `{"tools":[{"name":"one","description":"One.","inputSchema":{"type":"object"},"mock":{"result":1}}]}`)
	cmd, url, stderr := serveHTTP(t, bin, manifest)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"description": "One", "code": "return await tools.one({})"}}); err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for _, line := range stderr() {
		if strings.HasPrefix(line, "runcode serve: ") { // not the MCP SDK's log
			rest = append(rest, line)
		}
	}
	if err := cmd.Wait(); err != nil || len(rest) > 0 {
		t.Errorf("runcode serve after SIGTERM: %v; stderr %q", err, rest)
	}
}

// serveHTTP starts `runcode serve --tools manifest --http 127.0.0.1:0` from bin, killed
// at the end of the test if it is still running, and returns it and the address it
// announced on stderr. stderr waits until the process closes its stderr and returns
// the lines it wrote after the address.
func serveHTTP(t *testing.T, bin, manifest string) (cmd *exec.Cmd, url string, stderr func() []string) {
	t.Helper()
	cmd = exec.Command(bin, "serve", "--tools", manifest, "--http", "127.0.0.1:0")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	sc := bufio.NewScanner(pipe)
	var before []string
	for url == "" && sc.Scan() {
		_, url, _ = strings.Cut(sc.Text(), "streamable HTTP at ")
		before = append(before, sc.Text())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("no address on stderr; got:\n%s", strings.Join(before, "\n"))
	}
	var rest []string
	drained := make(chan struct{})
	go func() { // keep reading stderr until runcode exits
		for sc.Scan() {
			rest = append(rest, sc.Text())
		}
		close(drained)
	}()
	return cmd, url, func() []string {
		testwait.Receive(t, drained, "runcode serve's stderr to end")
		return rest
	}
}

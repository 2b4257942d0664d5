package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/manifest"
	"github.com/runcode-go/runcode/pipeline"
)

// TestServeHTTPFlags: the --http access flags' misuse exits 2 naming the flag, and
// --help documents them and the token's environment variable.
func TestServeHTTPFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"token without http", []string{"--http-token", "x"}, "runcode serve: --http-token applies to --http only"},
		{"empty token", []string{"--http", "127.0.0.1:0", "--http-token", ""}, "runcode serve: --http-token must not be empty"},
		{"origin without http", []string{"--http-allow-origin", "https://a.example"}, "runcode serve: --http-allow-origin applies to --http only"},
		{"origin with a path", []string{"--http", "127.0.0.1:0", "--http-allow-origin", "https://a.example/app"},
			`invalid value "https://a.example/app" for flag -http-allow-origin: want an origin, scheme://host[:port] (e.g. https://app.example.com), or *`},
		{"origin without scheme", []string{"--http", "127.0.0.1:0", "--http-allow-origin", "a.example"},
			`invalid value "a.example" for flag -http-allow-origin: want an origin, scheme://host[:port] (e.g. https://app.example.com), or *`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"serve"}, tc.args...)...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || stdout != "" || first != tc.want {
				t.Errorf("exit %d, stdout %q, stderr's first line %q\nwant exit 2, nothing on stdout, %q", code, stdout, first, tc.want)
			}
		})
	}
	code, stdout, _ := runCLI(t, "serve", "--help")
	for _, want := range []string{"-http-token TOKEN", "default $RUNCODE_HTTP_TOKEN", "-http-allow-origin ORIGIN", "refused with 403"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, stdout)
		}
	}
}

// TestServeHTTPGuard: serve --http with a token from $RUNCODE_HTTP_TOKEN refuses
// requests without it (401, WWW-Authenticate: Bearer) or with a foreign Origin (403),
// and serves the right token from no origin, a loopback one or an allowed one.
func TestServeHTTPGuard(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(httpTokenEnv, "tok-123")
	ctx, cancel := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "--isolation", "in-process", "--root", t.TempDir(), "--http", "127.0.0.1:0", "--http-allow-origin", "https://app.example.com"},
			strings.NewReader(""), io.Discard, errW)
		errW.Close()
		done <- code
	}()
	url := announced(t, errR, "runcode serve: MCP over streamable HTTP at ")
	client := &http.Client{}
	post := func(auth, origin string) (int, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header.Get("WWW-Authenticate")
	}
	type answer struct {
		Status int
		Auth   string
	}
	var got []answer
	for _, req := range [][2]string{
		{"", ""}, {"Bearer tok-12", ""}, {"Bearer tok-123", "https://evil.example"}, {"", "https://evil.example"},
		{"Bearer tok-123", ""}, {"Bearer tok-123", "http://localhost:8080"}, {"Bearer tok-123", "https://app.example.com"},
	} {
		status, auth := post(req[0], req[1])
		got = append(got, answer{status, auth})
	}
	want := []answer{{401, "Bearer"}, {401, "Bearer"}, {403, ""}, {403, ""}, {200, ""}, {200, ""}, {200, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	client.CloseIdleConnections()
	cancel()
	if code := testwait.Receive(t, done, "serve's exit"); code != exitOK {
		t.Errorf("exit %d", code)
	}
}

// TestServeHTTPStopSilentConn: a connection that never sends a request does not hold
// serve's stop (net/http's Shutdown counts it busy for five seconds, longer than
// serve's grace, which serve would report on stderr).
func TestServeHTTPStopSilentConn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "--isolation", "in-process", "--root", t.TempDir(), "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, errW)
		errW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(errR)
	if !lines.Scan() {
		t.Fatal("serve ended without a word on stderr")
	}
	url, ok := strings.CutPrefix(lines.Text(), "runcode serve: MCP over streamable HTTP at ")
	if !ok {
		t.Fatalf("stderr %q", lines.Text())
	}
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A request on a second connection shows the server has accepted the silent one.
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	cancel()
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if code := testwait.Receive(t, done, "serve's exit"); code != exitOK || len(rest) > 0 {
		t.Errorf("exit %d, stderr after the address %q", code, rest)
	}
}

// TestServeApprovalPolicy: a manifest tool's approval setting decides its calls; an
// upstream tool's comes from the client (its server's setting, else destructiveHint);
// anything else is allowed. A server's settings reach its Upstream.
func TestServeApprovalPolicy(t *testing.T) {
	m, err := manifest.Parse("tools.json", []byte(`{"tools": [
	  {"name": "a", "mock": {"result": 1}, "approval": "ask"},
	  {"name": "d", "mock": {"result": 1}, "approval": "deny"},
	  {"name": "x", "mock": {"result": 1}, "approval": "allow"},
	  {"name": "n", "mock": {"result": 1}}
	], "mcpServers": {"fs": {"command": "srv", "approval": {"rm": "ask", "ls": "allow", "mv": "deny"}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	policy := approvalPolicy(m, nil)
	got := map[string]pipeline.Action{}
	for _, name := range []string{"a", "d", "x", "n", "mcp__fs__rm"} {
		got[name] = policy(name)
	}
	want := map[string]pipeline.Action{"a": pipeline.Ask, "d": pipeline.Deny, "x": pipeline.Allow, "n": pipeline.Allow, "mcp__fs__rm": pipeline.Allow}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]pipeline.Action{"rm": pipeline.Ask, "ls": pipeline.Allow, "mv": pipeline.Deny}, upstreams(m)["fs"].Approval); diff != "" {
		t.Errorf("upstream approvals (-want +got):\n%s", diff)
	}
}

// TestServeHTTPWarn: serve warns on stderr when --http listens beyond loopback
// without a token, and only then.
func TestServeHTTPWarn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ip    net.IP
		token string
		want  string
	}{
		{"open", net.IPv4zero, "", "runcode serve: --http on a non-loopback address without --http-token (or $RUNCODE_HTTP_TOKEN): anyone who can reach 0.0.0.0:8080 can run programs\n"},
		{"token", net.IPv4zero, "t", ""},
		{"loopback", net.IPv4(127, 0, 0, 1), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			(&httpFlags{token: tc.token}).warn(&net.TCPAddr{IP: tc.ip, Port: 8080}, &b)
			if b.String() != tc.want {
				t.Errorf("warning %q, want %q", b.String(), tc.want)
			}
		})
	}
}

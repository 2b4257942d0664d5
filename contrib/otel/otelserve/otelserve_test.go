package otelserve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runcode-go/runcode/contrib/otel/otelserve"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// TestStartConsole: the console exporter writes each span as JSON, and the options
// a server is built from get the hooks.
func TestStartConsole(t *testing.T) {
	var buf syncBuffer
	env := map[string]string{"OTEL_TRACES_EXPORTER": "console"}
	tr, err := otelserve.Start(context.Background(), &otelserve.Options{Getenv: func(k string) string { return env[k] }, Console: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Exporter != "console" {
		t.Errorf("Exporter = %q", tr.Exporter)
	}
	po := &pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}
	tr.Pipeline(po)
	so := &mcpbridge.ServerOptions{Propagator: nil}
	tr.Server(so)
	co := &mcpbridge.ClientOptions{}
	tr.Client(co)
	xo := &ptc.Options{}
	tr.PTC(xo)
	if len(po.Wrappers) != 2 || len(so.Middleware) != 1 || len(co.Middleware) != 1 || xo.OnReport == nil {
		t.Errorf("hooks not applied: %d wrappers, %d server and %d client middleware, OnReport %v", len(po.Wrappers), len(so.Middleware), len(co.Middleware), xo.OnReport != nil)
	}
	_, span := tr.Tracer("test").Start(context.Background(), "hello")
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name     string
		Resource []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got.Name != "hello" {
		t.Fatalf("console output %q: %v", buf.String(), err)
	}
	service := ""
	for _, kv := range got.Resource {
		if kv.Key == "service.name" {
			service, _ = kv.Value.Value.(string)
		}
	}
	if service != otelserve.DefaultServiceName {
		t.Errorf("service.name = %q, want %q", service, otelserve.DefaultServiceName)
	}
}

func TestStartRefuses(t *testing.T) {
	for _, env := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"},
	} {
		if tr, err := otelserve.Start(context.Background(), &otelserve.Options{Getenv: func(k string) string { return env[k] }}); err == nil {
			tr.Shutdown(context.Background())
			t.Errorf("Start with %v succeeded", env)
		}
	}
	tr, err := otelserve.Start(context.Background(), &otelserve.Options{Getenv: func(k string) string {
		return map[string]string{"OTEL_TRACES_EXPORTER": "none"}[k]
	}})
	if err != nil || tr.Exporter != "none" {
		t.Fatalf("Start(none) = %v, %v", tr, err)
	}
	tr.Shutdown(context.Background())
}

// TestServeTrace builds runcode with ../cmd/runcode-otel/build and runs `runcode serve
// --trace` over stdio with the console exporter; one run_code call from an MCP client
// gives a server span "tools/call run_code" with mcp.method.name tools/call, its
// execute_tool run_code span, and an execute_tool span per sub-call below that.
func TestServeTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds runcode")
	}
	bin := filepath.Join(t.TempDir(), "runcode-otel")
	build := exec.Command("../cmd/runcode-otel/build", bin)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	manifest, err := filepath.Abs("../../../testdata/manifests/orders.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "serve", "--trace", "--tools", manifest, "--isolation", "in-process")
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=console")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
		"description": "two lookups",
		"code":        `const [a, b] = await Promise.all([tools.get_order({ id: "A1" }), tools.get_order({ id: "A1" })]); return a.total + b.total;`,
	}})
	if err != nil || res.IsError {
		t.Fatalf("run_code: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	_ = cmd.Wait()

	type span struct {
		Name        string
		SpanKind    int
		SpanContext struct{ SpanID string }
		Parent      struct{ SpanID string }
		Attributes  []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	var spans []span
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s span
		if line := sc.Bytes(); bytes.HasPrefix(line, []byte("{")) && json.Unmarshal(line, &s) == nil && s.Name != "" {
			spans = append(spans, s)
		}
	}
	attr := func(s span, key string) string {
		for _, kv := range s.Attributes {
			if kv.Key == key {
				v, _ := json.Marshal(kv.Value.Value)
				return strings.Trim(string(v), `"`)
			}
		}
		return ""
	}
	var server, run *span
	for i, s := range spans {
		switch {
		case s.Name == "tools/call run_code" && attr(s, "mcp.method.name") == "tools/call":
			server = &spans[i]
		case s.Name == "execute_tool run_code":
			run = &spans[i]
		}
	}
	if server == nil || run == nil {
		t.Fatalf("no tools/call server span and run_code span among %d spans; stderr:\n%s", len(spans), stderr.String())
	}
	if server.SpanKind != 2 { // trace.SpanKindServer
		t.Errorf("tools/call span kind %d, want 2 (server)", server.SpanKind)
	}
	if run.Parent.SpanID != server.SpanContext.SpanID {
		t.Errorf("execute_tool run_code's parent is %s, want the server span %s", run.Parent.SpanID, server.SpanContext.SpanID)
	}
	subs := 0
	for _, s := range spans {
		if s.Name == "execute_tool get_order" && s.Parent.SpanID == run.SpanContext.SpanID {
			subs++
		}
	}
	if subs != 2 {
		t.Errorf("%d execute_tool get_order spans below run_code, want 2; stderr:\n%s", subs, stderr.String())
	}
}

// syncBuffer is a bytes.Buffer for one writer and a reader after it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func (s *syncBuffer) String() string { return string(s.Bytes()) }

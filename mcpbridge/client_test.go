package mcpbridge

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testfs"
	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/registry"
)

// fsTree writes a small tree for server-filesystem and returns its root.
func fsTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testfs.Tree(t, dir, map[string]string{
		"a.txt":         "alpha first line\nmore\n",
		"b.md":          "# bravo\n" + strings.Repeat("b", 300) + "\n",
		"sub/c.txt":     "charlie\n" + strings.Repeat("c", 1000) + "\n",
		"sub/deep/d.go": "package d\n" + strings.Repeat("// d\n", 100),
	})
	// server-filesystem answers with resolved paths; resolve the temp dir too.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestFilesystemServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := fsTree(t)
	b := newBridge(t, registry.ModePTC, nil)
	if err := b.client.Connect(context.Background(), "fs", &Upstream{Command: bin, Args: []string{root}}); err != nil {
		t.Fatal(err)
	}
	set := b.set(t)

	t.Run("tools", func(t *testing.T) {
		e, ok := set.Get("mcp__fs__read_text_file")
		if !ok {
			var names []string
			for _, e := range set.Tools() {
				names = append(names, e.Name())
			}
			t.Fatalf("mcp__fs__read_text_file not registered; got %v", names)
		}
		// The schema keeps the server's text: properties in the server's order
		// (path, tail, head), which the SDK declares them in.
		params := string(e.Parameters())
		if p, tl, h := strings.Index(params, `"path"`), strings.Index(params, `"tail"`), strings.Index(params, `"head"`); p < 0 || !(p < tl && tl < h) {
			t.Errorf("parameters lack path, tail and head in the server's order: %s", params)
		}
		if !e.ConcurrencySafe(registry.MustParseValue(`{"path":"x"}`)) {
			t.Error("read_text_file (readOnlyHint) is not concurrency-safe")
		}
		w, _ := set.Get("mcp__fs__write_file")
		if w == nil || w.ConcurrencySafe(registry.MustParseValue(`{"path":"x","content":""}`)) {
			t.Error("write_file must be registered and exclusive")
		}
	})

	t.Run("program lists reads and aggregates", func(t *testing.T) {
		r := newRunner(t)
		code := `
const root = ` + jsString(root) + `;
async function walk(dir) {
  const { content } = await tools.mcp__fs__list_directory({ path: dir });
  const out = [];
  for (const line of content.split("\n")) {
    const m = /^\[(FILE|DIR)\] (.+)$/.exec(line);
    if (!m) continue;
    const p = dir + "/" + m[2];
    if (m[1] === "DIR") out.push(...await walk(p)); else out.push(p);
  }
  return out;
}
const files = await walk(root);
const texts = await Promise.all(files.map(p => tools.mcp__fs__read_text_file({ path: p })));
const lines = texts.reduce((n, t) => n + t.content.split("\n").length - 1, 0);
return { files: files.map(f => f.slice(root.length + 1)).sort(), lines, first: texts.map(t => t.content.split("\n")[0]).sort() };`
		res, rep := r.run(context.Background(), t, set, code)
		if res.IsError() {
			t.Fatalf("run failed: %s", res.Text())
		}
		want := `{
  "files": [
    "a.txt",
    "b.md",
    "sub/c.txt",
    "sub/deep/d.go"
  ],
  "lines": 107,
  "first": [
    "# bravo",
    "alpha first line",
    "charlie",
    "package d"
  ]
}`
		if diff := cmp.Diff(want, res.Text()); diff != "" {
			t.Errorf("output mismatch (-want +got):\n%s", diff)
		}
		if len(rep.Calls) != 3+4 {
			t.Errorf("%d sub-calls, want 7 (3 listings, 4 reads)", len(rep.Calls))
		}
	})

	t.Run("tool error is a ToolCallError", func(t *testing.T) {
		r := newRunner(t)
		res, _ := r.run(context.Background(), t, set, `try { await tools.mcp__fs__read_text_file({ path: "/etc/passwd" }); }
catch (e) { return [e.name, e.toolName, e.code, e.message.includes("Access denied")]; }`)
		if diff := cmp.Diff("[\n  \"ToolCallError\",\n  \"mcp__fs__read_text_file\",\n  \"TOOL_FAILED\",\n  true\n]", res.Text()); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})
}

func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestEverythingServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	var trace syncBuffer
	b := newBridge(t, registry.ModePTC, &ClientOptions{Trace: &trace})
	if err := b.client.Connect(context.Background(), "every", &Upstream{Command: bin, Args: []string{"stdio"}}); err != nil {
		t.Fatal(err)
	}
	set := b.set(t)
	r := newRunner(t)

	t.Run("image attributed after the run", func(t *testing.T) {
		res, rep := r.run(context.Background(), t, set, `const v = await tools["mcp__every__get-tiny-image"]({});
console.log(typeof v, JSON.stringify(v).slice(0, 40));`)
		if res.IsError() {
			t.Fatalf("run failed: %s", res.Text())
		}
		if diff := cmp.Diff("string \"Here's the image you requested:\\nThe im", res.Text()); diff != "" {
			t.Errorf("text mismatch (-want +got):\n%s", diff)
		}
		if len(rep.Contexts) != 1 {
			t.Fatalf("%d contexts, want 1: %+v", len(rep.Contexts), rep.Contexts)
		}
		c := rep.Contexts[0]
		if c.CallID != "call-1:code:1" || c.Tool != "mcp__every__get-tiny-image" {
			t.Errorf("context attributed to %s %s, want call-1:code:1 mcp__every__get-tiny-image", c.CallID, c.Tool)
		}
		var images int
		for _, b := range c.Content {
			if b.Type == "image" && b.MIMEType == "image/png" && strings.HasPrefix(b.Data, "iVBORw0KGgo") {
				images++
			}
		}
		if images != 1 {
			t.Errorf("context content %+v: want one PNG image", c.Content)
		}
		if len(res.Contexts) != 1 {
			t.Errorf("result carries %d contexts, want 1", len(res.Contexts))
		}
	})

	t.Run("structured content is the value", func(t *testing.T) {
		res, _ := r.run(context.Background(), t, set, `const v = await tools["mcp__every__get-structured-content"]({ location: "Chicago" });
return Object.keys(v).sort();`)
		if diff := cmp.Diff("[\n  \"conditions\",\n  \"humidity\",\n  \"temperature\"\n]", res.Text()); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("isError is a ToolCallError", func(t *testing.T) {
		res, _ := r.run(context.Background(), t, set, `try { await tools["mcp__every__get-resource-reference"]({ resourceType: "Text", resourceId: 1.5 }); return "no error"; }
catch (e) { return [e instanceof ToolCallError, e.toolName, e.code, e.message]; }`)
		want := "[\n  true,\n  \"mcp__every__get-resource-reference\",\n  \"TOOL_FAILED\",\n  \"Invalid resourceId: 1.5. Must be a finite positive integer.\"\n]"
		if diff := cmp.Diff(want, res.Text()); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("cancellation reaches the server", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		// The call is cancelled once the server has received it: the trace shows the
		// request before the server answers (it would take 100s).
		started, notified := make(chan struct{}), make(chan struct{})
		trace.onWrite(func(s string) bool {
			switch {
			case strings.Contains(s, `"trigger-long-running-operation"`) && strings.Contains(s, "write:"):
				close(started)
			case strings.Contains(s, `"notifications/cancelled"`) && strings.Contains(s, "write:"):
				close(notified)
				return true
			}
			return false
		})
		go func() { <-started; cancel() }()
		res, _ := r.run(ctx, t, set, `await tools["mcp__every__trigger-long-running-operation"]({ duration: 100, steps: 2 });`)
		if !res.IsError() || !strings.Contains(res.Text(), "abort") {
			t.Errorf("run: %s, want an abort", res.Text())
		}
		// The go-sdk sends the cancellation notification off the caller's path; it
		// names the call's request.
		testwait.Receive(t, notified, "the cancellation notification")
		if !strings.Contains(trace.String(), `"method":"notifications/cancelled","params":{"reason":"context canceled","requestId":`) {
			t.Errorf("notifications/cancelled not as expected; trace:\n%s", trace.String())
		}
		// And the server still answers.
		res, _ = r.run(context.Background(), t, set, `return (await tools["mcp__every__get-sum"]({ a: 2, b: 3 }));`)
		if !strings.Contains(res.Text(), "5") {
			t.Errorf("after cancellation: %s", res.Text())
		}
	})
}

// syncBuffer is a goroutine-safe buffer with a write hook.
type syncBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	hook func(string) bool
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hook != nil && b.hook(string(p)) {
		b.hook = nil
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) onWrite(f func(string) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hook = f
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/native"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// copyTree copies the regular files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestModelVisibleBytes measures, for one realistic task over server-filesystem
// ("find the 5 largest files under a tree and show their first lines"), the bytes
// a model is sent and reads with the native tools (the tool definitions, and every
// call's arguments and result, the calls batched per level as a model would) and
// with one run_code call (run_code's definition with the SDK, the program, and its
// result), and the input summed over the model steps (each request re-sends the
// definitions and the conversation so far). It pins only that both find the same
// files and that run_code's conversation and summed input are smaller; the
// numbers are logged (go test -v -run TestModelVisibleBytes).
func TestModelVisibleBytes(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := filepath.Join(t.TempDir(), "tree")
	copyTree(t, "../sdkgen", filepath.Join(root, "sdkgen"))
	copyTree(t, "../registry", filepath.Join(root, "registry"))
	root, _ = filepath.EvalSymlinks(root)

	b := newBridge(t, registry.ModeNative, nil)
	if err := b.client.Connect(context.Background(), "fs", &Upstream{Command: bin, Args: []string{root}}); err != nil {
		t.Fatal(err)
	}
	set := b.set(t)
	p := pipeline.New(nil)
	nat, _ := native.New(p, nil)

	// Native: definitions, then one step per directory level, one for the reads.
	desc, _ := nat.Describe(set)
	defs, _ := json.Marshal(desc.Tools)
	var callBytes, resultBytes, calls, steps, nativeInput int
	step := func(batch []pipeline.RawCall) []*pipeline.Result {
		steps++
		nativeInput += len(defs) + callBytes + resultBytes // this step's request: definitions and the conversation so far
		for _, c := range batch {
			callBytes += len(c.Name) + len(c.Arguments)
		}
		res := nat.Execute(context.Background(), set, batch)
		for _, r := range res {
			calls++
			resultBytes += len(r.Text())
			if r.IsError() {
				t.Fatalf("%s: %s", r.Name, r.Text())
			}
		}
		return res
	}
	type file struct {
		path string
		size int
	}
	var files []file
	entry := regexp.MustCompile(`^\[(FILE|DIR)\]\s+(\S+)\s*([\d.]+ ?\w+)?`)
	level := []string{root}
	for len(level) > 0 {
		var batch []pipeline.RawCall
		for i, dir := range level {
			args, _ := json.Marshal(map[string]string{"path": dir})
			batch = append(batch, pipeline.RawCall{ID: fmt.Sprintf("l%d-%d", steps, i), Name: "mcp__fs__list_directory_with_sizes", Arguments: string(args)})
		}
		res := step(batch)
		var next []string
		for i, r := range res {
			for _, line := range strings.Split(r.Text(), "\n") {
				m := entry.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				p := level[i] + "/" + m[2]
				if m[1] == "DIR" {
					next = append(next, p)
				} else {
					files = append(files, file{p, parseSize(m[3])})
				}
			}
		}
		level = next
	}
	slices.SortStableFunc(files, func(a, b file) int { return b.size - a.size })
	var batch []pipeline.RawCall
	for i, f := range files[:5] {
		args, _ := json.Marshal(map[string]any{"path": f.path, "head": 1})
		batch = append(batch, pipeline.RawCall{ID: fmt.Sprintf("r%d", i), Name: "mcp__fs__read_text_file", Arguments: string(args)})
	}
	step(batch)
	nativeTotal := len(defs) + callBytes + resultBytes
	nativeInput += nativeTotal // the final step, which reads the last results

	// run_code: its definition (with the SDK) once, one program, its result.
	r := newRunner(t)
	agent, err := b.scope.NewScope(registry.Agent, "ptc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.SetMode(registry.ModePTC); err != nil {
		t.Fatal(err)
	}
	pset, err := agent.Resolve(context.Background(), registry.Step{})
	if err != nil {
		t.Fatal(err)
	}
	pdesc, err := r.ex.Describe(pset)
	if err != nil {
		t.Fatal(err)
	}
	pdefs, _ := json.Marshal(pdesc.Tools)
	sections := 0
	for _, s := range pdesc.Sections {
		sections += len(s.Text)
	}
	code := `const files = [];
async function walk(dir) {
  const { content } = await tools.mcp__fs__list_directory_with_sizes({ path: dir });
  const subdirs = [];
  for (const line of content.split("\n")) {
    const m = /^\[(FILE|DIR)\]\s+(\S+)\s*([\d.]+ ?\w+)?/.exec(line);
    if (!m) continue;
    if (m[1] === "DIR") subdirs.push(dir + "/" + m[2]);
    else files.push({ path: dir + "/" + m[2], size: m[3] });
  }
  await Promise.all(subdirs.map(walk));
}
const bytes = s => { const [n, u] = s.split(" "); return +n * ({ B: 1, KB: 1024, MB: 1 << 20 }[u] ?? 1); };
await walk(` + strconv.Quote(root) + `);
files.sort((a, b) => bytes(b.size) - bytes(a.size));
const top = files.slice(0, 5);
const heads = await Promise.all(top.map(f => tools.mcp__fs__read_text_file({ path: f.path, head: 1 })));
return top.map((f, i) => f.path.slice(` + strconv.Itoa(len(root)+1) + `) + " (" + f.size + "): " + heads[i].content.trim()).join("\n");`
	res, rep := r.run(context.Background(), t, pset, code)
	if res.IsError() {
		t.Fatalf("run_code: %s", res.Text())
	}
	out := res.Text()
	for _, f := range files[:5] {
		if !strings.Contains(out, f.path[len(root)+1:]) {
			t.Errorf("run_code's answer lacks %s:\n%s", f.path, out)
		}
	}
	ptcTotal := len(pdefs) + sections + len(code) + len(out)
	t.Logf("task: the 5 largest of %d files in %d directories, with their first lines", len(files), calls-5)
	ptcDefs := len(pdefs) + sections
	t.Logf("native:   %6d bytes = definitions %d + %d calls' arguments %d + results %d; %d model steps, input summed over them %d",
		nativeTotal, len(defs), calls, callBytes, resultBytes, steps+1, nativeInput)
	t.Logf("run_code: %6d bytes = definition and SDK %d + program %d + result %d; one call with %d sub-calls, 2 model steps, input summed over them %d",
		ptcTotal, ptcDefs, len(code), len(out), len(rep.Calls), ptcDefs+ptcTotal)
	t.Logf("run_code's answer:\n%s", out)
	if ptcIn := ptcDefs + ptcTotal; ptcIn >= nativeInput || len(code)+len(out) >= callBytes+resultBytes {
		t.Errorf("run_code (input %d, conversation %d bytes) is not smaller than native (input %d, conversation %d bytes)",
			ptcIn, len(code)+len(out), nativeInput, callBytes+resultBytes)
	}
}

// parseSize reads server-filesystem's "1.23 KB" sizes as bytes.
func parseSize(s string) int {
	n, unit, _ := strings.Cut(strings.TrimSpace(s), " ")
	f, _ := strconv.ParseFloat(n, 64)
	switch unit {
	case "KB":
		f *= 1024
	case "MB":
		f *= 1 << 20
	}
	return int(f)
}

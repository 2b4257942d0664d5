package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
)

// Benchmarks for the closing note. Run narrowly, for example:
//
//	go test -run '^$' -bench . -benchtime 2000x ./runtime/

func benchPool(b *testing.B) *Pool {
	b.Helper()
	p, err := NewPool(&PoolOptions{Size: 16})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p
}

func mustPrepare(b *testing.B, code string) *Program {
	b.Helper()
	prg, err := Prepare(code, nil)
	if err != nil {
		b.Fatal(err)
	}
	return prg
}

func echoNamespace(b *testing.B, n int) *Namespace {
	b.Helper()
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("t%d", i)
	}
	ns, err := NewNamespace("tools", members, Async(func(_ context.Context, _ string, args json.RawMessage) (json.RawMessage, error) {
		return args, nil
	}), &NamespaceOptions{ErrorClass: "ToolCallError", MemberProperty: "toolName"})
	if err != nil {
		b.Fatal(err)
	}
	return ns
}

func runBench(b *testing.B, p *Pool, prg *Program, opts *RunOptions) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := p.RunProgram(ctx, prg, opts)
		if err != nil || res.Failure != nil {
			b.Fatalf("run: %v %v", err, res.Failure)
		}
	}
}

// BenchmarkRun runs a prepared `return 1 + 1`, acquire included, without and with a tools
// namespace of 10 or 1,000 members installed. "warm" times one run while the pool is full
// (the latency a caller sees); "steady" runs back to back, so the background refill's VM
// builds (BenchmarkNewVM) bound it on a small machine.
func BenchmarkRun(b *testing.B) {
	prg := mustPrepare(b, "return 1 + 1")
	cases := []struct {
		name string
		opts *RunOptions
	}{
		{"no namespace", nil},
		{"namespace of 10", &RunOptions{Namespaces: []*Namespace{echoNamespace(b, 10)}}},
		{"namespace of 1000", &RunOptions{Namespaces: []*Namespace{echoNamespace(b, 1000)}}},
	}
	for _, c := range cases {
		b.Run("warm/"+c.name, func(b *testing.B) {
			p := benchPool(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				for !p.host.Full() {
					goruntime.Gosched() // let the background refill top the pool up
				}
				b.StartTimer()
				if res, err := p.RunProgram(ctx, prg, c.opts); err != nil || res.Failure != nil {
					b.Fatalf("run: %v %v", err, res.Failure)
				}
			}
		})
		b.Run("steady/"+c.name, func(b *testing.B) { runBench(b, benchPool(b), prg, c.opts) })
	}
}

// BenchmarkHostCalls runs 10 and 100 sequential host calls per op; the difference divided
// by 90 is one round trip. "async" hosts answer on a goroutine of their own (Async), as a
// tool behind the pipeline does, so the figure includes waking the VM goroutine from
// another thread; "sync" hosts call done before StartFunc returns (an answer already at
// hand), which leaves the runtime's own round trip: snapshot the argument, make the
// promise, settle it through the loop, resume the awaiting code.
func BenchmarkHostCalls(b *testing.B) {
	atOnce := func(_ context.Context, _ string, args json.RawMessage, done func(json.RawMessage, error)) {
		done(args, nil)
	}
	for _, kind := range []string{"async", "sync"} {
		for _, n := range []int{10, 100} {
			b.Run(fmt.Sprintf("%s/%d sequential", kind, n), func(b *testing.B) {
				ns := echoNamespace(b, 10)
				if kind == "sync" {
					var err error
					if ns, err = NewNamespace("tools", []string{"t0"}, atOnce, nil); err != nil {
						b.Fatal(err)
					}
				}
				prg := mustPrepare(b, fmt.Sprintf("let s = 0; for (let i = 0; i < %d; i++) s += (await tools.t0({n: i})).n; return s", n))
				runBench(b, benchPool(b), prg, &RunOptions{Namespaces: []*Namespace{ns}})
			})
		}
	}
}

// BenchmarkLargeHostResult consumes a 1 MB JSON host result.
func BenchmarkLargeHostResult(b *testing.B) {
	var items []map[string]any
	for i := 0; len(items) < 10000; i++ {
		items = append(items, map[string]any{"id": i, "name": strings.Repeat("n", 60), "ok": i%2 == 0})
	}
	big, _ := json.Marshal(items)
	b.SetBytes(int64(len(big)))
	ns, err := NewNamespace("tools", []string{"big"}, Async(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return big, nil
	}), nil)
	if err != nil {
		b.Fatal(err)
	}
	prg := mustPrepare(b, "const r = await tools.big({}); return r.filter(x => x.ok).length")
	runBench(b, benchPool(b), prg, &RunOptions{Namespaces: []*Namespace{ns}})
}

// BenchmarkPrepare compares plain JavaScript (goja's parser only) with TypeScript (which
// fails goja's parser first and goes through esbuild).
func BenchmarkPrepare(b *testing.B) {
	js := "const users = await tools.list({limit: 10});\nconst active = users.filter(u => u.active);\nreturn active.map(u => u.name);"
	ts := "interface U { name: string; active: boolean }\nconst users = await tools.list({limit: 10}) as U[];\nconst active: U[] = users.filter(u => u.active);\nreturn active.map(u => u.name);"
	ops := "const n = await tools.count({});\nconst mask = 1 << n;\nreturn [2 ** n, mask >> (n - 1), n ** 2];"
	for name, code := range map[string]string{"js": js, "ts": ts, "js with ** and <<": ops} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Prepare(code, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIterate times the loops that step built-in iterators: for-of over an array
// and over a string, and an array spread, 10,000 elements each.
func BenchmarkIterate(b *testing.B) {
	for _, tt := range []struct{ name, code string }{
		{"for-of array", "const a = Array.from({length: 1e4}, (_, i) => i); let s = 0; for (const x of a) s += x; return s"},
		{"for-of string", "const t = 'abcdefghij'.repeat(1e3); let n = 0; for (const c of t) n += c.length; return n"},
		{"spread", "const a = Array.from({length: 1e4}, (_, i) => i); return [...a].length"},
		{"operators", "let s = 0; for (let i = 0; i < 1e4; i++) s += (1 << (i & 15)) + 2 ** (i & 7); return s"},
		{"for-of Map", "const m = new Map(); for (let i = 0; i < 1e4; i++) m.set(i, i); let s = 0; for (const [k, v] of m) s += v; return s"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			runBench(b, benchPool(b), mustPrepare(b, tt.code), nil)
		})
	}
}

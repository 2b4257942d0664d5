package ptc

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"time"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// TestKeptResult: with a store, a completion over the output budget is cut, and kept
// whole under an id that the next program reads with tools.$result; without one, the
// run fails with output-limit, as the contract says.
func TestKeptResult(t *testing.T) {
	const big = `return Array.from({length: 2000}, (_, i) => ({i, name: "item " + i}))`
	e := newEnv(t)
	e.ptc.Limits = &runtime.Limits{OutputBytes: 2000}
	e.ptc.Store = store.NewMemory()
	ex, set := e.executor()
	res, _ := ex.Run(context.Background(), set, runCodeCall(big))
	text := resultText(res)
	m := regexp.MustCompile(`The full result is kept as "(r_[A-Za-z0-9_-]+)" \((\d+) bytes\): read it in your next program with await tools\.\$result\("r_[A-Za-z0-9_-]+"\)\.$`).FindStringSubmatch(text)
	if res.IsError() || m == nil || !strings.Contains(text, "more items") {
		t.Fatalf("over the budget with a store: %q", text)
	}
	res, _ = ex.Run(context.Background(), set, runCodeCall(`const all = await tools.$result("`+m[1]+`"); return [all.length, all[1999].name]`))
	if got := resultText(res); got != "[\n  2000,\n  \"item 1999\"\n]" {
		t.Errorf("reading it back: %q", got)
	}
	res, _ = ex.Run(context.Background(), set, runCodeCall(`try { await tools.$result("r_nope") } catch (e) { return e.message }`))
	if got := resultText(res); !strings.Contains(got, `no result "r_nope" is kept`) {
		t.Errorf("an unknown id: %q", got)
	}

	e.ptc.Store = nil
	ex2, set2 := e.executor()
	res, _ = ex2.Run(context.Background(), set2, runCodeCall(big))
	if !strings.Contains(resultText(res), "(output-limit)") {
		t.Errorf("without a store: %q", resultText(res))
	}
	res, _ = ex2.Run(context.Background(), set2, runCodeCall(`try { await tools.$result("`+m[1]+`") } catch (e) { return e.message }`))
	if got := resultText(res); !strings.Contains(got, "no result is kept here") {
		t.Errorf("$result without a store: %q", got)
	}
}

// keptText is the line that names a kept result's handle.
var keptText = regexp.MustCompile(`\nThe full result is kept as "(r_[A-Za-z0-9_-]{22})" \((\d+) bytes\): read it in your next program with await tools\.\$result\("r_[A-Za-z0-9_-]{22}"\)\.$`)

// TestKeptResultPerSession: a handle belongs to the session of the run that kept it;
// runs without a session share a group of their own. A run of another group reading it
// fails exactly as with an id nobody ever kept.
func TestKeptResultPerSession(t *testing.T) {
	e := newEnv(t)
	e.ptc.Limits = &runtime.Limits{OutputBytes: 2000}
	e.ptc.Store = store.NewMemory()
	ex, set := e.executor()
	ctxA := pipeline.WithSession(context.Background(), "a")
	ctxB := pipeline.WithSession(context.Background(), "b")
	none := context.Background()
	keep := func(ctx context.Context) string {
		t.Helper()
		res, _ := ex.Run(ctx, set, runCodeCall(`return "x".repeat(5000)`))
		m := keptText.FindStringSubmatch(resultText(res))
		if res.IsError() || m == nil || m[2] != "5002" {
			t.Fatalf("keeping: %q", resultText(res))
		}
		return m[1]
	}
	read := func(ctx context.Context, id string) string {
		t.Helper()
		res, _ := ex.Run(ctx, set, runCodeCall(`try { return (await tools.$result("`+id+`")).length } catch (e) { return e.code + ": " + e.message }`))
		return resultText(res)
	}
	unknown := func(id string) string {
		return `INVALID_ARGS: tools.$result: no result "` + id + `" is kept (a session keeps its 16 latest results, 64 MiB at most, each for 1h)`
	}
	inA, inNone := keep(ctxA), keep(none)
	for _, tt := range []struct {
		name string
		ctx  context.Context
		id   string
		want string
	}{
		{"its session", ctxA, inA, "5000"},
		{"another session", ctxB, inA, unknown(inA)},
		{"no session", none, inA, unknown(inA)},
		{"no session, its own", none, inNone, "5000"},
		{"a session, one kept by none", ctxA, inNone, unknown(inNone)},
		{"never kept", ctxA, "r_AAAAAAAAAAAAAAAAAAAAAA", unknown("r_AAAAAAAAAAAAAAAAAAAAAA")},
	} {
		if got := read(tt.ctx, tt.id); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestKeptResultTexts: what the model reads after the cut value when the result is
// over the byte bound (nothing is kept), and what a program reads of an expired
// result, with the bounds as configured.
func TestKeptResultTexts(t *testing.T) {
	e := newEnv(t)
	e.ptc.Limits = &runtime.Limits{OutputBytes: 400}
	e.ptc.Store = store.NewMemory()
	e.ptc.MaxResults, e.ptc.MaxResultBytes, e.ptc.ResultTTL = 2, 4096, 90*time.Minute
	ex, set := e.executor()
	now := time.Now()
	ex.clock = func() time.Time { return now }

	res, _ := ex.Run(context.Background(), set, runCodeCall(`return "x".repeat(4094)`))
	want := "[output truncated to the 400-byte output budget: what was cut ends in a \"…N more\" marker]\n" +
		"x"
	if got := resultText(res); res.IsError() || !strings.HasPrefix(got, want) || !keptText.MatchString(got) {
		t.Errorf("at the bound: %q", got)
	}
	res, _ = ex.Run(context.Background(), set, runCodeCall(`return "x".repeat(4095)`))
	if got, want := resultText(res), "The full result (4097 bytes) is too large to keep (at most 4 KiB); return less of it."; res.IsError() ||
		!strings.HasSuffix(got, "more bytes\n"+want) || strings.Contains(got, "r_") {
		t.Errorf("over the bound: %q, want it to end with %q", got, want)
	}
	if recs, _ := e.ptc.Store.List(context.Background(), kindResult, "", 0); len(recs) != 1 {
		t.Errorf("%d results in the store, want the one kept", len(recs))
	}

	res, _ = ex.Run(context.Background(), set, runCodeCall(`return "x".repeat(300)`))
	id := keptText.FindStringSubmatch(resultText(res))[1]
	read := `try { return (await tools.$result("` + id + `")).length } catch (e) { return e.message }`
	now = now.Add(90*time.Minute - time.Nanosecond)
	if res, _ = ex.Run(context.Background(), set, runCodeCall(read)); resultText(res) != "300" {
		t.Errorf("just before it expires: %q", resultText(res))
	}
	now = now.Add(time.Nanosecond)
	res, _ = ex.Run(context.Background(), set, runCodeCall(read))
	if got, want := resultText(res), `tools.$result: no result "`+id+`" is kept (a session keeps its 2 latest results, 4 KiB at most, each for 1h30m)`; got != want {
		t.Errorf("expired: %q, want %q", got, want)
	}
}

// TestResultOptions: negative bounds are refused like the other options'.
func TestResultOptions(t *testing.T) {
	for _, o := range []Options{{MaxResults: -1}, {MaxResultBytes: -1}, {ResultTTL: -time.Second}} {
		o.Pool = newPool(t, 1)
		_, err := New(pipeline.New(nil), &o)
		if err == nil || !strings.HasPrefix(err.Error(), "ptc: MaxResults, MaxResultBytes and ResultTTL must not be negative, got ") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 30 * time.Minute: "30m", 90 * time.Minute: "1h30m",
		90 * time.Second: "1m30s", 10 * time.Second: "10s", 10*time.Hour + 10*time.Second: "10h0m10s", 1500 * time.Millisecond: "1.5s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestKeptResultConcurrentRuns: two goroutines run programs of one session that keep
// results at once; the session ends up keeping its bound's worth, each readable.
func TestKeptResultConcurrentRuns(t *testing.T) {
	e := newEnv(t)
	e.ptc.Limits = &runtime.Limits{OutputBytes: 400}
	e.ptc.Store = store.NewMemory()
	e.ptc.MaxResults = 3
	ex, set := e.executor()
	ctx := pipeline.WithSession(context.Background(), "a")
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 4 {
				res, _ := ex.Run(ctx, set, runCodeCall(`return "x".repeat(1000)`))
				m := keptText.FindStringSubmatch(resultText(res))
				if m == nil {
					t.Errorf("not kept: %q", resultText(res))
					return
				}
				mu.Lock()
				ids = append(ids, m[1])
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	readable := 0
	for _, id := range ids {
		res, _ := ex.Run(ctx, set, runCodeCall(`try { return (await tools.$result("`+id+`")).length } catch (e) { return e.message }`))
		if resultText(res) == "1000" {
			readable++
		}
	}
	if readable != 3 {
		t.Errorf("%d of %d results readable, want 3", readable, len(ids))
	}
}

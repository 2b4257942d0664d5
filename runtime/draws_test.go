package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// drawsProgram draws from the clock and the random source, between two calls whose
// StartFunc contexts report the draws made before them.
const drawsProgram = `
const a = Date.now(), b = Math.random();
await tools.mark({});
const c = new Date().getTime(), d = Date(), e = Math.random();
await tools.mark({});
console.log(a, b, c, d, e);`

func TestDrawsReplay(t *testing.T) {
	p := newTestPool(t, nil)
	var mu sync.Mutex
	var seen []*Draws
	ns, err := NewNamespace("tools", []string{"mark"}, func(ctx context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		mu.Lock()
		seen = append(seen, CallDraws(ctx))
		mu.Unlock()
		done(json.RawMessage("{}"), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := runCode(t, p, drawsProgram, &RunOptions{Namespaces: []*Namespace{ns}, Draws: &Draws{}})
	if first.Failure != nil {
		t.Fatal(first.Text())
	}
	if got := first.Draws; got == nil || len(got.Clock) != 3 || len(got.Random) != 2 {
		t.Fatalf("Draws = %+v, want 3 clock readings and 2 random numbers", got)
	}
	want := []*Draws{
		{Clock: first.Draws.Clock[:1], Random: first.Draws.Random[:1]},
		{Clock: first.Draws.Clock, Random: first.Draws.Random},
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("CallDraws in the two calls (-want +got):\n%s", diff)
	}

	// A replay gives the values back: the same output, and the same draws recorded.
	again := runCode(t, p, drawsProgram, &RunOptions{Namespaces: []*Namespace{ns}, Draws: first.Draws})
	if diff := cmp.Diff(first.Logs, again.Logs); diff != "" {
		t.Errorf("replayed logs differ (-first +again):\n%s", diff)
	}
	if diff := cmp.Diff(first.Draws, again.Draws); diff != "" {
		t.Errorf("replayed draws differ (-first +again):\n%s", diff)
	}

	// A partial replay gives back what it has, then draws anew and records that too.
	part := &Draws{Clock: first.Draws.Clock[:1], Random: first.Draws.Random[:1]}
	res := runCode(t, p, "return [Date.now(), Math.random(), Math.random()]", &RunOptions{Draws: part})
	var got []float64
	if err := json.Unmarshal(res.Value, &got); err != nil {
		t.Fatal(err)
	}
	if got[0] != float64(first.Draws.Clock[0]/1e6) || got[1] != first.Draws.Random[0] {
		t.Errorf("partial replay = %v, want the recorded clock %d ms and random %v first", got, first.Draws.Clock[0]/1e6, first.Draws.Random[0])
	}
	if len(res.Draws.Random) != 2 || res.Draws.Random[1] != got[2] {
		t.Errorf("partial replay recorded %+v, want the new random number %v after the replayed one", res.Draws, got[2])
	}

	// Without Draws nothing is recorded and calls carry none.
	seen = nil
	res = runCode(t, p, drawsProgram, &RunOptions{Namespaces: []*Namespace{ns}})
	if res.Draws != nil || len(seen) != 2 || seen[0] != nil {
		t.Errorf("without RunOptions.Draws: Result.Draws = %+v, CallDraws = %v; want nil and nil", res.Draws, seen)
	}
}

// leftProgram spends at least 50ms of compute, calls mark, waits at least 100ms without
// computing, and calls mark again.
const leftProgram = `
const t0 = Date.now(); while (Date.now() - t0 < 50) {}
await tools.mark({});
await new Promise(r => setTimeout(r, 100));
await tools.mark({});`

// checkLeft checks what two calls of leftProgram saw of a run with compute 10s and wall
// clock 20s: each call sees no more than the run had, the compute the loop spent is gone
// from both, and the wait is gone from the wall clock only.
func checkLeft(t *testing.T, seen []Left) {
	t.Helper()
	if len(seen) != 2 {
		t.Fatalf("saw %d calls, want 2", len(seen))
	}
	a, b := seen[0], seen[1]
	if a.Compute <= 0 || a.Compute > 10*time.Second-45*time.Millisecond || a.WallClock > 20*time.Second-45*time.Millisecond {
		t.Errorf("first call: %+v, want compute in (0, 9.955s] and wall clock at most 19.955s (Date.now counts whole milliseconds)", a)
	}
	if b.Compute <= 0 || b.Compute > a.Compute || b.WallClock > a.WallClock-99*time.Millisecond {
		t.Errorf("second call: %+v after %+v, want compute no more than before and 100ms less wall clock", b, a)
	}
}

func TestCallLeft(t *testing.T) {
	p := newTestPool(t, nil)
	var seen []Left
	ns, err := NewNamespace("tools", []string{"mark"}, func(ctx context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		l, ok := CallLeft(ctx)
		if !ok {
			t.Error("a call's context carries no budgets left")
		}
		seen = append(seen, l) // the program's calls are sequential
		done(json.RawMessage("{}"), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := runCode(t, p, leftProgram, &RunOptions{Namespaces: []*Namespace{ns}, Limits: &Limits{Compute: 10 * time.Second, WallClock: 20 * time.Second}})
	if res.Failure != nil {
		t.Fatal(res.Text())
	}
	checkLeft(t, seen)
	if _, ok := CallLeft(context.Background()); ok {
		t.Error("CallLeft found budgets in a context no call made")
	}
}

// A nested run does not wait for a slot its caller holds: on a pool of one run at a time,
// a run whose call runs another program gets that program's value.
func TestNestedRunOnAFullPool(t *testing.T) {
	p, err := NewPool(&PoolOptions{Size: 1, MaxRuns: 1, Grace: 100e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	ns, err := NewNamespace("tools", []string{"inner"}, func(ctx context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		go func() {
			res, err := p.Run(ctx, "return 6 * 7", &RunOptions{Nested: true})
			if err != nil || res.Failure != nil {
				done(nil, fmt.Errorf("nested run: %v %v", err, res.Failure))
				return
			}
			done(res.Value, nil)
		}()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Run(ctx, "return await tools.inner({})", &RunOptions{Namespaces: []*Namespace{ns}})
	if err != nil || res.Failure != nil || string(res.Value) != "42" {
		t.Fatalf("run = %v, %v; want 42", res.Text(), err)
	}
}

// A run records at most MaxDraws clock readings: a program that reads the clock more
// often (a busy wait) still runs, its replay gives back the recorded ones and then the
// real clock, and a replay given more than MaxDraws values gives them all back.
func TestDrawsBounded(t *testing.T) {
	p := newTestPool(t, nil)
	code := fmt.Sprintf(`const a = []; for (let i = 0; i < %d; i++) a.push(Date.now()); return [a[0], a[%d], a[a.length - 1]]`, MaxDraws+1000, MaxDraws-1)
	first := runCode(t, p, code, &RunOptions{Draws: &Draws{}})
	if first.Failure != nil || len(first.Draws.Clock) != MaxDraws {
		t.Fatalf("%s; %d clock readings recorded, want %d", first.Text(), len(first.Draws.Clock), MaxDraws)
	}
	// A replay of recorded values long past: the first MaxDraws are those, the rest real.
	old := make([]int64, MaxDraws)
	for i := range old {
		old[i] = int64(i+1) * 1e6 // 1970, a millisecond apart
	}
	res := runCode(t, p, code, &RunOptions{Draws: &Draws{Clock: old}})
	var got [3]int64
	if res.Failure != nil || json.Unmarshal(res.Value, &got) != nil {
		t.Fatalf("replay: %s", res.Text())
	}
	if got[0] != 1 || got[1] != MaxDraws || got[2] < time.Now().Add(-time.Hour).UnixMilli() {
		t.Errorf("replay read %v, want 1, %d and then the real clock", got, MaxDraws)
	}
	// Replayed values beyond MaxDraws (from elsewhere) are all given back, then the real clock.
	long := append(old, old...)
	res = runCode(t, p, fmt.Sprintf(`const a = []; for (let i = 0; i < %d; i++) a.push(Date.now()); return [a[%d], a[a.length - 1]]`, 2*MaxDraws+10, 2*MaxDraws-1), &RunOptions{Draws: &Draws{Clock: long}})
	var got2 [2]int64
	if res.Failure != nil || json.Unmarshal(res.Value, &got2) != nil || got2[0] != MaxDraws || got2[1] < time.Now().Add(-time.Hour).UnixMilli() {
		t.Errorf("a long replay read %s, want %d and then the real clock", res.Text(), MaxDraws)
	}
}

// TestStartIsNotCompute: the host's part of starting a call (a durable ledger write, say)
// is not the program's compute: three calls whose start takes 100 ms each fit a 250 ms
// compute budget, and the run reports less compute than they took.
func TestStartIsNotCompute(t *testing.T) {
	p := newTestPool(t, nil)
	ns, err := NewNamespace("tools", []string{"slow"}, func(_ context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		time.Sleep(100 * time.Millisecond)
		done(json.RawMessage("1"), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := runCode(t, p, "let n = 0; for (let i = 0; i < 3; i++) n += await tools.slow({}); return n",
		&RunOptions{Namespaces: []*Namespace{ns}, Limits: &Limits{Compute: 250 * time.Millisecond, WallClock: 20 * time.Second}})
	if res.Failure != nil || string(res.Value) != "3" {
		t.Fatalf("got %s, want 3", res.Text())
	}
	if res.Compute >= 300*time.Millisecond {
		t.Errorf("compute %v counts the starts' 300 ms", res.Compute)
	}
}

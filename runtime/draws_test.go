package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

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

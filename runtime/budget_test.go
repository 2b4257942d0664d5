package runtime

import (
	"context"
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGuards pins the size guards on allocation-heavy built-ins: over a bound they throw a
// catchable RangeError; under it they behave exactly like the originals.
func TestGuards(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string
	}{
		{name: "repeat over the bound", code: "try { 'ab'.repeat(1e9) } catch (e) { return [e instanceof RangeError, e.message].join() }", want: "true,Invalid string length"},
		{name: "padStart over the bound", code: "try { 'a'.padStart(1e9) } catch (e) { return e.name }", want: "RangeError"},
		{name: "padEnd over the bound", code: "try { 'a'.padEnd(1e9, 'xy') } catch (e) { return e.name }", want: "RangeError"},
		{name: "fill over the bound", code: "try { new Array(1e9).fill(0) } catch (e) { return [e.name, e.message].join() }", want: "RangeError,Invalid array length"},
		{name: "join over the bound", code: "try { Array(3e8).join('abc') } catch (e) { return e.name }", want: "RangeError"},
		{name: "Array.from of a huge array-like", code: "try { Array.from({length: 1e9}) } catch (e) { return e.name }", want: "RangeError"},
		{name: "Array.from of iterables and small array-likes is unchanged", code: "return [Array.from({length: 3}, (_, i) => i).join(), Array.from(new Set([1, 2])).join(), Array.from('ab').join()].join(' ')", want: "0,1,2 1,2 a,b"},
		{name: "small calls are unchanged", code: "return ['ab'.repeat(3), 'a'.padStart(3, '-'), 'a'.padEnd(2), [0, 0, 0].fill(7, 1).join('+'), [1, [2, 3]].join()].join(' ')", want: "ababab --a a  0+7+7 1,2,3"},
		{name: "fill with relative bounds", code: "return [1, 2, 3, 4].fill(0, -2).join()", want: "1,2,0,0"},
		{name: "default sort compares strings", code: "return [10, 9, 1, undefined, 'b', 'a'].sort().map(String).join()", want: "1,10,9,a,b,undefined"},
		{name: "sort with a comparator", code: "return [3, 1, 2].sort((a, b) => b - a).join()", want: "3,2,1"},
		{name: "toSorted", code: "const a = [3, 1, 2]; return [a.toSorted().join(), a.join()].join(' ')", want: "1,2,3 3,1,2"},
		{
			name: "a long default sort keeps the native order",
			code: "const a = Array.from({length: 20000}, (_, i) => (i * 7919) % 20000); a.sort(); return a.length === 20000 && a.every((v, i) => i === 0 || String(a[i - 1]) <= String(v))",
			want: "true",
		},
		{name: "bound function names are capped", code: "let f = function f() {}; for (let i = 0; i < 1000; i++) f = f.bind(null); return [f.name.length <= 256, f.name.startsWith('bound bound')].join()", want: "true,true"},
		{name: "guarded built-ins keep their names and lengths", code: "return [String.prototype.repeat.name, Array.prototype.fill.length, Array.prototype.sort.name, Function.prototype.bind.length].join()", want: "repeat,1,sort,1"},
	}
	p := newTestPool(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, runCode(t, p, tt.code, nil).Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLimitsDefaults(t *testing.T) {
	got, err := Limits{}.withDefaults(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{Compute: defaultCompute, WallClock: defaultWallClock, OutputBytes: 1 << 20, HeapBytes: 512 << 20, StackDepth: 10000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
	base := Limits{Compute: 5, OutputBytes: 7}
	got, err = Limits{OutputBytes: 9}.withDefaults(&base)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compute != 5 || got.OutputBytes != 9 || got.WallClock != defaultWallClock {
		t.Errorf("overrides = %+v, want Compute 5 from the base, OutputBytes 9, default wall clock", got)
	}
}

// TestRegexpMatchTimeout runs a catastrophically backtracking regexp (24.6 s unbounded,
// per notes/goja.md) and checks that it ends as "no match" well inside the run's
// budgets instead of stalling the VM.
func TestRegexpMatchTimeout(t *testing.T) {
	pool, err := NewPool(&PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	res, err := pool.Run(context.Background(), `return /(a+)+(?=b)/.test("a".repeat(30))`, &RunOptions{Limits: &Limits{Compute: 20 * time.Second, WallClock: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil || string(res.Value) != "false" {
		t.Errorf("got %s (%v), want false: the match should time out as no match", res.Value, res.Failure)
	}
}

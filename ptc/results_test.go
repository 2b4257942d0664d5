package ptc

import (
	"context"
	"regexp"
	"strings"
	"testing"

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

package ptc

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// TestSavedScripts: a saved script is a tool script__<name> that runs its program with
// the call's arguments as input; search finds it; a script that calls an unknown tool
// is refused at save with check's message.
func TestSavedScripts(t *testing.T) {
	e := newEnv(t)
	st := store.NewMemory()
	e.ptc.Store = st
	e.register(&registry.Tool{Name: "customers", Description: "List customers with what they spent.",
		Execute: func(context.Context, *registry.Call) (any, error) {
			return []map[string]any{{"name": "Ada", "spent": 30}, {"name": "Bob", "spent": 90}, {"name": "Cy", "spent": 60}}, nil
		}})
	set := testreg.ResolveIn(t, e.scope)
	top := Script{Name: "top_customers", Description: "The customers who spent the most, best first.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`),
		Code:        `const all = await tools.customers({}); return all.sort((a, b) => b.spent - a.spent).slice(0, input.n).map(c => c.name)`}
	if err := SaveScript(context.Background(), st, set, top); err != nil {
		t.Fatal(err)
	}
	bad := Script{Name: "bad", Description: "Calls what is not there.", Code: "await tools.customerz({})"}
	err := SaveScript(context.Background(), st, set, bad)
	if want := `bad:1:13: unknown tool "customerz"; did you mean "customers"?`; err == nil || err.Error() != want {
		t.Errorf("saving a script with an unknown tool: %v, want %q", err, want)
	}

	var ex *Executor
	tools, err := ScriptTools(context.Background(), st, func() *Executor { return ex })
	if err != nil || len(tools) != 1 || tools[0].Name != "script__top_customers" {
		t.Fatalf("script tools: %v %v", tools, err)
	}
	e.register(tools...)
	ex, set = e.executor()
	res, _ := ex.Run(context.Background(), set, runCodeCall(`return await tools.script__top_customers({n: 2})`))
	if got := resultText(res); got != "[\n  \"Bob\",\n  \"Cy\"\n]" {
		t.Errorf("calling the script: %q", got)
	}
	res, _ = ex.Run(context.Background(), set, runCodeCall(`return (await tools.$search("best customers")).map(f => f.name)`))
	if got := resultText(res); !strings.Contains(got, "script__top_customers") {
		t.Errorf("search does not find the script: %q", got)
	}
	if sdk := ex.SDK(set); !strings.Contains(sdk, "script__top_customers") {
		t.Error("the SDK does not declare the script")
	}
}

// TestScriptBudgetsAreCarved: a saved script's run gets no more compute than its caller
// had left, and runs on a pool whose one run slot its caller holds.
func TestScriptBudgetsAreCarved(t *testing.T) {
	e := newEnv(t)
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1, MaxRuns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	e.pool = pool
	st := store.NewMemory()
	e.ptc.Store = st
	e.ptc.Limits = &runtime.Limits{Compute: 2 * time.Second}
	set := testreg.ResolveIn(t, e.scope)
	for _, s := range []Script{
		{Name: "spin", Description: "Computes forever.", Code: `for (;;) {}`},
		{Name: "double", Description: "Doubles input.n.", Code: `return input.n * 2`},
	} {
		if err := SaveScript(context.Background(), st, set, s); err != nil {
			t.Fatal(err)
		}
	}
	var ex *Executor
	tools, err := ScriptTools(context.Background(), st, func() *Executor { return ex })
	if err != nil {
		t.Fatal(err)
	}
	e.register(tools...)
	ex, set = e.executor()

	res, _ := ex.Run(context.Background(), set, runCodeCall(`return await tools.script__double({n: 21})`))
	if got := resultText(res); got != "42" {
		t.Errorf("a script on a full pool: %q, want 42", got)
	}

	// The caller spends half a second, then the script spins until its budget ends: the
	// budget named in its failure is what the caller had left, under 1.5s.
	res, _ = ex.Run(context.Background(), set, runCodeCall(`
const t0 = Date.now(); while (Date.now() - t0 < 500) {}
try { await tools.script__spin({}) } catch (e) { return e.message }`))
	got := resultText(res)
	m := regexp.MustCompile(`compute budget exhausted \((\d+)ms busy\)`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("the spinning script: %q, want its compute budget's failure", got)
	}
	if ms, _ := strconv.Atoi(m[1]); ms <= 0 || ms > 1505 {
		t.Errorf("the script's compute budget was %dms, want at most what its caller had left (under 1.5s): %q", ms, got)
	}
}

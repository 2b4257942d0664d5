package ptc

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	// The scripts' store is not the executor's: with a durable store every call is
	// recorded on the VM goroutine, with the clock readings of the busy loop below, and
	// that compute would be the caller's.
	st := store.NewMemory()
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

// TestSaveScriptFromProgram: with Options.SaveScripts a program saves a script with
// scripts.$save; the calls it made before are the script's example; the host hears of
// it; check's message refuses one that calls an unknown tool. Without the option there
// is no scripts global.
func TestSaveScriptFromProgram(t *testing.T) {
	e := newEnv(t)
	st := store.NewMemory()
	e.ptc.Store = st
	e.register(&registry.Tool{Name: "customers", Description: "List customers with what they spent.",
		Execute: func(context.Context, *registry.Call) (any, error) {
			return []map[string]any{{"name": "Ada", "spent": 30}, {"name": "Bob", "spent": 90}}, nil
		}})
	ex, set := e.executor()
	res, _ := ex.Run(context.Background(), set, runCodeCall(`return typeof scripts`))
	if got := resultText(res); got != `undefined` {
		t.Errorf("without SaveScripts, typeof scripts = %s", got)
	}
	if strings.Contains(ex.SDK(set), "scripts") {
		t.Error("without SaveScripts the SDK declares scripts")
	}

	var saved []string
	e.ptc.SaveScripts = true
	e.ptc.OnScriptSaved = func(s Script) { saved = append(saved, s.Name) }
	ex, set = e.executor()
	if sdk := ex.SDK(set); !strings.Contains(sdk, "declare const scripts") {
		t.Errorf("with SaveScripts the SDK does not declare scripts:\n%s", sdk)
	}
	res, rep := ex.Run(context.Background(), set, runCodeCall(`
const all = await tools.customers({});
const code = "const all = await tools.customers({}); return all.filter(c => c.spent >= input.min).map(c => c.name)";
const saved = await scripts.$save({ name: "big_spenders", description: "Customers who spent at least min.", inputSchema: { type: "object", properties: { min: { type: "number" } } }, code });
let refused;
try { await scripts.$save({ name: "bad", description: "Calls what is not there.", code: "await tools.customerz({})" }) } catch (e) { refused = e.message }
let unnamed;
try { await scripts.$save({ name: "Bad Name", description: "x", code: "return 1" }) } catch (e) { unnamed = e.message }
const bad = [];
for (const args of [[{ name: "x", description: "d", code: 1 }], ["x"], [{ name: "x", description: "d", code: "return 1", extra: true }], [],
    [{ name: 1, description: 2, code: 3 }], [{ name: "big", description: "d", code: "x".repeat(70000) }]]) {
  try { await scripts.$save(...args) } catch (e) { bad.push(e.message) }
}
return { saved, refused, unnamed, bad }`))
	want := `{
  "saved": {
    "tool": "script__big_spenders"
  },
  "refused": "scripts.$save: bad:1:13: unknown tool \"customerz\"; did you mean \"customers\"?",
  "unnamed": "scripts.$save: a script's name is 1 to 64 of a-z, 0-9 and _, got \"Bad Name\"",
  "bad": [
    "scripts.$save: code must be a string",
    "scripts.$save: takes one argument, an object {name, description, inputSchema?, code}",
    "scripts.$save: unknown property \"extra\"; a script has name, description, inputSchema and code",
    "scripts.$save: takes one argument, an object {name, description, inputSchema?, code}",
    "scripts.$save: code must be a string",
    "scripts.$save: code is at most 65536 bytes, got 70000"
  ]
}`
	if got := resultText(res); got != want {
		t.Errorf("saving from a program:\n%s\nwant\n%s", got, want)
	}
	if diff := cmp.Diff([]string{"big_spenders"}, saved); diff != "" {
		t.Errorf("OnScriptSaved (-want +got):\n%s", diff)
	}
	scripts, err := Scripts(context.Background(), st)
	if err != nil || len(scripts) != 1 {
		t.Fatalf("the store keeps %v, %v", scripts, err)
	}
	s := scripts[0]
	wantExample := []ExampleCall{{Tool: "customers", Args: json.RawMessage(`{}`), Result: json.RawMessage(`[{"name":"Ada","spent":30},{"name":"Bob","spent":90}]`)}}
	if diff := cmp.Diff(wantExample, s.Example); diff != "" {
		t.Errorf("the script's example (-want +got):\n%s", diff)
	}
	if s.Author != "run "+rep.RunID || s.Tools == "" {
		t.Errorf("author %q (want the run %q), tools hash %q", s.Author, rep.RunID, s.Tools)
	}
}

// TestScriptSync: Sync registers a tool per script the store keeps, replaces the tool
// of one saved again, disposes of one deleted, and reports whether anything changed.
func TestScriptSync(t *testing.T) {
	e := newEnv(t)
	st := store.NewMemory()
	ctx := context.Background()
	set := testreg.ResolveIn(t, e.scope)
	y := NewScriptSync(st, e.scope, func() *Executor { return nil })
	described := func() string {
		t.Helper()
		for _, entry := range testreg.ResolveIn(t, e.scope).Tools() {
			if entry.Name() == "script__one" {
				return entry.Tool.Description
			}
		}
		return ""
	}
	sync := func(want bool) {
		t.Helper()
		if changed, err := y.Sync(ctx); err != nil || changed != want {
			t.Fatalf("Sync = %v, %v; want %v", changed, err, want)
		}
	}
	sync(false)
	if err := SaveScript(ctx, st, set, Script{Name: "one", Description: "The first.", Code: "return 1"}); err != nil {
		t.Fatal(err)
	}
	sync(true)
	sync(false)
	if got := described(); got != "The first." {
		t.Errorf("after the first save: %q", got)
	}
	if err := SaveScript(ctx, st, set, Script{Name: "one", Description: "Saved again.", Code: "return 1"}); err != nil {
		t.Fatal(err)
	}
	sync(true)
	if got := described(); got != "Saved again." {
		t.Errorf("after saving again: %q", got)
	}
	if err := DeleteScript(ctx, st, "one"); err != nil {
		t.Fatal(err)
	}
	sync(true)
	if got := described(); got != "" {
		t.Errorf("after deleting: %q", got)
	}
}

// TestSaveScriptRefusesBadSchema: an input schema the registry cannot compile is refused
// at save, not left to fail every host that offers the store's scripts.
func TestSaveScriptRefusesBadSchema(t *testing.T) {
	e := newEnv(t)
	st := store.NewMemory()
	set := testreg.ResolveIn(t, e.scope)
	err := SaveScript(context.Background(), st, set, Script{Name: "bad_schema", Description: "A script.", Code: "return 1",
		InputSchema: json.RawMessage(`{"type": 5}`)})
	if err == nil || !strings.HasPrefix(err.Error(), "a script's input schema: ") {
		t.Errorf("SaveScript = %v, want the schema refused", err)
	}
	if scripts, _ := Scripts(context.Background(), st); len(scripts) != 0 {
		t.Errorf("the store keeps %v", scripts)
	}
}

// TestProgramSaveBounds: a program may not replace a script the application saved, nor
// add one past MaxProgramScripts (it may replace its own), and no save takes a
// description over 2048 bytes.
func TestProgramSaveBounds(t *testing.T) {
	e := newEnv(t)
	st := store.NewMemory()
	e.ptc.Store = st
	e.ptc.SaveScripts = true
	ex, set := e.executor()
	ctx := context.Background()
	if err := SaveScript(ctx, st, set, Script{Name: "curated", Description: "Kept by a person.", Code: "return 1", Author: "ada"}); err != nil {
		t.Fatal(err)
	}
	save := func(name string) string {
		t.Helper()
		res, _ := ex.Run(ctx, set, runCodeCall(`try { return (await scripts.$save({name: "`+name+`", description: "A script.", code: "return 2"})).tool } catch (e) { return e.message }`))
		return resultText(res)
	}
	if got, want := save("curated"), `scripts.$save: the application saved a script named "curated"; a program may not replace it: choose another name`; got != want {
		t.Errorf("replacing the application's script: %q, want %q", got, want)
	}
	if got := save("mine"); got != "script__mine" {
		t.Fatalf("a first save: %q", got)
	}
	for i := 2; i < MaxProgramScripts; i++ {
		if err := SaveScript(ctx, st, set, Script{Name: "filler_" + strconv.Itoa(i), Description: "Filler.", Code: "return 1"}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := save("one_more"), "scripts.$save: the store keeps 256 scripts, the most a program may save beside; delete some first (runcode scripts delete)"; got != want {
		t.Errorf("past the bound: %q, want %q", got, want)
	}
	if got := save("mine"); got != "script__mine" {
		t.Errorf("replacing its own at the bound: %q", got)
	}
	err := SaveScript(ctx, st, set, Script{Name: "wordy", Description: strings.Repeat("x", 2049), Code: "return 1"})
	if want := "a script's description is at most 2048 bytes, got 2049: it is part of every client's SDK"; err == nil || err.Error() != want {
		t.Errorf("a long description: %v, want %q", err, want)
	}
}

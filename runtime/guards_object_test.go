package runtime

import (
	"fmt"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// catchExpr is a program that returns what expr throws (name: message), or "returned".
func catchExpr(expr string) string {
	return "try { " + expr + "; return 'returned' } catch (e) { return e.name + ': ' + e.message }"
}

// guardCase is one program and the text its run must return.
type guardCase struct {
	name, code, want string
}

// runGuardCases runs each case through a pool with a 32 MiB heap budget.
func runGuardCases(t *testing.T, tests []guardCase) {
	t.Helper()
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, runCode(t, p, tt.code, nil).Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// bareRun runs code as the body of an async function in a plain goja VM, without any of
// runcode's guards, in strict mode as Prepare compiles, and returns what it returns (or
// throws) as text.
func bareRun(code string) (out string) {
	vm := goja.New()
	vm.SetMaxCallStackSize(defaultStackDepth)
	defer func() {
		if x := recover(); x != nil {
			out = fmt.Sprintf("PANIC: %v", x)
		}
	}()
	prg, err := goja.Compile("program.js", "(async () => {"+code+"\n})()", true) // strict, as Prepare compiles
	if err != nil {
		return "ERROR: " + err.Error()
	}
	v, err := vm.RunProgram(prg)
	if err != nil {
		return "ERROR: " + err.Error()
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return "NOT A PROMISE"
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result().String()
	case goja.PromiseStateRejected:
		return "REJECTED: " + p.Result().String()
	}
	return "PENDING"
}

// runDifferential checks that each program returns the same text through runcode's guards
// as in a plain goja VM: under the bounds, a guard changes nothing a program can see.
func runDifferential(t *testing.T, programs map[string]string) {
	t.Helper()
	p := newTestPool(t, &Limits{HeapBytes: 32 << 20})
	for name, code := range programs {
		t.Run(name, func(t *testing.T) {
			want := bareRun(code)
			res := runCode(t, p, code, nil)
			got := res.Text()
			if res.Failure != nil { // its first line: the guarded run's has a stack trace
				got = "REJECTED: " + firstLine(res.Failure.Message)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("guarded run differs from plain goja (-goja +guarded):\n%s", diff)
			}
		})
	}
}

// TestObjectFamiliesLazy checks that a program that cannot reach Proxy, Reflect or Date
// does not pay for guarding them, and that one that can does.
func TestObjectFamiliesLazy(t *testing.T) {
	p := newTestPool(t, nil)
	tests := []struct {
		code        string
		proxy, date bool
	}{
		{code: "const x = [1, 2].map(v => v * 2); return x"},
		{code: "return new Proxy({}, {})", proxy: true},
		{code: "return Reflect.ownKeys({})", proxy: true},
		{code: "return new Date(0).toJSON()", date: true},
		{code: "return globalThis", proxy: true, date: true},
		{code: "function f() { return this }", proxy: true, date: true},
		{code: "const a1n = 1; return a1n + x9"},
	}
	for _, tt := range tests {
		r, err := p.acquire()
		if err != nil {
			t.Fatal(err)
		}
		r.guardObjectsFor(tt.code)
		got := [2]bool{r.objects.proxyGuarded, r.objects.dateGuarded}
		if want := [2]bool{tt.proxy, tt.date}; got != want {
			t.Errorf("%q: guarded (proxy, date) = %v, want %v", tt.code, got, want)
		}
	}
}

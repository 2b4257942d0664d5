package registry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustRegister(t *testing.T, s *Scope, name string) func() {
	t.Helper()
	dispose, err := s.Register(&Tool{Name: name, Description: s.Name() + " " + name, Execute: nop})
	if err != nil {
		t.Fatalf("Register(%q) in %s: %v", name, s.Name(), err)
	}
	return dispose
}

func mustChild(t *testing.T, s *Scope, level Level, name string) *Scope {
	t.Helper()
	c, err := s.NewScope(level, name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustResolve resolves s for an empty step.
func mustResolve(t *testing.T, s *Scope) *ResolvedToolSet {
	t.Helper()
	set, err := s.Resolve(context.Background(), Step{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return set
}

// visible returns "name=description" for each visible tool, in order.
func visible(t *testing.T, s *Scope) []string {
	t.Helper()
	var out []string
	for _, e := range mustResolve(t, s).Tools() {
		out = append(out, e.Name()+"="+e.Tool.Description)
	}
	return out
}

func TestShadowingAndDispose(t *testing.T) {
	dep := New()
	preset := mustChild(t, dep, Preset, "preset")
	agent := mustChild(t, preset, Agent, "agent")
	other := mustChild(t, dep, Agent, "other")
	mustRegister(t, dep, "read")
	mustRegister(t, dep, "write")
	mustRegister(t, preset, "read")
	undo := mustRegister(t, agent, "read")
	mustRegister(t, agent, "B") // byte-wise order puts upper case first

	if diff := cmp.Diff([]string{"B=agent B", "read=agent read", "write=deployment write"}, visible(t, agent)); diff != "" {
		t.Errorf("agent view (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read=deployment read", "write=deployment write"}, visible(t, other)); diff != "" {
		t.Errorf("sibling agent view (-want +got):\n%s", diff)
	}
	undo()
	undo() // idempotent
	if diff := cmp.Diff([]string{"B=agent B", "read=preset read", "write=deployment write"}, visible(t, agent)); diff != "" {
		t.Errorf("after dispose (-want +got):\n%s", diff)
	}
}

func TestRegisterErrors(t *testing.T) {
	dep := New()
	agent := mustChild(t, dep, Agent, "agent")
	mustRegister(t, dep, "read")
	mustRegister(t, agent, "read") // shadowing another layer is fine
	tests := []struct {
		name    string
		scope   *Scope
		tool    string
		target  error
		wantErr string
	}{
		{"duplicate in deployment", dep, "read", ErrDuplicate, `tool "read" is already registered (for a per-agent variant, register it in that agent's scope instead)`},
		{"duplicate in agent", agent, "read", ErrDuplicate, `tool "read" is already registered in this scope`},
		{"reserved in deployment", dep, "run_code", ErrReserved, `tool name "run_code" is reserved for the run_code transport and cannot be registered or shadowed`},
		{"reserved in agent", agent, "run_code", ErrReserved, `tool name "run_code" is reserved`},
		{"discovery search", agent, "$search", ErrReserved, `tool name "$search" is reserved for a built-in of programs' tools object and cannot be registered`},
		{"discovery describe", dep, "$describe", ErrReserved, `tool name "$describe" is reserved for a built-in of programs' tools object`},
		{"kept results", dep, "$result", ErrReserved, `tool name "$result" is reserved for a built-in of programs' tools object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.scope.Register(&Tool{Name: tt.tool, Execute: nop})
			if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want %v containing %q", err, tt.target, tt.wantErr)
			}
		})
	}
	if _, err := agent.NewScope(Preset, "x"); !errors.Is(err, ErrScope) {
		t.Errorf("preset below agent: %v", err)
	}
}

func TestRestrict(t *testing.T) {
	dep := New()
	for _, n := range []string{"a", "b", "c"} {
		mustRegister(t, dep, n)
	}
	preset := mustChild(t, dep, Preset, "preset")
	mustRegister(t, preset, "p")
	agent := mustChild(t, preset, Agent, "agent")
	mustRegister(t, agent, "own")

	// want checks the names s shows, comma-separated.
	want := func(s *Scope, names, what string) {
		t.Helper()
		var out []string
		for _, v := range visible(t, s) {
			out = append(out, strings.SplitN(v, "=", 2)[0])
		}
		if got := strings.Join(out, ","); got != names {
			t.Errorf("%s: %s", what, got)
		}
	}
	undoAllow, err := agent.Restrict(Filter{Allow: []string{"a", "b", "p"}})
	if err != nil {
		t.Fatal(err)
	}
	want(agent, "a,b,own,p", "allow a,b,p")
	if _, err := agent.Restrict(Filter{Deny: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	want(agent, "a,own,p", "masks intersect")
	mustRegister(t, dep, "later")
	want(agent, "a,own,p", "allow mask must exclude a later deployment tool")
	undoAllow()
	want(agent, "a,c,later,own,p", "deny mask admits later tools after the allow mask is disposed")
	// A preset's mask applies to what its agents inherit from the deployment, not to
	// the preset's own tools.
	if _, err := preset.Restrict(Filter{Deny: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	want(agent, "c,later,own,p", "preset deny of a")
	want(dep, "a,b,c,later", "deployment is never masked")

	errs := []struct {
		name    string
		scope   *Scope
		filter  Filter
		target  error
		wantErr string
	}{
		{"deployment", dep, Filter{Deny: []string{"a"}}, ErrScope, "the deployment scope inherits none"},
		{"empty", agent, Filter{}, ErrScope, "restrict with an empty filter is a no-op"},
		{"reserved", agent, Filter{Deny: []string{"run_code"}}, ErrReserved, "restrict cannot name the reserved run_code transport; restrict end-capability tools instead"},
		{"own layer", agent, Filter{Deny: []string{"own"}}, ErrScope, `restrict names "own", which this scope registers itself`},
		{"unknown", agent, Filter{Allow: []string{"zzz"}}, ErrScope, `restrict names unknown tool "zzz" (inherited tools: a, b, c, later, p)`},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.scope.Restrict(tt.filter)
			if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want %v containing %q", err, tt.target, tt.wantErr)
			}
		})
	}
	// An explicit empty allow list hides every inherited tool.
	solo := mustChild(t, dep, Agent, "solo")
	mustRegister(t, solo, "mine")
	if _, err := solo.Restrict(Filter{Allow: []string{}}); err != nil {
		t.Fatal(err)
	}
	want(solo, "mine", "empty allow list")
}

func TestGuardsAndModes(t *testing.T) {
	dep := New()
	agent := mustChild(t, dep, Agent, "agent")
	var order []string
	agent.Guard(func(*Call) string { order = append(order, "agent"); return "" })
	undo := dep.Guard(func(*Call) string { order = append(order, "deployment"); return "" })
	set := mustResolve(t, agent)
	for _, g := range set.Guards() {
		g(&Call{})
	}
	if diff := cmp.Diff([]string{"deployment", "agent"}, order); diff != "" {
		t.Errorf("guard order (-want +got):\n%s", diff)
	}
	undo()
	if set, _ := agent.Resolve(context.Background(), Step{}); len(set.Guards()) != 1 {
		t.Errorf("disposed guard still resolved: %d guards", len(set.Guards()))
	}

	mode := func(s *Scope) Mode {
		set := mustResolve(t, s)
		return set.Mode()
	}
	if m := mode(agent); m != ModeNative {
		t.Errorf("default mode = %q", m)
	}
	if _, err := dep.SetMode(ModePTC); err != nil {
		t.Fatal(err)
	}
	if m := mode(agent); m != ModePTC {
		t.Errorf("inherited mode = %q", m)
	}
	undoBoth, err := agent.SetMode(ModeBoth)
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(agent); m != ModeBoth {
		t.Errorf("nearest mode = %q", m)
	}
	if _, err := agent.SetMode(ModeNative); !errors.Is(err, ErrScope) || !strings.Contains(err.Error(), `mode "native" conflicts with "both" already declared in this scope`) {
		t.Errorf("second declaration: %v", err)
	}
	if _, err := agent.SetMode("Bad Mode"); !errors.Is(err, ErrScope) {
		t.Errorf("invalid mode name: %v", err)
	}
	undoBoth()
	if m := mode(agent); m != ModePTC {
		t.Errorf("after dispose = %q", m)
	}
}

func TestConditionalTools(t *testing.T) {
	dep := New()
	var calls atomic.Int32
	on := true
	_, err := dep.Register(&Tool{Name: "cond", Execute: nop, When: func(_ context.Context, step Step) (bool, error) {
		calls.Add(1)
		return on && step.Model != "small", nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	mustRegister(t, dep, "plain")
	set, err := dep.Resolve(context.Background(), Step{Model: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || !set.Visible("cond") {
		t.Errorf("condition evaluated %d times, visible=%v", calls.Load(), set.Visible("cond"))
	}
	// Looking the set up again never re-evaluates the condition.
	for range 3 {
		set.Tools()
		_, _ = set.Lookup("cond")
		set.Schemas()
	}
	if calls.Load() != 1 {
		t.Errorf("condition re-evaluated: %d", calls.Load())
	}
	set, _ = dep.Resolve(context.Background(), Step{Model: "small"})
	if set.Visible("cond") {
		t.Error("false condition left the tool visible")
	}
	if _, err := set.Lookup("cond"); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("hidden tool lookup: %v", err)
	}

	for _, tt := range []struct {
		name string
		when func(context.Context, Step) (bool, error)
		want string
	}{
		{"error", func(context.Context, Step) (bool, error) { return false, errors.New("no credentials") }, `tool "bad" failed to activate: no credentials`},
		{"panic", func(context.Context, Step) (bool, error) { panic("oops") }, `tool "bad" failed to activate: condition panicked: oops`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			if _, err := s.Register(&Tool{Name: "bad", Execute: nop, When: tt.when}); err != nil {
				t.Fatal(err)
			}
			_, err := s.Resolve(context.Background(), Step{})
			var ae *ActivationError
			if !errors.As(err, &ae) || !errors.Is(err, ErrActivation) || ae.Code() != "TOOL_ACTIVATION_FAILED" || err.Error() != tt.want {
				t.Errorf("Resolve error = %v, want ActivationError %q", err, tt.want)
			}
		})
	}
}

func TestResolvedSetLifecycle(t *testing.T) {
	dep := New()
	undo := mustRegister(t, dep, "gone")
	mustRegister(t, dep, "kept")
	set := mustResolve(t, dep)
	undo()
	if _, err := set.Lookup("gone"); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("lookup of an unregistered tool: %v", err)
	}
	if _, err := set.Lookup("kept"); err != nil {
		t.Errorf("lookup of a kept tool: %v", err)
	}
	set.Dispose()
	if _, err := set.Lookup("kept"); !errors.Is(err, ErrDisposed) {
		t.Errorf("lookup after Dispose: %v", err)
	}
}

// TestResolvedSetSeesLaterChanges pins that a restriction or a same-name shadow added
// after a set was resolved invalidates the affected entries for calls not yet
// dispatched (their Lookup fails as an unknown tool), as disposal of a registration
// does; the other entries keep dispatching, and undoing the change restores them.
func TestResolvedSetSeesLaterChanges(t *testing.T) {
	// expect checks what set's Lookup gives for each tool want names: "name=description"
	// or "name: error".
	expect := func(t *testing.T, set *ResolvedToolSet, when string, want ...string) {
		t.Helper()
		var got []string
		for _, w := range want {
			n := w[:strings.IndexAny(w, "=:")]
			e, err := set.Lookup(n)
			switch {
			case err != nil:
				got = append(got, n+": "+err.Error())
			default:
				got = append(got, n+"="+e.Tool.Description)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", when, diff)
		}
	}
	// readWrite is a deployment with read and write, and the set of an agent below it.
	readWrite := func(t *testing.T) (dep, agent *Scope, set *ResolvedToolSet) {
		t.Helper()
		dep = New()
		mustRegister(t, dep, "read")
		mustRegister(t, dep, "write")
		agent = mustChild(t, dep, Agent, "agent")
		return dep, agent, mustResolve(t, agent)
	}
	t.Run("restriction", func(t *testing.T) {
		dep, agent, set := readWrite(t)
		undo, err := agent.Restrict(Filter{Deny: []string{"write"}})
		if err != nil {
			t.Fatal(err)
		}
		expect(t, set, "after a deny mask", "read=deployment read", "write: unknown tool")
		undo()
		expect(t, set, "after the mask was disposed", "read=deployment read", "write=deployment write")
		// A restriction of a farther scope reaches the nearer scope's set too.
		preset := mustChild(t, dep, Preset, "preset")
		mustRegister(t, preset, "own")
		nearer := mustChild(t, preset, Agent, "nearer")
		set = mustResolve(t, nearer)
		if _, err := preset.Restrict(Filter{Allow: []string{"write"}}); err != nil {
			t.Fatal(err)
		}
		expect(t, set, "after an allow mask of the preset", "read: unknown tool", "write=deployment write", "own=preset own")
	})
	t.Run("shadow", func(t *testing.T) {
		dep, agent, set := readWrite(t)
		undo := mustRegister(t, agent, "write")
		// The set was described with the deployment's write: the agent's is another
		// definition, so the old entry no longer dispatches and the new one was never
		// described to the model.
		expect(t, set, "after a shadow", "read=deployment read", "write: unknown tool")
		undo()
		expect(t, set, "after the shadow was disposed", "read=deployment read", "write=deployment write")
		// A registration in a farther scope than the set's own entry shadows nothing.
		mustRegister(t, agent, "mine")
		set = mustResolve(t, agent)
		mustRegister(t, dep, "mine")
		expect(t, set, "after a farther registration", "mine=agent mine")
	})
}

func TestSchemasExposeOnlyModelFields(t *testing.T) {
	dep := New()
	_, err := dep.Register(&Tool{
		Name: "read", Description: "Read a file.", TimeoutMs: 5, DeferLoading: true,
		Parameters:        Object(Required("path", String())),
		IsConcurrencySafe: func(Value) bool { return true },
		Execute:           nop,
	})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := dep.Resolve(context.Background(), Step{})
	got, err := json.Marshal(set.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"defer_loading":true}]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("schemas (-want +got):\n%s", diff)
	}
}

func TestWithTransport(t *testing.T) {
	dep := New()
	mustRegister(t, dep, "read")
	set := mustResolve(t, dep)
	if _, err := NewTransport(&Tool{Name: "other", Execute: nop}); !errors.Is(err, ErrInvalidTool) {
		t.Errorf("transport with another name: %v", err)
	}
	tr, err := NewTransport(&Tool{Name: RunCodeName, Execute: nop, Parameters: Object(Required("code", String()))})
	if err != nil {
		t.Fatal(err)
	}
	view := set.WithTransport(tr)
	if e, err := view.Lookup(RunCodeName); err != nil || e.Name() != RunCodeName || e.ValidateArgs(MustParseValue(`{}`)) == nil {
		t.Errorf("transport lookup: %v, %v", e, err)
	}
	if _, err := set.Lookup(RunCodeName); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("the original set must not gain run_code: %v", err)
	}
	if len(view.Tools()) != 1 || len(view.Schemas()) != 1 || view.Visible(RunCodeName) {
		t.Errorf("run_code must stay out of the listed tools: %d tools, visible=%v", len(view.Tools()), view.Visible(RunCodeName))
	}
	set.Dispose()
	if _, err := view.Lookup(RunCodeName); !errors.Is(err, ErrDisposed) {
		t.Errorf("the view shares disposal: %v", err)
	}
}

// TestMemo: a value derived from a set is built once for the set and the views
// WithTransport derives from it, and again for a new resolution.
func TestMemo(t *testing.T) {
	dep := New()
	mustRegister(t, dep, "a")
	set := mustResolve(t, dep)
	type key struct{}
	var builds atomic.Int32
	build := func() any { return builds.Add(1) }
	tr, err := NewTransport(&Tool{Name: RunCodeName, Execute: nop})
	if err != nil {
		t.Fatal(err)
	}
	first := set.Memo(key{}, build)
	if again := set.WithTransport(tr).Memo(key{}, build); again != first || builds.Load() != 1 {
		t.Errorf("Memo built %d times for one set (values %v, %v)", builds.Load(), first, again)
	}
	other, _ := dep.Resolve(context.Background(), Step{})
	if other.Memo(key{}, build) == first {
		t.Error("a new resolution shared the memo of an older one")
	}
}

// TestModeNames: a mode name is a lowercase letter, then lowercase letters, digits and
// hyphens.
func TestModeNames(t *testing.T) {
	for m, want := range map[Mode]bool{
		"native": true, "ptc": true, "both": true, "my-exec2": true, "a": true,
		"": false, "2x": false, "-a": false, "Ptc": false, "a_b": false, "a b": false, "é": false,
	} {
		if got := validMode(m); got != want {
			t.Errorf("validMode(%q) = %v, want %v", m, got, want)
		}
	}
}

package runtime

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestState(t *testing.T) {
	p := newTestPool(t, nil)
	st := &State{Values: map[string]json.RawMessage{"seen": json.RawMessage(`[1,2]`)}, MaxValue: 64, MaxTotal: 128}
	res := runCode(t, p, `const before = [state.get("seen"), state.get("nope") === undefined, state.keys()];
state.set("n", {a: 1}); state.delete("seen");
return [before, state.keys(), state.delete("zzz")]`, &RunOptions{State: st})
	if res.Failure != nil {
		t.Fatal(res.Text())
	}
	want := "[\n  [\n    [\n      1,\n      2\n    ],\n    true,\n    [\n      \"seen\"\n    ]\n  ],\n  [\n    \"n\"\n  ],\n  false\n]"
	if got := res.Text(); got != want {
		t.Errorf("text %q", got)
	}
	if diff := cmp.Diff(map[string]json.RawMessage{"n": json.RawMessage(`{"a":1}`)}, res.State); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if st.Values["seen"] == nil {
		t.Error("the run changed the caller's map")
	}
	// Reading only: no state comes back.
	if res := runCode(t, p, `return state.get("seen")`, &RunOptions{State: st}); res.State != nil {
		t.Errorf("a run that only read gave back %v", res.State)
	}
	// Bounds and mistakes.
	for code, want := range map[string]string{
		`try { state.set("k", "x".repeat(100)) } catch (e) { return e.name + ": " + e.message }`:              "RangeError: state.set: a value is at most 64 bytes of JSON",
		`try { for (let i = 0; i < 10; i++) state.set("k" + i, "y".repeat(20)) } catch (e) { return e.name }`: "RangeError",
		`try { state.set("k", 1n) } catch (e) { return e.name }`:                                              "TypeError",
		`try { state.set("k", undefined) } catch (e) { return e.message }`:                                    "state.set: undefined is not a value; use state.delete",
		`try { state.get(1) } catch (e) { return e.message }`:                                                 "state: a key is a string",
	} {
		if got := runCode(t, p, code, &RunOptions{State: st}).Text(); got != want {
			t.Errorf("%s\n got %q\nwant %q", code, got, want)
		}
	}
	// Without RunOptions.State there is no global.
	if got := runCode(t, p, `return typeof state`, nil).Text(); got != "undefined" {
		t.Errorf("typeof state without State = %q", got)
	}
}

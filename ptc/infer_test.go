package ptc

import (
	"encoding/json"

	"context"
	"github.com/runcode-go/runcode/pipeline"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// TestInferredTypes: a tool without an output schema is declared with the type of its
// results once it has returned some, marked as inferred; a field only some results
// had is optional; the declaration changes only when the type does; a store carries
// it to another executor; NoInferredTypes keeps JsonValue.
func TestInferredTypes(t *testing.T) {
	e := newEnv(t)
	mem := store.NewMemory()
	e.ptc.Store = mem
	n := 0
	e.register(&registry.Tool{Name: "profile", Description: "A user's profile.", Execute: func(context.Context, *registry.Call) (any, error) {
		n++
		if n == 1 {
			return map[string]any{"id": 7, "name": "Ada"}, nil
		}
		return map[string]any{"id": 8, "name": "Bob", "email": "b@x"}, nil
	}})
	ex, set := e.executor()
	const none = "  profile: JsonValue;"
	if sdk := ex.SDK(set); !strings.Contains(sdk, none) {
		t.Fatalf("before any result:\n%s", sdk)
	}
	step := func() string { // a model step: a fresh set, then a run
		set := testreg.ResolveIn(t, e.scope)
		res, _ := ex.Run(context.Background(), set, runCodeCall(`return await tools.profile({})`))
		if res.IsError() {
			t.Fatal(resultText(res))
		}
		return ex.SDK(testreg.ResolveIn(t, e.scope))
	}
	one := "  /** Inferred from 1 result; not declared by the tool. */\n  profile: {\n    id: number;\n    name: string;\n  };"
	if sdk := step(); !strings.Contains(sdk, one) {
		t.Errorf("after one result, want\n%s\nin\n%s", one, sdk)
	}
	two := "  /** Inferred from 2 results; not declared by the tool. */\n  profile: {\n    email?: string;\n    id: number;\n    name: string;\n  };"
	if sdk := step(); !strings.Contains(sdk, two) {
		t.Errorf("after two, want\n%s\nin\n%s", two, sdk)
	}
	if sdk := step(); !strings.Contains(sdk, two) { // the same type: the same text
		t.Errorf("after a third result of a known type, want\n%s\nin\n%s", two, sdk)
	}

	// Another executor on the same store declares it at once.
	ex2, set2 := e.executor()
	if sdk := ex2.SDK(set2); !strings.Contains(sdk, two) {
		t.Errorf("another executor on the store: want\n%s\nin\n%s", two, sdk)
	}
	// tools.$describe declares it too.
	res, _ := ex2.Run(context.Background(), testreg.ResolveIn(t, e.scope), runCodeCall(`return await tools.$describe("profile")`))
	if !strings.Contains(resultText(res), "Inferred from 2 results") {
		t.Errorf("$describe: %s", resultText(res))
	}
	// Turned off: JsonValue.
	e.ptc.NoInferredTypes = true
	ex3, set3 := e.executor()
	if sdk := ex3.SDK(set3); !strings.Contains(sdk, none) {
		t.Errorf("NoInferredTypes: want %q in\n%s", none, sdk)
	}
}

// runCodeCall is a run_code call of code.
func runCodeCall(code string) pipeline.RawCall {
	args, _ := json.Marshal(map[string]string{"code": code, "description": "test program"})
	return pipeline.RawCall{ID: "call-1", Arguments: string(args)}
}

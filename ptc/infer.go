package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/sdkgen"
	"github.com/runcode-go/runcode/store"
)

// MaxObservedBytes bounds the results types are learned from: a larger result is not
// looked at (learning reads the whole value, on the run's time).
const MaxObservedBytes = 64 << 10

// kindType keys, in a store, the type learned for one tool definition.
const kindType = "type"

// Types are the output types learned from the results of tools that declare no output
// schema (sdkgen.Shape): the SDK section, tools.$search and tools.$describe then
// declare a tool's result as the union of what it returned, marked as inferred,
// instead of JsonValue. A type is learned per tool definition (its name, description,
// parameters and source), so a changed tool starts again. The SDK text changes only
// when a declared type changes. Types are kept in memory and, with a store, in it too,
// so that later processes declare them (runcode sdk --store). A Types is safe for
// concurrent use.
type Types struct {
	st store.Store // nil: memory only

	mu     sync.Mutex
	loaded bool
	byKey  map[string]*learned
}

// learned is what is known of one tool definition's results.
type learned struct {
	Shape sdkgen.Shape `json:"shape"`
	// Results counts the results observed; Declared is what Results was when the type
	// last changed, the number the declaration gives (so it changes only with the type).
	Results  int `json:"results"`
	Declared int `json:"declared"`
}

// NewTypes returns learned types kept in st as well as in memory (st nil: memory only).
// What st already holds is read on first use.
func NewTypes(st store.Store) *Types {
	return &Types{st: st, byKey: map[string]*learned{}}
}

// load reads what the store holds, once; a store that cannot be read is tried again on
// the next use, and meanwhile only what this process learned is declared.
func (t *Types) load(ctx context.Context) {
	if t.loaded || t.st == nil {
		t.loaded = true
		return
	}
	recs, err := t.st.List(ctx, kindType, "", 0)
	if err != nil {
		return
	}
	t.loaded = true
	for _, rec := range recs {
		var l learned
		if json.Unmarshal(rec.Data, &l) != nil {
			continue
		}
		if mine := t.byKey[rec.Key]; mine == nil || mine.Results < l.Results {
			t.byKey[rec.Key] = &l
		}
	}
}

// typeKey names a tool definition: what a program can see of it besides its output.
func typeKey(e *registry.Entry) string {
	return e.Name() + "@" + hashText(strings.Join([]string{e.Tool.Description, string(e.Parameters()), e.Tool.Source}, "\x00"))
}

// Declare makes the set declare the learned types (bindings.Amend): call it before
// the set is first described. Tools with an output schema keep it.
func (t *Types) Declare(ctx context.Context, set *registry.ResolvedToolSet) {
	bindings.Amend(set, func(tools []sdkgen.Tool) []sdkgen.Tool {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.load(ctx)
		for i, tool := range tools {
			e, ok := set.Get(tool.Name)
			if !ok || !e.Tool.Output.Schema.IsZero() {
				continue
			}
			if l := t.byKey[typeKey(e)]; l != nil && l.Declared > 0 {
				tools[i].Output = l.Shape.Schema()
				tools[i].Inferred = l.Declared
			}
		}
		return tools
	})
}

// Observe learns from one successful result of the set's tool name. It reports whether
// the declared type changed.
func (t *Types) Observe(ctx context.Context, set *registry.ResolvedToolSet, name string, value registry.Value) (bool, error) {
	e, ok := set.Get(name)
	if !ok || !e.Tool.Output.Schema.IsZero() || value.IsZero() || len(value.String()) > MaxObservedBytes {
		return false, nil
	}
	key := typeKey(e)
	t.mu.Lock()
	t.load(ctx)
	l := t.byKey[key]
	if l == nil {
		l = &learned{}
		t.byKey[key] = l
	}
	changed, err := l.Shape.Observe([]byte(value.String()))
	if err != nil {
		t.mu.Unlock()
		return false, err
	}
	l.Results++
	if changed {
		l.Declared = l.Results
	}
	var data []byte
	if changed && t.st != nil {
		data, _ = json.Marshal(l)
	}
	t.mu.Unlock()
	if data != nil {
		if _, err := t.st.Put(context.WithoutCancel(ctx), store.Record{Kind: kindType, Key: key, Data: data}, store.Any); err != nil {
			return true, errors.Join(errors.New("keeping a learned type"), err)
		}
	}
	return changed, nil
}

// learn observes the results of the run's calls for the types of tools that declare
// none, and tells Options.OnTypes when a type changed. A store that cannot keep a type
// only loses it for later processes.
func (e *Executor) learn(ctx context.Context, set *registry.ResolvedToolSet, calls []*bindings.SubCall) {
	if e.types == nil {
		return
	}
	changed := false
	for _, c := range calls {
		if c.Result != nil && c.Result.Error == nil && !c.Replayed && !c.NeverStarted && !c.AbandonedRunning {
			ch, _ := e.types.Observe(ctx, set, c.Name, c.Result.Value)
			changed = changed || ch
		}
	}
	if changed && e.o.OnTypes != nil {
		e.o.OnTypes()
	}
}

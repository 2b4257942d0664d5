package jsvm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/dop251/goja"
)

// State is a session's key/value state as a run starts with it (Job.State): JSON values
// by key, and the bounds of what the run may make of it. The program reads and changes
// it through the global state; Outcome.State is what it left.
type State struct {
	Values map[string]json.RawMessage
	// MaxValue and MaxTotal bound one value's JSON and the keys and values together, in
	// bytes; past either, state.set throws a RangeError.
	MaxValue, MaxTotal int
}

// sessionState is the run's copy of its State: the global state reads and writes it
// on the VM goroutine.
type sessionState struct {
	values  map[string]json.RawMessage
	total   int
	changed bool
	max     State // the bounds
}

func stateSize(values map[string]json.RawMessage) int {
	n := 0
	for k, v := range values {
		n += len(k) + len(v)
	}
	return n
}

// installStateOf defines the global state over st, when the job has one: get, set,
// delete and keys, all synchronous.
func (r *VM) installStateOf(st *State) error {
	if st == nil {
		return nil
	}
	s := &sessionState{values: maps.Clone(st.Values), max: *st}
	if s.values == nil {
		s.values = map[string]json.RawMessage{}
	}
	s.total = stateSize(s.values)
	r.state = s
	vm := r.vm
	obj := vm.NewObject()
	key := func(call goja.FunctionCall) string {
		k := call.Argument(0)
		if _, ok := k.(goja.String); !ok {
			panic(vm.NewTypeError("state: a key is a string"))
		}
		return k.String()
	}
	get := func(call goja.FunctionCall) goja.Value {
		v, ok := s.values[key(call)]
		if !ok {
			return goja.Undefined()
		}
		out, err := r.decodeJSON(v)
		if err != nil {
			panic(vm.NewTypeError("state: a stored value is not JSON"))
		}
		return out
	}
	set := func(call goja.FunctionCall) goja.Value {
		k := key(call)
		if goja.IsUndefined(call.Argument(1)) {
			panic(vm.NewTypeError("state.set: undefined is not a value; use state.delete"))
		}
		raw, res, detail := r.encode(call.Argument(1), s.max.MaxValue+1)
		switch {
		case res == encodeTooLarge || len(raw) > s.max.MaxValue:
			panic(r.rangeError(fmt.Sprintf("state.set: a value is at most %d bytes of JSON", s.max.MaxValue)))
		case res == encodeLossy:
			panic(vm.NewTypeError("state.set: the value must be lossless JSON: " + detail))
		}
		total := s.total + len(k) + len(raw)
		if old, ok := s.values[k]; ok {
			total -= len(k) + len(old)
		}
		if total > s.max.MaxTotal {
			panic(r.rangeError(fmt.Sprintf("state.set: a session's state is at most %d bytes of keys and JSON", s.max.MaxTotal)))
		}
		s.values[k], s.total, s.changed = raw, total, true
		return goja.Undefined()
	}
	del := func(call goja.FunctionCall) goja.Value {
		k := key(call)
		if old, ok := s.values[k]; ok {
			delete(s.values, k)
			s.total -= len(k) + len(old)
			s.changed = true
			return vm.ToValue(true)
		}
		return vm.ToValue(false)
	}
	keys := func(goja.FunctionCall) goja.Value {
		ks := slices.Sorted(maps.Keys(s.values))
		out := make([]any, len(ks))
		for i, k := range ks {
			out[i] = k
		}
		return vm.NewArray(out...)
	}
	for name, f := range map[string]func(goja.FunctionCall) goja.Value{"get": get, "set": set, "delete": del, "keys": keys} {
		if err := obj.Set(name, f); err != nil {
			return err
		}
	}
	obj.SetPrototype(nil)
	return vm.GlobalObject().DefineDataProperty("state", obj, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// installJobGlobals defines each of globals as a read-only global holding its JSON value.
func (r *VM) installJobGlobals(globals map[string]json.RawMessage) error {
	g := r.vm.GlobalObject()
	for _, name := range slices.Sorted(maps.Keys(globals)) {
		if g.Get(name) != nil {
			return fmt.Errorf("the global %q exists already", name)
		}
		v, err := r.decodeJSON(globals[name])
		if err != nil {
			return fmt.Errorf("the global %q is not JSON", name)
		}
		if err := g.DefineDataProperty(name, v, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
	}
	return nil
}

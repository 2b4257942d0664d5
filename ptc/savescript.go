package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// ExampleCall is one call of the run that saved a script, kept with the script as an
// example of what it does (runcode scripts show prints it).
type ExampleCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// Result is the call's value, or Error its failure's message. A value or arguments
	// over exampleBytes are kept as a string that says how large they were.
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// The bounds of a script's example: its first calls, each value cut past a size.
const (
	exampleCalls = 10
	exampleBytes = 1 << 10
)

// example is the example of a script saved by a run that made calls: the ones that had
// ended, in order, bounded.
func example(calls []*bindings.SubCall) []ExampleCall {
	var out []ExampleCall
	for _, c := range calls {
		if c.Result == nil {
			continue
		}
		if len(out) == exampleCalls {
			break
		}
		ex := ExampleCall{Tool: c.Name, Args: exampleValue(c.Args.String())}
		if c.Result.Error != nil {
			ex.Error = c.Result.Error.Message
		} else if v := c.Result.Value.String(); v != "" {
			ex.Result = exampleValue(v)
		}
		out = append(out, ex)
	}
	return out
}

func exampleValue(v string) json.RawMessage {
	if len(v) <= exampleBytes {
		return json.RawMessage(v)
	}
	note, _ := json.Marshal(fmt.Sprintf("(a value of %d bytes, not kept)", len(v)))
	return note
}

// saveStart answers scripts.$save in a run: it checks and keeps the script (SaveScript),
// with the calls the run made before as its example, and resolves to {tool}.
func (b *step) saveStart(run *bindings.Run, runID string) runtime.StartFunc {
	return func(ctx context.Context, _ string, args json.RawMessage, done func(json.RawMessage, error)) {
		go func() {
			s, err := b.saveScript(ctx, run, runID, args)
			if err != nil {
				done(nil, &runtime.CallError{Message: "scripts.$save: " + err.Error()})
				return
			}
			out, _ := json.Marshal(map[string]string{"tool": ScriptPrefix + s.Name})
			done(out, nil)
		}()
	}
}

func (b *step) saveScript(ctx context.Context, run *bindings.Run, runID string, args json.RawMessage) (Script, error) {
	var list []json.RawMessage // a $ member's arguments come as an array
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &list) != nil || len(list) != 1 || json.Unmarshal(list[0], &fields) != nil || fields == nil {
		return Script{}, errors.New("takes one argument, an object {name, description, inputSchema?, code}")
	}
	var in struct{ Name, Description, Code string }
	for _, k := range slices.Sorted(maps.Keys(fields)) { // the first problem by name, every time
		raw := fields[k]
		var dst *string
		switch k {
		case "name":
			dst = &in.Name
		case "description":
			dst = &in.Description
		case "code":
			dst = &in.Code
		case "inputSchema":
			continue
		default:
			return Script{}, fmt.Errorf("unknown property %q; a script has name, description, inputSchema and code", k)
		}
		if json.Unmarshal(raw, dst) != nil {
			return Script{}, fmt.Errorf("%s must be a string", k)
		}
	}
	if strings.TrimSpace(in.Code) == "" {
		return Script{}, errors.New("a script needs code")
	}
	if len(in.Code) > maxProgramScriptBytes {
		return Script{}, fmt.Errorf("code is at most %d bytes, got %d", maxProgramScriptBytes, len(in.Code))
	}
	schema := fields["inputSchema"]
	if string(schema) == "null" {
		schema = nil
	}
	s := Script{Name: in.Name, Description: in.Description, InputSchema: schema, Code: in.Code,
		Author: programAuthor + runID, Example: example(run.Calls())}
	// One save at a time: each reads every script the store keeps, and a program that
	// saves in parallel must not make the host read them all at once, many times over.
	b.e.saving.Lock()
	err := programMaySave(ctx, b.e.store, s.Name)
	if err == nil {
		err = SaveScript(ctx, b.e.store, b.set, s)
	}
	b.e.saving.Unlock()
	if err != nil {
		return Script{}, err
	}
	if f := b.e.o.OnScriptSaved; f != nil {
		f(s)
	}
	return s, nil
}

// programAuthor begins the author of a script a program saved; the run's id follows.
const programAuthor = "run "

// MaxProgramScripts bounds the scripts a store keeps when a program saves one more: a
// program that saves in a loop must not grow the store, and the SDK of every client,
// without end.
const MaxProgramScripts = 256

// maxProgramScriptBytes bounds the code of a script a program saves: with
// MaxProgramScripts, what programs can add to a store.
const maxProgramScriptBytes = 64 << 10

// programMaySave refuses a program's save that would replace a script the application
// saved, or add one to a store that keeps MaxProgramScripts already. (Two programs
// saving at once may pass the count together; the bound is on programs that save in a
// loop, one call at a time.)
func programMaySave(ctx context.Context, st store.Store, name string) error {
	scripts, err := Scripts(ctx, st)
	if err != nil {
		return err
	}
	for _, old := range scripts {
		if old.Name == name {
			if !strings.HasPrefix(old.Author, programAuthor) {
				return fmt.Errorf("the application saved a script named %q; a program may not replace it: choose another name", name)
			}
			return nil
		}
	}
	if len(scripts) >= MaxProgramScripts {
		return fmt.Errorf("the store keeps %d scripts, the most a program may save beside; delete some first (runcode scripts delete)", len(scripts))
	}
	return nil
}

// scriptsNamespace is the global scripts of runs whose executor lets programs save
// scripts; each run binds it with WithStart.
func scriptsNamespace() (*runtime.Namespace, error) {
	return runtime.NewNamespace("scripts", []string{"$save"}, func(_ context.Context, _ string, _ json.RawMessage, done func(json.RawMessage, error)) {
		done(nil, errors.New("scripts.$save outside a run"))
	}, &runtime.NamespaceOptions{Noun: "script"})
}

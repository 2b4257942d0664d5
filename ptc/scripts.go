package ptc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// maxScriptDescription bounds a script's description, which the SDK carries.
const maxScriptDescription = 2048

// ScriptPrefix begins the tool name of a saved script: script__<name>.
const ScriptPrefix = "script__"

// kindScript keys, in a store, a saved script; the key is its name.
const kindScript = "script"

// MaxScriptDepth bounds how deep saved scripts may call each other. Each level runs its
// program while its caller waits, nested (runtime.RunOptions.Nested): on a worker (or
// VM) beyond the runner's size, within what its caller had left of its budgets.
const MaxScriptDepth = 4

// Script is a saved program: a tool (script__<name>) whose call runs the program with
// its arguments as the global input, and whose result is the program's completion. It
// is a plain value.
type Script struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Code        string          `json:"code"`
	Author      string          `json:"author,omitempty"`
	// Tools is the hash of the tool set the script was checked against when saved.
	Tools string    `json:"tools"`
	Saved time.Time `json:"saved"`
	// Example holds the calls of the run that saved the script, when a program did
	// (scripts.$save): what it called and what came back, bounded.
	Example []ExampleCall `json:"example,omitempty"`
}

// validScriptName reports whether name is 1 to 64 of a-z, 0-9 and _. (Not a regexp: one
// with {1,64}, compiled at package init, cost every start of the binary; BENCHMARKS.md.)
func validScriptName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// CheckProgram checks a program against the set's tools without running it, as runcode
// check does: it returns one line per call of a tool the set does not have ("<label>:
// <line>:<col>: unknown tool "x"; did you mean "y"?"), the tools it reaches, sorted, and
// the first dynamic use of tools, if any. A program that does not parse is a
// *runtime.Failure.
func CheckProgram(code, label string, set *registry.ResolvedToolSet) (problems, reach []string, dynamic *runtime.Reference, err error) {
	refs, err := runtime.References(code, "tools", nil)
	if err != nil {
		return nil, nil, nil, err
	}
	var names []string
	for _, e := range set.Tools() {
		names = append(names, e.Name())
	}
	for _, r := range refs {
		if r.Dynamic {
			if dynamic == nil {
				dynamic = &r
			}
			continue
		}
		if r.Member == registry.SearchName || r.Member == registry.DescribeName || r.Member == registry.ResultName {
			continue // built-ins of tools in every run, not tools the program reaches
		}
		if slices.Contains(names, r.Member) {
			if !slices.Contains(reach, r.Member) {
				reach = append(reach, r.Member)
			}
			continue
		}
		msg := fmt.Sprintf("%s:%d:%d: unknown tool %q", label, r.Line, r.Column, r.Member)
		if r.Member == registry.RunCodeName {
			msg += "; run_code cannot be called from a program"
		} else if best := runtime.Suggest(r.Member, names); best != "" {
			msg += fmt.Sprintf("; did you mean %q?", best)
		}
		problems = append(problems, msg)
	}
	slices.Sort(reach)
	return problems, reach, dynamic, nil
}

// SaveScript checks s against the set's tools (CheckProgram: a call of a tool the set
// does not have refuses it, with check's message) and keeps it in st, replacing a
// script of the same name.
func SaveScript(ctx context.Context, st store.Store, set *registry.ResolvedToolSet, s Script) error {
	switch {
	case !validScriptName(s.Name):
		return fmt.Errorf("a script's name is 1 to 64 of a-z, 0-9 and _, got %q", s.Name)
	case strings.TrimSpace(s.Description) == "":
		return errors.New("a script needs a description: it is how search finds it")
	case len(s.Description) > maxScriptDescription:
		return fmt.Errorf("a script's description is at most %d bytes, got %d: it is part of every client's SDK", maxScriptDescription, len(s.Description))
	}
	if len(s.InputSchema) > 0 {
		var obj map[string]any
		if json.Unmarshal(s.InputSchema, &obj) != nil {
			return errors.New("a script's input schema must be a JSON object")
		}
		// Registered as it will be: a schema the registry cannot compile would make every
		// host that offers the store's scripts fail to start.
		if _, err := registry.New().Register(scriptTool(s, nil)); err != nil {
			return fmt.Errorf("a script's input schema: %v", err)
		}
	}
	problems, _, _, err := CheckProgram(s.Code, s.Name, set)
	if err != nil {
		var f *runtime.Failure
		if errors.As(err, &f) {
			return fmt.Errorf("%s: %s", s.Name, f.Message)
		}
		return err
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	s.Tools = toolsHash(set)
	if s.Saved.IsZero() {
		s.Saved = time.Now().UTC()
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = st.Put(ctx, store.Record{Kind: kindScript, Key: s.Name, Data: data}, store.Any)
	return err
}

// Scripts lists the scripts st keeps, by name.
func Scripts(ctx context.Context, st store.Store) ([]Script, error) {
	recs, err := st.List(ctx, kindScript, "", 0)
	if err != nil {
		return nil, err
	}
	out := make([]Script, 0, len(recs))
	for _, rec := range recs {
		var s Script
		if json.Unmarshal(rec.Data, &s) == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// DeleteScript removes the script name from st; a missing one is not an error.
func DeleteScript(ctx context.Context, st store.Store, name string) error {
	return st.Delete(ctx, kindScript, name)
}

// ScriptTools returns a tool per script st keeps, to register beside the others: named
// script__<name>, with the script's description and input schema, and run by ex (a
// function, since the executor may be made after the scope) as a nested run of the
// script's program with the call's arguments as the global input, its completion the
// tool's result.
func ScriptTools(ctx context.Context, st store.Store, ex func() *Executor) ([]*registry.Tool, error) {
	scripts, err := Scripts(ctx, st)
	if err != nil {
		return nil, err
	}
	tools := make([]*registry.Tool, len(scripts))
	for i, s := range scripts {
		tools[i] = scriptTool(s, ex)
	}
	return tools, nil
}

func scriptTool(s Script, ex func() *Executor) *registry.Tool {
	t := &registry.Tool{Name: ScriptPrefix + s.Name, Description: s.Description, Source: "saved scripts",
		Execute: func(ctx context.Context, call *registry.Call) (any, error) { return ex().runScript(ctx, s, call) }}
	if len(s.InputSchema) > 0 {
		t.Parameters = registry.RawSchema(s.InputSchema)
	}
	return t
}

// ScriptSync keeps the script tools of a scope in step with the scripts a store keeps,
// for a host that runs while scripts are saved and deleted (a server): each Sync
// registers a tool for a new script, replaces the tool of one saved again, and
// disposes of the tool of one deleted. It is safe for concurrent use.
type ScriptSync struct {
	st    store.Store
	scope *registry.Scope
	ex    func() *Executor

	mu   sync.Mutex
	have map[string]syncedScript
}

type syncedScript struct {
	saved   time.Time
	dispose func()
}

// NewScriptSync returns a ScriptSync of st's scripts into scope, run by ex (as
// ScriptTools). It registers nothing until Sync.
func NewScriptSync(st store.Store, scope *registry.Scope, ex func() *Executor) *ScriptSync {
	return &ScriptSync{st: st, scope: scope, ex: ex, have: map[string]syncedScript{}}
}

// Sync brings the scope's script tools up to date with the store, and reports whether
// any changed.
func (y *ScriptSync) Sync(ctx context.Context) (changed bool, err error) {
	scripts, err := Scripts(ctx, y.st)
	if err != nil {
		return false, err
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	keep := map[string]bool{}
	for _, s := range scripts {
		keep[s.Name] = true
		old, ok := y.have[s.Name]
		if ok && old.saved.Equal(s.Saved) {
			continue
		}
		if ok {
			old.dispose()
		}
		dispose, err := y.scope.Register(scriptTool(s, y.ex))
		if err != nil {
			delete(y.have, s.Name)
			return true, fmt.Errorf("registering script %s: %w", s.Name, err)
		}
		y.have[s.Name] = syncedScript{saved: s.Saved, dispose: dispose}
		changed = true
	}
	for name, old := range y.have {
		if !keep[name] {
			old.dispose()
			delete(y.have, name)
			changed = true
		}
	}
	return changed, nil
}

type scriptKey struct{}

// runScript runs s as a nested run in the step the call came from.
func (e *Executor) runScript(ctx context.Context, s Script, call *registry.Call) (any, error) {
	set, _ := ctx.Value(setKey{}).(*registry.ResolvedToolSet)
	if set == nil {
		return nil, errors.New("a saved script runs only as a call of a run_code program")
	}
	depth, _ := ctx.Value(scriptKey{}).(int)
	if depth >= MaxScriptDepth {
		return nil, fmt.Errorf("saved scripts nest at most %d deep", MaxScriptDepth)
	}
	ctx = context.WithValue(ctx, scriptKey{}, depth+1)
	args, _ := json.Marshal(map[string]string{"code": s.Code, "description": "saved script " + s.Name})
	b := &step{e: e, set: set, reports: map[string]*Report{}, globals: map[string]json.RawMessage{"input": json.RawMessage(call.Args.String())}}
	left, ok := bindings.CallLeft(ctx, call)
	if !ok { // not a program's call: the script's run still runs nested, within its own budgets
		left = runtime.Left{Compute: math.MaxInt64, WallClock: math.MaxInt64}
	}
	b.within = &left
	results, reports := e.executeStep(ctx, b, []pipeline.RawCall{{ID: call.ID + ":script", Name: registry.RunCodeName, Arguments: string(args), Agent: call.Agent}})
	res, rep := results[0], reports[0]
	if res.Error != nil {
		return nil, errors.New(res.Error.Message)
	}
	if res.Pause != nil {
		return nil, errors.New("a saved script cannot wait for approval: call the tool that needs it from the program itself")
	}
	if rep == nil || rep.Value == nil {
		return nil, nil
	}
	return json.RawMessage(rep.Value), nil
}

type setKey struct{}

// carve returns limits with compute and wall clock no more than left: the budgets of a
// saved script's run, taken from what its caller had left. A budget already spent
// leaves a millisecond, so the run fails at once with its budget's failure.
func (e *Executor) carve(limits *runtime.Limits, left runtime.Left) *runtime.Limits {
	var l runtime.Limits
	if limits != nil {
		l = *limits
	}
	base := e.o.Pool.Limits()
	l.Compute = max(min(cmp.Or(l.Compute, base.Compute), left.Compute), time.Millisecond)
	l.WallClock = max(min(cmp.Or(l.WallClock, base.WallClock), left.WallClock), time.Millisecond)
	return &l
}

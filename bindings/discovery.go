package bindings

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/sdkgen"
)

// Search limits of tools.$search.
const (
	DefaultSearchLimit = 8
	MaxSearchLimit     = 50
)

type indexKey struct{}

// Index returns the search index of the set's visible tools, built on first use and
// kept with the set (registry.ResolvedToolSet.Memo): every run of a step shares it.
func Index(set *registry.ResolvedToolSet) *sdkgen.Index {
	return set.Memo(indexKey{}, func() any { return sdkgen.NewIndex(toolsOf(set), nil) }).(*sdkgen.Index)
}

type toolsKey struct{}

// toolsOf is the set's tools as the SDK and discovery declare them (see Amend).
func toolsOf(set *registry.ResolvedToolSet) []sdkgen.Tool {
	return Amend(set, nil)
}

// Amend fixes how the set's tools are declared, in the SDK section, tools.$search and
// tools.$describe: sdkgen.ToolsOf(set), passed through amend when it is not nil (for
// example to declare output types learned from results). The first call for a set,
// Amend's or a declaration's, decides for the set's whole life, so that every
// declaration of one model step agrees; a host amends before it describes the set. It
// returns the tools as declared.
func Amend(set *registry.ResolvedToolSet, amend func([]sdkgen.Tool) []sdkgen.Tool) []sdkgen.Tool {
	return set.Memo(toolsKey{}, func() any {
		tools := sdkgen.ToolsOf(set)
		if amend != nil {
			tools = amend(tools)
		}
		return tools
	}).([]sdkgen.Tool)
}

// index returns the index tools.$search and tools.$describe read: the set's shared
// lexical [Index], or with an embedder this Tools' hybrid one.
func (t *Tools) index() *sdkgen.Index {
	if t.emb == nil {
		return Index(t.set)
	}
	t.once.Do(func() {
		t.hybrid = sdkgen.NewIndex(toolsOf(t.set), &sdkgen.IndexOptions{Embedder: t.emb})
	})
	return t.hybrid
}

// Found is one result of tools.$search, as the program receives it.
type Found struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Declaration string `json:"declaration"`
}

// discover answers tools.$search and tools.$describe from ix, on the VM goroutine
// (a hybrid search, which waits for the embedder, on a goroutine of its own): they read
// the index, never the pipeline (no policy, events, sub-call id or call budget). It
// reports whether member was one of them.
func (t *Tools) discover(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) bool {
	switch {
	case member == registry.ResultName:
		t.result(ctx, args, done)
		return true
	case member != registry.SearchName && member != registry.DescribeName:
		return false
	case member == registry.SearchName && t.emb != nil:
		runtime.Async(func(ctx context.Context, member string, args json.RawMessage) (out json.RawMessage, err error) {
			discover(ctx, t.set, t.index(), member, args, func(b json.RawMessage, e error) { out, err = b, e })
			return out, err
		})(ctx, member, args, done)
		return true
	}
	discover(ctx, t.set, t.index(), member, args, done)
	return true
}

// discover answers tools.$search or tools.$describe (member) from ix.
func discover(ctx context.Context, set *registry.ResolvedToolSet, ix *sdkgen.Index, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	reject := func(code pipeline.Code, msg string) {
		done(nil, &runtime.CallError{Message: msg, Fields: map[string]string{"code": string(code)}})
	}
	var list []json.RawMessage
	if err := json.Unmarshal(args, &list); err != nil {
		reject(pipeline.CodeInvalidArgs, "tools."+member+": arguments must be lossless JSON")
		return
	}
	visible := func(name string) bool { return discoverable(set, name) }
	if member == registry.SearchName {
		query, limit, msg := searchArgs(list)
		if msg != "" {
			reject(pipeline.CodeInvalidArgs, msg)
			return
		}
		hits := ix.SearchContext(ctx, query, limit, visible)
		out := make([]Found, len(hits))
		for i, h := range hits {
			t, _ := ix.Tool(h.Name)
			out[i] = Found{Name: h.Name, Description: h.Description, Declaration: sdkgen.Declarations([]sdkgen.Tool{t})}
		}
		b, err := json.Marshal(out)
		if err != nil {
			reject(pipeline.CodeToolFailed, err.Error())
			return
		}
		done(b, nil)
		return
	}
	if len(list) == 0 {
		reject(pipeline.CodeInvalidArgs, "tools.$describe: name at least one tool, as in tools.$describe(\"read_file\")")
		return
	}
	tools := make([]sdkgen.Tool, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i, raw := range list {
		var name string
		if json.Unmarshal(raw, &name) != nil {
			reject(pipeline.CodeInvalidArgs, fmt.Sprintf("tools.$describe: argument %d must be a tool name (a string)", i+1))
			return
		}
		t, ok := ix.Tool(name)
		if !ok || !visible(name) {
			msg := fmt.Sprintf("unknown tool %q", name)
			if s := ix.Suggest(name, visible); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			reject(pipeline.CodeUnknownTool, msg)
			return
		}
		if !seen[name] {
			seen[name] = true
			tools = append(tools, t)
		}
	}
	b, _ := json.Marshal(sdkgen.Declarations(tools))
	done(b, nil)
	return
}

// Declared is the set's tools that discovery shows, as the SDK declares them: the SDK
// section is rendered from this list, so that it never declares a tool that
// tools.$describe calls unknown (a tool a guard denies outright).
func Declared(set *registry.ResolvedToolSet) []sdkgen.Tool {
	var out []sdkgen.Tool
	for _, t := range toolsOf(set) {
		if discoverable(set, t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// emptyArgs is the arguments of the probe call discoverable shows the guards.
var emptyArgs, _ = registry.ParseValue(json.RawMessage(`{}`))

// discoverable reports whether discovery shows the tool: while the set would still
// dispatch it (a restriction or shadow added since the set was resolved hides it), and
// unless a guard denies it outright, which discovery judges by a call with empty
// arguments (a guard that panics on it does not hide the tool).
func discoverable(set *registry.ResolvedToolSet, name string) bool {
	if _, err := set.Lookup(name); err != nil {
		return false
	}
	for _, g := range set.Guards() {
		if guardDenies(g, &registry.Call{Name: name, Args: emptyArgs}) {
			return false
		}
	}
	return true
}

func guardDenies(g registry.GuardFunc, call *registry.Call) (denied bool) {
	defer func() {
		if recover() != nil {
			denied = false
		}
	}()
	return g(call) != ""
}

// searchArgs reads tools.$search(query, options?); msg is the INVALID_ARGS message
// for arguments it cannot take.
func searchArgs(list []json.RawMessage) (query string, limit int, msg string) {
	if len(list) == 0 || json.Unmarshal(list[0], &query) != nil || strings.TrimSpace(query) == "" {
		return "", 0, "tools.$search: query must be a non-empty string, as in tools.$search(\"read a file\")"
	}
	limit = DefaultSearchLimit
	if len(list) < 2 || string(list[1]) == "null" {
		return query, limit, ""
	}
	var opts map[string]json.RawMessage
	if json.Unmarshal(list[1], &opts) != nil {
		return "", 0, "tools.$search: options must be an object, as in { limit: 5 }"
	}
	if raw, ok := opts["limit"]; ok && string(raw) != "null" {
		var f float64
		if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || f < 1 {
			return "", 0, "tools.$search: limit must be a positive integer"
		}
		limit = int(min(f, MaxSearchLimit))
	}
	return query, limit, ""
}

// unwrapArgs turns the argument array a $-named tool's call arrives as (the runtime
// passes every argument of such members) back into its first argument, the arguments
// object, as for any other tool. ok is false when there was none.
func unwrapArgs(args json.RawMessage) (json.RawMessage, bool) {
	var list []json.RawMessage
	if json.Unmarshal(args, &list) != nil || len(list) == 0 {
		return nil, false
	}
	return list[0], true
}

// starter returns the namespace's StartFunc for the run r (nil: bound to no run):
// discovery members are answered from the set's index, every other member is a sub-call
// of r.
func (t *Tools) starter(r *Run) runtime.StartFunc {
	return func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
		if t.discover(ctx, member, args, done) {
			return
		}
		if strings.HasPrefix(member, "$") {
			a, ok := unwrapArgs(args)
			if !ok {
				done(nil, &runtime.CallError{Message: "tool arguments must be lossless JSON (call the tool with an arguments object, e.g. `{}`)",
					Fields: map[string]string{"code": string(pipeline.CodeInvalidArgs)}})
				return
			}
			args = a
		}
		if r == nil {
			done(nil, &runtime.CallError{Message: "tools can only be called inside a run_code run",
				Fields: map[string]string{"code": string(pipeline.CodeAbortedBeforeDispatch)}})
			return
		}
		r.start(ctx, member, args, done)
	}
}

// result answers tools.$result(id) with the kept result, on a goroutine of its own (the
// store may be a database).
func (t *Tools) result(ctx context.Context, args json.RawMessage, done func(json.RawMessage, error)) {
	reject := func(code pipeline.Code, msg string) {
		done(nil, &runtime.CallError{Message: msg, Fields: map[string]string{"code": string(code)}})
	}
	var list []json.RawMessage
	var id string
	if json.Unmarshal(args, &list) != nil || len(list) != 1 || json.Unmarshal(list[0], &id) != nil || id == "" {
		reject(pipeline.CodeInvalidArgs, `tools.$result: pass the id of a kept result, as in tools.$result("r_…")`)
		return
	}
	if t.results == nil {
		reject(pipeline.CodeUnknownTool, "tools.$result: no result is kept here (results over the output budget are kept only when the host has a store)")
		return
	}
	runtime.Async(func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
		v, err := t.results(ctx, id)
		if err != nil {
			return nil, &runtime.CallError{Message: "tools.$result: " + err.Error(), Fields: map[string]string{"code": string(pipeline.CodeInvalidArgs)}}
		}
		return v, nil
	})(ctx, registry.ResultName, args, done)
}

package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Entry is a registered tool with its compiled schemas. It is immutable apart from
// its registration state and safe for concurrent use.
type Entry struct {
	// Tool is the definition as registered. It must not be changed.
	Tool   *Tool
	name   string
	params *compiled
	output *compiled
	gone   atomic.Bool
}

// Name returns the tool's name.
func (e *Entry) Name() string { return e.name }

// Parameters returns the parameters' JSON Schema text. The caller must not modify it.
func (e *Entry) Parameters() json.RawMessage { return e.params.text }

// OutputSchema returns the output's JSON Schema text. The caller must not modify it.
func (e *Entry) OutputSchema() json.RawMessage { return e.output.text }

// Registered reports whether the registration has not been disposed.
func (e *Entry) Registered() bool { return !e.gone.Load() }

// ValidateArgs checks args against the parameters schema and returns the sorted
// violations ("missing required property \"path\"", …), or nil. Arguments are
// always an object, whatever the schema says.
func (e *Entry) ValidateArgs(args Value) []string {
	if args.Kind() != "object" {
		return []string{`"arguments" must be an object`}
	}
	return e.params.validate(args, "arguments")
}

// ValidateOutput checks a canonical value against the output schema.
func (e *Entry) ValidateOutput(v Value) []string { return e.output.validate(v, "output") }

// ConcurrencySafe reports whether a call with args may overlap with other safe calls:
// only when the classifier exists, the arguments are valid, and it returns exactly
// true. A panicking classifier counts as false.
func (e *Entry) ConcurrencySafe(args Value) bool {
	return e.ValidateArgs(args) == nil && e.Classify(args)
}

// Classify runs only the tool's classifier on arguments the caller already validated:
// true only if it exists and returns exactly true; a panic counts as false.
func (e *Entry) Classify(args Value) (safe bool) {
	if e.Tool.IsConcurrencySafe == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			safe = false
		}
	}()
	return e.Tool.IsConcurrencySafe(args)
}

// Render turns a canonical value into content with the tool's renderer (or the
// default one), containing a panicking renderer as an error.
func (e *Entry) Render(args, value Value) (content []Content, err error) {
	defer func() {
		if r := recover(); r != nil {
			content, err = nil, fmt.Errorf("render panicked: %v", r)
		}
	}()
	render := e.Tool.Output.Render
	if render == nil {
		render = defaultRender
	}
	return render(args, value)
}

// PresentCall returns the tool's card for a call, or a generic one.
func (e *Entry) PresentCall(args Value) (p Presentation) {
	p = Presentation{Intent: IntentGeneric, Title: e.name}
	if e.Tool.PresentCall == nil {
		return p
	}
	defer func() { _ = recover() }()
	return e.Tool.PresentCall(args)
}

// PresentResult returns the tool's card for a result, or a generic one.
func (e *Entry) PresentResult(args Value, content []Content, isError bool) (p Presentation) {
	p = Presentation{Intent: IntentGeneric, Title: e.name}
	if e.Tool.PresentResult == nil {
		return p
	}
	defer func() { _ = recover() }()
	return e.Tool.PresentResult(args, content, isError)
}

// ToolSchema is a tool as the model receives it in native mode: name, description and
// parameters only (never timeouts, classifiers or callbacks).
type ToolSchema struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Parameters   json.RawMessage `json:"parameters"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// ResolvedToolSet is one scope's view of its tools for one model step: the visible
// tools after shadowing, restriction and conditions, the guards, and the mode. The
// prompt, the SDK and dispatch all read it, so they never disagree. It is immutable
// and safe for concurrent use; [ResolvedToolSet.Dispose] ends its use for calls that
// have not started, and a disposed registration, a later restriction or a later
// same-name shadow ends the use of the entries it affects (see Lookup).
type ResolvedToolSet struct {
	mode     Mode
	scope    *Scope
	entries  []*Entry // sorted by name, byte-wise
	byName   map[string]*Entry
	guards   []GuardFunc
	disposed *atomic.Bool // shared with sets derived by WithTransport
	gen      uint64       // the tree's generation when the set was resolved
	// transport is the run_code entry of a set derived by WithTransport: dispatchable
	// by name, never listed among the tools (so never in schemas, SDKs or bindings).
	transport *Entry
	memo      *memo // shared with sets derived by WithTransport
}

// memo holds what callers derive from a set once (see ResolvedToolSet.Memo).
type memo struct {
	mu   sync.Mutex
	vals map[any]*memoVal
}

type memoVal struct {
	once sync.Once
	v    any
}

// Memo returns the value build makes for key, calling build once per set (and the
// views WithTransport derives from it), however many goroutines ask at once: an SDK
// index or a search index is built once per resolved set, never per run. key must be
// comparable; use an unexported type of the caller's package, as with context keys.
// A panic in build propagates, and later calls for key return nil.
func (s *ResolvedToolSet) Memo(key any, build func() any) any {
	s.memo.mu.Lock()
	if s.memo.vals == nil {
		s.memo.vals = map[any]*memoVal{}
	}
	m := s.memo.vals[key]
	if m == nil {
		m = &memoVal{}
		s.memo.vals[key] = m
	}
	s.memo.mu.Unlock()
	m.once.Do(func() { m.v = build() })
	return m.v
}

// ErrActivation is wrapped by [ActivationError].
var ErrActivation = errors.New("tool activation failed")

// ActivationError reports a conditional tool whose condition failed; the step cannot
// be prepared. Its code is TOOL_ACTIVATION_FAILED.
type ActivationError struct {
	Tool string
	Err  error
}

func (e *ActivationError) Error() string {
	return fmt.Sprintf("tool %q failed to activate: %v", e.Tool, e.Err)
}

// Unwrap returns the condition's error.
func (e *ActivationError) Unwrap() error { return e.Err }

// Is matches [ErrActivation].
func (e *ActivationError) Is(target error) bool { return target == ErrActivation }

// Code returns TOOL_ACTIVATION_FAILED.
func (e *ActivationError) Code() string { return "TOOL_ACTIVATION_FAILED" }

// Resolve computes the scope's tool set for one step. Conditions (Tool.When) are
// evaluated once each, here, outside the registry lock; the first that fails makes
// resolution fail with an [*ActivationError].
func (s *Scope) Resolve(ctx context.Context, step Step) (*ResolvedToolSet, error) {
	s.tree.mu.RLock()
	gen := s.tree.gen.Load()
	var chain []*Scope
	for p := s; p != nil; p = p.parent {
		chain = append(chain, p)
	}
	slices.Reverse(chain) // deployment first
	visible := map[string]*Entry{}
	origin := map[string]int{}
	for i, layer := range chain {
		for n, e := range layer.tools {
			visible[n] = e
			origin[n] = i
		}
	}
	set := &ResolvedToolSet{mode: ModeNative, scope: s, byName: make(map[string]*Entry, len(visible)), disposed: new(atomic.Bool), gen: gen, memo: &memo{}}
	for n, e := range visible {
		ok := true
		for _, layer := range chain[origin[n]+1:] {
			if !layer.admits(n) {
				ok = false
				break
			}
		}
		if ok {
			set.entries = append(set.entries, e)
		}
	}
	for _, layer := range chain {
		for _, g := range layer.guards {
			set.guards = append(set.guards, g.fn)
		}
		if layer.mode != "" {
			set.mode = layer.mode
		}
	}
	s.tree.mu.RUnlock()

	slices.SortFunc(set.entries, func(a, b *Entry) int { return strings.Compare(a.name, b.name) })
	kept := set.entries[:0]
	for _, e := range set.entries {
		if e.Tool.When != nil {
			on, err := evalWhen(ctx, e.Tool.When, step)
			if err != nil {
				return nil, &ActivationError{Tool: e.name, Err: err}
			}
			if !on {
				continue
			}
		}
		kept = append(kept, e)
		set.byName[e.name] = e
	}
	set.entries = kept
	return set, nil
}

func evalWhen(ctx context.Context, when func(context.Context, Step) (bool, error), step Step) (on bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			on, err = false, fmt.Errorf("condition panicked: %v", r)
		}
	}()
	return when(ctx, step)
}

// Mode returns the effective mode: the nearest declared one, or [ModeNative].
func (s *ResolvedToolSet) Mode() Mode { return s.mode }

// Scope returns the scope the set was resolved for.
func (s *ResolvedToolSet) Scope() *Scope { return s.scope }

// Tools returns the visible tools in byte-wise name order. The caller must not
// modify the slice.
func (s *ResolvedToolSet) Tools() []*Entry { return s.entries }

// Guards returns the guards, farthest scope first. The caller must not modify it.
func (s *ResolvedToolSet) Guards() []GuardFunc { return s.guards }

// Visible reports whether name is a visible tool of the set (regardless of disposal).
func (s *ResolvedToolSet) Visible(name string) bool { return s.byName[name] != nil }

// Schemas returns the visible tools as the model receives them in native mode.
func (s *ResolvedToolSet) Schemas() []ToolSchema {
	out := make([]ToolSchema, len(s.entries))
	for i, e := range s.entries {
		out[i] = ToolSchema{Name: e.name, Description: e.Tool.Description, Parameters: e.params.text, DeferLoading: e.Tool.DeferLoading}
	}
	return out
}

var (
	// ErrDisposed is returned by Lookup after [ResolvedToolSet.Dispose].
	ErrDisposed = errors.New("resolved tool set was disposed")
	// ErrUnknownTool is returned by Lookup for a name that is not (or no longer) a
	// visible, registered tool of the set.
	ErrUnknownTool = errors.New("unknown tool")
)

// Lookup is the execution lookup, made just before dispatch: it fails with
// [ErrDisposed] once the set is disposed and with [ErrUnknownTool] for a name that is
// not visible, whose registration has since been disposed, or that the scope no
// longer resolves to the same definition: a restriction added since (in the scope or
// a farther one) hides it, or a registration of the same name in a nearer scope
// shadows it. The set's other entries keep dispatching; undoing the change restores
// the entry. (Conditions are not evaluated again: they belong to the step.)
func (s *ResolvedToolSet) Lookup(name string) (*Entry, error) {
	if s.disposed.Load() {
		return nil, ErrDisposed
	}
	e, _ := s.Get(name)
	if e == nil || e.gone.Load() {
		return nil, ErrUnknownTool
	}
	if e != s.transport && s.scope.tree.gen.Load() != s.gen && !s.scope.resolvesTo(e) {
		return nil, ErrUnknownTool
	}
	return e, nil
}

// Get returns the visible entry for name (or the transport, for run_code) without the
// dispatch checks of Lookup.
func (s *ResolvedToolSet) Get(name string) (*Entry, bool) {
	if name == RunCodeName && s.transport != nil {
		return s.transport, true
	}
	e, ok := s.byName[name]
	return e, ok
}

// Transport is a compiled run_code definition, made once by [NewTransport] and
// attached to any number of sets with [ResolvedToolSet.WithTransport]. It is
// immutable and safe for concurrent use.
type Transport struct{ e *Entry }

// NewTransport compiles the run_code executor's own definition. t must be named
// [RunCodeName].
func NewTransport(t *Tool) (*Transport, error) {
	if t == nil || t.Name != RunCodeName {
		return nil, fmt.Errorf("%w: the transport must be named %q", ErrInvalidTool, RunCodeName)
	}
	shadow := *t
	shadow.Name = "transport" // passes the reserved-name check; the entry keeps the real name
	e, err := entryFor(&shadow)
	if err != nil {
		return nil, err
	}
	e.Tool, e.name = t, RunCodeName
	return &Transport{e: e}, nil
}

// WithExecute returns the transport with its calls run by execute instead of the
// definition's Execute: the same compiled schemas, shared. An executor uses it to bind
// run_code's body to the state of one batch; nothing is compiled again.
func (t *Transport) WithExecute(execute func(ctx context.Context, call *Call) (any, error)) *Transport {
	tool := *t.e.Tool
	tool.Execute = execute
	return &Transport{e: &Entry{Tool: &tool, name: t.e.name, params: t.e.params, output: t.e.output}}
}

// WithTransport returns a view of the set in which run_code dispatches to t. run_code
// stays out of Tools and Schemas (the executor presents it itself), is never a visible
// tool, and the view shares the set's disposal. It costs one small allocation.
func (s *ResolvedToolSet) WithTransport(t *Transport) *ResolvedToolSet {
	view := *s
	view.transport = t.e
	return &view
}

// Dispose ends the set's use: calls that have not started fail (as cancelled before
// dispatch); started calls keep their cooperative-cancellation obligations.
func (s *ResolvedToolSet) Dispose() { s.disposed.Store(true) }

// Disposed reports whether Dispose was called.
func (s *ResolvedToolSet) Disposed() bool { return s.disposed.Load() }

package registry

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Level is a scope's place in the chain deployment > preset > agent. Nearer scopes
// (higher levels) shadow farther ones.
type Level int

// The scope levels, from farthest to nearest.
const (
	Deployment Level = iota
	Preset
	Agent
)

func (l Level) String() string {
	switch l {
	case Deployment:
		return "deployment"
	case Preset:
		return "preset"
	case Agent:
		return "agent"
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// Mode selects a scope's executor: how tools are presented to the model.
type Mode string

// The built-in modes. Custom executors may use other names matching ^[a-z][a-z0-9-]*$.
const (
	// ModeNative sends every visible tool to the model; no run_code.
	ModeNative Mode = "native"
	// ModePTC sends only run_code; every other tool is reached from programs, and
	// model-direct calls to them collapse to UNKNOWN_TOOL.
	ModePTC Mode = "ptc"
	// ModeBoth sends every visible tool and run_code.
	ModeBoth Mode = "both"
)

// validMode reports whether m is a mode name: a lowercase ASCII letter, then lowercase
// letters, digits and hyphens (a loop: a regexp would compile at every process start).
func validMode(m Mode) bool {
	for i, c := range []byte(m) {
		if !('a' <= c && c <= 'z' || i > 0 && ('0' <= c && c <= '9' || c == '-')) {
			return false
		}
	}
	return m != ""
}

// Scope is one layer of tool registrations, restrictions, guards and a mode. The
// deployment scope comes from [New]; presets and agents are created below it with
// [Scope.NewScope]. A Scope is safe for concurrent use; all scopes of one tree share
// one lock, taken briefly by registrations and by [Scope.Resolve].
type Scope struct {
	tree   *tree
	parent *Scope
	level  Level
	name   string

	tools  map[string]*Entry
	masks  []*Filter
	guards []*guard
	mode   Mode
}

type tree struct {
	mu sync.RWMutex
	// gen counts the registrations and restrictions made in the tree (under mu). A
	// set resolved at an older generation re-checks an entry before dispatching it:
	// a later shadow or restriction may have taken it out of the scope's view.
	gen atomic.Uint64
}

type guard struct{ fn GuardFunc }

// GuardFunc is a monotonic guard: it sees every call after pre-execute allowed it and
// returns a non-empty reason to deny it. A guard can only deny; no later stage can turn
// its denial back into permission. It must be fast and must not block.
type GuardFunc func(call *Call) (reason string)

// Filter is a visibility mask for [Scope.Restrict]. Allow, if non-nil, keeps only the
// named inherited tools; Deny hides the named ones. Both may be given.
type Filter struct {
	Allow []string
	Deny  []string
}

// New returns the deployment scope of a new, empty registry.
func New() *Scope {
	return &Scope{tree: &tree{}, level: Deployment, name: "deployment", tools: map[string]*Entry{}}
}

// ErrScope is wrapped by errors from misusing scopes (restrict at the deployment,
// a child at a farther level, conflicting modes).
var ErrScope = errors.New("invalid scope operation")

// NewScope creates a child scope at a nearer level (a preset below the deployment, an
// agent below the deployment or a preset). name is for messages.
func (s *Scope) NewScope(level Level, name string) (*Scope, error) {
	if level <= s.level || level > Agent {
		return nil, fmt.Errorf("%w: a %s scope cannot be created below a %s scope", ErrScope, level, s.level)
	}
	return &Scope{tree: s.tree, parent: s, level: level, name: name, tools: map[string]*Entry{}}, nil
}

// Level returns the scope's level.
func (s *Scope) Level() Level { return s.level }

// Name returns the name given at creation ("deployment" for the root).
func (s *Scope) Name() string { return s.name }

// Register adds a tool to this scope, compiling its schemas; a schema that does not
// compile is rejected here. The returned function removes the registration (it is
// idempotent); calls that have not started yet then fail as UNKNOWN_TOOL.
func (s *Scope) Register(t *Tool) (dispose func(), err error) {
	e, err := entryFor(t)
	if err != nil {
		return nil, err
	}
	s.tree.mu.Lock()
	defer s.tree.mu.Unlock()
	if _, dup := s.tools[t.Name]; dup {
		if s.parent == nil {
			return nil, fmt.Errorf("%w: tool %q is already registered (for a per-agent variant, register it in that agent's scope instead)", ErrDuplicate, t.Name)
		}
		return nil, fmt.Errorf("%w: tool %q is already registered in this scope", ErrDuplicate, t.Name)
	}
	e.name = t.Name
	s.tools[t.Name] = e
	s.tree.gen.Add(1)
	return sync.OnceFunc(func() {
		s.tree.mu.Lock()
		defer s.tree.mu.Unlock()
		if s.tools[e.name] == e {
			delete(s.tools, e.name)
		}
		e.gone.Store(true)
	}), nil
}

// Restrict masks the tools this scope inherits from farther scopes; its own
// registrations are never masked. Masks intersect, and apply to tools registered
// later too (an allow list excludes them, a deny list admits them). Restrictions are
// visibility composition, not an authority boundary: use guards for that.
func (s *Scope) Restrict(f Filter) (dispose func(), err error) {
	if s.parent == nil {
		return nil, fmt.Errorf("%w: restrict applies to inherited tools and the deployment scope inherits none; restrict a preset or agent scope", ErrScope)
	}
	if f.Allow == nil && len(f.Deny) == 0 {
		return nil, fmt.Errorf("%w: restrict with an empty filter is a no-op; name tools in Allow or Deny", ErrScope)
	}
	s.tree.mu.Lock()
	defer s.tree.mu.Unlock()
	inherited := map[string]bool{}
	for p := s.parent; p != nil; p = p.parent {
		for n := range p.tools {
			inherited[n] = true
		}
	}
	for _, n := range slices.Concat(f.Allow, f.Deny) {
		switch {
		case n == RunCodeName:
			return nil, fmt.Errorf("%w: restrict cannot name the reserved run_code transport; restrict end-capability tools instead", ErrReserved)
		case s.tools[n] != nil:
			return nil, fmt.Errorf("%w: restrict names %q, which this scope registers itself; restrictions apply only to inherited tools", ErrScope, n)
		case !inherited[n]:
			known := slices.Sorted(maps.Keys(inherited))
			return nil, fmt.Errorf("%w: restrict names unknown tool %q (inherited tools: %s)", ErrScope, n, strings.Join(known, ", "))
		}
	}
	m := &Filter{Allow: slices.Clone(f.Allow), Deny: slices.Clone(f.Deny)}
	if f.Allow != nil && m.Allow == nil {
		m.Allow = []string{}
	}
	s.masks = append(s.masks, m)
	s.tree.gen.Add(1)
	return sync.OnceFunc(func() {
		s.tree.mu.Lock()
		defer s.tree.mu.Unlock()
		s.masks = slices.DeleteFunc(s.masks, func(x *Filter) bool { return x == m })
	}), nil
}

// Guard adds a monotonic deny-only guard that sees every call resolved through this
// scope or a nearer one. Guards run farthest scope first, in registration order.
func (s *Scope) Guard(fn GuardFunc) (dispose func()) {
	g := &guard{fn: fn}
	s.tree.mu.Lock()
	defer s.tree.mu.Unlock()
	s.guards = append(s.guards, g)
	return sync.OnceFunc(func() {
		s.tree.mu.Lock()
		defer s.tree.mu.Unlock()
		s.guards = slices.DeleteFunc(s.guards, func(x *guard) bool { return x == g })
	})
}

// SetMode declares this scope's mode, which nearer scopes inherit unless they declare
// their own. One declaration per scope: a second fails until the first is disposed.
// Without any declaration the mode is [ModeNative].
func (s *Scope) SetMode(m Mode) (dispose func(), err error) {
	if !validMode(m) {
		return nil, fmt.Errorf("%w: mode %q is not a valid mode name (native, ptc, both, or a custom executor's name)", ErrScope, m)
	}
	s.tree.mu.Lock()
	defer s.tree.mu.Unlock()
	if s.mode != "" {
		return nil, fmt.Errorf("%w: mode %q conflicts with %q already declared in this scope", ErrScope, m, s.mode)
	}
	s.mode = m
	return sync.OnceFunc(func() {
		s.tree.mu.Lock()
		defer s.tree.mu.Unlock()
		if s.mode == m {
			s.mode = ""
		}
	}), nil
}

// resolvesTo reports whether the scope still resolves e's name to e: the nearest
// registration of the name, let through by the masks of every nearer scope.
func (s *Scope) resolvesTo(e *Entry) bool {
	s.tree.mu.RLock()
	defer s.tree.mu.RUnlock()
	for p := s; p != nil; p = p.parent {
		if x := p.tools[e.name]; x != nil {
			return x == e
		}
		if !p.admits(e.name) {
			return false
		}
	}
	return false
}

// admits reports whether every mask of this scope lets name through.
func (s *Scope) admits(name string) bool {
	for _, m := range s.masks {
		if m.Allow != nil && !slices.Contains(m.Allow, name) {
			return false
		}
		if slices.Contains(m.Deny, name) {
			return false
		}
	}
	return true
}

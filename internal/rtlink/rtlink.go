package rtlink

import (
	"context"
	"encoding/json"
	"fmt"
)

// Funcs is what package runtime registers, once, in its init. The fields typed any hold
// a func of the type their comment gives.
type Funcs struct {
	NamespaceOf     any // func(*runtime.Namespace) Namespace
	WithDefaults    any // func(runtime.Limits, *runtime.Limits) (runtime.Limits, error)
	CheckNamespaces any // func([]*runtime.Namespace) error
	NewSandbox      any // func(*runtime.Pool) (Sandbox[*runtime.RunOptions, *runtime.Result], error)
	PanicError      func(v any) error
	PanicValue      func(err error) (any, bool)
}

var funcs Funcs

// Register records runtime's functions. Only package runtime calls it, from an init.
func Register(f Funcs) { funcs = f }

// Namespace is what a worker needs of a runtime.Namespace to rebuild it in a worker
// process as a proxy (same global, members and error class) and to start the real
// calls on the host. It is a snapshot; Has and Start may be called from any goroutine.
type Namespace struct {
	Global                           string
	Members                          []string // in the order NewNamespace got them
	ErrorClass, MemberProperty, Noun string   // Noun filled with its default
	SnapshotFields                   map[string]string
	// Has reports whether member is one of the namespace's members.
	Has func(member string) bool
	// Start begins one call through the namespace's StartFunc, exactly as a run does (in
	// call order, not blocking; see runtime.StartFunc).
	Start func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error))
}

// NamespaceOf returns the view of ns, a *runtime.Namespace.
func NamespaceOf[NS any](ns NS) Namespace {
	return get[func(NS) Namespace](funcs.NamespaceOf, "NamespaceOf")(ns)
}

// WithDefaults returns l (a runtime.Limits) with its zero fields filled from base (when
// not nil) and then from the defaults, or a *runtime.OptionError for a negative field.
func WithDefaults[L any](l L, base *L) (L, error) {
	return get[func(L, *L) (L, error)](funcs.WithDefaults, "WithDefaults")(l, base)
}

// CheckNamespaces returns the *runtime.NamespaceError a run would fail with for nss (a
// nil namespace, or two claiming one global or error class), or nil.
func CheckNamespaces[NS any](nss []NS) error {
	return get[func([]NS) error](funcs.CheckNamespaces, "CheckNamespaces")(nss)
}

// PanicError returns the outcome of a call whose host function panicked with v: given to
// a StartFunc's done, it fails the run as an internal error, as a panic in-process does.
func PanicError(v any) error { return funcs.PanicError(v) }

// PanicValue reports whether err is such an outcome, and the value the host panicked with.
func PanicValue(err error) (any, bool) { return funcs.PanicValue(err) }

// Sandbox is one warm VM built synchronously for the caller instead of taken from a
// pool's ready VMs. It runs one program with the pool's budgets, exactly as the pool
// would, and keeps the VM alive until Dispose. It is safe for concurrent use.
type Sandbox[O, R any] interface {
	// Run prepares and runs code like runtime.Pool.Run; a second program fails.
	Run(ctx context.Context, code string, opts O) (R, error)
	// Dispose drops the VM; it is idempotent.
	Dispose()
}

// NewSandbox builds a fresh warm VM for p, a *runtime.Pool: the cost the pool's
// background refill pays per run, paid on the caller's clock.
func NewSandbox[P, O, R any](p P) (Sandbox[O, R], error) {
	return get[func(P) (Sandbox[O, R], error)](funcs.NewSandbox, "NewSandbox")(p)
}

// get returns f as an F, or panics: a mismatch is a bug in this module, not an input.
func get[F any](f any, name string) F {
	fn, ok := f.(F)
	if !ok {
		panic(fmt.Sprintf("rtlink: %s is registered as %T, called as %T", name, f, fn))
	}
	return fn
}

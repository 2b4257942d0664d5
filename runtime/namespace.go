package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/runcode-go/runcode/internal/jsvm"
)

// StartFunc begins one call of a namespace member. The runtime calls it on the VM
// goroutine, in the order the program made the calls, with the member's name and the
// call's first argument as lossless JSON (for a member whose name begins with "$", a host
// built-in such as tools.$search, every argument as one JSON array, trailing undefined
// ones dropped). It must not block; the time it takes is the host's, not the program's
// compute. It delivers the outcome by calling done once, from
// any goroutine, at any time (before it returns too); later calls are ignored. The
// program's promise resolves with the JSON value or rejects with the namespace's error
// class. ctx is cancelled when the run ends; Run waits for done up to PoolOptions.Grace,
// then drops the outcome whenever it comes (Pool.Close waits up to Grace more). An error
// that is a *Failure ends the run with that failure instead (a budget the host enforces).
// A panic in StartFunc fails the run as an internal error. One StartFunc serves every run
// its namespace is installed in, so it must be safe for concurrent use.
//
// A callback, not a blocking call: waiting would cost a goroutine and a hand-off per call.
type StartFunc func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error))

// Async adapts a blocking call into a StartFunc whose calls each run on a goroutine of
// their own, so they all run concurrently. A panic in call fails the run as an internal
// error naming the member, as a panic in StartFunc does.
func Async(call func(ctx context.Context, member string, args json.RawMessage) (json.RawMessage, error)) StartFunc {
	return func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
		go func() {
			defer func() {
				if x := recover(); x != nil {
					done(nil, &jsvm.PanicError{Value: x})
				}
			}()
			done(call(ctx, member, args))
		}()
	}
}

// CallError is an error a call's outcome carries to reject the call with the namespace's
// error class carrying extra string properties (for example a code). Other errors reject
// with their Error() text as the message. A CallError is an immutable value.
type CallError struct {
	Message string
	Fields  map[string]string
}

func (e *CallError) Error() string { return e.Message }

// vmError gives the VM a call's error in its own types: a *Failure ends the run, a
// *CallError rejects with its fields; anything else is read as it is.
func vmError(err error) error {
	var f *Failure
	if errors.As(err, &f) {
		return &jsvm.Failure{Kind: jsvm.Kind(f.Kind), Message: f.Message}
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return (*jsvm.CallError)(ce)
	}
	return err
}

// NamespaceOptions configures a namespace. A nil *NamespaceOptions means the defaults.
// NewNamespace copies what it needs and keeps no reference.
type NamespaceOptions struct {
	// ErrorClass names a global class extending Error that rejections are instances of,
	// for example "ToolCallError". Empty means rejections are plain Errors and no class is
	// installed.
	ErrorClass string
	// MemberProperty names the property of a rejection that holds the member's name, for
	// example "toolName". Empty means none.
	MemberProperty string
	// Noun names one member in messages, as in "tool arguments must be lossless JSON".
	// Empty means the global's name.
	Noun string
	// SnapshotFields are the extra properties of a rejection the runtime makes itself,
	// when a call's arguments are not lossless JSON (for example {"code": "INVALID_ARGS"},
	// so that such a rejection carries a code like every other). Nil means none.
	SnapshotFields map[string]string
}

// Namespace is a global object of async host functions, for example tools. It is installed
// per run in constant time (members materialize on first access). A Namespace is immutable
// and safe for concurrent use by any number of runs.
type Namespace struct{ ns jsvm.Namespace }

// NewNamespace builds a namespace installed as the global named global, with the given
// members (any strings: "__proto__", "constructor" and "my-tool" are ordinary keys) whose
// calls start through start.
func NewNamespace(global string, members []string, start StartFunc, opts *NamespaceOptions) (*Namespace, error) {
	ns, err := jsvm.NewNamespace(global, members, jsvm.StartFunc(start), (*jsvm.NamespaceOptions)(opts))
	if err != nil {
		return nil, namespaceError(err)
	}
	ns.Errors = vmError
	return &Namespace{*ns}, nil
}

// namespaceError is the *NamespaceError of a namespace the VM refused.
func namespaceError(err error) error {
	var e *jsvm.NamespaceError
	if errors.As(err, &e) {
		return (*NamespaceError)(e)
	}
	return err
}

// WithStart returns the namespace with its calls started through start instead, the rest
// shared: how a host binds a namespace built once to one run, in one small allocation.
func (ns *Namespace) WithStart(start StartFunc) *Namespace {
	if start == nil {
		panic("runtime: Namespace.WithStart with a nil start")
	}
	c := *ns
	c.ns.Start = jsvm.StartFunc(start)
	return &c
}

// Global is the name the namespace is installed under.
func (ns *Namespace) Global() string { return ns.ns.Global }

// Members returns the namespace's members, in the order NewNamespace got them.
func (ns *Namespace) Members() []string { return slices.Clone(ns.ns.Members) }

// Options returns the namespace's options, Noun filled with its default.
func (ns *Namespace) Options() NamespaceOptions {
	o := NamespaceOptions(ns.ns.NamespaceOptions)
	o.SnapshotFields = maps.Clone(o.SnapshotFields)
	return o
}

// Has reports whether member is one of the namespace's members.
func (ns *Namespace) Has(member string) bool { return ns.ns.Has(member) }

// Start begins one call of member through the namespace's StartFunc, as a run would: a
// host that runs programs elsewhere (runtime/worker) starts their calls with it.
func (ns *Namespace) Start(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	ns.ns.Start(ctx, member, args, done)
}

// CheckNamespaces returns the *NamespaceError a run fails with for nss (a nil namespace,
// or two claiming one global or error class), or nil.
func CheckNamespaces(nss []*Namespace) error {
	_, err := vmNamespaces(nss)
	return err
}

// vmNamespaces returns the VM's namespaces of nss, or their *NamespaceError.
func vmNamespaces(nss []*Namespace) ([]*jsvm.Namespace, error) {
	if len(nss) == 0 {
		return nil, nil
	}
	out := make([]*jsvm.Namespace, len(nss))
	for i, ns := range nss {
		if ns != nil {
			out[i] = &ns.ns
		}
	}
	return out, namespaceError(jsvm.CheckNamespaces(out))
}

// MaxArgBytes is the default bound on one call's arguments as JSON (RunOptions.ArgBytes).
// A call over it is rejected before it starts, with the namespace's snapshot fields (for
// tools, code INVALID_ARGS).
const MaxArgBytes = 16 << 20

package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
)

// This file holds the small accessors that an isolated runner (package runtime/worker)
// needs to mirror a run in a worker process: it rebuilds each namespace there as a proxy
// with the same global, members and error class, and starts the real calls on the host.

// Members returns a copy of the namespace's members, in the order NewNamespace got them.
func (ns *Namespace) Members() []string { return slices.Clone(ns.members) }

// Has reports whether member is one of the namespace's members.
func (ns *Namespace) Has(member string) bool { return ns.index[member] }

// Options returns the options the namespace was built with (Noun filled with its default).
func (ns *Namespace) Options() NamespaceOptions {
	return NamespaceOptions{ErrorClass: ns.errorClass, MemberProperty: ns.memberProp, Noun: ns.noun, SnapshotFields: maps.Clone(ns.snapshot)}
}

// Start begins one call of member through the namespace's StartFunc, exactly as a run does
// (see StartFunc for the contract the caller must keep: in call order, not blocking).
func (ns *Namespace) Start(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	ns.start(ctx, member, args, done)
}

// PanicError returns the outcome of a call whose host function panicked with v: given to
// a StartFunc's done, it fails the run as an internal error, as a panic in-process does.
func PanicError(v any) error { return &hostPanic{v} }

// PanicValue reports whether err is such an outcome, and the value the host panicked with.
func PanicValue(err error) (any, bool) {
	if hp, ok := err.(*hostPanic); ok {
		return hp.value, true
	}
	return nil, false
}

// WithDefaults returns l with its zero fields filled from base (when not nil) and then from
// the defaults (docs/run_code.md, "Budgets"), or an *OptionError for a negative field.
func (l Limits) WithDefaults(base *Limits) (Limits, error) { return l.withDefaults(base) }

// CheckNamespaces returns the *NamespaceError a run would fail with for nss (a nil
// namespace, or two claiming one global or error class), or nil.
func CheckNamespaces(nss []*Namespace) error { return checkNamespaces(nss) }

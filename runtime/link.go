package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/runcode-go/runcode/internal/rtlink"
)

// The API only runcode's own packages use (runtime/worker mirrors namespaces and limits
// in a worker process; runcode bench times a sandbox) is registered with internal/rtlink
// rather than exported here, so that it is not part of what users see.
func init() {
	rtlink.Register(rtlink.Funcs{
		NamespaceOf:     namespaceView,
		WithDefaults:    func(l Limits, base *Limits) (Limits, error) { return l.withDefaults(base) },
		CheckNamespaces: checkNamespaces,
		NewSandbox: func(p *Pool) (rtlink.Sandbox[*RunOptions, *Result], error) {
			sb, err := p.newSandbox()
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			return sb, nil
		},
		PanicError: func(v any) error { return &hostPanic{v} },
		PanicValue: func(err error) (any, bool) {
			if hp, ok := err.(*hostPanic); ok {
				return hp.value, true
			}
			return nil, false
		},
	})
}

func namespaceView(ns *Namespace) rtlink.Namespace {
	return rtlink.Namespace{
		Global: ns.global, Members: slices.Clone(ns.members),
		ErrorClass: ns.errorClass, MemberProperty: ns.memberProp, Noun: ns.noun,
		SnapshotFields: maps.Clone(ns.snapshot),
		Has:            func(member string) bool { return ns.index[member] },
		Start: func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
			ns.start(ctx, member, args, done)
		},
	}
}

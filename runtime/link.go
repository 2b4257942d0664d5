package runtime

import (
	"github.com/runcode-go/runcode/internal/jsvm"
	"github.com/runcode-go/runcode/internal/rtlink"
)

// The API only runcode's own packages use (runtime/worker mirrors namespaces and limits
// in a worker process; runcode bench times a sandbox) is registered with internal/rtlink
// rather than exported here, so that it is not part of what users see.
func init() {
	rtlink.Register(rtlink.Funcs{
		NamespaceOf:     namespaceView,
		WithDefaults:    func(l Limits, base *Limits) (Limits, error) { return l.WithDefaults(base) },
		CheckNamespaces: CheckNamespaces,
		NewSandbox: func(p *Pool) (rtlink.Sandbox[*RunOptions, *Result], error) {
			sb, err := p.newSandbox()
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			return sb, nil
		},
		PanicError: func(v any) error { return &jsvm.PanicError{Value: v} },
		PanicValue: func(err error) (any, bool) {
			if hp, ok := err.(*jsvm.PanicError); ok {
				return hp.Value, true
			}
			return nil, false
		},
	})
}

func namespaceView(ns *Namespace) rtlink.Namespace {
	o := ns.Options()
	return rtlink.Namespace{
		Global: ns.Global(), Members: ns.Members(),
		ErrorClass: o.ErrorClass, MemberProperty: o.MemberProperty, Noun: o.Noun,
		SnapshotFields: o.SnapshotFields, Has: ns.Has, Start: ns.Start,
	}
}

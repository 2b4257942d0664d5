package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/runcode-go/runcode/internal/rtlink"
)

// The functions registered with rtlink are typed any there; calling each with runtime's
// own types, as runtime/worker and runcode bench do, checks that they match.
func TestLinkRegistersRuntimeTypes(t *testing.T) {
	ns, err := NewNamespace("tools", []string{"a", "b"}, func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
		done(json.RawMessage(`"`+member+`"`), nil)
	}, &NamespaceOptions{ErrorClass: "ToolCallError"})
	if err != nil {
		t.Fatal(err)
	}
	v := rtlink.NamespaceOf(ns)
	if v.Global != "tools" || len(v.Members) != 2 || v.ErrorClass != "ToolCallError" || v.Noun != "tools" || !v.Has("b") || v.Has("c") {
		t.Fatalf("got view %+v", v)
	}
	var out json.RawMessage
	v.Start(context.Background(), "a", json.RawMessage(`{}`), func(o json.RawMessage, err error) { out = o })
	if string(out) != `"a"` {
		t.Fatalf("Start: got %s", out)
	}

	l, err := rtlink.WithDefaults(Limits{OutputBytes: 7}, nil)
	if err != nil || l.OutputBytes != 7 || l.HeapBytes == 0 {
		t.Fatalf("WithDefaults: got %+v, %v", l, err)
	}
	if _, err := rtlink.WithDefaults(Limits{OutputBytes: -1}, nil); err == nil {
		t.Fatal("WithDefaults: a negative field passed")
	}
	var nserr *NamespaceError
	if err := rtlink.CheckNamespaces([]*Namespace{ns, ns}); !errors.As(err, &nserr) {
		t.Fatalf("CheckNamespaces: got %v, want a *NamespaceError", err)
	}

	if got, ok := rtlink.PanicValue(rtlink.PanicError("boom")); !ok || got != "boom" {
		t.Fatalf("PanicValue: got %v, %v", got, ok)
	}
	if _, ok := rtlink.PanicValue(errors.New("x")); ok {
		t.Fatal("PanicValue: a plain error is a panic")
	}

	p := newTestPool(t, nil)
	sb, err := rtlink.NewSandbox[*Pool, *RunOptions, *Result](p)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Dispose()
	if res, err := sb.Run(context.Background(), "return 1", nil); err != nil || string(res.Value) != "1" {
		t.Fatalf("sandbox run: got %+v, %v", res, err)
	}
}

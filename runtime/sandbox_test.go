package runtime

import (
	"context"
	"errors"
	"testing"
)

func TestSandboxRunsOneProgram(t *testing.T) {
	p := newTestPool(t, nil)
	var f fakeTools
	opts := &RunOptions{Namespaces: []*Namespace{f.namespace(t)}}
	sb, err := p.newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sb.Run(context.Background(), "const r = await tools.echo({n: 1}); console.log('got', r.n); return r.n + 1", opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil || string(res.Value) != "2" || len(res.Logs) != 1 || res.Logs[0] != "got 1" {
		t.Fatalf("got %+v (failure %v)", res, res.Failure)
	}
	if _, err := sb.Run(context.Background(), "return 1", nil); !errors.Is(err, errSandboxUsed) {
		t.Fatalf("second run: got %v, want errSandboxUsed", err)
	}
	sb.Dispose()
	sb.Dispose()
}

func TestSandboxSyntaxErrorUsesIt(t *testing.T) {
	p := newTestPool(t, nil)
	sb, err := p.newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sb.Run(context.Background(), "return (", nil)
	if err != nil || res.Failure == nil || res.Failure.Kind != KindException {
		t.Fatalf("got %+v, %v; want an exception", res, err)
	}
	if _, err := sb.Run(context.Background(), "return 1", nil); !errors.Is(err, errSandboxUsed) {
		t.Fatalf("got %v, want errSandboxUsed", err)
	}
}

func TestSandboxDisposedOrClosed(t *testing.T) {
	p := newTestPool(t, nil)
	sb, err := p.newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	sb.Dispose()
	if _, err := sb.Run(context.Background(), "return 1", nil); !errors.Is(err, errSandboxUsed) {
		t.Fatalf("after Dispose: got %v, want errSandboxUsed", err)
	}
	sb2, err := p.newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
	if _, err := sb2.Run(context.Background(), "return 1", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: got %v, want ErrClosed", err)
	}
	if _, err := p.newSandbox(); !errors.Is(err, ErrClosed) {
		t.Fatalf("newSandbox after Close: got %v, want ErrClosed", err)
	}
}

// Many sandboxes can be held at once, each after its run (the memory mode of runcode bench).
func TestSandboxesHeldAfterRuns(t *testing.T) {
	p := newTestPool(t, nil)
	sbs := make([]*sandbox, 5)
	for i := range sbs {
		var err error
		if sbs[i], err = p.newSandbox(); err != nil {
			t.Fatal(err)
		}
	}
	for _, sb := range sbs {
		res, err := sb.Run(context.Background(), "globalThis.keep = [1, 2, 3]; return keep.length", nil)
		if err != nil || res.Failure != nil || string(res.Value) != "3" {
			t.Fatalf("got %+v, %v", res, err)
		}
	}
	for _, sb := range sbs {
		sb.Dispose()
	}
}

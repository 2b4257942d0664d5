package testexec

import (
	"testing"

	"github.com/runcode-go/runcode/native"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Pool returns a pool of one warm VM that the test's cleanup closes; a failing Close
// fails the test.
func Pool(t testing.TB) *runtime.Pool {
	t.Helper()
	pool, err := runtime.NewPool(&runtime.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pool.Close(); err != nil {
			t.Error(err)
		}
	})
	return pool
}

// PTC returns a run_code executor over p on a fresh [Pool], with opts (nil: defaults)
// but for their pool.
func PTC(t testing.TB, p *pipeline.Pipeline, opts *ptc.Options) *ptc.Executor {
	t.Helper()
	var o ptc.Options
	if opts != nil {
		o = *opts
	}
	o.Pool = Pool(t)
	ex, err := ptc.New(p, &o)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// Native returns the native executor over p.
func Native(t testing.TB, p *pipeline.Pipeline) *native.Executor {
	t.Helper()
	ex, err := native.New(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// For returns the executor of mode over p, as a host picks it: native for
// [registry.ModeNative], else run_code (see [PTC]) with opts.
func For(t testing.TB, mode registry.Mode, p *pipeline.Pipeline, opts *ptc.Options) pipeline.Executor {
	t.Helper()
	if mode == registry.ModeNative {
		return Native(t, p)
	}
	return PTC(t, p, opts)
}

// Executors returns the executors of every built-in mode over one pipeline with the
// timeout wrapper: run_code for ptc and both, on one fresh [Pool], and native.
func Executors(t testing.TB) pipeline.Executors {
	t.Helper()
	p := pipeline.New(&pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}})
	code := PTC(t, p, nil)
	return pipeline.Executors{registry.ModePTC: code, registry.ModeBoth: code, registry.ModeNative: Native(t, p)}
}

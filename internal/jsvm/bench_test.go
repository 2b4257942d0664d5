package jsvm

import (
	"math"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// Benchmarks of one VM. Run narrowly, for example:
//
//	go test -run '^$' -bench 'NewVM|IdleVM' -benchtime 1000x ./internal/jsvm/

// BenchmarkNewVM builds one warm VM (what the background refill pays per run).
func BenchmarkNewVM(b *testing.B) {
	h := newTestHost(b, 16)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.NewVM(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIdleVM reports the heap one idle pooled VM retains.
func BenchmarkIdleVM(b *testing.B) {
	h := newTestHost(b, 16)
	const n = 200
	for b.Loop() {
		vms := make([]*VM, n)
		goruntime.GC()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		for i := range vms {
			vms[i], _ = h.NewVM()
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/idle-VM")
		goruntime.KeepAlive(vms)
	}
}

// benchValue builds a value on a fresh VM for the formatting benchmarks.
func benchValue(b *testing.B, src string) *VM {
	b.Helper()
	r := newDefaultRun(b)
	v, err := r.vm.RunString(src)
	if err != nil {
		b.Fatal(err)
	}
	r.vm.Set("__bench", v)
	return r
}

const benchObject = `({id: 42, name: 'widget', tags: ['a', 'b', 'c'], nested: {when: new Date(0), sizes: [1, 2, 3, 4, 5, 6, 7, 8], m: new Map([['k', {deep: [1, {x: 'y'}]}]])}, list: Array.from({length: 50}, (_, i) => ({i, even: i % 2 === 0}))})`

// inspect formats one value the way console.log prints a non-string argument. VM
// goroutine of the run that owns v.
func (r *VM) inspect(v goja.Value) string {
	var b strings.Builder
	in := inspector{r: r, limit: math.MaxInt}
	in.format(&b, v, 0, 0)
	return b.String()
}

// BenchmarkConsole formats one nested object the way console.log does.
func BenchmarkConsole(b *testing.B) {
	r := benchValue(b, benchObject)
	v := r.vm.Get("__bench")
	b.ReportAllocs()
	for b.Loop() {
		_ = r.inspect(v)
	}
}

// BenchmarkCompletion encodes a typical completion as lossless JSON.
func BenchmarkCompletion(b *testing.B) {
	r := benchValue(b, `({id: 42, name: 'widget', tags: ['a', 'b', 'c'], list: Array.from({length: 50}, (_, i) => ({i, even: i % 2 === 0, label: 'item ' + i}))})`)
	v := r.vm.Get("__bench")
	b.ReportAllocs()
	for b.Loop() {
		if _, res, _ := r.encode(v, 1<<20); res != encodeOK {
			b.Fatal("encode failed")
		}
	}
}

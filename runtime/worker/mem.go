package worker

import "runtime/metrics"

// heapInUse is the memory the Go runtime has mapped for this process, as the GC's memory
// limit counts it.
func heapInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// memLimits are a worker's memory limits as applyLimits measured and set them, and the
// budget of the run they now fit. Serve's goroutine only.
type memLimits struct {
	vm      int64 // the warm worker's virtual size (0 if unknown)
	as      int64 // the hard address-space limit (0 if none)
	heap    int64 // the heap budget the hard limit was sized for
	gcBase  int64 // the Go runtime's mapped memory when warm
	runHeap int64 // the heap budget the limits now fit
}

package worker

import "runtime/metrics"

// heapInUse is the memory the Go runtime has mapped for this process, as the GC's memory
// limit counts it.
func heapInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

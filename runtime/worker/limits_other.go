//go:build !linux

package worker

import (
	"runtime/debug"
	"time"
)

// applyLimits sets only the garbage collector's memory limit: outside Linux the worker has
// no hard memory limit (the host still enforces the wall clock and kills on protocol errors).
func applyLimits(heap int64) *memLimits {
	l := &memLimits{heap: heap, runHeap: heap, gcBase: heapInUse()}
	debug.SetMemoryLimit(l.gcBase + heap)
	return l
}

// forRun fits the collector's memory limit to the heap budget of the next run.
func (l *memLimits) forRun(heap int64) {
	if heap <= 0 {
		heap = l.heap
	}
	if heap != l.runHeap {
		l.runHeap = heap
		debug.SetMemoryLimit(l.gcBase + heap)
	}
}

// waitExit returns at once outside Linux: the caller then reaps the process directly.
func waitExit(pid int) {}

// cpuTime is unknown outside Linux: the host then enforces only the wall clock.
func cpuTime(pid int) time.Duration { return -1 }

package bench

import (
	"math"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/runcode-go/runcode/internal/procstat"
)

// stats summarise samples in milliseconds (or MB) by the nearest-rank method: the value
// at rank ceil(p*n) of the sorted samples.
type stats struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// nearestRank returns the value at rank ceil(p*n) (1-based) of sorted, which must not be
// empty.
func nearestRank(sorted []float64, p float64) float64 {
	k := int(math.Ceil(p * float64(len(sorted))))
	k = min(max(k, 1), len(sorted))
	return sorted[k-1]
}

func summarize(samples []float64) stats {
	if len(samples) == 0 {
		return stats{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	return stats{
		N:      len(s),
		Median: round3(nearestRank(s, 0.5)),
		P90:    round3(nearestRank(s, 0.9)),
		Min:    round3(s[0]),
		Max:    round3(s[len(s)-1]),
		Mean:   round3(sum / float64(len(s))),
	}
}

// round3 keeps microseconds of a millisecond value (kilobytes of a MB value).
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// memSnapshot is the mem object of the report line. For a Go process, heapUsedMB is the
// live heap (HeapAlloc) and externalMB the Go runtime's memory outside the heap (stacks,
// GC metadata, runtime structures: Sys - HeapSys).
type memSnapshot struct {
	RSSMB      float64 `json:"rssMB"`
	HeapUsedMB float64 `json:"heapUsedMB"`
	ExternalMB float64 `json:"externalMB"`
}

const mb = 1 << 20

func readMem() memSnapshot {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return memSnapshot{
		RSSMB:      round3(float64(statusKB("VmRSS")) * 1024 / mb),
		HeapUsedMB: round3(float64(m.HeapAlloc) / mb),
		ExternalMB: round3(float64(m.Sys-m.HeapSys) / mb),
	}
}

// resetMemory gives the next scenario a clean slate in this process: the garbage of the
// previous one collected and returned to the OS, and the peak resident set (VmHWM) reset
// (Linux: clear_refs 5), so that peakRssMB is the scenario's own.
func resetMemory() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSSMB is the process's peak resident set (VmHWM), or 0 where /proc is missing.
func peakRSSMB() float64 { return round3(float64(statusKB("VmHWM")) * 1024 / mb) }

// statusKB is a kB figure of this process's status, or 0 where /proc is missing.
func statusKB(field string) int64 {
	kb, _ := procstat.Status(0, field)
	return kb
}

package runtime

import (
	"math"
	"math/bits"
	"reflect"
	"slices"
)

// sortTyped sorts a typed array's elements in place in the default order (numeric, -0
// before +0, NaN last), checking the run's stop flag as it goes: goja's default sort is
// sort.Stable over an interface, which no interrupt stops (2M elements took 1.7 s, 16M
// 18.7 s, and a 512 MB Float64Array about 80 s). Equal elements are indistinguishable, except NaNs,
// which keep their order (their bits can differ), so an unstable sort gives the same
// result. One- and two-byte kinds are counted instead.
func (r *run) sortTyped(elems reflect.Value) {
	check := func() {
		if r.failed() {
			r.tooLongArray() // the run is over; unwind
		}
	}
	switch a := elems.Interface().(type) {
	case []int8:
		countSort(a, -128, 256, check)
	case []uint8:
		countSort(a, 0, 256, check)
	case []int16:
		countSort(a, -32768, 65536, check)
	case []uint16:
		countSort(a, 0, 65536, check)
	case []int32:
		sortOrdered(a, check)
	case []uint32:
		sortOrdered(a, check)
	case []int64:
		sortOrdered(a, check)
	case []uint64:
		sortOrdered(a, check)
	case []float32:
		sortFloats(a, check)
	case []float64:
		sortFloats(a, check)
	}
}

// countSort sorts small integers by counting them: values run from lo over size values.
func countSort[T int8 | uint8 | int16 | uint16](a []T, lo, size int, check func()) {
	counts := make([]int, size)
	for i, v := range a {
		if i&0xfffff == 0xfffff {
			check()
		}
		counts[int(v)-lo]++
	}
	i := 0
	for v, c := range counts {
		for ; c > 0; c-- {
			a[i] = T(v + lo)
			i++
		}
	}
}

// ordered are the element types sorted by comparison.
type ordered interface {
	int32 | uint32 | int64 | uint64 | float32 | float64
}

// checkedSorter is an in-place introsort (quicksort with three-way partitions, heapsort
// past a depth bound, insertion sort for short runs) that calls check after every 2^22
// elements partitioned. Generic over the element type, so each kind compares with its
// own machine instruction.
type checkedSorter[T ordered] struct {
	a     []T
	work  int
	check func()
}

func sortOrdered[T ordered](a []T, check func()) {
	s := &checkedSorter[T]{a: a, check: check}
	s.quick(0, len(a), 2*bits.Len(uint(len(a))))
}

func (s *checkedSorter[T]) quick(lo, hi, depth int) {
	a := s.a
	for hi-lo > 16 {
		if s.work += hi - lo; s.work >= 1<<22 {
			s.work = 0
			s.check()
		}
		if depth == 0 {
			s.heap(lo, hi)
			return
		}
		depth--
		// Median of three as the pivot, then lt..gt holds the elements equal to it.
		m := lo + (hi-lo)/2
		if a[m] < a[lo] {
			a[m], a[lo] = a[lo], a[m]
		}
		if a[hi-1] < a[lo] {
			a[hi-1], a[lo] = a[lo], a[hi-1]
		}
		if a[hi-1] < a[m] {
			a[hi-1], a[m] = a[m], a[hi-1]
		}
		pivot := a[m]
		lt, i, gt := lo, lo, hi-1
		for i <= gt {
			switch v := a[i]; {
			case v < pivot:
				a[lt], a[i] = v, a[lt]
				lt++
				i++
			case pivot < v:
				a[i], a[gt] = a[gt], v
				gt--
			default:
				i++
			}
		}
		if lt-lo < hi-gt {
			s.quick(lo, lt, depth)
			lo = gt + 1
		} else {
			s.quick(gt+1, hi, depth)
			hi = lt
		}
	}
	for i := lo + 1; i < hi; i++ {
		for j := i; j > lo && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func (s *checkedSorter[T]) heap(lo, hi int) {
	a := s.a[lo:hi]
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && a[c] < a[c+1] {
				c++
			}
			if !(a[i] < a[c]) {
				return
			}
			a[i], a[c] = a[c], a[i]
			i = c
		}
	}
	for i := len(a)/2 - 1; i >= 0; i-- {
		down(i, len(a))
	}
	for n := len(a) - 1; n > 0; n-- {
		if n&0xfffff == 0 {
			s.check()
		}
		a[0], a[n] = a[n], a[0]
		down(0, n)
	}
}

// sortFloats moves the NaNs to the end in order, sorts the rest, and puts -0 before +0
// (which compare equal, so they end up together).
func sortFloats[T float32 | float64](a []T, check func()) {
	j := 0
	var nans []T
	for _, v := range a {
		if v != v {
			nans = append(nans, v)
			continue
		}
		a[j] = v
		j++
	}
	copy(a[j:], nans)
	a = a[:j]
	sortOrdered(a, check)
	lo, _ := slices.BinarySearch(a, 0)
	hi := lo
	negative := 0
	for ; hi < len(a) && a[hi] == 0; hi++ {
		if math.Signbit(float64(a[hi])) {
			negative++
		}
	}
	for k := lo; k < hi; k++ {
		a[k] = 0
		if k < lo+negative {
			a[k] = T(math.Copysign(0, -1))
		}
	}
}

package runtime

import (
	"fmt"
	"reflect"

	"github.com/dop251/goja"
)

// checkTyped throws a RangeError up front for a typed array too large to write. Without
// a replacer no program code runs between number elements, so one whose shortest text
// could not fit throws the RangeError writing it would reach, before any work; then
// checkTypedKeys.
func (s *stringifier) checkTyped(o *goja.Object) {
	if numbers, ok := typedArrayTypes[o.ExportType()]; ok && numbers && s.replacer == nil {
		n := int64(reflect.ValueOf(o.Export()).Len()) // a view of the data, not a copy
		if int64(len(s.buf))+minTypedText(n) > int64(s.max) {
			panic(s.r.rangeError(msgJSONLength))
		}
	}
	checkTypedKeys(s.r, o)
}

// checkTypedKeys throws a RangeError when o is a typed array (or a proxy of one, whose
// keys goja lists from the target) with more elements than the heap budget could hold
// the keys of: goja lists a typed array's keys in one native call, tens of bytes of live
// heap each, before anything can stop it.
func checkTypedKeys(r *run, o *goja.Object) {
	for o.ExportType() == proxyType {
		if o = o.Export().(goja.Proxy).Target(); o == nil {
			return // revoked: listing its keys throws
		}
	}
	if _, ok := typedArrayTypes[o.ExportType()]; !ok {
		return
	}
	n := int64(reflect.ValueOf(o.Export()).Len())
	if budget := r.limits.HeapBytes; n*typedKeyHeap > budget {
		panic(r.rangeError(fmt.Sprintf(msgJSONTypedKeys, n, budget>>20)))
	}
}

// typedKeyHeap is the live heap one key of a typed array takes while goja lists them,
// measured and rounded down.
const typedKeyHeap = 40

const msgJSONTypedKeys = "the keys of a typed array of %d elements would exceed the heap limit of %d MiB"

// minTypedText is the length of the shortest text of n elements: {"0":0,"1":0,...}.
func minTypedText(n int64) int64 {
	total := 2 + 5*n // braces, and per element two quotes, a colon, a digit and a comma (one too many)
	for p := int64(10); p <= n; p *= 10 {
		total += n - p // each index from p on has one more digit
	}
	return total - 1
}

// lossyKeys reports whether a key listed as a Go string may have lost a lone surrogate
// (which Go strings hold as U+FFFD).
func lossyKeys(keys []string) bool {
	for _, k := range keys {
		for i := 0; i+2 < len(k); i++ {
			if k[i] == 0xEF && k[i+1] == 0xBF && k[i+2] == 0xBD {
				return true
			}
		}
	}
	return false
}

// jsonPath is the set of objects being written, for cycles: scanned while short, a map
// once long.
type jsonPath struct {
	stack []*goja.Object
	set   map[*goja.Object]struct{}
}

const jsonPathScan = 32

func (p *jsonPath) len() int { return len(p.stack) }

func (p *jsonPath) has(o *goja.Object) bool {
	if p.set != nil {
		_, ok := p.set[o]
		return ok
	}
	for _, x := range p.stack {
		if x == o {
			return true
		}
	}
	return false
}

func (p *jsonPath) push(o *goja.Object) {
	p.stack = append(p.stack, o)
	if p.set != nil {
		p.set[o] = struct{}{}
	} else if len(p.stack) > jsonPathScan {
		p.set = make(map[*goja.Object]struct{}, 2*len(p.stack))
		for _, x := range p.stack {
			p.set[x] = struct{}{}
		}
	}
}

func (p *jsonPath) pop() {
	o := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	if p.set != nil {
		delete(p.set, o)
	}
}

package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestIteratorsStopFailedRun: once a run has failed, the next step of a built-in array,
// string, Map or Set iterator ends it with goja's uncatchable interrupt, where goja's
// native loops (spread, Array.from, new Set) would otherwise go on to the last element;
// before, they step as they always do. Map and Set iterators are guarded for code that
// names Map or Set.
func TestIteratorsStopFailedRun(t *testing.T) {
	for _, src := range []string{"[1, 2, 3][Symbol.iterator]()", "'abc'[Symbol.iterator]()", "new Map([[1, 2], [3, 4]]).entries()", "new Set([1, 2]).values()"} {
		t.Run(src, func(t *testing.T) {
			r := newDefaultRun(t)
			r.guardLazyFor(src, false)
			if strings.Contains(src, "new ") != r.lazyInstalled(familyCollections) {
				t.Errorf("Map and Set iterators guarded: %v", r.lazyInstalled(familyCollections))
			}
			it, err := r.vm.RunString(src)
			if err != nil {
				t.Fatal(err)
			}
			next, _ := goja.AssertFunction(it.ToObject(r.vm).Get("next"))
			v, err := next(it)
			if err != nil || v.ToObject(r.vm).Get("done").ToBoolean() {
				t.Fatalf("first step: %v %v", v, err)
			}
			r.fail(KindTimeout, "compute budget exhausted")
			var ie *goja.InterruptedError
			if _, err := next(it); !errors.As(err, &ie) {
				t.Errorf("a step after the run failed: %v, want goja's InterruptedError", err)
			}
			// In JavaScript too: a catch does not see it.
			r.vm.ClearInterrupt() // the run stays failed
			if v, err := r.vm.RunString("try { [...'abcdef'].length } catch (e) { 'caught ' + e }"); !errors.As(err, &ie) {
				t.Errorf("a spread after the run failed: %v %v, want goja's InterruptedError", v, err)
			}
		})
	}
}

package ptc

import (
	"fmt"
	"slices"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// The image budget of a run when Options leave it zero: 16 MiB of base64 (a 12 MiB
// PNG) and 20 images, what a model's context takes at once.
const (
	DefaultMaxImageBytes = 16 << 20
	DefaultMaxImages     = 20
)

// imageBudget admits a run's images in call order until the first that does not fit;
// that one and every later one are left out.
type imageBudget struct {
	maxBytes int64
	maxCount int

	bytes       int64
	kept, total int
	// over says which bound the first image left out would have passed ("" while
	// every image fitted); firstID and firstTool name its sub-call.
	over               string
	firstID, firstTool string
}

const (
	overBytes = "bytes"
	overCount = "count"
)

func (e *Executor) imageBudget() *imageBudget {
	b := &imageBudget{maxBytes: e.o.MaxImageBytes, maxCount: e.o.MaxImages}
	if b.maxBytes == 0 {
		b.maxBytes = DefaultMaxImageBytes
	}
	if b.maxCount == 0 {
		b.maxCount = DefaultMaxImages
	}
	return b
}

// admit reports whether the image img of sub-call id (of tool) is attached.
func (b *imageBudget) admit(img registry.Content, id, tool string) bool {
	b.total++
	if b.over == "" {
		switch {
		case b.kept >= b.maxCount:
			b.over = overCount
		case b.bytes+int64(len(img.Data)) > b.maxBytes:
			b.over = overBytes
		default:
			b.kept++
			b.bytes += int64(len(img.Data))
			return true
		}
		b.firstID, b.firstTool = id, tool
	}
	return false
}

// leftOut is the number of images left out.
func (b *imageBudget) leftOut() int { return b.total - b.kept }

// note is the line the run's text ends with when images were left out, or "".
func (b *imageBudget) note() string {
	if b.over == "" {
		return ""
	}
	why := fmt.Sprintf("a run's images may take at most %s of base64 data; read fewer or smaller images per run", byteCount(b.maxBytes))
	if b.over == overCount {
		why = fmt.Sprintf("a run attaches at most %d images; read fewer images per run", b.maxCount)
	}
	return fmt.Sprintf("[%d of %d images left out, from sub-call %s (%s) on: %s]", b.leftOut(), b.total, b.firstID, b.firstTool, why)
}

// byteCount spells n in the largest binary unit that divides it.
func byteCount(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// filter returns content with the images the budget does not admit taken out, for a
// context, and with each of them replaced by a short text, for the sub-call's record;
// cut reports whether any was left out (otherwise both are content itself).
func (b *imageBudget) filter(content []registry.Content, id, tool string) (attach, record []registry.Content, cut bool) {
	for i, c := range content {
		if c.Type != "image" || b.admit(c, id, tool) {
			if cut {
				attach, record = append(attach, c), append(record, c)
			}
			continue
		}
		if !cut { // the first image left out: copy what came before
			cut = true
			attach = append(make([]registry.Content, 0, len(content)), content[:i]...)
			record = append(make([]registry.Content, 0, len(content)), content[:i]...)
		}
		record = append(record, registry.Text(fmt.Sprintf("[%s image left out of the run's result: past its image budget]", c.MIMEType)))
	}
	if !cut {
		return content, content, false
	}
	return attach, record, true
}

// attributed collects, in submission order, the contexts a run hands the model after
// its result: each successful sub-call whose final content holds an image (its whole
// content, attributed to it), and every context a sub-call's policies attached. Their
// images count against budget; those it leaves out are taken out of the contexts and
// out of the sub-calls' records (calls is updated in place, with new records), so that
// nothing the run returns keeps their data alive.
func attributed(calls []*bindings.SubCall, budget *imageBudget) []pipeline.AdditionalContext {
	var out []pipeline.AdditionalContext
	for i, c := range calls {
		if c.NeverStarted || c.AbandonedRunning || c.Result == nil {
			continue
		}
		res := c.Result
		recContent, recContexts, changed := res.Content, res.Contexts, false
		if !res.IsError() && hasImage(res.Content) {
			attach, rec, cut := budget.filter(res.Content, c.ID, c.Name)
			if hasImage(attach) {
				out = append(out, pipeline.AdditionalContext{Source: registry.RunCodeName, CallID: c.ID, Tool: c.Name, Content: attach})
			}
			recContent, changed = rec, cut
		}
		for j, x := range res.Contexts {
			if x.CallID == "" {
				x.CallID, x.Tool = c.ID, c.Name
			}
			attach, rec, cut := budget.filter(x.Content, x.CallID, x.Tool)
			if cut {
				if &recContexts[0] == &res.Contexts[0] { // not copied yet
					recContexts = slices.Clone(res.Contexts)
				}
				recContexts[j].Content, changed = rec, true
				if len(attach) == 0 { // nothing of it is left to attach
					continue
				}
			}
			x.Content = attach
			out = append(out, x)
		}
		if changed {
			calls[i] = leanRecord(c, recContent, recContexts)
		}
	}
	return out
}

// leanRecord returns a new record of the sub-call c whose result has content and
// contexts in place of its own: the record without the images its run left out. It
// is new, rather than c changed, so that neither it nor anything it holds refers to
// the images' data.
func leanRecord(c *bindings.SubCall, content []registry.Content, contexts []pipeline.AdditionalContext) *bindings.SubCall {
	res := *c.Result
	res.Content, res.Contexts = content, contexts
	return &bindings.SubCall{ID: c.ID, Name: c.Name, Args: c.Args, Result: &res,
		NeverStarted: c.NeverStarted, AbandonedRunning: c.AbandonedRunning, Duration: c.Duration, Replayed: c.Replayed}
}

func hasImage(content []registry.Content) bool {
	for _, c := range content {
		if c.Type == "image" {
			return true
		}
	}
	return false
}

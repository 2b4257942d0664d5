package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/runcode-go/runcode/registry"
)

// ErrResumed is ResumeBatch's failure for a batch whose pause was resumed already.
var ErrResumed = errors.New("this pause was already resumed")

// ResumeBatch goes on with the paused results of one batch (Result.Pause), as a host
// that answers a model's whole turn does: each paused call that decisions decide
// something for is resumed with its own decisions through exec (a [Resumer]); a paused
// call with nothing decided stays paused, its continuation unspent; the other results
// stay as they were. It returns the batch's results in order. A paused call whose run
// cannot resume (an expired continuation, a store that failed) gets a TOOL_FAILED result
// saying why, so that the turn is complete. It checks what it can before anything runs
// and then fails, resuming nothing: a done ctx, an exec that is not a Resumer, no
// decisions, a decision for a call that is not pending, and, when spent is not nil, a
// batch already resumed through spent (ErrResumed).
func ResumeBatch(ctx context.Context, exec Executor, set *registry.ResolvedToolSet, batch []RawCall, results []*Result, decisions map[string]Verdict, spent *atomic.Bool) ([]*Result, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	r, ok := exec.(Resumer)
	if !ok {
		return nil, fmt.Errorf("the executor (%T) cannot resume runs: it is not a pipeline.Resumer", exec)
	}
	var ids []string
	for _, res := range results {
		if res.Pause != nil {
			for _, c := range res.Pause.Pending {
				ids = append(ids, c.ID)
			}
		}
	}
	if len(decisions) == 0 {
		return nil, fmt.Errorf("no decisions: decide at least one of the pending calls (%s)", strings.Join(ids, ", "))
	}
	for _, id := range slices.Sorted(maps.Keys(decisions)) {
		if !slices.Contains(ids, id) {
			return nil, fmt.Errorf("no call %q is pending (pending: %s)", id, strings.Join(ids, ", "))
		}
	}
	if spent != nil && !spent.CompareAndSwap(false, true) {
		return nil, ErrResumed
	}
	out := slices.Clone(results)
	for i, res := range results {
		if res.Pause == nil {
			continue
		}
		mine := map[string]Verdict{}
		for _, c := range res.Pause.Pending {
			if v, ok := decisions[c.ID]; ok {
				mine[c.ID] = v
			}
		}
		if len(mine) == 0 {
			continue
		}
		next, err := r.Resume(ctx, set, res.Pause.Continuation, mine)
		switch {
		case err != nil:
			next = ResumeFailed(batch[i], err)
		case next == nil:
			return nil, fmt.Errorf("the executor's Resume returned no result for call %q", batch[i].ID)
		}
		out[i] = next
	}
	return out, nil
}

// ResumeFailed is the result of a paused call whose run could not resume: a
// TOOL_FAILED error whose text says why (ptc's "run_code could not resume: …"), so that
// the model's turn gets an answer for the call.
func ResumeFailed(call RawCall, err error) *Result {
	te := &ToolError{Code: CodeToolFailed, Message: err.Error(), Err: err}
	return &Result{CallID: call.ID, Name: call.Name, Error: te, Content: []registry.Content{registry.Text("Error: " + te.Message)}}
}

// Waiting says what a pause waits for, in the words the model reads for a paused run:
// "run_code paused: waiting for approval of <first> (<n> pending)", with " and N more"
// after first when n > 1. first is the tool of the first pending call.
func Waiting(first string, n int) string {
	if n == 0 {
		return "run_code paused"
	}
	if n > 1 {
		first += fmt.Sprintf(" and %d more", n-1)
	}
	return fmt.Sprintf("run_code paused: waiting for approval of %s (%d pending)", first, n)
}

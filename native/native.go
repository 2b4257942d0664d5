package native

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// Options configures an Executor.
type Options struct {
	// MaxParallel bounds overlapping parallel-safe calls of one batch. If zero,
	// [pipeline.DefaultMaxParallel]; negative is an error.
	MaxParallel int
}

// Executor is the native executor. It is immutable and safe for concurrent use.
type Executor struct {
	p   *pipeline.Pipeline
	max int
}

var _ pipeline.Executor = (*Executor)(nil)

// New returns a native executor running calls through p. opts may be nil.
func New(p *pipeline.Pipeline, opts *Options) (*Executor, error) {
	e := &Executor{p: p}
	if opts != nil {
		e.max = opts.MaxParallel
	}
	if e.max < 0 {
		return nil, fmt.Errorf("native executor: MaxParallel must be a positive integer, got %d", e.max)
	}
	return e, nil
}

// Describe returns the visible tools' schemas as the model receives them: name,
// description and parameters only. It sends no prompt sections.
func (e *Executor) Describe(set *registry.ResolvedToolSet) (*pipeline.Description, error) {
	return &pipeline.Description{Tools: set.Schemas()}, nil
}

// Execute runs a model step's batch: arguments are parsed once (empty is {}; text
// that is not JSON fails validation as `"arguments" must be an object`), calls start
// in order through the scheduler, and the results come back in call order. On
// cancellation started calls drain and unstarted ones get
// `Error: tool call aborted before dispatch`.
func (e *Executor) Execute(ctx context.Context, set *registry.ResolvedToolSet, batch []pipeline.RawCall) []*pipeline.Result {
	s, err := e.p.NewScheduler(ctx, set, &pipeline.SchedulerOptions{MaxParallel: e.max})
	if err != nil {
		panic(err) // unreachable: New rejected a negative MaxParallel
	}
	pending := make([]*pipeline.Pending, len(batch))
	for i, raw := range batch {
		pending[i] = s.Submit(registry.Call{
			ID:    raw.ID,
			Name:  raw.Name,
			Args:  pipeline.ParseArguments(raw.Arguments),
			Agent: raw.Agent,
		})
	}
	results := make([]*pipeline.Result, len(batch))
	for i, p := range pending {
		results[i] = p.Wait()
	}
	s.Close()
	return results
}

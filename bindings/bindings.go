package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/sdkgen"
)

// Tools is the `tools` namespace of one resolved tool set. Build it once per set (a
// model step) and bind it to each run of that step ([Tools.Bind]): the runtime
// materializes members lazily, so the per-run cost does not grow with the number of
// tools. A Tools is immutable and safe for concurrent use.
type Tools struct {
	set *registry.ResolvedToolSet
	ns  *runtime.Namespace

	// With an embedder, the hybrid index, built on first use.
	emb    sdkgen.Embedder
	once   sync.Once
	hybrid *sdkgen.Index

	// results reads back a kept result for tools.$result (WithResults); nil: none kept.
	results func(ctx context.Context, id string) (json.RawMessage, error)
}

// New builds the namespace for the set's visible tools, and tools.$search and
// tools.$describe over them (see [Index]). run_code is never one of them.
func New(set *registry.ResolvedToolSet) (*Tools, error) {
	entries := set.Tools()
	names := make([]string, len(entries), len(entries)+2)
	for i, e := range entries {
		names[i] = e.Name()
	}
	names = append(names, registry.SearchName, registry.DescribeName, registry.ResultName)
	t := &Tools{set: set}
	ns, err := runtime.NewNamespace("tools", names, t.starter(nil), &runtime.NamespaceOptions{
		ErrorClass:     "ToolCallError",
		MemberProperty: "toolName",
		Noun:           "tool",
		SnapshotFields: map[string]string{"code": string(pipeline.CodeInvalidArgs)},
	})
	if err != nil {
		return nil, fmt.Errorf("bindings: %w", err)
	}
	t.ns = ns
	return t, nil
}

// WithEmbedder returns Tools for the same set whose tools.$search ranks hybrid: the
// lexical and the semantic ranking fused (see sdkgen.IndexOptions.Embedder). The tools
// are embedded on its first search, the query on each, under the run's context; such a
// search runs on a goroutine of its own, and ranks lexically if the embedder fails. A
// program that pauses and resumes replays its searches, which rank the same only if
// the embedder answers the same. A nil e gives lexical Tools like [New]'s.
func (t *Tools) WithEmbedder(e sdkgen.Embedder) *Tools {
	c := &Tools{set: t.set, emb: e, results: t.results}
	c.ns = t.ns.WithStart(c.starter(nil))
	return c
}

// WithResults returns Tools for the same set whose tools.$result(id) answers with
// read(id): a result an earlier run kept because it was over its output budget. read is
// called on a goroutine of its own, under the run's context; its error fails the call
// (NotFound-like errors should say the id is unknown or expired). Without it,
// tools.$result fails with `no result is kept here`.
func (t *Tools) WithResults(read func(ctx context.Context, id string) (json.RawMessage, error)) *Tools {
	c := &Tools{set: t.set, emb: t.emb, results: read}
	c.ns = t.ns.WithStart(c.starter(nil))
	return c
}

// Namespace returns the namespace not bound to a run: tools.$search and
// tools.$describe work, and a tool call fails with `tools can only be called inside a
// run_code run`.
func (t *Tools) Namespace() *runtime.Namespace { return t.ns }

// Bind returns the namespace to pass in runtime.RunOptions.Namespaces for the run r
// (made by [Begin]): its tool calls are r's sub-calls.
func (t *Tools) Bind(r *Run) *runtime.Namespace { return t.ns.WithStart(t.starter(r)) }

// Options configures a Run.
type Options struct {
	// Parent is the run_code call: its ID prefixes sub-call ids and is their
	// ParentID; its RootID (or ID) is their RootID; its Agent is theirs.
	Parent registry.Call
	// MaxParallel bounds overlapping parallel-safe sub-calls (maxParallelSubCalls).
	// If zero, 10; negative is an error.
	MaxParallel int
	// MaxCalls caps the sub-calls one run may dispatch; a call past the cap is
	// rejected with `sub-call budget of <N> calls exhausted`. Zero means no cap.
	MaxCalls int
	// Grace bounds how long End waits for sub-calls still running once the run is
	// over, counted from when the runtime cancelled them (as the program settled or was
	// stopped). A sub-call still running then is abandoned (SubCall.AbandonedRunning),
	// so a tool that ignores cancellation cannot hold run_code past its budgets. Zero
	// means runtime.DefaultGrace; negative is an error.
	Grace time.Duration
	// RecordBytes bounds what the run's sub-call records hold, which the host keeps until
	// the run ends: the canonical JSON of each call's arguments, its result's value,
	// content, error message and attached contexts, and 1 KiB for the record itself.
	// Past it the run fails with memory-limit `heap limit of <N> MiB exceeded by the
	// arguments and results of its tool calls` (N is RecordBytes in MiB). ptc passes the
	// run's heap budget. Zero means no bound; negative is an error.
	RecordBytes int64
	// Ledger, when not nil, makes the run resumable (see [Ledger]): calls are recorded,
	// one that waits for a decision pauses the run, and recorded calls are replayed.
	Ledger *Ledger
}

// SubCall is the record of one sub-call of a run, complete once [Run.End] returned. At
// most one of NeverStarted and AbandonedRunning is set.
type SubCall struct {
	ID   string
	Name string
	Args registry.Value
	// Result is the final outcome: the call's own, or the error of a call the run gave
	// up on.
	Result *pipeline.Result
	// NeverStarted reports a call the run ended before it started: no stage, event or
	// observer ran for it, and Result is `run_code run is over (<reason>); <name> tool
	// call abandoned` (ABORTED_BEFORE_DISPATCH).
	NeverStarted bool
	// AbandonedRunning reports a call that started and was still running Grace after
	// the run cancelled it: the run stopped waiting for it, tool/code-dispatch-abandoned
	// was emitted, and Result is `run_code run is over (<reason>); <name> tool call
	// abandoned: still running <grace> after it was cancelled` (ABORTED). If its body
	// returns later, its finalizeContent and observers still run, but its outcome
	// reaches neither the program nor this record.
	AbandonedRunning bool
	// Duration runs from submission to settlement (or abandonment).
	Duration time.Duration
	// Replayed reports a call whose outcome came from the run's ledger (a resumed run):
	// the tool was not called again.
	Replayed bool

	pending *pipeline.Pending
	left    runtime.Left // what the program had left of its budgets when it made the call
	hasLeft bool
}

// Run is the per-run state of the bridge: the scheduler, the sub-call counter and the
// records. It is safe for concurrent use; End must be called exactly when the program
// has settled (or was stopped), before the run_code call returns.
type Run struct {
	sched  *pipeline.Scheduler
	outer  context.Context         // the caller's context
	cancel context.CancelCauseFunc // ends the scheduler's context
	parent registry.Call
	max    int
	watch  sync.Once

	mu    sync.Mutex // guards n, calls and ended; never held while taking the scheduler's lock from its side
	n     int
	calls []*SubCall
	ended bool
	// reason is read by the scheduler's Abandon callback, which runs under the
	// scheduler's lock; an atomic keeps it off r.mu (start takes r.mu, then the
	// scheduler's lock in Submit).
	reason atomic.Pointer[string]
	// held is what the records hold (Options.RecordBytes), against maxHeld; atomic because
	// results are counted on the scheduler's goroutines.
	held    atomic.Int64
	maxHeld int64

	set    *registry.ResolvedToolSet
	ledger *Ledger
	// Under mu, for a run with a ledger: inflight counts submitted calls whose outcome
	// has not come; once a call waits for a decision (pausing), calls no longer start,
	// and their done functions wait in stalled until the run ends.
	inflight int
	pausing  bool
	pending  []pipeline.PendingCall
	entries  []Entry // the ledger as this attempt leaves it, by Seq
	stalled  []func(json.RawMessage, error)
	released bool // the run is over: stalled calls are answered at once
	paused   sync.Once
	// drawn counts the clock and random draws the last call's entry had seen (VM
	// goroutine only: calls start there, one at a time).
	drawn [2]int
}

// Begin starts the bridge for one run of a program under ctx; [Tools.Bind] gives the
// namespace whose calls are the run's sub-calls.
func Begin(ctx context.Context, p *pipeline.Pipeline, set *registry.ResolvedToolSet, opts *Options) (*Run, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxParallel < 0 {
		return nil, fmt.Errorf("maxParallelSubCalls must be a positive integer, got %d", o.MaxParallel)
	}
	if o.MaxCalls < 0 {
		return nil, fmt.Errorf("the sub-call budget must not be negative, got %d", o.MaxCalls)
	}
	if o.Grace < 0 {
		return nil, fmt.Errorf("the sub-call grace must not be negative, got %v", o.Grace)
	}
	if o.RecordBytes < 0 {
		return nil, fmt.Errorf("the sub-call record budget must not be negative, got %d", o.RecordBytes)
	}
	if o.Grace == 0 {
		o.Grace = runtime.DefaultGrace
	}
	if o.Parent.RootID == "" {
		o.Parent.RootID = o.Parent.ID
	}
	if o.Ledger != nil && o.Ledger.OnPause == nil {
		return nil, errors.New("a run's Ledger needs an OnPause")
	}
	r := &Run{parent: o.Parent, max: o.MaxCalls, maxHeld: o.RecordBytes, outer: ctx, set: set, ledger: o.Ledger}
	schedCtx, cancel := context.WithCancelCause(context.WithValue(ctx, runKey{}, r))
	if l := o.Ledger; l != nil {
		schedCtx = pipeline.WithDeferral(schedCtx, func(id string) (pipeline.Verdict, bool) {
			v, ok := l.Decisions[id]
			return v, ok
		})
	}
	r.cancel = cancel
	sched, err := p.NewScheduler(schedCtx, set, &pipeline.SchedulerOptions{
		MaxParallel: o.MaxParallel,
		Grace:       o.Grace,
		Abandon: func(c registry.Call, started bool) *pipeline.ToolError {
			if started {
				return &pipeline.ToolError{Code: pipeline.CodeAborted,
					Message: fmt.Sprintf("run_code run is over (%s); %s tool call abandoned: still running %v after it was cancelled", r.endReason(), c.Name, o.Grace)}
			}
			return &pipeline.ToolError{Code: pipeline.CodeAbortedBeforeDispatch,
				Message: fmt.Sprintf("run_code run is over (%s); %s tool call abandoned", r.endReason(), c.Name)}
		},
	})
	if err != nil {
		cancel(nil)
		return nil, err
	}
	r.sched = sched
	return r, nil
}

func (r *Run) endReason() string {
	if p := r.reason.Load(); p != nil && *p != "" {
		return *p
	}
	if r.outer.Err() != nil { // the caller cancelled the run: say why
		return fmt.Sprint(context.Cause(r.outer))
	}
	return "run_code settled"
}

// End finishes the run's sub-calls: queued ones are abandoned (rejecting with
// `run_code run is over (<reason>); <name> tool call abandoned`, nothing logged);
// in-flight ones, which the runtime cancelled when the run ended, are awaited up to
// Grace from then, and those still running after it are abandoned too (see
// SubCall.AbandonedRunning), so End returns within Grace of the run's end whatever
// the tools do. reason is "run_code settled" when empty. End is idempotent.
func (r *Run) End(reason string) {
	r.mu.Lock()
	if !r.ended {
		r.ended = true
		r.reason.Store(&reason)
	}
	r.mu.Unlock()
	r.cancel(errRunOver)
	r.sched.Close()
}

var errRunOver = errors.New("run_code run is over")

// Calls returns the sub-call records in submission order, complete once End returned.
func (r *Run) Calls() []*SubCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*SubCall, len(r.calls))
	for i, c := range r.calls {
		if c.pending == nil { // replayed: complete from the start
			out[i] = c
			continue
		}
		select {
		case <-c.pending.Done():
			c.Result, c.Duration = c.pending.Wait(), c.pending.Elapsed()
			c.NeverStarted, c.AbandonedRunning = !c.pending.Started(), c.pending.Abandoned()
		default: // still in flight: End has not returned yet
		}
		out[i] = c
	}
	return out
}

// start queues one sub-call of the run: it runs on the VM goroutine, in the program's
// call order, and only queues work; the scheduler hands the result to done.
func (r *Run) start(ctx context.Context, name string, args json.RawMessage, done func(json.RawMessage, error)) {
	reject := func(code pipeline.Code, msg string) {
		done(nil, &runtime.CallError{Message: msg, Fields: map[string]string{"code": string(code)}})
	}
	v, err := registry.ParseValue(args)
	if err != nil {
		reject(pipeline.CodeInvalidArgs, "tool arguments must be lossless JSON: "+err.Error())
		return
	}
	// The runtime cancels ctx as soon as the program settles (or is stopped); that is
	// when in-flight sub-calls must be cancelled and queued ones abandoned, before the
	// runtime waits for them.
	r.watch.Do(func() {
		context.AfterFunc(ctx, func() {
			r.cancel(errRunOver)
			r.releaseStalled()
		})
	})
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		reject(pipeline.CodeAbortedBeforeDispatch, fmt.Sprintf("run_code run is over (%s); %s not dispatched", r.endReason(), name))
		return
	}
	if r.pausing { // not started: the run pauses once the calls in flight end
		if r.released {
			r.mu.Unlock()
			done(nil, errPausedCall)
			return
		}
		r.stalled = append(r.stalled, done)
		r.mu.Unlock()
		return
	}
	if r.max > 0 && r.n >= r.max {
		r.mu.Unlock()
		reject(pipeline.CodeAbortedBeforeDispatch, fmt.Sprintf("sub-call budget of %d calls exhausted", r.max))
		return
	}
	if !r.hold(recordOverhead + int64(len(v.String()))) {
		r.mu.Unlock()
		done(nil, r.overHeld())
		return
	}
	r.n++
	rec := &SubCall{ID: r.parent.ID + ":code:" + strconv.Itoa(r.n), Name: name, Args: v}
	rec.left, rec.hasLeft = runtime.CallLeft(ctx)
	deliver := func(res *pipeline.Result) {
		if !r.hold(recordSize(res)) {
			done(nil, r.overHeld())
			return
		}
		if res.Error != nil {
			reject(res.Error.Code, res.Error.Message)
			return
		}
		done(json.RawMessage(res.Value.String()), nil)
	}
	if r.ledger != nil {
		// Only the VM goroutine starts calls, so the ledger's I/O may run unlocked.
		r.mu.Unlock()
		res, fail := r.replay(ctx, r.n, rec)
		switch {
		case fail != nil:
			done(nil, fail)
			return
		case res != nil:
			rec.Result, rec.Replayed = res, true
			r.mu.Lock()
			r.calls = append(r.calls, rec)
			r.mu.Unlock()
			deliver(res)
			return
		}
		r.mu.Lock()
		if r.ended || r.pausing {
			r.mu.Unlock()
			reject(pipeline.CodeAbortedBeforeDispatch, fmt.Sprintf("run_code run is over (%s); %s not dispatched", r.endReason(), name))
			return
		}
		r.inflight++
	}
	seq := r.n
	// Submitting under the lock keeps submission order equal to id order.
	rec.pending = r.sched.SubmitThen(registry.Call{
		ID: rec.ID, RootID: r.parent.RootID, ParentID: r.parent.ID, Name: name, Args: v, Agent: r.parent.Agent,
	}, func(res *pipeline.Result) {
		if r.ledger != nil && !r.settled(seq, rec, res, done) {
			return
		}
		deliver(res)
	})
	r.calls = append(r.calls, rec)
	r.mu.Unlock()
}

type runKey struct{}

// CallLeft returns, in the context a tool's body runs with, what the run_code program
// that made the call had left of its compute and wall-clock budgets when it made it
// (runtime.CallLeft): a tool that runs a program of its own (a saved script) gives it no
// more. ok is false for a call no program made.
func CallLeft(ctx context.Context, call *registry.Call) (l runtime.Left, ok bool) {
	r, _ := ctx.Value(runKey{}).(*Run)
	if r == nil {
		return l, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.calls) - 1; i >= 0; i-- {
		if c := r.calls[i]; c.ID == call.ID {
			return c.left, c.hasLeft
		}
	}
	return l, false
}

// hold counts n more bytes the records hold, and reports whether they are within the
// budget. Safe for concurrent use.
func (r *Run) hold(n int64) bool {
	return r.held.Add(n) <= r.maxHeld || r.maxHeld == 0
}

// overHeld is the failure of a run whose records hold more than the budget: the runtime
// ends the run with it (runtime.StartFunc).
func (r *Run) overHeld() *runtime.Failure {
	return &runtime.Failure{Kind: runtime.KindMemoryLimit,
		Message: fmt.Sprintf("heap limit of %d MiB exceeded by the arguments and results of its tool calls", r.maxHeld>>20)}
}

// recordOverhead is what the host holds per sub-call record besides its payload: the
// record, the scheduler's Pending with its call and channels, the result's structure
// (BenchmarkRecordHeld measures it). It bounds the number of calls a run may make with
// tiny arguments and results too.
const recordOverhead = 1 << 10

// recordSize is what a sub-call's result adds to its record: the bytes of its value,
// content, error message and attached contexts.
func recordSize(res *pipeline.Result) int64 {
	n := len(res.Value.String()) + contentSize(res.Content)
	if res.Error != nil {
		n += len(res.Error.Message)
	}
	for _, c := range res.Contexts {
		n += contentSize(c.Content)
	}
	return int64(n)
}

func contentSize(cs []registry.Content) int {
	n := 0
	for _, c := range cs {
		n += len(c.Text) + len(c.Data) + len(c.MIMEType) + len(c.URI)
	}
	return n
}

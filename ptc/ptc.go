package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/sdkgen"
	"github.com/runcode-go/runcode/store"
)

// Runner runs programs with the runtime's semantics: a *runtime.Pool runs them in
// this process; an isolated runner runs them in worker processes. Implementations
// must be safe for concurrent use.
type Runner interface {
	Run(ctx context.Context, code string, opts *runtime.RunOptions) (*runtime.Result, error)
	// Limits returns the budgets of a run whose RunOptions.Limits leave them zero.
	Limits() runtime.Limits
}

var _ Runner = (*runtime.Pool)(nil)

// Options configures an Executor.
type Options struct {
	// Pool runs the programs (a *runtime.Pool, or an isolated runner). Required.
	Pool Runner
	// Limits override the pool's budgets for every run. Nil means the pool's.
	Limits *runtime.Limits
	// MaxParallelSubCalls bounds overlapping parallel-safe sub-calls of one run. If
	// zero, 10; negative is an error.
	MaxParallelSubCalls int
	// MaxSubCalls caps the sub-calls of one run. Zero means no cap.
	MaxSubCalls int
	// MaxParallel bounds overlapping parallel-safe calls of one model batch (native
	// siblings of run_code under mode both). If zero, 10.
	MaxParallel int
	// ProgramBytes bounds the program text. Zero means 1 MiB.
	ProgramBytes int
	// Grace bounds how long a run, once over, waits for sub-calls still running (see
	// bindings.Options.Grace): those that ignore cancellation longer are abandoned and
	// reported as such. Zero means runtime.DefaultGrace; negative is an error.
	Grace time.Duration
	// FileName names the program in the stack frames of its errors, for a host whose
	// programs come from a file (runcode run prog.ts). Empty means "program.js" (or
	// "program.ts").
	FileName string
	// MaxImageBytes bounds the image data a run attaches to its result: the length of
	// the base64 data of every image in its contexts (about 4/3 of the image files'
	// size), summed in call order. The first image that would take the total past it,
	// and every image after it, are left out, and the result's text ends with a line
	// that says how many and why (see the package documentation). Zero means
	// DefaultMaxImageBytes; negative is an error.
	MaxImageBytes int64
	// MaxImages caps the images a run attaches, the same way. Zero means
	// DefaultMaxImages; negative is an error.
	MaxImages int
	// TruncateOutput degrades output over the budget instead of failing the run with
	// output-limit (runtime.RunOptions.TruncateOutput): the result is cut to valid JSON
	// with "…N more items" and "…N more bytes" markers, logs are cut with a marker, and
	// the text opens with a one-line warning. False means the contract's behaviour.
	TruncateOutput bool
	// SDKBudget bounds the SDK section's declarations, in bytes: past it, the section
	// renders as an index and programs find declarations with tools.$search and
	// tools.$describe. Zero means sdkgen.DefaultBudget (16384); negative means always
	// the full SDK. The command line's --sdk-budget means the same.
	SDKBudget int
	// OnLog, if set, is called with each console entry of a run as the run logs it, in
	// order, with the run_code call the run serves (a host reports progress with it).
	// It is called on the run's goroutines and must not block for long. Nil means none.
	OnLog func(call *registry.Call, entry string)
	// OnReport, if set, is called with each run_code call's report when its program
	// has run, before run_code's result is final: on the body's goroutine, with the
	// body's context, so that a tracing wrapper can find its span there and record the
	// run's figures on it. It must not block for long or change rep; it may keep it
	// (the report is final). A call that never ran a program (invalid arguments,
	// denied) has no report. A resumed run's report comes only this way. Nil means
	// none.
	OnReport func(ctx context.Context, call registry.Call, rep *Report)
	// Store keeps paused runs (docs/pausing.md): a sub-call that needs approval, when no
	// approver answers at once (pipeline.Options.Approve is nil, or answers Unavailable
	// or Deferred), pauses its run; the result carries pipeline.Result.Pause and
	// [Executor.Resume] goes on with it. A Store given here also records every sub-call
	// as it starts and ends, so that a run whose host died can be recovered
	// ([Executor.Recover]) without running a call twice. Nil means a memory store of
	// the executor's own: runs still pause, nothing survives the process, and calls are
	// written only when a run pauses.
	Store store.Store
	// ContinuationKey signs continuations (HMAC-SHA256). Hosts that share a store share
	// it. Nil means a random key kept in the store, made on first use.
	ContinuationKey []byte
	// PauseTTL is how long a paused run can be resumed. Zero means DefaultPauseTTL (one
	// hour); negative is an error.
	PauseTTL time.Duration
	// StateValueBytes and StateBytes bound a session's state (the program's global
	// state, in runs of a session named with pipeline.WithSession): one value's JSON,
	// and the keys and values together. Zero means DefaultStateValueBytes (1 MiB) and
	// DefaultStateBytes (16 MiB); negative is an error.
	StateValueBytes, StateBytes int
	// Sessions declares the global state in the SDK: the host names a session for its
	// runs (pipeline.WithSession), as serve does for every MCP session. It changes only
	// what the SDK says; a run has state whenever its context names a session.
	Sessions bool
	// SaveScripts lets programs save scripts: the global scripts.$save({name,
	// description, inputSchema, code}) keeps one in the store (SaveScript; the calls its
	// run made before it are its example), and the SDK declares it. False (the default)
	// means no scripts global. The host registers saved scripts as tools (ScriptTools,
	// ScriptSync).
	SaveScripts bool
	// SuggestScripts makes a run of a session whose program ended ok before in the
	// session, with other values for some of its literals, suggest saving it as a script
	// (Report.SuggestScript; docs/run_code.md, "Suggested scripts"). It costs each ok
	// run of a session a parse of its program and a write to the store. False (the
	// default) means no suggestions.
	SuggestScripts bool
	// OnScriptSaved, if set, is called with each script a program saved, once it is
	// kept (a host registers it as a tool at once rather than at its next sync). It must
	// not block for long. Nil means none.
	OnScriptSaved func(Script)
	// NoInferredTypes turns off learning output types from results ([Types]): a tool
	// without an output schema is then declared as returning JsonValue. False (the
	// default) learns them, in memory and, with Store, in the store.
	NoInferredTypes bool
	// Embedder, if set, makes tools.$search rank hybrid: its lexical ranking fused with
	// the tools' similarity to the query by the embedder's model (see
	// sdkgen.IndexOptions.Embedder and bindings.Tools.WithEmbedder). The tools are
	// embedded on a step's first search, so an embedder behind a remote model should
	// cache by text; if it fails, search ranks lexically. Nil (the default) means
	// lexical ranking only: deterministic, no network.
	Embedder sdkgen.Embedder
	// MaxResults and MaxResultBytes bound, per session, the results kept because they
	// were over their run's output budget (with Store; docs/run_code.md): keeping one
	// past either bound evicts the session's oldest first, and a result over
	// MaxResultBytes (or over store.MaxDataBytes) is not kept. A result belongs to the
	// session of the run that kept it (pipeline.WithSession); the runs that name none
	// share one group of their own per store. Zero means DefaultMaxResults (16) and
	// DefaultMaxResultBytes (64 MiB); negative is an error.
	MaxResults     int
	MaxResultBytes int64
	// ResultTTL is how long a kept result can be read. Zero means DefaultResultTTL (one
	// hour); negative is an error.
	ResultTTL time.Duration
	// OnTypes, if set, is called after a run whose results changed a type learned from
	// results (see [Types]; not with NoInferredTypes): the SDK section, and so
	// run_code's description, that a set renders from now on may differ, so that a
	// server offers the new one (mcpbridge.Server.Sync; runcode serve does so, at most
	// once a second). It is called on the run's goroutine, once per run that changed a
	// type, and must not block. Nil means none.
	OnTypes func()
}

// Executor is the run_code executor. It is immutable and safe for concurrent use.
type Executor struct {
	p *pipeline.Pipeline
	o Options
	// transport is run_code's compiled definition, shared by every batch; each batch
	// binds it to its own state (Transport.WithExecute).
	transport *registry.Transport
	// store is Options.Store or the executor's own memory store; durable reports the
	// former (calls are recorded as they go).
	store   store.Store
	durable bool
	clock   func() time.Time   // time.Now unless a test sets it
	types   *Types             // nil with Options.NoInferredTypes
	scripts *runtime.Namespace // scripts.$save, with Options.SaveScripts; nil otherwise
	saving  sync.Mutex         // held by a program's save (saveScript)
}

var _ pipeline.Executor = (*Executor)(nil)

// New returns a run_code executor that runs calls through p and programs on
// opts.Pool.
func New(p *pipeline.Pipeline, opts *Options) (*Executor, error) {
	if opts == nil || opts.Pool == nil {
		return nil, errors.New("ptc: Options.Pool is required")
	}
	o := *opts
	switch {
	case o.MaxParallelSubCalls < 0:
		return nil, fmt.Errorf("ptc: maxParallelSubCalls must be a positive integer, got %d", o.MaxParallelSubCalls)
	case o.MaxSubCalls < 0:
		return nil, fmt.Errorf("ptc: MaxSubCalls must not be negative, got %d", o.MaxSubCalls)
	case o.MaxParallel < 0:
		return nil, fmt.Errorf("ptc: MaxParallel must be a positive integer, got %d", o.MaxParallel)
	case o.ProgramBytes < 0:
		return nil, fmt.Errorf("ptc: ProgramBytes must not be negative, got %d", o.ProgramBytes)
	case o.Grace < 0:
		return nil, fmt.Errorf("ptc: Grace must not be negative, got %v", o.Grace)
	case o.MaxImageBytes < 0:
		return nil, fmt.Errorf("ptc: MaxImageBytes must not be negative, got %d", o.MaxImageBytes)
	case o.MaxImages < 0:
		return nil, fmt.Errorf("ptc: MaxImages must not be negative, got %d", o.MaxImages)
	case o.PauseTTL < 0:
		return nil, fmt.Errorf("ptc: PauseTTL must not be negative, got %v", o.PauseTTL)
	case o.StateValueBytes < 0 || o.StateBytes < 0:
		return nil, fmt.Errorf("ptc: StateValueBytes and StateBytes must not be negative, got %d and %d", o.StateValueBytes, o.StateBytes)
	case o.MaxResults < 0 || o.MaxResultBytes < 0 || o.ResultTTL < 0:
		return nil, fmt.Errorf("ptc: MaxResults, MaxResultBytes and ResultTTL must not be negative, got %d, %d and %v", o.MaxResults, o.MaxResultBytes, o.ResultTTL)
	}
	e := &Executor{p: p, o: o, store: o.Store, durable: o.Store != nil}
	if e.store == nil {
		e.store = store.NewMemory()
	}
	if !o.NoInferredTypes {
		e.types = NewTypes(o.Store)
	}
	if o.SaveScripts {
		var err error
		if e.scripts, err = scriptsNamespace(); err != nil {
			return nil, fmt.Errorf("ptc: %w", err)
		}
	}
	tr, err := registry.NewTransport(&registry.Tool{
		Name:        registry.RunCodeName,
		Description: sdkgen.RunCodeDescription,
		Parameters:  registry.RawSchema(json.RawMessage(sdkgen.RunCodeParameters)),
		// run_code's canonical value is { logs: string[], result?: JsonValue }. It has no
		// output schema to check against: value() builds it from the runtime's result,
		// whose logs are strings and whose completion is already lossless JSON, so
		// validating it again would only decode the program's result for nothing.
		Output:      registry.Output{Render: render},
		PresentCall: presentCall,
		Execute:     unbound,
	})
	if err != nil {
		return nil, fmt.Errorf("ptc: %w", err)
	}
	e.transport = tr
	return e, nil
}

// unbound is the body of the transport no batch has bound: never dispatched.
func unbound(context.Context, *registry.Call) (any, error) {
	return nil, errors.New("run_code was dispatched outside the run_code executor")
}

// The prompt sections, named and ordered as in the reference (rules at 99, before
// per-tool guidance; the SDK at 150).
const (
	SectionRules = "tools:ptc-only"
	SectionSDK   = "tools:sdk"
)

// Describe returns run_code (plus every visible tool under mode both), the ptc rule
// section (mode ptc only) and the SDK section.
func (e *Executor) Describe(set *registry.ResolvedToolSet) (*pipeline.Description, error) {
	e.declare(context.Background(), set)
	return describe(set, e.sdkOptions())
}

// sdkOptions is how the executor renders the SDK section.
func (e *Executor) sdkOptions() sdkgen.Options {
	return sdkgen.Options{Budget: e.o.SDKBudget, State: e.o.Sessions, SaveScripts: e.o.SaveScripts}
}

// declare makes the set declare the types learned from results, unless turned off.
func (e *Executor) declare(ctx context.Context, set *registry.ResolvedToolSet) {
	if e.types != nil {
		e.types.Declare(ctx, set)
	}
}

// Describe returns what an executor whose [Options.SDKBudget] is sdkBudget describes
// for set, without making one (for example to print it).
func Describe(set *registry.ResolvedToolSet, sdkBudget int) (*pipeline.Description, error) {
	return describe(set, sdkgen.Options{Budget: sdkBudget})
}

func describe(set *registry.ResolvedToolSet, o sdkgen.Options) (*pipeline.Description, error) {
	d := &pipeline.Description{}
	switch set.Mode() {
	case registry.ModePTC:
		d.Tools = []registry.ToolSchema{sdkgen.RunCodeSchema()}
		d.Sections = append(d.Sections, pipeline.Section{Name: SectionRules, Order: 99, Text: sdkgen.PTCRules})
	case registry.ModeBoth:
		d.Tools = append(set.Schemas(), sdkgen.RunCodeSchema())
	default:
		return nil, fmt.Errorf("ptc: the run_code executor serves modes ptc and both, not %q", set.Mode())
	}
	d.Sections = append(d.Sections, pipeline.Section{Name: SectionSDK, Order: 150, Text: sdk(set, o)})
	return d, nil
}

// sdkKey keys the rendered SDK section in a set's memo, per way of rendering it.
type sdkKey struct{ o sdkgen.Options }

// SDK returns the SDK section for the set under the executor's budget: the full SDK or
// the index. It is rendered once per set and budget, and kept with the set.
func (e *Executor) SDK(set *registry.ResolvedToolSet) string {
	e.declare(context.Background(), set)
	return sdk(set, e.sdkOptions())
}

func sdk(set *registry.ResolvedToolSet, o sdkgen.Options) string {
	return set.Memo(sdkKey{o}, func() any {
		return sdkgen.Section(bindings.Declared(set), &o).Section
	}).(string)
}

// Execute runs a model step's batch: run_code calls run programs, other calls run
// natively (mode both) or collapse to UNKNOWN_TOOL (mode ptc). Results come back in
// call order; each run_code result carries its run's attributed contexts.
func (e *Executor) Execute(ctx context.Context, set *registry.ResolvedToolSet, batch []pipeline.RawCall) []*pipeline.Result {
	results, _ := e.execute(ctx, set, batch)
	return results
}

// Run executes one run_code call (as a model-direct call) and returns its result and
// report. It is what the CLI uses.
func (e *Executor) Run(ctx context.Context, set *registry.ResolvedToolSet, call pipeline.RawCall) (*pipeline.Result, *Report) {
	call.Name = registry.RunCodeName
	results, reports := e.execute(ctx, set, []pipeline.RawCall{call})
	return results[0], reports[0]
}

func (e *Executor) execute(ctx context.Context, set *registry.ResolvedToolSet, batch []pipeline.RawCall) ([]*pipeline.Result, []*Report) {
	return e.executeStep(ctx, &step{e: e, set: set, reports: map[string]*Report{}}, batch)
}

func (e *Executor) executeStep(ctx context.Context, b *step, batch []pipeline.RawCall) ([]*pipeline.Result, []*Report) {
	set := b.set
	e.declare(ctx, set)
	ctx = context.WithValue(ctx, setKey{}, set) // for saved scripts, which run in the step of their caller
	results := make([]*pipeline.Result, len(batch))
	reports := make([]*Report, len(batch))
	view := set.WithTransport(e.transport.WithExecute(b.run))
	var err error
	b.tools, err = bindings.New(set)
	if err == nil && e.o.Embedder != nil {
		b.tools = b.tools.WithEmbedder(e.o.Embedder)
	}
	if err == nil && e.durable {
		b.tools = b.tools.WithResults(e.readResult)
	}
	var sched *pipeline.Scheduler
	if err == nil {
		sched, err = e.p.NewScheduler(ctx, view, &pipeline.SchedulerOptions{MaxParallel: e.o.MaxParallel})
	}
	if err != nil { // a bug, not a model mistake: fail every call the same way
		for i, c := range batch {
			te := &pipeline.ToolError{Code: pipeline.CodeToolFailed, Message: "run_code executor: " + err.Error(), Err: err}
			results[i] = &pipeline.Result{CallID: c.ID, Name: c.Name, Error: te, Content: []registry.Content{registry.Text("Error: " + te.Message)}}
		}
		return results, reports
	}
	pending := make([]*pipeline.Pending, len(batch))
	for i, c := range batch {
		pending[i] = sched.Submit(registry.Call{ID: c.ID, Name: c.Name, Args: pipeline.ParseArguments(c.Arguments), Agent: c.Agent})
	}
	for i, p := range pending {
		results[i] = p.Wait()
	}
	sched.Close()
	for i, c := range batch {
		if c.Name != registry.RunCodeName {
			continue
		}
		if rep := b.report(c.ID); rep != nil {
			reports[i] = rep
			results[i].Contexts = append(results[i].Contexts, rep.Contexts...)
			if rep.Paused != nil && results[i].Error == nil {
				results[i].Pause = rep.Paused
			}
		}
	}
	return results, reports
}

// step is one batch's state: the bound tools and the run reports by call id.
type step struct {
	e     *Executor
	set   *registry.ResolvedToolSet
	tools *bindings.Tools

	// resume is the paused run a Resume or Recover step goes on with, nil otherwise.
	resume *resumed
	// globals are given to the step's programs (a saved script's input).
	globals map[string]json.RawMessage
	// within, for a saved script's run, is what its caller had left of its budgets: the
	// script's run gets no more (and runs nested, runtime.RunOptions.Nested).
	within *runtime.Left

	mu      sync.Mutex
	reports map[string]*Report
}

func (b *step) report(id string) *Report {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reports[id]
}

// run runs one run_code call of the batch.
func (b *step) run(ctx context.Context, call *registry.Call) (any, error) {
	var in struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	}
	if err := call.Args.Decode(&in); err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	if strings.TrimSpace(in.Description) == "" {
		return nil, errors.New("invalid description: expected a non-empty string")
	}
	rep := &Report{}
	b.mu.Lock()
	b.reports[call.ID] = rep
	b.mu.Unlock()

	res, err := b.runProgram(ctx, call, in.Code, in.Description, rep)
	if err != nil {
		return nil, err
	}
	if rep.Paused != nil {
		if b.e.o.OnReport != nil {
			b.e.o.OnReport(ctx, *call, rep)
		}
		v, err := value([]byte("[]"), nil)
		if err != nil {
			return nil, err
		}
		return registry.Answer{Value: v, Content: []registry.Content{registry.Text(pauseText(rep.Paused.Pending))}}, nil
	}
	rep.Logs, rep.Value, rep.Failure, rep.Compute = res.Logs, res.Value, res.Failure, res.Compute
	logs := logsJSON(res.Logs)
	rep.OutputBytes = len(logs) + len(res.Value)
	text := res.Text()
	if res.Failure == nil && res.FullValue != nil {
		if note := b.e.keepResult(ctx, res.FullValue); note != "" {
			text += "\n" + note
		}
	}
	if rep.imageNote != "" {
		text += "\n" + rep.imageNote
	}
	rep.ToModel = len(text) + contextBytes(rep.Contexts)
	if b.e.o.OnReport != nil {
		b.e.o.OnReport(ctx, *call, rep)
	}
	if res.Failure != nil {
		return nil, &pipeline.ToolError{Code: pipeline.CodeRunFailed, Message: strings.TrimPrefix(text, "Error: "), Err: res.Failure}
	}
	v, err := value(logs, res.Value)
	if err != nil {
		return nil, err
	}
	// The text comes from the run itself; render makes the same text from the value
	// only when a post-execute policy replaced it (without the images' note).
	return registry.Answer{Value: v, Content: []registry.Content{registry.Text(text)}}, nil
}

// heapBytes is a run's heap budget, which also bounds what the host keeps of its
// sub-calls: the executor's, or else the runner's.
func (e *Executor) heapBytes() int64 {
	if e.o.Limits != nil && e.o.Limits.HeapBytes > 0 {
		return e.o.Limits.HeapBytes
	}
	return e.o.Pool.Limits().HeapBytes
}

func (b *step) runProgram(ctx context.Context, call *registry.Call, code, description string, rep *Report) (*runtime.Result, error) {
	// The run's own context ends when the program settles, cancelling sub-calls still
	// in flight; End then abandons the queued ones and waits for the rest, up to the
	// grace.
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sr, err := b.e.startRun(ctx, b.set, call, code, description, b.resume)
	if err != nil {
		return nil, err
	}
	rep.RunID = sr.id
	if b.resume == nil { // a resumed run sees the state its first attempt began with
		if sr.rec.Session, err = b.e.loadState(ctx); err != nil {
			return nil, fmt.Errorf("run_code could not read the session's state: %w", err)
		}
	}
	ledger := &bindings.Ledger{Entries: sr.entries, Decisions: sr.rec.Decided, OnPause: func() { cancel(errPaused) }}
	if b.e.durable {
		// Not cancelled with the call: a record begun must be written whatever ends the run.
		recordCtx := context.WithoutCancel(ctx)
		ledger.Record = func(e bindings.Entry) error { return sr.putEntry(recordCtx, b.e.store, e) }
	}
	run, err := bindings.Begin(runCtx, b.e.p, b.set, &bindings.Options{
		Parent: *call, MaxParallel: b.e.o.MaxParallelSubCalls, MaxCalls: b.e.o.MaxSubCalls, Grace: b.e.o.Grace,
		RecordBytes: b.e.heapBytes(), Ledger: ledger,
	})
	if err != nil {
		return nil, err
	}
	var onLog func(string)
	if b.e.o.OnLog != nil {
		parent := *call
		onLog = func(entry string) { b.e.o.OnLog(&parent, entry) }
	}
	limits, err := b.e.attemptLimits(sr.rec.Compute)
	if err != nil {
		return nil, err
	}
	if b.within != nil {
		limits = b.e.carve(limits, *b.within)
	}
	nss := []*runtime.Namespace{b.tools.Bind(run)}
	if b.e.scripts != nil {
		nss = append(nss, b.e.scripts.WithStart(b.saveStart(run, sr.id)))
	}
	res, err := b.e.o.Pool.Run(runCtx, code, &runtime.RunOptions{
		Namespaces:     nss,
		Limits:         limits,
		ProgramBytes:   b.e.o.ProgramBytes,
		FileName:       b.e.o.FileName,
		TruncateOutput: b.e.o.TruncateOutput || b.e.durable,
		KeepFullValue:  b.e.durable,
		OnLog:          onLog,
		Draws:          sr.draws(),
		State:          b.e.runState(sr.rec.Session),
		Globals:        b.globals,
		Nested:         b.within != nil,
	})
	// Paused only if the pause is what ended it: a program that settled first (it did
	// not await the call that waits) completed, and the waiting call is abandoned.
	paused := ctx.Err() == nil && errors.Is(context.Cause(runCtx), errPaused) &&
		err == nil && res.Failure != nil && res.Failure.Kind == runtime.KindAbort
	reason := "run_code settled"
	switch {
	case paused:
		reason = errPaused.Error()
	case ctx.Err() != nil:
		reason = fmt.Sprint(context.Cause(ctx))
	case err == nil && res != nil && res.Failure != nil && res.Failure.Kind != runtime.KindException:
		reason = res.Failure.Message // a budget, say: "wall-clock ceiling reached (3000ms)"
	}
	cancel(errors.New(reason))
	run.End(reason)
	rep.Calls = run.Calls()
	rep.FromTools = fromTools(rep.Calls)
	b.e.learn(ctx, b.set, rep.Calls)
	budget := b.e.imageBudget()
	rep.Contexts = attributed(rep.Calls, budget)
	rep.ImagesLeftOut, rep.imageNote = budget.leftOut(), budget.note()
	if err != nil {
		sr.finish(ctx, b.e.store)
		return res, err
	}
	if paused {
		pause, err := b.e.pause(ctx, sr, run, res)
		if err != nil {
			return nil, fmt.Errorf("run_code could not pause: %w", err)
		}
		rep.Paused = pause
		rep.ToModel = len(pauseText(pause.Pending))
		return res, nil
	}
	if res.Failure == nil {
		if err := b.e.commitState(ctx, sr.rec.Session, res.State); err != nil {
			sr.finish(ctx, b.e.store)
			return nil, err
		}
		if b.e.o.SuggestScripts && b.globals == nil { // a saved script's own run is not the model's program
			rep.SuggestScript = b.e.suggest(ctx, sr.rec.Session, code, description, rep.Calls)
		}
	}
	sr.finish(ctx, b.e.store)
	return res, nil
}

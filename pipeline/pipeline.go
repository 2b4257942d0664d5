package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// Options configures a Pipeline. The zero value runs calls with no policy: every call
// is allowed, no wrappers, no observers, no events.
type Options struct {
	// PreExecute hooks run in order; the first Deny or Ask decides. If empty, every
	// call is allowed.
	PreExecute []PreExecuteFunc
	// Approve answers Ask decisions. If nil, an Ask denies with its reason, or with
	// `tool "<n>" requires approval (not yet supported)`; under [WithDeferral] it waits
	// for a person instead (CodeApprovalPending).
	Approve ApproveFunc
	// Wrappers wrap dispatch, Wrappers[0] outermost (see [Chain]). If empty, dispatch
	// runs with only the timeout policy (see DisableTimeout).
	Wrappers []Middleware
	// DisableTimeout leaves a tool's declared TimeoutMs to Wrappers. False (the
	// default) enforces it ([Timeout]) inside every wrapper, so that they see a
	// TOOL_TIMEOUT like any outcome; a Timeout() listed in Wrappers enforces it at its
	// own position instead (one deadline per call either way). True enforces it only
	// where Wrappers list Timeout(), for a host that bounds its tools another way.
	DisableTimeout bool
	// PostExecute hooks run in order on every dispatched or denied outcome.
	PostExecute []PostExecuteFunc
	// Observers see every final outcome.
	Observers []ObserverFunc
	// Events receives tool/call and tool/result for model-direct calls, and
	// tool/code-dispatch-start and tool/code-dispatch for sub-calls (calls with a
	// ParentID): one pair per call that started, none for a call abandoned before it
	// started. A started call a scheduler gave up on also gets tool/abandoned
	// (tool/code-dispatch-abandoned) when it is given up on. If nil, no events are
	// produced.
	Events Sink
	// Logger records contained failures (observer panics). If nil, they are not
	// logged: like every Logger option of runcode's packages, a nil *slog.Logger
	// discards.
	Logger *slog.Logger
	// Now is the clock for event times. If nil, time.Now.
	Now func() time.Time
}

// Pipeline runs calls through every stage, in the order of the contract:
// mode collapse -> pre-aborted check -> pre-execute (allow | deny | ask) -> guards ->
// execute wrappers -> body (argument validation, output validation, render) ->
// post-execute -> finalizeContent -> observers. A Pipeline is immutable and safe for
// concurrent use.
type Pipeline struct {
	opts     Options
	dispatch Handler
	log      *slog.Logger
	now      func() time.Time
}

// New returns a Pipeline. opts may be nil.
func New(opts *Options) *Pipeline {
	p := &Pipeline{}
	if opts != nil {
		p.opts = *opts
	}
	wrappers := p.opts.Wrappers
	if !p.opts.DisableTimeout {
		wrappers = append(slices.Clip(wrappers), Timeout())
	}
	p.dispatch = Chain(core, wrappers...)
	p.log = p.opts.Logger
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.now = p.opts.Now
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// Run takes one call through the whole pipeline and returns its final result. It
// never panics because of a stage or a body, and never returns nil.
func (p *Pipeline) Run(ctx context.Context, set *registry.ResolvedToolSet, call registry.Call) *Result {
	x := p.start(ctx, set, call)
	p.prepare(x)
	p.execute(x)
	return p.commit(x)
}

// execution carries one call through the three phases that the scheduler orders:
// prepare (ordered), execute (may overlap), commit (ordered).
type execution struct {
	ctx  context.Context
	set  *registry.ResolvedToolSet
	call *Call
	c    Call // storage for call: one allocation per execution
	res  *Result
	// post reports whether post-execute runs for res (tool outcomes and denials do;
	// pipeline failures and cancellations before dispatch do not).
	post bool
	// begun is the time of the call's first event (set only when there are events).
	begun time.Time
}

// classify reports whether the call may overlap with other safe calls, validating
// its arguments once for both the classifier and the body (arguments and schemas are
// immutable, so the answer cannot change before dispatch).
func (x *execution) classify() bool {
	c := x.call
	if c.tool == nil || (c.frozen.ParentID == "" && x.set.Mode() == registry.ModePTC) {
		return false
	}
	c.violations, c.validated = c.tool.ValidateArgs(c.frozen.Args), true
	return c.violations == nil && c.tool.Classify(c.frozen.Args)
}

func (p *Pipeline) start(ctx context.Context, set *registry.ResolvedToolSet, c registry.Call) *execution {
	if c.RootID == "" {
		c.RootID = c.ID
	}
	x := &execution{ctx: ctx, set: set, c: Call{Call: c, frozen: c, caller: ctx, set: set}}
	x.call = &x.c
	x.call.tool, _ = set.Get(c.Name)
	x.call.Tool = x.call.tool
	return x
}

// fail ends the execution with err; post says whether post-execute still runs.
func (x *execution) fail(err *ToolError, post bool) {
	x.res = &Result{Error: err}
	x.post = post
}

// prepare runs the ordered stages before dispatch: events, collapse, the pre-aborted
// check, pre-execute and approval, guards. On return either x.res is set (the call
// ended) or the call may be dispatched.
func (p *Pipeline) prepare(x *execution) {
	call, tool := &x.call.frozen, x.call.tool
	if p.opts.Events != nil {
		x.begun = p.now()
		e := Event{Type: EventCall, Time: x.begun, CallID: call.ID, RootID: call.RootID, ParentID: call.ParentID, Name: call.Name, Args: call.Args}
		if call.ParentID != "" {
			e.Type = EventDispatchStart
		} else {
			card := registry.Presentation{Intent: registry.IntentGeneric, Title: call.Name}
			if tool != nil {
				card = tool.PresentCall(call.Args)
			}
			e.Card = &card
		}
		p.opts.Events.Event(e)
	}
	// Mode collapse: under ptc a model-direct call to a visible tool other than
	// run_code ends here, before any policy.
	if call.ParentID == "" && x.set.Mode() == registry.ModePTC && call.Name != registry.RunCodeName && tool != nil {
		if x.ctx.Err() != nil {
			x.fail(abortedBeforeDispatch(), false)
		} else {
			x.fail(collapsed(call.Name), false)
		}
		return
	}
	if x.ctx.Err() != nil || x.set.Disposed() {
		x.fail(abortedBeforeDispatch(), false)
		return
	}
	if call.Args.IsZero() { // no snapshot: nothing to show policy or the body
		x.fail(&ToolError{Code: CodeInvalidArgs, Message: msgLossyArgs}, false)
		return
	}
	if !p.preExecute(x) {
		return
	}
	for _, g := range x.set.Guards() {
		reason, err := guardReason(g, &x.call.view().Call)
		if err == nil {
			err = x.call.changedBy("guard")
		}
		if err != nil {
			x.fail(err, false)
			return
		}
		if reason != "" {
			x.fail(&ToolError{Code: CodeDenied, Message: reason}, true)
			return
		}
	}
}

func guardReason(g registry.GuardFunc, call *registry.Call) (reason string, err *ToolError) {
	defer func() {
		if r := recover(); r != nil {
			err = panicked("guard", r)
		}
	}()
	return g(call), nil
}

// preExecute runs the hooks and the approval flow; it reports whether the call may go on.
func (p *Pipeline) preExecute(x *execution) bool {
	for _, hook := range p.opts.PreExecute {
		d, err := callPre(hook, x.ctx, x.call.view())
		if err == nil {
			err = x.call.changedBy("pre-execute hook")
		}
		if err != nil {
			x.fail(err, false)
			return false
		}
		switch d.Action {
		case Allow:
			continue
		case Deny:
			reason := d.Reason
			if reason == "" {
				reason = fmt.Sprintf("tool %q was denied by policy", x.call.frozen.Name)
			}
			x.fail(&ToolError{Code: CodeDenied, Message: reason}, true)
			return false
		case Ask:
			msg, verdict := p.approve(x, d.Reason)
			if err := x.call.changedBy("approval hook"); err != nil {
				x.fail(err, false)
				return false
			}
			switch verdict {
			case denied:
				x.fail(&ToolError{Code: CodeDenied, Message: msg}, true)
				return false
			case pending:
				x.fail(&ToolError{Code: CodeApprovalPending, Message: msg}, false)
				return false
			}
		default:
			x.fail(&ToolError{Code: CodeToolFailed, Message: fmt.Sprintf("pre-execute returned an unknown action %d", d.Action)}, false)
			return false
		}
	}
	return true
}

func callPre(hook PreExecuteFunc, ctx context.Context, call *Call) (d Decision, err *ToolError) {
	defer func() {
		if r := recover(); r != nil {
			err = panicked("pre-execute", r)
		}
	}()
	d, e := hook(ctx, call)
	if e != nil {
		return d, failure(e)
	}
	return d, nil
}

// The outcomes of an Ask.
const (
	allowed = iota
	denied
	pending // it waits for a person (WithDeferral)
)

// approve routes an Ask: a decision made earlier (WithDeferral), else the approval hook.
// It returns the denial message or, for a call left pending, the approval text.
func (p *Pipeline) approve(x *execution, reason string) (msg string, verdict int) {
	name := x.call.frozen.Name
	decide := deferralOf(x.ctx)
	if decide != nil {
		if v, ok := decide(x.call.frozen.ID); ok {
			if v.Approve {
				return "", allowed
			}
			return rejection(name, v.Reason), denied
		}
	}
	ask := reason
	if ask == "" {
		ask = fmt.Sprintf("tool %q requires approval", name)
	}
	if p.opts.Approve == nil {
		if decide != nil {
			return ask, pending
		}
		if reason != "" {
			return reason, denied
		}
		return fmt.Sprintf("tool %q requires approval (not yet supported)", name), denied
	}
	answer, err := func() (a Approval, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("approval hook panicked: %v", r)
			}
		}()
		return p.opts.Approve(x.ctx, x.call.view(), reason)
	}()
	switch {
	case err != nil:
		return fmt.Sprintf("approval for tool %q failed: %s", name, errorText(err)), denied
	case answer == AllowedOnce:
		return "", allowed
	case answer == Rejected:
		return rejection(name, ""), denied
	case answer == Cancelled:
		return fmt.Sprintf("approval for tool %q was cancelled", name), denied
	case decide != nil && (answer == Unavailable || answer == Deferred):
		return ask, pending
	default:
		return fmt.Sprintf("tool %q requires approval, but no approval channel is available", name), denied
	}
}

// rejection is the message of a call a person rejected, with their reason if they gave one.
func rejection(name, reason string) string {
	msg := fmt.Sprintf("the user rejected tool %q", name)
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}

// execute runs the wrappers and the body, unless prepare already ended the call.
func (p *Pipeline) execute(x *execution) {
	if x.res != nil {
		return
	}
	if x.ctx.Err() != nil {
		x.fail(abortedBeforeDispatch(), false)
		return
	}
	res, err := p.runHandler(x)
	if err == nil {
		if terr := x.call.changedBy("execute wrapper"); terr != nil {
			err = terr
		}
	}
	switch {
	case err != nil:
		x.fail(failure(err), false)
	case res == nil:
		x.fail(&ToolError{Code: CodeToolFailed, Message: "an execute wrapper returned no result"}, false)
	default:
		x.res, x.post = res, true
		p.normalize(x)
	}
	if x.res.Error == nil && x.ctx.Err() != nil {
		x.fail(&ToolError{Code: CodeAborted, Message: msgAborted}, true)
	}
}

func (p *Pipeline) runHandler(x *execution) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, panicked("execute wrapper", r)
		}
	}()
	return p.dispatch(x.ctx, x.call.view())
}

// normalize makes a wrapper-authored (or core) result well-formed: a failure gets
// its error content; a success needs a value and gets rendered content if it has none.
func (p *Pipeline) normalize(x *execution) {
	r := x.res
	if r.Error != nil {
		r.Value = registry.Value{}
		return
	}
	if r.Value.IsZero() {
		x.fail(&ToolError{Code: CodeInvalidToolOutput, Message: fmt.Sprintf("tool %q returned no value", x.call.frozen.Name)}, true)
		return
	}
	if r.Content == nil && x.call.tool != nil {
		content, err := x.call.tool.Render(x.call.frozen.Args, r.Value)
		if err != nil {
			x.fail(&ToolError{Code: CodeInvalidToolOutput, Message: "output.render failed: " + err.Error(), Err: err}, true)
			return
		}
		r.Content = content
	}
}

// commit runs the ordered stages after dispatch: post-execute, finalizeContent,
// observers and the result event. It returns the final result.
func (p *Pipeline) commit(x *execution) *Result {
	if x.post {
		p.postExecute(x)
		if x.res.Error == nil && x.ctx.Err() != nil {
			x.fail(&ToolError{Code: CodeAborted, Message: msgAborted}, false)
		}
	}
	res := x.res
	c := &x.call.frozen
	res.CallID, res.Name = c.ID, c.Name
	if res.Error != nil {
		res.Value = registry.Value{}
		res.Content = errorContent(res.Error)
	}
	p.finalize(x)
	for _, obs := range p.opts.Observers {
		p.observe(obs, x.call.view(), res)
	}
	if p.opts.Events != nil {
		now := p.now()
		e := Event{Type: EventResult, Time: now, Duration: now.Sub(x.begun), CallID: c.ID, RootID: c.RootID, ParentID: c.ParentID,
			Name: c.Name, Args: c.Args, IsError: res.Error != nil, Content: res.Content}
		if c.ParentID != "" {
			e.Type = EventDispatch
		} else {
			card := registry.Presentation{Intent: registry.IntentGeneric, Title: c.Name}
			if t := x.call.tool; t != nil {
				card = t.PresentResult(c.Args, slices.Clone(res.Content), e.IsError)
			}
			e.Card = &card
		}
		p.opts.Events.Event(e)
	}
	return res
}

// abandoned emits the event of a started call that a scheduler gave up on before it
// committed; res is the abandonment's result.
func (p *Pipeline) abandoned(c registry.Call, res *Result) {
	if p.opts.Events == nil {
		return
	}
	typ := EventAbandoned
	if c.ParentID != "" {
		typ = EventDispatchAbandoned
	}
	root := c.RootID
	if root == "" {
		root = c.ID
	}
	p.opts.Events.Event(Event{Type: typ, Time: p.now(), CallID: c.ID, RootID: root, ParentID: c.ParentID,
		Name: c.Name, Args: c.Args, IsError: true, Content: res.Content})
}

func (p *Pipeline) postExecute(x *execution) {
	// Contexts the dispatch attached (a wrapper's) come first, then each hook's in
	// order; a block discards the dispatch's.
	base := x.res.Contexts
	var contexts []AdditionalContext
	for _, hook := range p.opts.PostExecute {
		act, err := callPost(hook, x.ctx, x.call.view(), x.res)
		if err == nil {
			err = x.call.changedBy("post-execute hook")
		}
		if err != nil {
			x.fail(err, false)
			return
		}
		contexts = append(contexts, act.Contexts...)
		switch {
		case act.Block:
			x.res = &Result{Error: &ToolError{Code: CodeDenied, Message: feedbackText(act.Feedback)}}
			base = nil
		case act.ReplaceValue != nil && act.ReplaceContent != nil:
			x.fail(&ToolError{Code: CodeToolFailed, Message: "post-execute policy replaced both content and value; replace one"}, false)
			return
		case act.ReplaceValue != nil:
			if x.res.Error != nil {
				x.fail(&ToolError{Code: CodeToolFailed, Message: "post-execute policy cannot replace the value of a failed call"}, false)
				return
			}
			v, content, terr := finishValue(x.call, *act.ReplaceValue)
			if terr != nil {
				x.res = &Result{Error: terr}
				continue
			}
			x.res = &Result{Value: v, Content: content}
		case act.ReplaceContent != nil:
			if x.res.Error != nil {
				x.fail(&ToolError{Code: CodeToolFailed, Message: "post-execute policy cannot replace the content of a failed call; block it instead"}, false)
				return
			}
			x.res = &Result{Value: x.res.Value, Content: act.ReplaceContent}
		}
	}
	x.res.Contexts = append(base, contexts...)
}

func callPost(hook PostExecuteFunc, ctx context.Context, call *Call, res *Result) (act PostAction, err *ToolError) {
	defer func() {
		if r := recover(); r != nil {
			err = panicked("post-execute", r)
		}
	}()
	view := res.clone()
	a, e := hook(ctx, call, &view)
	if e != nil {
		return a, failure(e)
	}
	return a, nil
}

func feedbackText(blocks []registry.Content) string {
	if len(blocks) == 0 {
		return msgBlocked
	}
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		if b.Type == "text" {
			parts[i] = b.Text
		} else {
			parts[i] = "[" + b.Type + " content]"
		}
	}
	return strings.Join(parts, "\n")
}

// finalize runs the definition's FinalizeContent exactly once, whatever the outcome.
func (p *Pipeline) finalize(x *execution) {
	t := x.call.tool
	if t == nil || t.Tool.FinalizeContent == nil {
		return
	}
	res := x.res
	content, err := func() (c []registry.Content, err *ToolError) {
		defer func() {
			if r := recover(); r != nil {
				err = panicked("finalizeContent", r)
			}
		}()
		return t.Tool.FinalizeContent(&x.call.view().Call, res.Content, res.Error != nil), nil
	}()
	if err != nil {
		res.Error, res.Value = err, registry.Value{}
		res.Content = errorContent(err)
		return
	}
	res.Content = content
}

func (p *Pipeline) observe(obs ObserverFunc, call *Call, res *Result) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("tool result observer panicked", "tool", call.frozen.Name, "call", call.frozen.ID, "panic", r)
		}
	}()
	obs(call, res.clone())
}

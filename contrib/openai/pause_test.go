package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// approvals is a real run_code executor over get_order, refund (the examples' tools)
// and notify, whose pipeline asks a person before every refund and notify call, with
// no approver: a program that makes one pauses. It counts the runs of each tool.
type approvals struct {
	set  *registry.ResolvedToolSet
	exec *ptc.Executor
	ran  map[string]*atomic.Int64
	// p and store make another executor over the same paused runs (replica).
	p     *pipeline.Pipeline
	store store.Store
}

func newApprovals(t *testing.T, mode registry.Mode) *approvals {
	t.Helper()
	ap := &approvals{ran: map[string]*atomic.Int64{}}
	counted := func(tool *registry.Tool) *registry.Tool {
		n := &atomic.Int64{}
		ap.ran[tool.Name] = n
		body := tool.Execute
		tool.Execute = func(ctx context.Context, c *registry.Call) (any, error) {
			n.Add(1)
			return body(ctx, c)
		}
		return tool
	}
	notify := &registry.Tool{
		Name:        "notify",
		Description: "Tell the customer.",
		Parameters:  registry.Object(registry.Required("text", registry.String())),
		Execute:     func(context.Context, *registry.Call) (any, error) { return "sent", nil },
	}
	ap.set = testreg.ResolveIn(t, testreg.Scope(t, mode), counted(getOrder()), counted(refund()), counted(notify))
	p := pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{func(ctx context.Context, c *pipeline.Call) (pipeline.Decision, error) {
		if c.Name == "notify" {
			return pipeline.Decision{Action: pipeline.Ask}, nil
		}
		return askBeforeRefunds(ctx, c)
	}}})
	ap.p, ap.store = p, store.NewMemory()
	ap.exec = testexec.PTC(t, p, &ptc.Options{Store: ap.store})
	return ap
}

// replica returns another executor over the same pipeline and store, as another
// process or replica of the host has: it shares nothing with ap.exec but the store.
func (ap *approvals) replica(t *testing.T) *ptc.Executor {
	return testexec.PTC(t, ap.p, &ptc.Options{Store: ap.store})
}

// count returns how many times tool ran.
func (ap *approvals) count(tool string) int64 { return ap.ran[tool].Load() }

// counts returns how many times each tool ran, by name.
func (ap *approvals) counts() map[string]int64 {
	out := map[string]int64{}
	for name, n := range ap.ran {
		out[name] = n.Load()
	}
	return out
}

// step takes a step over the set through exec.
func (ap *approvals) step(t *testing.T, exec pipeline.Executor) *openai.Step {
	t.Helper()
	ad, err := openai.New(exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	step, err := ad.Step(ap.set)
	if err != nil {
		t.Fatal(err)
	}
	return step
}

// fcall is one function call of a model's reply.
type fcall struct{ id, name, args string }

// runCode is a run_code call with id and program code.
func runCode(id, code string) fcall {
	args, _ := json.Marshal(map[string]string{"description": "test program", "code": code})
	return fcall{id, "run_code", string(args)}
}

// answered is one call's answer as the tests compare it, from a Chat tool message or a
// Responses function_call_output: the call's id and the output text.
type answered struct{ ID, Text string }

// outcome is what an Execute method or a Resume returned: answers, or a pause, or an
// error.
type outcome struct {
	answers []answered
	paused  *pauseView
	err     error
}

// pauseView is a *openai.Paused of either API.
type pauseView struct {
	pending []openai.PendingCall
	err     error // the *Paused itself
	// leaked is what the Execute method returned beside the pause: nothing, or the
	// model would read it.
	leaked []answered
	resume func(ctx context.Context, decisions map[string]pipeline.Verdict) outcome
	// save is json.Marshal of the *Paused.
	save func() ([]byte, error)
}

// outcomeOf reads what an Execute method or a Resume returned, with answers reading T.
func outcomeOf[T any](out T, err error, answers func(T) []answered) outcome {
	var p *openai.Paused[T]
	if errors.As(err, &p) {
		return outcome{paused: &pauseView{pending: p.Pending, err: p, leaked: answers(out),
			resume: func(ctx context.Context, d map[string]pipeline.Verdict) outcome {
				out, err := p.Resume(ctx, d)
				return outcomeOf(out, err, answers)
			},
			save: func() ([]byte, error) { return json.Marshal(p) }}}
	}
	if err != nil {
		return outcome{err: err}
	}
	return outcome{answers: answers(out)}
}

// flow is one of the two APIs: execute runs a reply made of calls through a step, and
// load loads a saved pause of the API on a step.
type flow struct {
	name    string
	execute func(t *testing.T, step *openai.Step, calls []fcall) outcome
	load    func(t *testing.T, step *openai.Step, data []byte) (*pauseView, error)
}

var flows = []flow{
	{"chat", func(t *testing.T, step *openai.Step, calls []fcall) outcome {
		var tcs []string
		for _, c := range calls {
			tcs = append(tcs, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, c.id, c.name, c.args))
		}
		var msg oai.ChatCompletionMessage
		if err := json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[`+strings.Join(tcs, ",")+`]}`), &msg); err != nil {
			t.Fatal(err)
		}
		out, err := step.ExecuteChat(context.Background(), msg)
		return outcomeOf(out, err, chatAnswers(t))
	}, func(t *testing.T, step *openai.Step, data []byte) (*pauseView, error) {
		p, err := step.LoadChatPaused(data)
		if err != nil {
			return nil, err
		}
		return outcomeOf(nil, error(p), chatAnswers(t)).paused, nil
	}},
	{"responses", func(t *testing.T, step *openai.Step, calls []fcall) outcome {
		items := []string{`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"On it.","annotations":[]}]}`}
		for i, c := range calls {
			items = append(items, fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":%q,"name":%q,"arguments":%q,"status":"completed"}`, i, c.id, c.name, c.args))
		}
		var resp responses.Response
		if err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","status":"completed","output":[`+strings.Join(items, ",")+`]}`), &resp); err != nil {
			t.Fatal(err)
		}
		out, err := step.ExecuteResponses(context.Background(), &resp)
		return outcomeOf(out, err, responsesAnswers(t))
	}, func(t *testing.T, step *openai.Step, data []byte) (*pauseView, error) {
		p, err := step.LoadResponsesPaused(data)
		if err != nil {
			return nil, err
		}
		return outcomeOf(nil, error(p), responsesAnswers(t)).paused, nil
	}},
}

// chatAnswers reads the tool messages ExecuteChat returned.
func chatAnswers(t *testing.T) func([]oai.ChatCompletionMessageParamUnion) []answered {
	return func(msgs []oai.ChatCompletionMessageParamUnion) []answered {
		var as []answered
		for _, m := range msgs {
			if m.OfTool == nil {
				t.Fatalf("a message that is not a tool message: %s", marshal(t, m))
			}
			as = append(as, answered{m.OfTool.ToolCallID, m.OfTool.Content.OfString.Value})
		}
		return as
	}
}

// responsesAnswers reads the function_call_output items ExecuteResponses returned.
func responsesAnswers(t *testing.T) func([]responses.ResponseInputItemUnionParam) []answered {
	return func(items []responses.ResponseInputItemUnionParam) []answered {
		var as []answered
		for _, it := range items {
			o := it.OfFunctionCallOutput
			if o == nil {
				t.Fatalf("an item that is not a function_call_output: %s", marshal(t, it))
			}
			as = append(as, answered{o.CallID.Value, o.Output.OfString.Value})
		}
		return as
	}
}

// forEachFlow runs test once per API.
func forEachFlow(t *testing.T, test func(t *testing.T, f flow)) {
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) { test(t, f) })
	}
}

// mustPause checks that o is a pause that returned nothing beside it.
func mustPause(t *testing.T, o outcome) *pauseView {
	t.Helper()
	if o.paused == nil {
		t.Fatalf("got answers %v, error %v; want a pause", o.answers, o.err)
	}
	if len(o.paused.leaked) != 0 {
		t.Fatalf("a paused call returned answers beside the pause: %v", o.paused.leaked)
	}
	return o.paused
}

// mustAnswer checks that o answered and returns the answers.
func mustAnswer(t *testing.T, o outcome) []answered {
	t.Helper()
	if o.err != nil || o.paused != nil {
		t.Fatalf("err = %v, pause = %v; want answers", o.err, o.paused)
	}
	return o.answers
}

func approve(ids ...string) map[string]pipeline.Verdict {
	d := map[string]pipeline.Verdict{}
	for _, id := range ids {
		d[id] = pipeline.Verdict{Approve: true}
	}
	return d
}

func TestPauseApprove(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModePTC)
		step := ap.step(t, ap.exec)
		p := mustPause(t, f.execute(t, step, []fcall{runCode("call_1", `const o = await tools.get_order({id: "A1"});
const r = await tools.refund({id: "A1", amount: o.total});
console.log("refunded", r.refunded);
return r;`)}))
		want := []openai.PendingCall{{CallID: "call_1", PendingCall: pipeline.PendingCall{
			ID: "call_1:code:2", Tool: "refund", Arguments: json.RawMessage(`{"id":"A1","amount":20}`), Message: "refunds need a person's approval"}}}
		if diff := cmp.Diff(want, p.pending); diff != "" {
			t.Errorf("pending (-want +got):\n%s", diff)
		}
		if got, want := p.err.Error(), "openai: run_code paused: waiting for approval of refund (1 pending)"; got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
		if diff := cmp.Diff(map[string]int64{"get_order": 1, "refund": 0, "notify": 0}, ap.counts()); diff != "" {
			t.Errorf("runs before the decision (-want +got):\n%s", diff)
		}
		got := mustAnswer(t, p.resume(context.Background(), approve("call_1:code:2")))
		if diff := cmp.Diff([]answered{{"call_1", "refunded 20\n{\n  \"refunded\": 20\n}"}}, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		// get_order's outcome was replayed, not fetched again.
		if diff := cmp.Diff(map[string]int64{"get_order": 1, "refund": 1, "notify": 0}, ap.counts()); diff != "" {
			t.Errorf("runs after the approval (-want +got):\n%s", diff)
		}
	})
}

func TestPauseReject(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModePTC)
		step := ap.step(t, ap.exec)
		p := mustPause(t, f.execute(t, step, []fcall{runCode("call_1", `try { await tools.refund({id: "A1", amount: 5}) } catch (e) { return [e.code, e.message] }`)}))
		got := mustAnswer(t, p.resume(context.Background(), map[string]pipeline.Verdict{p.pending[0].ID: {Reason: "over the limit"}}))
		want := []answered{{"call_1", "[\n  \"DENIED\",\n  \"the user rejected tool \\\"refund\\\": over the limit\"\n]"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		if n := ap.count("refund"); n != 0 {
			t.Errorf("a rejected refund ran %d times", n)
		}
	})
}

// TestPauseSaved: a pause saved with json.Marshal loads on another step, whose executor
// shares only the store, and resumes there: the direct calls' results come back as they
// were, nothing runs twice, a second copy cannot resume its run again, and the other
// API's loader refuses it.
func TestPauseSaved(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModeBoth)
		p := mustPause(t, f.execute(t, ap.step(t, ap.exec), []fcall{
			{"call_1", "get_order", `{"id":"B22"}`},
			runCode("call_2", `const r = await tools.refund({id: "A1", amount: 20}); return r.refunded`),
			{"call_3", "get_order", `{}`},
		}))
		saved, err := p.save()
		if err != nil {
			t.Fatal(err)
		}

		other := ap.step(t, ap.replica(t))
		loaded, err := f.load(t, other, saved)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(p.pending, loaded.pending); diff != "" {
			t.Errorf("pending (-saved +loaded):\n%s", diff)
		}
		got := mustAnswer(t, loaded.resume(context.Background(), approve("call_2:code:1")))
		want := []answered{{"call_1", "{\n  \"id\": \"B22\",\n  \"total\": 30\n}"}, {"call_2", "20"}, {"call_3", `Error: invalid arguments: missing required property "id"`}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		if ap.count("get_order") != 1 || ap.count("refund") != 1 {
			t.Errorf("get_order ran %d times, refund %d; want once each", ap.count("get_order"), ap.count("refund"))
		}

		again, err := f.load(t, other, saved)
		if err != nil {
			t.Fatal(err)
		}
		got = mustAnswer(t, again.resume(context.Background(), approve("call_2:code:1")))
		if got[1].Text != "Error: run_code could not resume: this run was already resumed" {
			t.Errorf("second copy's answer: %+v", got[1])
		}
		if ap.count("refund") != 1 {
			t.Errorf("refund ran %d times, want once", ap.count("refund"))
		}

		for _, g := range flows {
			if g.name == f.name {
				continue
			}
			want := fmt.Sprintf("pipeline: PausedBatch: saved by \"openai.%s\", not by \"openai.%s\"", f.name, g.name)
			if _, err := g.load(t, other, saved); err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s loader: %v, want %q", g.name, err, want)
			}
		}
		if _, err := f.load(t, other, []byte(`{"format":"runcode.paused-batch/v1"}`)); err == nil || !strings.Contains(err.Error(), "pipeline: PausedBatch: no result is paused") {
			t.Errorf("an empty batch: %v", err)
		}
	})
}

// TestPauseTwice: a program that needs two approvals one after the other pauses twice;
// each Resume goes on from where the run stopped.
func TestPauseTwice(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModePTC)
		step := ap.step(t, ap.exec)
		p := mustPause(t, f.execute(t, step, []fcall{runCode("call_1", `await tools.refund({id: "A1", amount: 5}); await tools.notify({text: "refunded"}); return "done"`)}))
		if len(p.pending) != 1 || p.pending[0].Tool != "refund" {
			t.Fatalf("first pause: %+v", p.pending)
		}
		p2 := mustPause(t, p.resume(context.Background(), approve(p.pending[0].ID)))
		want := []openai.PendingCall{{CallID: "call_1", PendingCall: pipeline.PendingCall{
			ID: "call_1:code:2", Tool: "notify", Arguments: json.RawMessage(`{"text":"refunded"}`), Message: `tool "notify" requires approval`}}}
		if diff := cmp.Diff(want, p2.pending); diff != "" {
			t.Errorf("second pause (-want +got):\n%s", diff)
		}
		got := mustAnswer(t, p2.resume(context.Background(), approve("call_1:code:2")))
		if diff := cmp.Diff([]answered{{"call_1", "done"}}, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		if ap.count("refund") != 1 || ap.count("notify") != 1 {
			t.Errorf("refund ran %d times, notify %d; want once each", ap.count("refund"), ap.count("notify"))
		}
	})
}

// TestPauseMixedBatch: under mode both, a reply's direct calls run once, in the batch
// with the run_code call that pauses; the resumed answers cover every call in the
// reply's order.
func TestPauseMixedBatch(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModeBoth)
		step := ap.step(t, ap.exec)
		p := mustPause(t, f.execute(t, step, []fcall{
			{"call_1", "get_order", `{"id":"B22"}`},
			runCode("call_2", `const r = await tools.refund({id: "A1", amount: 20}); return r.refunded`),
			{"call_3", "get_order", `{"id":7}`},
		}))
		if len(p.pending) != 1 || p.pending[0].CallID != "call_2" || p.pending[0].ID != "call_2:code:1" {
			t.Fatalf("pending: %+v", p.pending)
		}
		if n := ap.count("get_order"); n != 1 {
			t.Errorf("get_order ran %d times before the decision, want 1", n)
		}
		got := mustAnswer(t, p.resume(context.Background(), approve("call_2:code:1")))
		want := []answered{
			{"call_1", "{\n  \"id\": \"B22\",\n  \"total\": 30\n}"},
			{"call_2", "20"},
			{"call_3", `Error: invalid arguments: "id" must be a string`},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		if ap.count("get_order") != 1 || ap.count("refund") != 1 {
			t.Errorf("get_order ran %d times, refund %d; want 1 and 1", ap.count("get_order"), ap.count("refund"))
		}
	})
}

// TestPauseTwoRuns: two run_code calls of one reply pause; a decision on one resumes
// it alone, and the other stays paused, its pending call unchanged, until it is
// decided too.
func TestPauseTwoRuns(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModePTC)
		step := ap.step(t, ap.exec)
		p := mustPause(t, f.execute(t, step, []fcall{
			runCode("call_1", `return (await tools.refund({id: "A1", amount: 1})).refunded`),
			runCode("call_2", `return (await tools.refund({id: "B22", amount: 2})).refunded`),
		}))
		if got := p.err.Error(); got != "openai: run_code paused: waiting for approval of refund and 1 more (2 pending)" {
			t.Errorf("Error() = %q", got)
		}
		if len(p.pending) != 2 || p.pending[0].CallID != "call_1" || p.pending[1].CallID != "call_2" {
			t.Fatalf("pending: %+v", p.pending)
		}
		p2 := mustPause(t, p.resume(context.Background(), approve("call_2:code:1")))
		if diff := cmp.Diff(p.pending[:1], p2.pending); diff != "" {
			t.Errorf("still pending (-want +got):\n%s", diff)
		}
		if n := ap.count("refund"); n != 1 {
			t.Errorf("refund ran %d times after one approval, want 1", n)
		}
		// The first pause is spent, the second goes on.
		if o := p.resume(context.Background(), approve("call_1:code:1")); o.err == nil || o.err.Error() != "openai: Resume: this pause was already resumed" {
			t.Errorf("second Resume of a pause: %v", o.err)
		}
		got := mustAnswer(t, p2.resume(context.Background(), map[string]pipeline.Verdict{"call_1:code:1": {Reason: "no"}}))
		want := []answered{
			{"call_1", "Error: code run failed (exception): ToolCallError: the user rejected tool \"refund\": no\n    at tools.refund (program.js:1:27)"},
			{"call_2", "2"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
	})
}

// hidden hides its executor's Resume: a step over it cannot resume.
type hidden struct{ pipeline.Executor }

// unresumable is a pipeline.Resumer whose Resume always fails, as ptc's does for an
// expired continuation.
type unresumable struct{ *ptc.Executor }

func (unresumable) Resume(context.Context, *registry.ResolvedToolSet, string, map[string]pipeline.Verdict) (*pipeline.Result, error) {
	return nil, ptc.ErrExpired
}

// TestResumeRefuses pins the Resume calls that resume nothing, and that they leave the
// pause to resume; and a run that cannot resume answering its call with why.
func TestResumeRefuses(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModePTC)
		calls := []fcall{runCode("call_1", `return (await tools.refund({id: "A1", amount: 1})).refunded`)}
		p := mustPause(t, f.execute(t, ap.step(t, ap.exec), calls))
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		for _, tc := range []struct {
			name      string
			ctx       context.Context
			decisions map[string]pipeline.Verdict
			want      string
		}{
			{"unknown id", context.Background(), approve("call_1:code:1", "call_1:code:9"), `openai: Resume: no call "call_1:code:9" is pending (pending: call_1:code:1)`},
			{"no decisions", context.Background(), nil, "openai: Resume: no decisions: decide at least one of the pending calls (call_1:code:1)"},
			{"cancelled", cancelled, approve("call_1:code:1"), "openai: Resume: context canceled"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				o := p.resume(tc.ctx, tc.decisions)
				if o.err == nil || o.err.Error() != tc.want || o.answers != nil || o.paused != nil {
					t.Errorf("Resume = %+v; want the error %q", o, tc.want)
				}
			})
		}
		if n := ap.count("refund"); n != 0 {
			t.Fatalf("a refused Resume ran refund %d times", n)
		}
		got := mustAnswer(t, p.resume(context.Background(), approve("call_1:code:1")))
		if diff := cmp.Diff([]answered{{"call_1", "1"}}, got); diff != "" {
			t.Errorf("answers after the refusals (-want +got):\n%s", diff)
		}

		t.Run("not a Resumer", func(t *testing.T) {
			p := mustPause(t, f.execute(t, ap.step(t, hidden{ap.exec}), calls))
			o := p.resume(context.Background(), approve("call_1:code:1"))
			if want := "openai: Resume: the executor (openai_test.hidden) cannot resume runs: it is not a pipeline.Resumer"; o.err == nil || o.err.Error() != want {
				t.Errorf("err = %v, want %q", o.err, want)
			}
		})
		t.Run("cannot resume", func(t *testing.T) {
			p := mustPause(t, f.execute(t, ap.step(t, unresumable{ap.exec}), calls))
			got := mustAnswer(t, p.resume(context.Background(), approve("call_1:code:1")))
			if diff := cmp.Diff([]answered{{"call_1", "Error: run_code could not resume: the continuation expired"}}, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	})
}

// TestPauseConcurrentResume: a pause resumed from two goroutines at once resumes once.
func TestPauseConcurrentResume(t *testing.T) {
	forEachFlow(t, func(t *testing.T, f flow) {
		ap := newApprovals(t, registry.ModePTC)
		p := mustPause(t, f.execute(t, ap.step(t, ap.exec), []fcall{runCode("call_1", `return (await tools.refund({id: "A1", amount: 1})).refunded`)}))
		var wg sync.WaitGroup
		outs := make([]outcome, 2)
		for i := range 2 {
			wg.Go(func() { outs[i] = p.resume(context.Background(), approve("call_1:code:1")) })
		}
		wg.Wait()
		ok := 0
		for i, o := range outs {
			switch {
			case o.err == nil && o.paused == nil && len(o.answers) == 1:
				ok++
			case o.err != nil && o.err.Error() == "openai: Resume: this pause was already resumed":
			default:
				t.Errorf("Resume %d: %+v", i, o)
			}
		}
		if ok != 1 || ap.count("refund") != 1 {
			t.Errorf("%d Resumes answered, refund ran %d times; want 1 and 1", ok, ap.count("refund"))
		}
	})
}

// recorded passes requests to an API handler and keeps their bodies.
type recorded struct {
	api    http.Handler
	mu     sync.Mutex
	bodies []string
}

func (r *recorded) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.bodies = append(r.bodies, string(body))
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.api.ServeHTTP(w, req)
}

// TestPauseOverHTTP takes a paused run through the SDK's own client against the
// examples' loopback API, on both APIs: the model's run_code call pauses, the run
// resumes, and the request that follows carries the resumed answer, with nothing of the
// pause in any request.
func TestPauseOverHTTP(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// loop makes the first request, executes and resumes the reply, makes the
		// second request, and returns the final answer and the resumed answers as JSON.
		loop func(t *testing.T, c oai.Client, step *openai.Step) (final string, answers any)
	}{
		{"chat", func(t *testing.T, c oai.Client, step *openai.Step) (string, any) {
			params := oai.ChatCompletionNewParams{Model: "gpt-4.1", Tools: step.ChatTools(), Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("Refund order A1.")}}
			completion, err := c.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			msg := completion.Choices[0].Message
			out, err := step.ExecuteChat(ctx, msg)
			var p *openai.ChatPaused
			if !errors.As(err, &p) || out != nil {
				t.Fatalf("ExecuteChat = %v, %v; want only a *ChatPaused", out, err)
			}
			out, err = p.Resume(ctx, approve(p.Pending[0].ID))
			if err != nil {
				t.Fatal(err)
			}
			params.Messages = append(params.Messages, msg.ToParam())
			params.Messages = append(params.Messages, out...)
			done, err := c.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			return done.Choices[0].Message.Content, asJSON(t, out)
		}},
		{"responses", func(t *testing.T, c oai.Client, step *openai.Step) (string, any) {
			resp, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: step.ResponsesTools(),
				Input: responses.ResponseNewParamsInputUnion{OfString: oai.String("Refund order A1.")}})
			if err != nil {
				t.Fatal(err)
			}
			out, err := step.ExecuteResponses(ctx, resp)
			var p *openai.ResponsesPaused
			if !errors.As(err, &p) || out != nil {
				t.Fatalf("ExecuteResponses = %v, %v; want only a *ResponsesPaused", out, err)
			}
			out, err = p.Resume(ctx, approve(p.Pending[0].ID))
			if err != nil {
				t.Fatal(err)
			}
			done, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: step.ResponsesTools(),
				PreviousResponseID: oai.String(resp.ID), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: out}})
			if err != nil {
				t.Fatal(err)
			}
			return done.OutputText(), asJSON(t, out)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := newApprovals(t, registry.ModePTC)
			step := ap.step(t, ap.exec)
			api := &recorded{api: refundAPI()}
			srv := httptest.NewServer(api)
			defer srv.Close()
			c := oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
			final, answers := tc.loop(t, c, step)
			if final != "Order A1 was refunded 20." {
				t.Errorf("final answer %q", final)
			}
			if len(api.bodies) != 2 {
				t.Fatalf("%d requests, want 2", len(api.bodies))
			}
			for i, body := range api.bodies {
				for _, s := range []string{"run_code paused", "waiting for approval", "refunds need a person's approval", "call_1:code:"} {
					if strings.Contains(body, s) {
						t.Errorf("request %d carries %q:\n%s", i, s, body)
					}
				}
			}
			// The second request ends with the resumed answers.
			var second map[string]any
			if err := json.Unmarshal([]byte(api.bodies[1]), &second); err != nil {
				t.Fatal(err)
			}
			sent, _ := second["messages"].([]any)
			if tc.name == "responses" {
				sent, _ = second["input"].([]any)
			}
			want := answers.([]any)
			if len(sent) < len(want) {
				t.Fatalf("second request: %v", second)
			}
			if diff := cmp.Diff(want, sent[len(sent)-len(want):]); diff != "" {
				t.Errorf("answers sent (-want +got):\n%s", diff)
			}
			if got := fmt.Sprint(want); !strings.Contains(got, "refunded 20") {
				t.Errorf("resumed answers: %s", got)
			}
			if ap.count("refund") != 1 {
				t.Errorf("refund ran %d times, want 1", ap.count("refund"))
			}
		})
	}
}

package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/anthropic"
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
	p := pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{func(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
		switch c.Name {
		case "refund":
			return pipeline.Decision{Action: pipeline.Ask, Reason: "refunds need a person's approval"}, nil
		case "notify":
			return pipeline.Decision{Action: pipeline.Ask}, nil
		}
		return pipeline.Decision{}, nil
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

// runCode is a run_code tool_use block with id and program code, as JSON.
func runCode(id, code string) string {
	input, _ := json.Marshal(map[string]string{"description": "test program", "code": code})
	return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"run_code","input":%s}`, id, input)
}

// toolUses decodes a hand-written assistant message (stop_reason tool_use) with the
// given content blocks.
func toolUses(t *testing.T, blocks ...string) *sdk.Message {
	t.Helper()
	var m sdk.Message
	if err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","stop_reason":"tool_use","content":[`+strings.Join(blocks, ",")+`]}`), &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// answered is a tool_result as the tests compare it: its tool_use id, is_error, its
// toolset and its text blocks joined.
type answered struct {
	ID, Toolset string
	IsError     bool
	Text        string
}

func answers(t *testing.T, turn sdk.MessageParam) []answered {
	t.Helper()
	if turn.OfUser == nil {
		t.Fatalf("the turn is not a user message: %s", indent(t, turn))
	}
	var out []answered
	for _, b := range turn.OfUser.Content {
		tr := b.OfToolResult
		if tr == nil {
			t.Fatalf("a block of the turn is not a tool_result: %s", indent(t, b))
		}
		var texts []string
		for _, c := range tr.Content {
			if c.OfText != nil {
				texts = append(texts, c.OfText.Text)
			}
		}
		out = append(out, answered{ID: tr.ToolUseID, Toolset: tr.ToolsetName.Value, IsError: tr.IsError.Value, Text: strings.Join(texts, "\n")})
	}
	return out
}

// mustPause checks what Execute (or Resume) returned: it must be a *Paused and no turn.
func mustPause(t *testing.T, turn sdk.MessageParam, err error) *anthropic.Paused {
	t.Helper()
	var p *anthropic.Paused
	if !errors.As(err, &p) {
		t.Fatalf("err = %v, want a *anthropic.Paused", err)
	}
	if turn.OfUser != nil || turn.OfAssistant != nil {
		t.Fatalf("a paused Execute returned a turn: %s", indent(t, turn))
	}
	return p
}

func TestPauseApprove(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	msg := toolUses(t, runCode("toolu_1", `const o = await tools.get_order({id: "A1"});
const r = await tools.refund({id: "A1", amount: o.total});
console.log("refunded", r.refunded);
return r;`))
	turn, err := a.Execute(context.Background(), msg)
	p := mustPause(t, turn, err)
	want := []anthropic.PendingCall{{ToolUseID: "toolu_1", PendingCall: pipeline.PendingCall{
		ID: "toolu_1:code:2", Tool: "refund", Arguments: json.RawMessage(`{"id":"A1","amount":20}`), Message: "refunds need a person's approval"}}}
	if diff := cmp.Diff(want, p.Pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if got, want := p.Error(), "anthropic: run_code paused: waiting for approval of refund (1 pending)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if diff := cmp.Diff(map[string]int64{"get_order": 1, "refund": 0, "notify": 0}, ap.counts()); diff != "" {
		t.Errorf("runs before the decision (-want +got):\n%s", diff)
	}

	turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:2": {Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	wantTurn := []answered{{ID: "toolu_1", Text: "refunded 20\n{\n  \"refunded\": 20\n}"}}
	if diff := cmp.Diff(wantTurn, answers(t, turn)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
	// get_order's outcome was replayed, not fetched again.
	if diff := cmp.Diff(map[string]int64{"get_order": 1, "refund": 1, "notify": 0}, ap.counts()); diff != "" {
		t.Errorf("runs after the approval (-want +got):\n%s", diff)
	}
}

func TestPauseReject(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	msg := toolUses(t, runCode("toolu_1", `try { await tools.refund({id: "A1", amount: 5}) } catch (e) { return [e.code, e.message] }`))
	turn, err := a.Execute(context.Background(), msg)
	p := mustPause(t, turn, err)
	turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{p.Pending[0].ID: {Reason: "over the limit"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []answered{{ID: "toolu_1", Text: "[\n  \"DENIED\",\n  \"the user rejected tool \\\"refund\\\": over the limit\"\n]"}}
	if diff := cmp.Diff(want, answers(t, turn)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
	if n := ap.count("refund"); n != 0 {
		t.Errorf("a rejected refund ran %d times", n)
	}
}

// TestPauseTwice: a program that needs two approvals one after the other pauses twice;
// each Resume goes on from where the run stopped.
func TestPauseTwice(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	msg := toolUses(t, runCode("toolu_1", `await tools.refund({id: "A1", amount: 5}); await tools.notify({text: "refunded"}); return "done"`))
	turn, err := a.Execute(context.Background(), msg)
	p := mustPause(t, turn, err)
	if len(p.Pending) != 1 || p.Pending[0].Tool != "refund" {
		t.Fatalf("first pause: %+v", p.Pending)
	}
	turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{p.Pending[0].ID: {Approve: true}})
	p2 := mustPause(t, turn, err)
	want := []anthropic.PendingCall{{ToolUseID: "toolu_1", PendingCall: pipeline.PendingCall{
		ID: "toolu_1:code:2", Tool: "notify", Arguments: json.RawMessage(`{"text":"refunded"}`), Message: `tool "notify" requires approval`}}}
	if diff := cmp.Diff(want, p2.Pending); diff != "" {
		t.Errorf("second pause (-want +got):\n%s", diff)
	}
	turn, err = p2.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:2": {Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]answered{{ID: "toolu_1", Text: "done"}}, answers(t, turn)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
	if ap.count("refund") != 1 || ap.count("notify") != 1 {
		t.Errorf("refund ran %d times, notify %d; want once each", ap.count("refund"), ap.count("notify"))
	}
}

// TestPauseMixedBatch: under mode both, a message's direct calls run once, in the
// batch with the run_code call that pauses; the resumed turn answers every tool_use
// in the message's order, toolset names kept. Saved with json.Marshal, the pause loads
// on another adapter, whose executor shares only the store, and resumes there the same
// way; a second copy of it cannot resume its run again.
func TestPauseMixedBatch(t *testing.T) {
	for _, saved := range []bool{false, true} {
		t.Run(fmt.Sprint("saved=", saved), func(t *testing.T) {
			ap := newApprovals(t, registry.ModeBoth)
			a := mustNew(t, ap.exec, ap.set, nil)
			msg := toolUses(t,
				`{"type":"text","text":"Checking, then refunding."}`,
				`{"type":"tool_use","id":"toolu_1","name":"get_order","input":{"id":"B22"}}`,
				runCode("toolu_2", `const r = await tools.refund({id: "A1", amount: 20}); return r.refunded`),
				`{"type":"tool_use","id":"toolu_3","name":"get_order","toolset_name":"orders","input":{"id":"missing"}}`,
			)
			turn, err := a.Execute(context.Background(), msg)
			p := mustPause(t, turn, err)
			var data []byte
			if saved {
				if data, err = json.Marshal(p); err != nil {
					t.Fatal(err)
				}
				a = mustNew(t, ap.replica(t), ap.set, nil)
				if p, err = a.LoadPaused(data); err != nil {
					t.Fatal(err)
				}
			}
			if len(p.Pending) != 1 || p.Pending[0].ToolUseID != "toolu_2" || p.Pending[0].ID != "toolu_2:code:1" {
				t.Fatalf("pending: %+v", p.Pending)
			}
			if n := ap.count("get_order"); n != 2 {
				t.Errorf("get_order ran %d times before the decision, want 2", n)
			}
			turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_2:code:1": {Approve: true}})
			if err != nil {
				t.Fatal(err)
			}
			want := []answered{
				{ID: "toolu_1", Text: "{\n  \"total\": 30\n}"},
				{ID: "toolu_2", Text: "20"},
				{ID: "toolu_3", Toolset: "orders", IsError: true, Text: `Error: order "missing" not found`},
			}
			if diff := cmp.Diff(want, answers(t, turn)); diff != "" {
				t.Errorf("turn (-want +got):\n%s", diff)
			}
			if ap.count("get_order") != 2 || ap.count("refund") != 1 {
				t.Errorf("get_order ran %d times, refund %d; want 2 and 1", ap.count("get_order"), ap.count("refund"))
			}
			if !saved {
				return
			}
			again, err := a.LoadPaused(data)
			if err != nil {
				t.Fatal(err)
			}
			turn, err = again.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_2:code:1": {Approve: true}})
			if err != nil {
				t.Fatal(err)
			}
			if got := answers(t, turn)[1]; !got.IsError || got.Text != "Error: run_code could not resume: this run was already resumed" {
				t.Errorf("second copy's answer: %+v", got)
			}
			if ap.count("refund") != 1 {
				t.Errorf("refund ran %d times, want once", ap.count("refund"))
			}
		})
	}
}

func TestLoadPausedRefuses(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	turn, err := a.Execute(context.Background(), toolUses(t, runCode("toolu_1", `await tools.refund({id: "A1", amount: 5})`)))
	saved, err := json.Marshal(mustPause(t, turn, err))
	if err != nil {
		t.Fatal(err)
	}
	good := string(saved)
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", "paused", "anthropic: LoadPaused: invalid character"},
		{"another host", strings.Replace(good, `"host":"anthropic"`, `"host":"openai.chat"`, 1),
			`anthropic: LoadPaused: pipeline: PausedBatch: saved by "openai.chat", not by "anthropic"`},
		{"toolsets", strings.Replace(good, `"extra":[""]`, `"extra":["",""]`, 1),
			`anthropic: LoadPaused: extra ["",""] is not one toolset name for each of the 1 calls`},
		{"a result for another call", strings.Replace(good, `"callId":"toolu_1"`, `"callId":"toolu_9"`, 1),
			`anthropic: LoadPaused: pipeline: PausedBatch: result 0 answers run_code "toolu_9", not call "toolu_1" (run_code)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := a.LoadPaused([]byte(tc.data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || p != nil {
				t.Errorf("got %v, %v; want %q", p, err, tc.want)
			}
		})
	}
}

// TestPauseTwoRuns: two run_code calls of one message pause; a decision on one
// resumes it alone, and the other stays paused, its pending call unchanged, until it
// is decided too.
func TestPauseTwoRuns(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	msg := toolUses(t,
		runCode("toolu_1", `return (await tools.refund({id: "A1", amount: 1})).refunded`),
		runCode("toolu_2", `return (await tools.refund({id: "B22", amount: 2})).refunded`),
	)
	turn, err := a.Execute(context.Background(), msg)
	p := mustPause(t, turn, err)
	if got := p.Error(); got != "anthropic: run_code paused: waiting for approval of refund and 1 more (2 pending)" {
		t.Errorf("Error() = %q", got)
	}
	if len(p.Pending) != 2 || p.Pending[0].ToolUseID != "toolu_1" || p.Pending[1].ToolUseID != "toolu_2" {
		t.Fatalf("pending: %+v", p.Pending)
	}
	turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_2:code:1": {Approve: true}})
	p2 := mustPause(t, turn, err)
	if diff := cmp.Diff(p.Pending[:1], p2.Pending); diff != "" {
		t.Errorf("still pending (-want +got):\n%s", diff)
	}
	if n := ap.count("refund"); n != 1 {
		t.Errorf("refund ran %d times after one approval, want 1", n)
	}
	// The first pause is spent, the second goes on.
	if _, err := p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}}); err == nil || err.Error() != "anthropic: Resume: this pause was already resumed" {
		t.Errorf("second Resume of a pause: %v", err)
	}
	turn, err = p2.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Reason: "no"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []answered{
		{ID: "toolu_1", IsError: true, Text: "Error: code run failed (exception): ToolCallError: the user rejected tool \"refund\": no\n    at tools.refund (program.js:1:27)"},
		{ID: "toolu_2", Text: "2"},
	}
	if diff := cmp.Diff(want, answers(t, turn)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
}

// hidden hides its executor's Resume: an adapter over it cannot resume.
type hidden struct{ pipeline.Executor }

// unresumable is a pipeline.Resumer whose Resume always fails, as ptc's does for an
// expired continuation.
type unresumable struct{ *ptc.Executor }

func (unresumable) Resume(context.Context, *registry.ResolvedToolSet, string, map[string]pipeline.Verdict) (*pipeline.Result, error) {
	return nil, ptc.ErrExpired
}

// TestResumeRefuses pins the Resume calls that resume nothing, and that they leave
// the pause to resume; and a run that cannot resume answering its tool_use with why.
func TestResumeRefuses(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	msg := toolUses(t, runCode("toolu_1", `return (await tools.refund({id: "A1", amount: 1})).refunded`))
	turn, err := a.Execute(context.Background(), msg)
	p := mustPause(t, turn, err)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		decisions map[string]pipeline.Verdict
		want      string
	}{
		{"unknown id", context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}, "toolu_1:code:9": {Approve: true}},
			`anthropic: Resume: no call "toolu_1:code:9" is pending (pending: toolu_1:code:1)`},
		{"no decisions", context.Background(), nil, "anthropic: Resume: no decisions: decide at least one of the pending calls (toolu_1:code:1)"},
		{"cancelled", cancelled, map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}}, "anthropic: Resume: context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn, err := p.Resume(tc.ctx, tc.decisions)
			if err == nil || err.Error() != tc.want || turn.OfUser != nil {
				t.Errorf("Resume = %v, %v; want the error %q", turn, err, tc.want)
			}
		})
	}
	if n := ap.count("refund"); n != 0 {
		t.Fatalf("a refused Resume ran refund %d times", n)
	}
	turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]answered{{ID: "toolu_1", Text: "1"}}, answers(t, turn)); diff != "" {
		t.Errorf("turn after the refusals (-want +got):\n%s", diff)
	}

	t.Run("not a Resumer", func(t *testing.T) {
		a := mustNew(t, hidden{ap.exec}, ap.set, nil)
		turn, err := a.Execute(context.Background(), msg)
		p := mustPause(t, turn, err)
		_, err = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}})
		if want := "anthropic: Resume: the executor (anthropic_test.hidden) cannot resume runs: it is not a pipeline.Resumer"; err == nil || err.Error() != want {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
	t.Run("cannot resume", func(t *testing.T) {
		a := mustNew(t, unresumable{ap.exec}, ap.set, nil)
		turn, err := a.Execute(context.Background(), msg)
		p := mustPause(t, turn, err)
		turn, err = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}})
		if err != nil {
			t.Fatal(err)
		}
		want := []answered{{ID: "toolu_1", IsError: true, Text: "Error: run_code could not resume: the continuation expired"}}
		if diff := cmp.Diff(want, answers(t, turn)); diff != "" {
			t.Errorf("turn (-want +got):\n%s", diff)
		}
	})
}

// TestPauseConcurrentResume: a pause resumed from two goroutines at once resumes once.
func TestPauseConcurrentResume(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	turn, err := a.Execute(context.Background(), toolUses(t, runCode("toolu_1", `return (await tools.refund({id: "A1", amount: 1})).refunded`)))
	p := mustPause(t, turn, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	turns := make([]sdk.MessageParam, 2)
	for i := range 2 {
		wg.Go(func() {
			turns[i], errs[i] = p.Resume(context.Background(), map[string]pipeline.Verdict{"toolu_1:code:1": {Approve: true}})
		})
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil && turns[i].OfUser != nil:
			ok++
		case err != nil && err.Error() == "anthropic: Resume: this pause was already resumed":
		default:
			t.Errorf("Resume %d: %v", i, err)
		}
	}
	if ok != 1 || ap.count("refund") != 1 {
		t.Errorf("%d Resumes answered, refund ran %d times; want 1 and 1", ok, ap.count("refund"))
	}
}

// TestPauseOverHTTP takes a paused run through the SDK's own client against a loopback
// server: the model's run_code call pauses, the run resumes, and the request that
// follows carries the resumed turn, with nothing of the pause in any request.
func TestPauseOverHTTP(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	api := &replay{responses: []string{"turn_refund.json", "turn_refunded.json"}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	ctx := context.Background()
	params := sdk.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Tools:     a.Tools(),
		System:    a.System(),
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Refund order A1."))},
	}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, msg.ToParam())
	turn, err := a.Execute(ctx, msg)
	p := mustPause(t, turn, err)
	turn, err = p.Resume(ctx, map[string]pipeline.Verdict{p.Pending[0].ID: {Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, turn)
	done, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := done.Content[0].Text; got != "Order A1 was refunded 20." {
		t.Errorf("final answer %q", got)
	}
	if len(api.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(api.requests))
	}
	for i, body := range api.requests {
		for _, s := range []string{"run_code paused", "waiting for approval", p.Pending[0].Message, p.Pending[0].ID} {
			if strings.Contains(string(body), s) {
				t.Errorf("request %d carries %q:\n%s", i, s, body)
			}
		}
	}
	var second struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(api.requests[1], &second); err != nil {
		t.Fatal(err)
	}
	var got, want any
	json.Unmarshal(second.Messages[len(second.Messages)-1], &got)
	json.Unmarshal(indent(t, turn), &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the last message sent is not the resumed turn (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]answered{{ID: "toolu_01Kp3xVbN8sQd2WmYc5rTg7H", Text: "refunded 20\n{\n  \"refunded\": 20\n}"}}, answers(t, turn)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
}

// TestBetaToolsPause: the tool runner cannot wait for a person, so a run_code run that
// pauses is an error the runner shows the model, saying where the program stopped, not
// the pause text (which promises a resume that never comes).
func TestBetaToolsPause(t *testing.T) {
	ap := newApprovals(t, registry.ModePTC)
	a := mustNew(t, ap.exec, ap.set, nil)
	tools := a.BetaTools()
	if len(tools) != 1 || tools[0].Name() != "run_code" {
		t.Fatalf("runner tools: %v", tools)
	}
	input, _ := json.Marshal(map[string]string{"description": "d", "code": `await tools.get_order({id: "A1"}); await tools.refund({id: "A1", amount: 20})`})
	blocks, err := tools[0].Execute(context.Background(), input)
	want := "run_code stopped before it finished: the program called refund, which needs a person's approval, and none can be asked for here (the calls it had started before ran)"
	if err == nil || err.Error() != want || blocks != nil {
		t.Errorf("Execute = %v, %v; want the error %q", blocks, err, want)
	}
	if ap.count("get_order") != 1 || ap.count("refund") != 0 {
		t.Errorf("get_order ran %d times, refund %d; want 1 and 0", ap.count("get_order"), ap.count("refund"))
	}
}

package genkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"
	rcgenkit "github.com/runcode-go/runcode/contrib/genkit"
	"github.com/runcode-go/runcode/internal/testexec"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// interrupt runs Genkit's tool loop on a hand-written response whose run_code call
// pauses, and returns the adapter and the interrupt part.
func interrupt(t *testing.T, file string) (*rcgenkit.Adapter, *ai.Part) {
	t.Helper()
	set, exec := setup(t, registry.ModePTC)
	a := mustNew(t, exec, set, nil)
	g := loopback(t, file)
	resp, err := genkit.Generate(context.Background(), g, ai.WithModelName("openai/gpt-4.1"),
		ai.WithMessages(ai.NewUserTextMessage("refund")), ai.WithTools(a.Tools()...))
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != ai.FinishReasonInterrupted || len(resp.Interrupts()) != 1 {
		t.Fatalf("finish reason %q, %d interrupts", resp.FinishReason, len(resp.Interrupts()))
	}
	return a, resp.Interrupts()[0]
}

// TestRespondPausesAgain resumes a run that refunds twice: approving the first refund
// gives an interrupt for the second, approving that a tool response.
func TestRespondPausesAgain(t *testing.T) {
	a, part := interrupt(t, "chat_refund_twice.json")
	ctx := context.Background()
	var asked []string
	for part.IsInterrupt() {
		info, ok := rcgenkit.PauseOf(part)
		if !ok {
			t.Fatalf("PauseOf(%+v) found no pause", part.Metadata)
		}
		asked = append(asked, info.String()+" "+string(info.Pending[0].Arguments))
		next, err := a.Respond(ctx, part, map[string]pipeline.Verdict{info.Pending[0].ID: {Approve: true}})
		if err != nil {
			t.Fatal(err)
		}
		// The continuation is spent: a second Respond answers that the run was resumed.
		again, err := a.Respond(ctx, part, map[string]pipeline.Verdict{info.Pending[0].ID: {Approve: true}})
		if err != nil || again.ToolResponse == nil || !strings.Contains(again.ToolResponse.Output.(string), "already resumed") {
			t.Errorf("a second Respond to the same interrupt = %+v, %v", again, err)
		}
		part = next
	}
	want := []string{
		`run_code paused: waiting for approval of refund (1 pending) {"id":"A1","amount":5}`,
		`run_code paused: waiting for approval of refund (1 pending) {"id":"B22","amount":7}`,
	}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked:\n%s\nwant:\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
	if part.ToolResponse == nil || part.ToolResponse.Output != "12" || part.ToolResponse.Ref != "call_Zt4Kp9Lm3Nb7Vc2X" {
		t.Errorf("final part = %+v", part.ToolResponse)
	}
}

func TestRespondRejects(t *testing.T) {
	a, part := interrupt(t, "chat_refund.json")
	info, _ := rcgenkit.PauseOf(part)
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		part      *ai.Part
		decisions map[string]pipeline.Verdict
		want      string
	}{
		{"not an interrupt", ai.NewTextPart("x"), map[string]pipeline.Verdict{"a": {}}, "not the interrupt"},
		{"no decisions", part, nil, "no decisions"},
		{"unknown call", part, map[string]pipeline.Verdict{"nope": {Approve: true}}, `no call "nope" is pending`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := a.Respond(ctx, tc.part, tc.decisions); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Respond = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// A rejection: the program does not catch it, so the run fails with it.
	got, err := a.Respond(ctx, part, map[string]pipeline.Verdict{info.Pending[0].ID: {Reason: "too much"}})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := got.ToolResponse.Output.(string); !strings.Contains(out, `the user rejected tool "refund": too much`) {
		t.Errorf("output = %q", out)
	}
}

func TestPausedResume(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	msg := &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{
		ai.NewToolRequestPart(&ai.ToolRequest{Name: "run_code", Ref: "r", Input: map[string]any{"description": "refund",
			"code": "try { await tools.refund({ id: 'A1', amount: 5 }) } catch (e) { return e.code + ': ' + e.message }"}}),
		ai.NewToolRequestPart(&ai.ToolRequest{Name: "get_order", Ref: "o", Input: map[string]any{"id": "A1"}}),
	}}
	ctx := context.Background()
	_, err := a.Execute(ctx, msg)
	var paused *rcgenkit.Paused
	if !errors.As(err, &paused) || len(paused.Pending) != 1 || paused.Pending[0].CallID != "r" {
		t.Fatalf("Execute = %v, want *Paused for call r", err)
	}
	if want := "genkit: run_code paused: waiting for approval of refund (1 pending)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	id := paused.Pending[0].ID
	got, err := paused.Resume(ctx, map[string]pipeline.Verdict{id: {Reason: "not today"}})
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, p := range got[0].Content {
		outs = append(outs, p.ToolResponse.Ref+": "+p.ToolResponse.Output.(string))
	}
	if want := "r: DENIED: the user rejected tool \"refund\": not today|o: {\n  \"total\": 20\n}"; strings.Join(outs, "|") != want {
		t.Errorf("responses = %q, want %q", strings.Join(outs, "|"), want)
	}
	if _, err := paused.Resume(ctx, map[string]pipeline.Verdict{id: {Approve: true}}); err == nil || !strings.Contains(err.Error(), "already resumed") {
		t.Errorf("second Resume = %v", err)
	}
}

// TestPausedSaved: a pause saved with json.Marshal loads on another adapter, whose
// executor shares only the store, and resumes there, the tool requests' refs kept
// (none for a request Execute named); a second copy cannot resume its run again, and
// data that is not this adapter's pause is refused.
func TestPausedSaved(t *testing.T) {
	set := testreg.ResolveIn(t, testreg.Scope(t, registry.ModeBoth), getOrder(), refund(), renderChart())
	p := pipeline.New(&pipeline.Options{PreExecute: []pipeline.PreExecuteFunc{askBeforeRefunds}})
	st := store.NewMemory()
	msg := &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{
		ai.NewToolRequestPart(&ai.ToolRequest{Name: "run_code", Ref: "r", Input: map[string]any{"description": "refund",
			"code": "const r = await tools.refund({ id: 'A1', amount: 5 }); return r.refunded"}}),
		ai.NewToolRequestPart(&ai.ToolRequest{Name: "get_order", Input: map[string]any{"id": "A1"}}),
	}}
	ctx := context.Background()
	_, err := mustNew(t, testexec.PTC(t, p, &ptc.Options{Store: st}), set, nil).Execute(ctx, msg)
	var paused *rcgenkit.Paused
	if !errors.As(err, &paused) {
		t.Fatalf("Execute = %v, want *Paused", err)
	}
	saved, err := json.Marshal(paused)
	if err != nil {
		t.Fatal(err)
	}

	other := mustNew(t, testexec.PTC(t, p, &ptc.Options{Store: st}), set, nil)
	loaded, err := other.LoadPaused(saved)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(paused.Pending, loaded.Pending); diff != "" {
		t.Errorf("pending (-saved +loaded):\n%s", diff)
	}
	responses := func(p *rcgenkit.Paused) []string {
		t.Helper()
		got, err := p.Resume(ctx, map[string]pipeline.Verdict{p.Pending[0].ID: {Approve: true}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, part := range got[0].Content {
			out = append(out, part.ToolResponse.Name+" "+part.ToolResponse.Ref+": "+part.ToolResponse.Output.(string))
		}
		return out
	}
	if diff := cmp.Diff([]string{"run_code r: 5", "get_order : {\n  \"total\": 20\n}"}, responses(loaded)); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
	again, err := other.LoadPaused(saved)
	if err != nil {
		t.Fatal(err)
	}
	if got := responses(again)[0]; got != "run_code r: Error: run_code could not resume: this run was already resumed" {
		t.Errorf("second copy: %q", got)
	}

	good := string(saved)
	for _, tc := range []struct{ name, data, want string }{
		{"another host", strings.Replace(good, `"host":"genkit"`, `"host":"eino"`, 1), `genkit: LoadPaused: pipeline: PausedBatch: saved by "eino", not by "genkit"`},
		{"refs", strings.Replace(good, `"extra":["r",""]`, `"extra":["r"]`, 1), `genkit: LoadPaused: extra ["r"] is not one tool request ref for each of the 2 calls`},
		{"another ref", strings.Replace(good, `"extra":["r",""]`, `"extra":["x",""]`, 1), `genkit: LoadPaused: call "r" has the ref "x"`},
		{"not a pause", `{}`, `genkit: LoadPaused: pipeline: PausedBatch: format ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p, err := other.LoadPaused([]byte(tc.data)); err == nil || !strings.HasPrefix(err.Error(), tc.want) || p != nil {
				t.Errorf("got %v, %v; want %q", p, err, tc.want)
			}
		})
	}
}

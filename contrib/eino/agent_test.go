package eino_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/runcode-go/runcode/contrib/eino"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// agentRun is what one run of an ADK runner gave: the interrupts it ended with and
// the tool messages' contents.
type agentRun struct {
	interrupts []*adk.InterruptCtx
	tools      []string
}

func drain(t *testing.T, events *adk.AsyncIterator[*adk.AgentEvent]) agentRun {
	t.Helper()
	var r agentRun
	for {
		ev, ok := events.Next()
		if !ok {
			return r
		}
		switch {
		case ev.Err != nil:
			t.Fatalf("agent event error: %v", ev.Err)
		case ev.Action != nil && ev.Action.Interrupted != nil:
			r.interrupts = ev.Action.Interrupted.InterruptContexts
		case ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil:
			if m := ev.Output.MessageOutput.Message; m.ToolCallID != "" {
				r.tools = append(r.tools, m.Content)
			}
		}
	}
}

// TestAgentInterrupt drives an ADK ChatModelAgent on eino-ext's OpenAI model through
// a pause: a resume that decides nothing of the run interrupts again, with the same
// pending call; a rejection reaches the program as a ToolCallError.
func TestAgentInterrupt(t *testing.T) {
	api := newChatAPI(fixture(t, "chat_refund.json"), fixture(t, "chat_refund_done.json"))
	defer api.Close()
	set, exec := setup(t, registry.ModePTC)
	a := mustNew(t, exec, set, nil)
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "shop", Description: "shop", Instruction: a.Instruction(), Model: chatModel(t, api),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: a.Tools()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: newCheckPoints()})
	run := drain(t, runner.Query(ctx, "Refund order A1.", adk.WithCheckPointID("cp")))
	info := pauseInfo(t, run)
	if info.ToolCallID != "call_Pq7Wn2Xe4Rt6Yh1Z" || len(info.Pending) != 1 || info.Pending[0].Tool != "refund" {
		t.Fatalf("PauseInfo = %+v", info)
	}
	if want := "run_code paused: waiting for approval of refund (1 pending)"; info.String() != want {
		t.Errorf("String() = %q, want %q", info.String(), want)
	}

	// Decisions that name no call of the run: it waits on.
	id := run.interrupts[0].ID
	events, err := runner.ResumeWithParams(ctx, "cp", &adk.ResumeParams{Targets: map[string]any{id: eino.Decisions{"other": {Approve: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	run = drain(t, events)
	again := pauseInfo(t, run)
	if again.Pending[0].ID != info.Pending[0].ID {
		t.Errorf("after an empty resume, pending = %+v, want %+v", again.Pending, info.Pending)
	}

	events, err = runner.ResumeWithParams(ctx, "cp", &adk.ResumeParams{Targets: map[string]any{
		run.interrupts[0].ID: eino.Decisions{info.Pending[0].ID: pipeline.Verdict{Reason: "too much"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	run = drain(t, events)
	if len(run.interrupts) != 0 || len(run.tools) != 1 {
		t.Fatalf("after the rejection: %+v", run)
	}
	// The program does not catch the rejection, so the run fails with it.
	if !contains(run.tools[0], `ToolCallError: the user rejected tool "refund": too much`) {
		t.Errorf("tool message = %q, want the program's uncaught rejection", run.tools[0])
	}
}

// pauseInfo returns the one interrupt's *eino.PauseInfo.
func pauseInfo(t *testing.T, run agentRun) *eino.PauseInfo {
	t.Helper()
	if len(run.interrupts) != 1 {
		t.Fatalf("the run ended with %d interrupts, want 1", len(run.interrupts))
	}
	info, ok := run.interrupts[0].Info.(*eino.PauseInfo)
	if !ok {
		t.Fatalf("interrupt info is %T, want *eino.PauseInfo", run.interrupts[0].Info)
	}
	return info
}

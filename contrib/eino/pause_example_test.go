package eino_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/runcode-go/runcode/contrib/eino"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ExamplePaused is the loop of Example with a refund that waits for a person. The
// model's run_code program looks order A1 up and refunds it; the pipeline asks before
// every refund and has no approver to answer during the call, so the run pauses and
// Execute returns a *Paused instead of messages. The loop asks the person (a
// strings.Reader stands in for the terminal, answering "y"), resumes, and sends the
// tool message to the model. The API replays hand-written responses
// (testdata/chat_refund.json, then chat_refund_done.json).
func ExamplePaused() {
	api := replay("chat_refund.json", "chat_refund_done.json")
	defer api.Close()
	scope, exec, closePool, err := shop(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	ctx := context.Background()
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: api.URL, APIKey: "hand-written", Model: "gpt-4.1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	person := bufio.NewReader(strings.NewReader("y\n")) // stands in for os.Stdin
	history := []*schema.Message{schema.UserMessage("Refund order A1.")}
	for {
		set, err := scope.Resolve(ctx, registry.Step{})
		if err != nil {
			fmt.Println(err)
			return
		}
		tools, err := eino.New(exec, set, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		model, err := cm.WithTools(tools.ToolInfos())
		if err != nil {
			fmt.Println(err)
			return
		}
		msg, err := model.Generate(ctx, append([]*schema.Message{tools.SystemMessage()}, history...))
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, msg)
		if len(msg.ToolCalls) == 0 {
			fmt.Println("answer:", msg.Content)
			return
		}

		answers, err := tools.Execute(ctx, msg)
		// A run paused: ask the person about each pending call, then resume. A resumed
		// run may pause again at its next approval.
		var paused *eino.Paused
		for errors.As(err, &paused) {
			decisions := map[string]pipeline.Verdict{}
			for _, c := range paused.Pending {
				fmt.Printf("%s: %s %s. Approve? ", c.Message, c.Tool, c.Arguments)
				line, _ := person.ReadString('\n')
				fmt.Println(strings.TrimSpace(line))
				if strings.TrimSpace(line) == "y" {
					decisions[c.ID] = pipeline.Verdict{Approve: true}
				} else {
					decisions[c.ID] = pipeline.Verdict{Reason: "the person said no"}
				}
			}
			answers, err = paused.Resume(ctx, decisions)
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, answers...)
		for _, m := range answers {
			fmt.Printf("%s -> %s\n", m.ToolCallID, m.Content)
		}
	}
	// Output:
	// refunds need a person's approval: refund {"id":"A1","amount":20}. Approve? y
	// call_Pq7Wn2Xe4Rt6Yh1Z -> refunded 20
	// {
	//   "refunded": 20
	// }
	// answer: Order A1 was refunded 20.
}

// ExampleAdapter_Tools gives runcode's tools to an ADK ChatModelAgent, whose runner
// runs the loop: the model, Eino's ToolsNode, the model again. The agent's refund
// waits for a person: the run_code tool raises an Eino interrupt carrying a
// *eino.PauseInfo, the runner saves a checkpoint and ends with an interrupted event,
// and the host resumes the checkpoint with the person's decisions as the interrupt's
// resume data. The model is eino-ext's OpenAI chat model against hand-written
// responses, as in ExamplePaused.
func ExampleAdapter_Tools() {
	api := replay("chat_refund.json", "chat_refund_done.json")
	defer api.Close()
	scope, exec, closePool, err := shop(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	ctx := context.Background()
	set, err := scope.Resolve(ctx, registry.Step{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, err := eino.New(exec, set, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: api.URL, APIKey: "hand-written", Model: "gpt-4.1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "shop",
		Description: "Answers questions about orders and refunds them.",
		Instruction: tools.Instruction(), // run_code's rules and the SDK
		Model:       cm,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools.Tools()}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: newCheckPoints()})

	events := runner.Query(ctx, "Refund order A1.", adk.WithCheckPointID("refund-A1"))
	for {
		var interrupts []*adk.InterruptCtx
		for {
			ev, ok := events.Next()
			if !ok {
				break
			}
			switch {
			case ev.Err != nil:
				fmt.Println("error:", ev.Err)
				return
			case ev.Action != nil && ev.Action.Interrupted != nil:
				interrupts = ev.Action.Interrupted.InterruptContexts
			case ev.Output != nil && ev.Output.MessageOutput != nil:
				if m := ev.Output.MessageOutput.Message; m != nil && len(m.ToolCalls) == 0 {
					fmt.Printf("%s: %s\n", m.Role, m.Content)
				}
			}
		}
		if len(interrupts) == 0 {
			return
		}
		// Ask the person about every pending call of every paused run.
		targets := map[string]any{}
		for _, ic := range interrupts {
			info, ok := ic.Info.(*eino.PauseInfo)
			if !ok {
				continue
			}
			decisions := eino.Decisions{}
			for _, c := range info.Pending {
				fmt.Printf("%s: %s %s. Approve? y\n", c.Message, c.Tool, c.Arguments)
				decisions[c.ID] = pipeline.Verdict{Approve: true}
			}
			targets[ic.ID] = decisions
		}
		events, err = runner.ResumeWithParams(ctx, "refund-A1", &adk.ResumeParams{Targets: targets})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// refunds need a person's approval: refund {"id":"A1","amount":20}. Approve? y
	// tool: refunded 20
	// {
	//   "refunded": 20
	// }
	// assistant: Order A1 was refunded 20.
}

// checkPoints is an in-memory adk.CheckPointStore; a host that resumes in another
// process keeps checkpoints somewhere durable (and runcode's paused runs in a durable
// ptc.Options.Store).
type checkPoints struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newCheckPoints() *checkPoints { return &checkPoints{m: map[string][]byte{}} }

func (s *checkPoints) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.m[id]
	return data, ok, nil
}

func (s *checkPoints) Set(_ context.Context, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = data
	return nil
}

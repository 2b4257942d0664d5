package genkit_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/openai/openai-go/option"
	rcgenkit "github.com/runcode-go/runcode/contrib/genkit"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ExampleAdapter_Respond is Genkit's own tool loop with a refund that waits for a
// person. The model's run_code program looks order A1 up and refunds it; the pipeline
// asks before every refund and has no approver to answer during the call, so the run
// pauses and interrupts the generation: Generate returns a response with
// FinishReason "interrupted". The host asks the person about each interrupt's pending
// calls (a strings.Reader stands in for the terminal, answering "y"), Respond resumes
// the run, and the next Generate sends the tool response to the model. The API
// replays hand-written responses (testdata/chat_refund.json, then
// chat_refund_done.json).
func ExampleAdapter_Respond() {
	api := replay("chat_refund.json", "chat_refund_done.json")
	defer api.Close()
	scope, exec, closePool, err := shop(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	// genkit.Init watches for signals until its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx, genkit.WithPlugins(&openai.OpenAI{APIKey: "hand-written", Opts: []option.RequestOption{option.WithBaseURL(api.URL)}}))
	set, err := scope.Resolve(ctx, registry.Step{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, err := rcgenkit.New(exec, set, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	person := bufio.NewReader(strings.NewReader("y\n")) // stands in for os.Stdin
	opts := []ai.GenerateOption{
		ai.WithModelName("openai/gpt-4.1"),
		ai.WithMessages(tools.SystemMessage(), ai.NewUserTextMessage("Refund order A1.")),
		ai.WithTools(tools.Tools()...),
	}
	for {
		resp, err := genkit.Generate(ctx, g, opts...)
		if err != nil {
			fmt.Println(err)
			return
		}
		if resp.FinishReason != ai.FinishReasonInterrupted {
			fmt.Println("answer:", resp.Text())
			return
		}
		// Each interrupt is a paused run: ask about its pending calls until it is
		// answered (a resumed run may pause again at its next approval).
		var answers []*ai.Part
		for _, part := range resp.Interrupts() {
			for part.IsInterrupt() {
				pause, ok := rcgenkit.PauseOf(part)
				if !ok {
					fmt.Println("an interrupt that is not runcode's")
					return
				}
				decisions := map[string]pipeline.Verdict{}
				for _, c := range pause.Pending {
					fmt.Printf("%s: %s %s. Approve? ", c.Message, c.Tool, c.Arguments)
					line, _ := person.ReadString('\n')
					fmt.Println(strings.TrimSpace(line))
					decisions[c.ID] = pipeline.Verdict{Approve: strings.TrimSpace(line) == "y", Reason: "the person said no"}
				}
				if part, err = tools.Respond(ctx, part, decisions); err != nil {
					fmt.Println(err)
					return
				}
			}
			fmt.Printf("%s -> %v\n", part.ToolResponse.Name, part.ToolResponse.Output)
			answers = append(answers, part)
		}
		opts = []ai.GenerateOption{
			ai.WithModelName("openai/gpt-4.1"),
			ai.WithMessages(resp.History()...),
			ai.WithTools(tools.Tools()...),
			ai.WithToolResponses(answers...),
		}
	}
	// Output:
	// refunds need a person's approval: refund {"id":"A1","amount":20}. Approve? y
	// run_code -> refunded 20
	// {
	//   "refunded": 20
	// }
	// answer: Order A1 was refunded 20.
}

// ExamplePaused is a loop that runs tools itself (ai.WithReturnToolRequests), so that
// a model message's calls run as one batch through Execute; the refund's run pauses,
// Execute returns a *Paused, and the loop asks the person and resumes.
func ExamplePaused() {
	api := replay("chat_refund.json", "chat_refund_done.json")
	defer api.Close()
	scope, exec, closePool, err := shop(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	// genkit.Init watches for signals until its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx, genkit.WithPlugins(&openai.OpenAI{APIKey: "hand-written", Opts: []option.RequestOption{option.WithBaseURL(api.URL)}}))
	history := []*ai.Message{ai.NewUserTextMessage("Refund order A1.")}
	for {
		set, err := scope.Resolve(ctx, registry.Step{})
		if err != nil {
			fmt.Println(err)
			return
		}
		tools, err := rcgenkit.New(exec, set, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp, err := genkit.Generate(ctx, g,
			ai.WithModelName("openai/gpt-4.1"),
			ai.WithMessages(append([]*ai.Message{tools.SystemMessage()}, history...)...),
			ai.WithTools(tools.Tools()...),
			ai.WithReturnToolRequests(true),
		)
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, resp.Message)
		if len(resp.ToolRequests()) == 0 {
			fmt.Println("answer:", resp.Text())
			return
		}
		answers, err := tools.Execute(ctx, resp.Message)
		var paused *rcgenkit.Paused
		for errors.As(err, &paused) {
			decisions := map[string]pipeline.Verdict{}
			for _, c := range paused.Pending {
				fmt.Printf("%s: %s %s. Approve? y\n", c.Message, c.Tool, c.Arguments)
				decisions[c.ID] = pipeline.Verdict{Approve: true}
			}
			answers, err = paused.Resume(ctx, decisions)
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		history = append(history, answers...)
		for _, p := range answers[0].Content {
			fmt.Printf("%s -> %v\n", p.ToolResponse.Ref, p.ToolResponse.Output)
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

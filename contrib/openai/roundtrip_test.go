package openai_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/contrib/openai"
	"github.com/runcode-go/runcode/registry"
)

// chatRequest is what a Chat step sends before the model's reply: the golden of
// ChatTools and ChatSystem.
type chatRequest struct {
	Tools    []oai.ChatCompletionToolUnionParam    `json:"tools"`
	Messages []oai.ChatCompletionMessageParamUnion `json:"messages"`
}

// responsesRequest is the golden of ResponsesTools and Instructions.
type responsesRequest struct {
	Instructions string                     `json:"instructions"`
	Tools        []responses.ToolUnionParam `json:"tools"`
}

// TestChatRoundTrip takes a hand-written chat completion with two tool calls (a
// run_code program and a direct call that mode ptc refuses) through a real ptc
// executor, and pins the request params and the tool messages.
func TestChatRoundTrip(t *testing.T) {
	e := newEnv(t, registry.ModePTC)
	step := e.step(t, &openai.Options{Instructions: "You answer questions about orders."})
	golden(t, "chat_request.golden.json", chatRequest{Tools: step.ChatTools(), Messages: step.ChatSystem()})
	executeChat(t, step, "chat_completion.json", "chat_results.golden.json")
	if diff := cmp.Diff([][]string{{"call_q1Tz8yN0cV4mLr2XbK7hD5sA", "call_W3eR6tY9uI2oP5aS8dF1gH4j"}}, e.rec.got()); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}

// TestResponsesRoundTrip takes a hand-written response (a reasoning item and two
// function calls: run_code, and a direct call with invalid arguments) through
// mode both with strict tools, and pins the params and the function_call_output
// items.
func TestResponsesRoundTrip(t *testing.T) {
	e := newEnv(t, registry.ModeBoth)
	step := e.step(t, &openai.Options{Strict: true})
	golden(t, "responses_request.golden.json", responsesRequest{Instructions: step.Instructions(), Tools: step.ResponsesTools()})
	executeResponses(t, step, "response.json", "responses_results.golden.json")
	if diff := cmp.Diff([][]string{{"call_Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2", "call_Pp1Oo2Ii3Uu4Yy5Tt6Rr7Ee8"}}, e.rec.got()); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}

// TestImages pins where images go: a run_code program's attributed image and a
// direct call's image, as a trailing user message for Chat and as input_image
// parts of the function_call_output for Responses.
func TestImages(t *testing.T) {
	t.Run("chat", func(t *testing.T) {
		e := newEnv(t, registry.ModeBoth)
		executeChat(t, e.step(t, &openai.Options{ImageDetail: "low"}), "chat_image.json", "chat_image.golden.json")
	})
	t.Run("responses", func(t *testing.T) {
		e := newEnv(t, registry.ModeBoth)
		executeResponses(t, e.step(t, nil), "response_image.json", "responses_image.golden.json")
	})
}

// executeChat executes the hand-written chat completion testdata/reply in step and
// compares the tool messages with the golden file want.
func executeChat(t *testing.T, step *openai.Step, reply, want string) {
	t.Helper()
	var completion oai.ChatCompletion
	fixture(t, reply, &completion)
	msgs, err := step.ExecuteChat(context.Background(), completion.Choices[0].Message)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, want, msgs)
}

// executeResponses executes the hand-written response testdata/reply in step and
// compares the input items with the golden file want.
func executeResponses(t *testing.T, step *openai.Step, reply, want string) {
	t.Helper()
	var resp responses.Response
	fixture(t, reply, &resp)
	items, err := step.ExecuteResponses(context.Background(), &resp)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, want, items)
}

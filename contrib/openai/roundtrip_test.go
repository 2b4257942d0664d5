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

// TestChatRoundTrip takes a recorded chat completion with two tool calls (a
// run_code program and a direct call that mode ptc refuses) through a real ptc
// executor, and pins the request params and the tool messages.
func TestChatRoundTrip(t *testing.T) {
	e := newEnv(t, registry.ModePTC)
	ad, err := openai.NewByMode(e.execs, &openai.Options{Instructions: "You answer questions about orders."})
	if err != nil {
		t.Fatal(err)
	}
	step, err := ad.Step(e.set)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "chat_request.golden.json", chatRequest{Tools: step.ChatTools(), Messages: step.ChatSystem()})

	var completion oai.ChatCompletion
	fixture(t, "chat_completion.json", &completion)
	msgs, err := step.ExecuteChat(context.Background(), completion.Choices[0].Message)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "chat_results.golden.json", msgs)
	if diff := cmp.Diff([][]string{{"call_q1Tz8yN0cV4mLr2XbK7hD5sA", "call_W3eR6tY9uI2oP5aS8dF1gH4j"}}, e.rec.got()); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}

// TestResponsesRoundTrip takes a recorded response (a reasoning item and two
// function calls: run_code, and a direct call with invalid arguments) through
// mode both with strict tools, and pins the params and the function_call_output
// items.
func TestResponsesRoundTrip(t *testing.T) {
	e := newEnv(t, registry.ModeBoth)
	ad, err := openai.NewByMode(e.execs, &openai.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	step, err := ad.Step(e.set)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "responses_request.golden.json", responsesRequest{Instructions: step.Instructions(), Tools: step.ResponsesTools()})

	var resp responses.Response
	fixture(t, "response.json", &resp)
	items, err := step.ExecuteResponses(context.Background(), &resp)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "responses_results.golden.json", items)
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
		ad, err := openai.NewByMode(e.execs, &openai.Options{ImageDetail: "low"})
		if err != nil {
			t.Fatal(err)
		}
		step, err := ad.Step(e.set)
		if err != nil {
			t.Fatal(err)
		}
		var completion oai.ChatCompletion
		fixture(t, "chat_image.json", &completion)
		msgs, err := step.ExecuteChat(context.Background(), completion.Choices[0].Message)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "chat_image.golden.json", msgs)
	})
	t.Run("responses", func(t *testing.T) {
		e := newEnv(t, registry.ModeBoth)
		ad, err := openai.NewByMode(e.execs, nil)
		if err != nil {
			t.Fatal(err)
		}
		step, err := ad.Step(e.set)
		if err != nil {
			t.Fatal(err)
		}
		var resp responses.Response
		fixture(t, "response_image.json", &resp)
		items, err := step.ExecuteResponses(context.Background(), &resp)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "responses_image.golden.json", items)
	})
}

package openai

import (
	"context"
	"fmt"
	"maps"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	"github.com/runcode-go/runcode/pipeline"
)

// ChatTools returns the step's tools as Chat Completions function tools, in the
// executor's order: the parameters are the tool's JSON Schema, and strict is set
// only on a tool whose schema qualifies, under Options.Strict. Chat has no lazy
// loading, so a tool marked DeferLoading is sent like any other.
func (s *Step) ChatTools() []oai.ChatCompletionToolUnionParam {
	out := make([]oai.ChatCompletionToolUnionParam, len(s.desc.Tools))
	for i, t := range s.desc.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: maps.Clone(s.params[i])}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if s.strict[i] {
			fn.Strict = param.NewOpt(true)
		}
		out[i] = oai.ChatCompletionFunctionTool(fn)
	}
	return out
}

// ChatSystem returns the messages that open a Chat request: one system message
// (a developer message under Options.Developer) with the step's Instructions, or
// none when there is no text. Put it first, before the conversation, so that the
// tools and this message form the stable prefix prompt caching reuses.
func (s *Step) ChatSystem() []oai.ChatCompletionMessageParamUnion {
	if s.instructions == "" {
		return nil
	}
	if s.a.o.Developer {
		return []oai.ChatCompletionMessageParamUnion{oai.DeveloperMessage(s.instructions)}
	}
	return []oai.ChatCompletionMessageParamUnion{oai.SystemMessage(s.instructions)}
}

// ExecuteChat runs the function tool calls of an assistant message as one batch
// (one Execute, so the scheduler runs them together) and returns the messages to
// append after it: one tool message per call, in call order, then, if any result
// carries images, one user message with them.
//
// Chat tool messages carry only text, so an image becomes a line "[image N is in
// the user message after the tool results]" in its tool message, and the user
// message that follows holds each image as an image_url data URL after a line
// "Image N (call <id>):". A failed call's tool message is its "Error: ..." text.
// A custom tool call (a kind runcode never declares) is left to the host. A
// message without function tool calls returns no messages.
//
// When a run_code program stops at a call needing a person's approval, the message
// cannot be answered yet: ExecuteChat returns no messages and a [*ChatPaused] error,
// which lists the calls awaiting a decision and resumes them (its Resume returns these
// messages). Nothing of the pause goes to the model.
func (s *Step) ExecuteChat(ctx context.Context, msg oai.ChatCompletionMessage) ([]oai.ChatCompletionMessageParamUnion, error) {
	var calls []pipeline.RawCall
	for _, tc := range msg.ToolCalls {
		if tc.Type != "function" {
			continue
		}
		calls = append(calls, pipeline.RawCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	results, err := s.execute(ctx, calls)
	if err != nil || results == nil {
		return nil, err
	}
	if p := newPaused(s, chatHost, calls, results, s.chatMessages); p != nil {
		return nil, p
	}
	return s.chatMessages(calls, results), nil
}

// chatMessages renders the results of calls as ExecuteChat returns them.
func (s *Step) chatMessages(calls []pipeline.RawCall, results []*pipeline.Result) []oai.ChatCompletionMessageParamUnion {
	out := make([]oai.ChatCompletionMessageParamUnion, 0, len(results)+1)
	var images []oai.ChatCompletionContentPartUnionParam
	n := 0
	for i, res := range results {
		parts := render(res)
		text := joinText(parts, &n, func(k int) string {
			return fmt.Sprintf("[image %d is in the user message after the tool results]", k)
		})
		out = append(out, oai.ToolMessage(text, calls[i].ID))
		k := n - countImages(parts)
		for _, p := range parts {
			if p.image == "" {
				continue
			}
			k++
			images = append(images,
				oai.TextContentPart(fmt.Sprintf("Image %d (call %s):", k, calls[i].ID)),
				oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: p.image, Detail: s.a.o.ImageDetail}))
		}
	}
	if len(images) > 0 {
		out = append(out, oai.UserMessage(images))
	}
	return out
}

func countImages(parts []part) int {
	n := 0
	for _, p := range parts {
		if p.image != "" {
			n++
		}
	}
	return n
}

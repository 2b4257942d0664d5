package openai

import (
	"context"
	"errors"
	"maps"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/runcode-go/runcode/pipeline"
)

// ResponsesTools returns the step's tools as Responses API function tools, in the
// executor's order. The Responses API treats a function without strict as strict,
// so strict is always sent: true only on a tool whose schema qualifies, under
// Options.Strict, and false otherwise. A tool marked DeferLoading is sent with
// defer_loading, which needs a tool_search tool in the same request.
func (s *Step) ResponsesTools() []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, len(s.desc.Tools))
	for i, t := range s.desc.Tools {
		fn := &responses.FunctionToolParam{Name: t.Name, Parameters: maps.Clone(s.params[i]), Strict: param.NewOpt(s.strict[i])}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if t.DeferLoading {
			fn.DeferLoading = param.NewOpt(true)
		}
		out[i] = responses.ToolUnionParam{OfFunction: fn}
	}
	return out
}

// ExecuteResponses runs the function_call items of resp's output as one batch
// (one Execute, so the scheduler runs them together) and returns one
// function_call_output item per call, in call order, to send as the next
// request's input (with previous_response_id, or after resp's output items).
//
// An output without images is the result's text; one with images is a list of
// input_text and input_image parts (images as data URLs), which function call
// outputs accept. A failed call's output is its "Error: ..." text. Other output
// items (messages, reasoning, custom or built-in tool calls) are left to the host.
// A response without function calls returns no items.
//
// When a run_code program stops at a call needing a person's approval, the response
// cannot be answered yet: ExecuteResponses returns no items and a [*ResponsesPaused]
// error, which lists the calls awaiting a decision and resumes them (its Resume returns
// these items). Nothing of the pause goes to the model.
func (s *Step) ExecuteResponses(ctx context.Context, resp *responses.Response) ([]responses.ResponseInputItemUnionParam, error) {
	if resp == nil {
		return nil, errors.New("openai: the response is nil")
	}
	var calls []pipeline.RawCall
	for _, item := range resp.Output {
		if item.Type != "function_call" {
			continue
		}
		fc := item.AsFunctionCall()
		calls = append(calls, pipeline.RawCall{ID: fc.CallID, Name: fc.Name, Arguments: fc.Arguments})
	}
	results, err := s.execute(ctx, calls)
	if err != nil || results == nil {
		return nil, err
	}
	if p := newPaused(s, responsesHost, calls, results, s.responsesItems); p != nil {
		return nil, p
	}
	return s.responsesItems(calls, results), nil
}

// responsesItems renders the results of calls as ExecuteResponses returns them.
func (s *Step) responsesItems(calls []pipeline.RawCall, results []*pipeline.Result) []responses.ResponseInputItemUnionParam {
	out := make([]responses.ResponseInputItemUnionParam, len(results))
	for i, res := range results {
		parts := render(res)
		var item responses.ResponseInputItemUnionParam
		if countImages(parts) == 0 {
			n := 0
			item = responses.ResponseInputItemParamOfFunctionCallOutput(joinText(parts, &n, nil))
		} else {
			item = responses.ResponseInputItemParamOfFunctionCallOutput(s.outputList(parts))
		}
		item.OfFunctionCallOutput.CallID = param.NewOpt(calls[i].ID)
		out[i] = item
	}
	return out
}

// outputList turns parts into function_call_output content, one part each but
// for empty text, which the list has no use for.
func (s *Step) outputList(parts []part) responses.ResponseFunctionCallOutputItemListParam {
	out := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(parts))
	for _, p := range parts {
		if p.image == "" {
			if p.text != "" {
				out = append(out, responses.ResponseFunctionCallOutputItemParamOfInputText(p.text))
			}
			continue
		}
		img := &responses.ResponseInputImageContentParam{ImageURL: param.NewOpt(p.image)}
		if s.a.o.ImageDetail != "" {
			img.Detail = responses.ResponseInputImageContentDetail(s.a.o.ImageDetail)
		}
		out = append(out, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: img})
	}
	return out
}

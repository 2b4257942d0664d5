package eino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/runcode-go/runcode/registry"
)

// ToolOptions configures [Tool] and [Register]. Nil means every default.
type ToolOptions struct {
	// Source names where the tools come from (registry.Tool.Source), which the SDK
	// index groups tools by. Empty means "eino".
	Source string
	// TimeoutMs is each tool's declared deadline (registry.Tool.TimeoutMs). Zero means
	// none.
	TimeoutMs int
	// ConcurrencySafe lets calls of the tools overlap with other parallel-safe calls.
	// False (the default) runs each call alone, since an Eino tool says nothing about
	// its side effects.
	ConcurrencySafe bool
	// Text keeps each answer as a string value. False (the default) decodes an answer
	// that is JSON text (what utils.InferTool's tools answer: their output struct,
	// marshalled) as the value, so that a program gets an object; an answer that is
	// not JSON stays a string.
	Text bool
}

// Tool turns an Eino tool into a runcode tool, so that a run_code program (or a model,
// under modes native and both) can call it through the pipeline. t must be a
// tool.InvokableTool or a tool.EnhancedInvokableTool (a streaming tool is refused);
// its Info, asked once, gives the name, the description and the parameters
// (ParamsOneOf's JSON Schema; none means any object).
//
// A call passes its arguments, validated and canonical, as the JSON string Eino tools
// take, and the answer is the value (see ToolOptions.Text). An enhanced tool's text
// parts, joined by line breaks, are the value, and its parts are the content: text,
// images with base64 data, and a line naming an image, audio, video or file given by
// URL. A Go error from the tool fails the call with its message; an Eino interrupt
// (tool.Interrupt) is such an error too, since runcode pauses only for approvals.
func Tool(ctx context.Context, t tool.BaseTool, opts *ToolOptions) (*registry.Tool, error) {
	if t == nil {
		return nil, errors.New("eino: Tool: nil tool")
	}
	var o ToolOptions
	if opts != nil {
		o = *opts
	}
	if o.Source == "" {
		o.Source = "eino"
	}
	info, err := t.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("eino: Tool: info: %w", err)
	}
	if info == nil || info.Name == "" {
		return nil, fmt.Errorf("eino: Tool: %T has no name in its info", t)
	}
	var params registry.Schema
	if info.ParamsOneOf != nil {
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			return nil, fmt.Errorf("eino: tool %q: parameters: %w", info.Name, err)
		}
		if js != nil {
			raw, err := json.Marshal(js)
			if err != nil {
				return nil, fmt.Errorf("eino: tool %q: parameters: %w", info.Name, err)
			}
			params = registry.RawSchema(raw)
		}
	}
	rt := &registry.Tool{
		Name:        info.Name,
		Description: info.Desc,
		Source:      o.Source,
		Parameters:  params,
		TimeoutMs:   o.TimeoutMs,
	}
	if o.ConcurrencySafe {
		rt.IsConcurrencySafe = func(registry.Value) bool { return true }
	}
	switch t := t.(type) {
	case tool.InvokableTool:
		rt.Execute = func(ctx context.Context, call *registry.Call) (any, error) {
			out, err := t.InvokableRun(ctx, call.Args.String())
			if err != nil {
				return nil, err
			}
			return value(out, o.Text), nil
		}
	case tool.EnhancedInvokableTool:
		rt.Execute = func(ctx context.Context, call *registry.Call) (any, error) {
			res, err := t.InvokableRun(ctx, &schema.ToolArgument{Text: call.Args.String()})
			if err != nil {
				return nil, err
			}
			return answer(res, o.Text), nil
		}
	default:
		return nil, fmt.Errorf("eino: tool %q (%T) is neither a tool.InvokableTool nor a tool.EnhancedInvokableTool", info.Name, t)
	}
	return rt, nil
}

// Register turns each of tools into a runcode tool with [Tool] and registers it in
// scope. It registers all or none: on an error it disposes of what it registered.
// dispose removes them all.
func Register(ctx context.Context, scope *registry.Scope, tools []tool.BaseTool, opts *ToolOptions) (dispose func(), err error) {
	var undo []func()
	dispose = func() {
		for _, d := range undo {
			d()
		}
	}
	for _, t := range tools {
		rt, err := Tool(ctx, t, opts)
		if err != nil {
			dispose()
			return nil, err
		}
		d, err := scope.Register(rt)
		if err != nil {
			dispose()
			return nil, fmt.Errorf("eino: Register: %w", err)
		}
		undo = append(undo, d)
	}
	return dispose, nil
}

// value is an answer as a canonical value: its JSON, or the string.
func value(out string, text bool) any {
	if !text {
		if v, err := registry.ParseValue([]byte(out)); err == nil {
			return v
		}
	}
	return out
}

// answer is an enhanced tool's result as a runcode answer: the text parts as the
// value, and every part as content.
func answer(res *schema.ToolResult, text bool) registry.Answer {
	var texts []string
	var content []registry.Content
	if res == nil {
		res = &schema.ToolResult{}
	}
	for _, p := range res.Parts {
		var common *schema.MessagePartCommon
		switch p.Type {
		case schema.ToolPartTypeText:
			texts = append(texts, p.Text)
			content = append(content, registry.Text(p.Text))
			continue
		case schema.ToolPartTypeImage:
			if p.Image != nil {
				common = &p.Image.MessagePartCommon
			}
		case schema.ToolPartTypeAudio:
			if p.Audio != nil {
				common = &p.Audio.MessagePartCommon
			}
		case schema.ToolPartTypeVideo:
			if p.Video != nil {
				common = &p.Video.MessagePartCommon
			}
		case schema.ToolPartTypeFile:
			if p.File != nil {
				common = &p.File.MessagePartCommon
			}
		}
		content = append(content, media(string(p.Type), common))
	}
	return registry.Answer{Value: value(strings.Join(texts, "\n"), text), Content: content}
}

// media is a non-text part as content: base64 images and audio as such, anything
// else (a URL, a video, a file, a part without content) as a line naming it.
func media(kind string, c *schema.MessagePartCommon) registry.Content {
	switch {
	case c == nil:
		return registry.Text(fmt.Sprintf("[%s part without content]", kind))
	case c.Base64Data != nil && (kind == "image" || kind == "audio"):
		return registry.Content{Type: kind, Data: *c.Base64Data, MIMEType: c.MIMEType}
	case c.URL != nil:
		return registry.Text(fmt.Sprintf("[%s %s at %s]", kind, c.MIMEType, *c.URL))
	default:
		return registry.Text(fmt.Sprintf("[%s of type %q omitted]", kind, c.MIMEType))
	}
}
